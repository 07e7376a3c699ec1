"""The checked ranks of a ``.tiktoken`` file, kept on disk per file.

Reading a rank file decodes a base64 token per line in Python (o200k_base: 200k lines,
0.43 s), every time a run loads it; tiktoken then builds its encoder from the ranks in
Rust. The ranks never change for a file, so once checked they are stored per file
(the sha256 of its bytes), per version of the code that checks them and per Python
(``marshal``'s format is Python's own) in ``$TOKBENCH_CACHE/tiktoken-ranks/``:
o200k_base's ranks then read in 0.07 s. ``marshal`` holds data only, never code. An
entry that cannot be read, or holds anything but ranks, is ignored (the file is read
again); a cache that cannot be written is skipped.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

from tokbench.adapters.file_cache import entry_path
from tokbench.atomic import write_entry
from tokbench.errors import TokbenchError

FORMAT = 1


def _path(sha256: str) -> Path | None:
    python = f"{sys.implementation.cache_tag}:{marshal.version}"
    return entry_path("tiktoken-ranks", "tokbench.adapters.tiktoken_adapter", sha256,
                      ".marshal", str(FORMAT), python)


def read_ranks(sha256: str) -> dict[bytes, int] | None:
    """The ranks stored for the rank file of ``sha256``, or None."""
    try:
        path = _path(sha256)
        if path is None:
            return None
        ranks = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError, TokbenchError):
        return None
    if not isinstance(ranks, dict) or not ranks:
        return None
    # a damaged entry that still reads as a dict must not become a vocabulary
    k, v = next(iter(ranks.items()))
    if type(k) is not bytes or type(v) is not int:
        return None
    return ranks


def write_ranks(sha256: str, ranks: dict[bytes, int]) -> None:
    """Store the checked ``ranks`` of the rank file of ``sha256`` atomically."""
    write_entry(_path(sha256), marshal.dumps(ranks))
