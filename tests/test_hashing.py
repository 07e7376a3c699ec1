"""One file hash (tokbench.hashing): remembered per (path, size, mtime), renewed when the
file is written again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tokbench.hashing import module_sha256, sha256_file


def test_sha256_file_is_the_hash_of_the_bytes_and_follows_a_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"a\nb\n")
    assert sha256_file(path) == hashlib.sha256(b"a\nb\n").hexdigest()
    assert sha256_file(str(path)) == sha256_file(path)
    path.write_bytes(b"a\nb\nc\n")
    os.utime(path, ns=(1, 1))  # a new size and time: hashed anew
    assert sha256_file(path) == hashlib.sha256(b"a\nb\nc\n").hexdigest()


def test_module_sha256_hashes_the_source_file() -> None:
    import tokbench.hashing as mod

    assert module_sha256("tokbench.hashing") == hashlib.sha256(
        Path(mod.__file__).read_bytes()).hexdigest()
    assert module_sha256("no.such.module") is None
