"""File hashes remembered per (path, size, mtime), pinned-hash checks and verified atomic
writes of fetched files."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from tokbench.errors import HashMismatchError, SourceError
from tokbench.hashing import sha256_file


def verified_file(path: Path, sha256: str) -> bool:
    """Whether ``path`` exists and has the pinned sha256."""
    return path.is_file() and sha256_file(path) == sha256


def hash_mismatch(what: str, expected: str, actual: str) -> HashMismatchError:
    return HashMismatchError(
        f"{what}: sha256 mismatch, expected {expected} but got {actual}; the file was refused "
        "and not cached")


def tampered_cache_error(path: Path, expected: str) -> HashMismatchError:
    """A cached file whose content no longer has its pinned sha256 (offline: not replaced)."""
    return HashMismatchError(
        f"{path}: the cached file's sha256 {sha256_file(path)} does not match the pinned "
        f"{expected} (damaged or modified); delete it and fetch again without offline mode")


def write_verified(target: Path, chunks: Iterable[bytes], sha256: str | None, what: str) -> str:
    """Write ``chunks`` to ``target`` atomically (temp file + rename) if the hash matches.

    Returns the sha256 written. On a mismatch nothing is left behind and
    ``HashMismatchError`` names ``what`` with both hashes.
    """
    from tokbench.atomic import atomic_open

    h = hashlib.sha256()
    try:
        with atomic_open(target) as out:
            for chunk in chunks:
                h.update(chunk)
                out.write(chunk)
            actual = h.hexdigest()
            if sha256 is not None and actual != sha256:
                raise hash_mismatch(what, sha256, actual)  # the temporary file is removed
    except OSError as e:
        raise SourceError(f"{target}: cannot write into the tokenizer cache "
                          f"({e.strerror or e}); set $TOKBENCH_CACHE to a writable "
                          "folder") from None
    return actual
