"""A cache of facts that depend only on a tokenizer's files: its vocabulary facts.

Counting UTF-8 fragments and unreachable tokens tests every token (seconds for a
250k vocabulary) and gives the same answer for the same files every time. An entry is
keyed by everything the answer depends on: the tokenizer as ``describe()`` states it
(files' sha256, backend and its version, vocabulary size, special tokens) and the source
of the code that computes it (``tokbench.metrics.tokenizer_facts`` and the adapter's module), so a
new tokbench method or library version is a new key, never a stale number.

Entries live in ``$TOKBENCH_CACHE/facts/`` (the user cache folder), written atomically.
An entry that cannot be read, does not parse, names another key, or fails its checksum
is ignored and computed again; a cache that cannot be written is simply not written.
A tokenizer without a file hash (trained in memory, built-in) is never cached.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.hashing import module_sha256

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

FORMAT = 1


def facts_key(tok: Tokenizer, kind: str, method_module: str) -> str | None:
    """The cache key of ``kind`` facts of ``tok`` computed by ``method_module``; None when
    ``tok`` cannot be identified by its files."""
    described = tok.describe()
    source = dict(described.get("source") or {})
    if not source.get("sha256"):
        return None
    code = [module_sha256(method_module), module_sha256(type(tok).__module__)]
    if None in code:
        return None
    source.pop("path", None)  # where the file sits on this machine changes nothing
    described = {k: v for k, v in described.items() if k != "name"}
    described["source"] = source
    blob = json.dumps({"format": FORMAT, "kind": kind, "tokenizer": described,
                       "class": f"{type(tok).__module__}.{type(tok).__qualname__}",
                       "code": code}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _entry_path(key: str) -> Path:
    from tokbench.paths import cache_dir

    return cache_dir() / "facts" / key[:2] / f"{key}.json"


def _checksum(facts: dict[str, int]) -> str:
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode("utf-8")).hexdigest()


def read_facts(key: str) -> dict[str, int] | None:
    """The cached facts under ``key``, or None when absent or not trustworthy."""
    try:
        data: Any = json.loads(_entry_path(key).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    facts = data.get("facts")
    if not isinstance(facts, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
            for k, v in facts.items()):
        return None
    if data.get("checksum") != _checksum(facts):
        return None
    return facts


def write_facts(key: str, facts: dict[str, int]) -> None:
    """Store ``facts`` under ``key`` atomically; a cache that cannot be written is skipped."""
    from tokbench.atomic import atomic_open

    # the facts keep their order (the order of the rows made from them)
    blob = json.dumps({"key": key, "facts": facts, "checksum": _checksum(facts)}
                      ).encode("utf-8")
    try:
        with atomic_open(_entry_path(key)) as f:
            f.write(blob)
    except OSError:
        pass


def cached_facts(tok: Tokenizer, kind: str, method_module: str,
                 compute: Callable[[Tokenizer], dict[str, int]]) -> tuple[dict[str, int], bool]:
    """``compute(tok)``, from the cache when an entry for these files and this code
    exists; returns (facts, whether they came from the cache)."""
    key = facts_key(tok, kind, method_module)
    if key is not None:
        hit = read_facts(key)
        if hit is not None:
            return hit, True
    facts = compute(tok)
    if key is not None:
        write_facts(key, facts)
    return facts, False
