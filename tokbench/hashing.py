"""The sha256 of a file, the one way tokbench hashes files (tokenizer files, trained
vocabularies, its own modules for cache keys: ``module_sha256``).

A hash is remembered per (path, size, modification time) for the life of the process, so a
file read by several steps (fetch, load, describe) is hashed once; a file written again
gets a new modification time and is hashed anew.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from functools import cache

_known: dict[tuple[str, int, int], str] = {}
_known_lock = threading.Lock()


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    """Hex sha256 of the file at ``path``, read in chunks (see the module doc)."""
    st = os.stat(path)
    key = (os.fspath(path), st.st_size, st.st_mtime_ns)
    with _known_lock:
        if key in _known:
            return _known[key]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    digest = h.hexdigest()
    with _known_lock:
        _known[key] = digest
    return digest


@cache
def module_sha256(module: str) -> str | None:
    """sha256 of a module's source file, None if it has none or cannot be read: part of a
    cache key, so a cached result is recomputed once the code that made it changes
    (remembered per module: the code of a running process does not change). A module not
    imported here is hashed from the file importing it would read (a run's process keys
    the plots its render worker draws without importing matplotlib's renderers)."""
    if module in sys.modules:
        path = getattr(sys.modules[module], "__file__", None)
    else:
        import importlib.util

        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            return None
        path = spec.origin if spec is not None else None
    if not path:
        return None
    try:
        return sha256_file(path)
    except OSError:
        return None
