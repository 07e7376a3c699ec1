"""A tokenizer's per-token table (every token's bytes, which are UTF-8 fragments, which
are byte-fallback tokens) kept on disk per file.

Filling the table costs each process that measures text with the tokenizer a pass over
its vocabulary (cl100k_base: 0.08 s from the rank table; xlm-roberta: 0.6 s for 250k
pieces asked one by one, or a part of that paid shard by shard for the ids met), and gives
the same table for the same files every time. An entry is keyed as the vocabulary facts
are (``tokbench.metrics.factcache.facts_key``: the tokenizer as ``describe()`` states it,
the adapter's code and the code that fills the table), in ``$TOKBENCH_CACHE/tables/``,
written atomically. An entry that cannot be read, names another key or whose arrays do not
fit together is ignored and the table filled again; a cache that cannot be written is
skipped. A tokenizer without a file hash (trained in memory, built-in) is never cached.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

FORMAT = 1
#: the module whose code fills the table (part of the key)
FILLED_BY = "tokbench.metrics.compute"


@dataclass(frozen=True)
class StoredTable:
    """Every id's facts, aligned by id: ``length`` of its bytes, which lie end to end in
    ``flat``; ``known`` (the backend gave its bytes), ``partial`` (not valid UTF-8 alone),
    ``fallback`` (a byte-fallback token)."""

    length: np.ndarray
    flat: bytes
    known: np.ndarray
    partial: np.ndarray
    fallback: np.ndarray


def table_key(tok: Tokenizer) -> str | None:
    """The cache key of ``tok``'s table; None when ``tok`` has no file hash, or cannot
    describe itself (a tokenizer class of a test or plugin may not: it is then filled as
    ids come, as before this cache)."""
    from tokbench.metrics.factcache import facts_key

    try:
        return facts_key(tok, f"token-table-{FORMAT}", FILLED_BY)
    except Exception:
        return None


def _path(key: str) -> Path | None:
    """The entry's file; None when no cache folder can be used."""
    from tokbench.paths import cache_folder

    folder = cache_folder("tables")
    return None if folder is None else folder / key[:2] / f"{key}.npz"


def read_table(key: str) -> StoredTable | None:
    """The table stored under ``key``, or None when absent or not trustworthy."""
    path = _path(key)
    if path is None:
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            stored = str(z["key"])
            length, flat = z["length"].astype(np.int64), z["flat"]
            known, partial, fallback = z["known"], z["partial"], z["fallback"]
    except Exception:  # absent, torn, not an npz, a member missing or damaged
        return None
    n = length.shape
    if stored != key or length.ndim != 1 or flat.ndim != 1 or flat.dtype != np.uint8 \
            or any(a.shape != n or a.dtype != np.bool_ for a in (known, partial, fallback)) \
            or (length < 0).any() or int(length.sum()) != flat.size \
            or (length[~known] != 0).any():
        return None
    return StoredTable(length, flat.tobytes(), known, partial, fallback)


def write_table(key: str, table: StoredTable) -> None:
    """Store ``table`` under ``key`` atomically; skipped when the cache cannot be written."""
    from tokbench.atomic import write_entry

    buf = io.BytesIO()
    np.savez(buf, key=np.array(key), length=table.length.astype(np.int32),
             flat=np.frombuffer(table.flat, dtype=np.uint8), known=table.known,
             partial=table.partial, fallback=table.fallback)
    write_entry(_path(key), buf.getvalue())
