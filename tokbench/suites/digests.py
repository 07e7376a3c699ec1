"""Suite content hashes kept on disk, keyed by what the documents are made of.

``Suite.sha256`` formats every document as a JSON line and hashes them: about 0.3 s on
each run over FLORES-200's 84,000 documents. A suite read from files is a function of
those files' bytes, the loading options and the code that reads them, so its loader gives
it a ``digest_key`` of exactly that (``source_key``), and the hash computed once under a
key is read back from ``$TOKBENCH_CACHE/suites/`` on the next run. One changed byte of a
file, option or reading module makes another key. An entry that cannot be read or is
not a sha256 is ignored (hashed again); a cache that cannot be written is skipped.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from tokbench.errors import TokbenchError
from tokbench.hashing import module_sha256

FORMAT = 1
#: the code that turns files into documents and documents into the hash
MODULES = ("tokbench.constants", "tokbench.suites.langs", "tokbench.suites.reading",
           "tokbench.suites.external", "tokbench.suites.model")
_HEX = re.compile(r"[0-9a-f]{64}")


def source_key(loader: str, options: Mapping[str, str], files: Sequence[tuple[str, str]]
               ) -> str | None:
    """The key of a suite that ``loader`` made with ``options`` from ``files`` (each its
    path as read and the sha256 of its bytes, in reading order); None when the reading
    code cannot be hashed."""
    code = [module_sha256(m) for m in MODULES]
    if not all(code):
        return None
    ident = [FORMAT, code, loader, sorted(options.items()), [list(f) for f in files]]
    return hashlib.sha256(json.dumps(ident, ensure_ascii=False).encode("utf-8")).hexdigest()


def _path(key: str) -> Path:
    from tokbench.paths import cache_dir

    return cache_dir() / "suites" / key[:2] / f"{key}.sha256"


def read_digest(key: str) -> str | None:
    """The suite hash stored under ``key``, or None when absent or not a sha256."""
    try:
        text = _path(key).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError, TokbenchError):  # absent, unreadable, no cache
        return None
    return text if _HEX.fullmatch(text) else None


def write_digest(key: str, digest: str) -> None:
    """Store ``digest`` under ``key`` atomically; skipped when the cache cannot be written."""
    from tokbench.atomic import atomic_open

    try:
        with atomic_open(_path(key)) as f:
            f.write(digest.encode("ascii") + b"\n")
    except (OSError, TokbenchError):  # a read-only or misnamed cache: hash again next time
        pass
