"""The one way tokbench writes a file: a temporary file beside it, then a rename.

A reader never sees a half-written file, a failed write leaves no temporary file, and
every file gets mode 0644 (``mkstemp`` alone would make it 0600): results, baselines,
reports and cached tokenizer files are meant to be shared.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from tokbench.errors import TokbenchError

FILE_MODE = 0o644


@contextmanager
def atomic_open(target: str | Path, *, mode: int = FILE_MODE) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``target`` when the ``with`` block ends without error.

    On any exception (including KeyboardInterrupt) the temporary file is removed and
    ``target`` is untouched. Parent folders are created.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.chmod(name, mode)
        os.replace(name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
        raise


def write_atomic(target: str | Path, data: str | bytes | Iterable[bytes], *,
                 mode: int = FILE_MODE, what: str = "") -> Path:
    """Write ``data`` (text as UTF-8, bytes, or chunks of bytes) to ``target`` atomically.

    An OSError becomes a one-line ``TokbenchError`` naming the file (``what`` says what it
    is, e.g. "the baseline").
    """
    target = Path(target)
    try:
        with atomic_open(target, mode=mode) as f:
            if isinstance(data, str):
                f.write(data.encode("utf-8"))
            elif isinstance(data, bytes):
                f.write(data)
            else:
                for chunk in data:
                    f.write(chunk)
    except OSError as e:
        label = f" {what}" if what else ""
        raise TokbenchError(f"{target}: cannot write{label} ({e.strerror or e})") from None
    return target


def write_entry(path: Path | None, data: bytes) -> None:
    """A cache entry: ``data`` at ``path``, atomically; nothing when there is no path or
    the cache cannot be written (the next reader computes it again)."""
    if path is None:
        return
    try:
        with atomic_open(path) as f:
            f.write(data)
    except (OSError, TokbenchError):
        pass
