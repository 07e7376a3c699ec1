"""A run's output folder: locked while a run writes it, replaced as a whole at the end.

``tokbench run --out OUT`` takes ``OutputFolder(OUT)``:

* a lock file ``.OUT.lock`` beside ``OUT`` (``flock``, released by the kernel when the
  process dies, so a lock left by a killed run is simply taken over) records the pid,
  host and start time of the holder; a second run names them and stops; a run that ends
  removes it (a killed one leaves it, harmless);
* the run writes into ``.OUT.partial`` beside ``OUT`` (its checkpoints too, so ``--resume``
  after ``kill -9`` finds them); ``publish()`` swaps that folder in for ``OUT``, so
  files of an earlier run (stale plots) never mix with this run's.

``OUT`` is only replaced when it holds nothing but files tokbench writes; a folder with
anything else in it is refused rather than deleted.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tokbench.atomic import write_atomic
from tokbench.errors import InputError, TokbenchError

#: what a run folder may hold (anything else and it is not replaced)
OUTPUT_FILES = re.compile(r"^(results\.json|results\.csv|report\.md|report\.html|viewer\.json|"
                          r"compare\.md|[^/]+\.png|\.[^/]+)$")  # hidden files: temp, .DS_Store


class OutputLockedError(TokbenchError):
    """Another run is writing the same output folder."""


class OutputFolder:
    """Lock, staging folder and final swap of one run's output folder (a context manager)."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        self.lock_path = self.out.parent / f".{self.out.name}.lock"
        self.staging = self.out.parent / f".{self.out.name}.partial"
        self._lock_file: IO[str] | None = None

    # -- checks ----------------------------------------------------------------------------
    def check(self) -> None:
        """Refuse an ``OUT`` that is a file or a folder holding other things."""
        if not self.out.name or self.out.name in (".", ".."):
            raise InputError(f"--out {self.out}: name a folder of its own, e.g. "
                             f"{self.out / 'tokbench-run'}")
        for path in (self.out, *self.out.parents):
            if path.exists() and not path.is_dir():
                raise InputError(f"--out {self.out}: {path} is a file; give a folder for the "
                                 "run's files")
        if self.out.is_dir():
            others = sorted(p.name for p in self.out.iterdir()
                            if not OUTPUT_FILES.match(p.name) or p.is_dir())
            if others:
                raise InputError(f"--out {self.out}: holds {others[0]!r}, which tokbench did "
                                 "not write; the folder is replaced by each run, so give an "
                                 "empty or new folder")

    # -- locking ---------------------------------------------------------------------------
    def __enter__(self) -> OutputFolder:
        self.check()
        while True:
            try:
                self.out.parent.mkdir(parents=True, exist_ok=True)
                f = open(self.lock_path, "a+", encoding="utf-8")  # held until exit
            except OSError as e:
                raise InputError(f"--out {self.out}: cannot write there ({e.strerror or e})") \
                    from None
            if not _try_lock(f):
                f.seek(0)
                holder = _describe_holder(f.read())
                f.close()
                raise OutputLockedError(f"--out {self.out} is being written by another "
                                        f"tokbench run ({holder}); wait for it or choose "
                                        "another --out")
            if _same_file(f, self.lock_path):
                break
            f.close()  # its holder removed it on exit after we opened it: lock the new one
        f.seek(0)
        f.truncate()
        f.write(json.dumps({"pid": os.getpid(), "host": platform.node(),
                            "started": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}))
        f.flush()
        self._lock_file = f
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._lock_file is not None:
            # removed while still locked, then released: a run that opened the old file
            # meanwhile sees that it is no longer the one at the path and locks a new one
            # (``_same_file``); a run killed here leaves the file, which the next run takes
            # over since the kernel released the lock
            with contextlib.suppress(OSError):
                os.unlink(self.lock_path)
            self._lock_file.close()  # closing releases the lock
            self._lock_file = None

    # -- staging and the swap --------------------------------------------------------------
    def resume_source(self) -> Path | None:
        """Where ``--resume`` reads: the staging folder a killed run left, else ``OUT``."""
        for folder in (self.staging, self.out):
            if (folder / "results.json").is_file():
                return folder
        return None

    def start(self, carry: Sequence[str] = ()) -> Path:
        """A fresh staging folder for this run's files.

        It is empty but for the files named in ``carry`` (a resumed run's checkpoints),
        kept from the staging folder a killed run left, else copied from ``OUT``.
        """
        try:
            kept = {}
            for name in carry:
                for folder in (self.staging, self.out):
                    if (folder / name).is_file():
                        kept[name] = (folder / name).read_bytes()
                        break
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging.mkdir(parents=True)
            for name, data in kept.items():
                write_atomic(self.staging / name, data)
        except OSError as e:
            raise InputError(f"--out {self.out}: cannot create {self.staging} "
                             f"({e.strerror or e})") from None
        return self.staging

    def publish(self) -> Path:
        """Replace ``OUT`` by the staging folder (the old folder is removed)."""
        old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
        try:
            if self.out.exists():
                self.check()  # still only our files
                os.replace(self.out, old)
            os.replace(self.staging, self.out)
        except OSError as e:
            if old.exists() and not self.out.exists():
                os.replace(old, self.out)
            raise InputError(f"--out {self.out}: cannot replace it ({e.strerror or e}); this "
                             f"run's files are in {self.staging}") from None
        shutil.rmtree(old, ignore_errors=True)
        return self.out

    def discard(self) -> None:
        """Remove the staging folder (nothing of this run is kept)."""
        shutil.rmtree(self.staging, ignore_errors=True)


def _try_lock(f: IO[str]) -> bool:
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (the staging swap still keeps runs apart)
        return True
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _same_file(f: IO[str], path: Path) -> bool:
    """Whether the open file ``f`` is still the file at ``path`` (not removed or replaced)."""
    try:
        return os.path.samestat(os.fstat(f.fileno()), os.stat(path))
    except OSError:
        return False


def _describe_holder(text: str) -> str:
    try:
        info: Any = json.loads(text)
    except json.JSONDecodeError:
        info = None
    if not isinstance(info, dict):
        return "holder unknown"
    return (f"pid {info.get('pid', '?')} on {info.get('host', '?')}, started "
            f"{info.get('started', '?')}")
