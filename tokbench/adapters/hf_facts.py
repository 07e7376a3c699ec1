"""What the ``tokenizers`` adapter reads from a ``tokenizer.json`` besides the backend,
kept on disk per file.

Loading a large ``tokenizer.json`` parses it twice: ``json.loads`` for the adapter's own
facts (component kinds, piece rules, the unknown token, whether a special piece is
reachable), then ``tokenizers`` itself. The facts come from a few small nodes plus one
look through the vocabulary, so they are stored once per file (its sha256) and per version
of the code that derives them, in ``$TOKBENCH_CACHE/hf-facts/``: XLM-R's file (17 MB,
250k pieces) then loads without the Python parse (0.27 s) or reading the text (0.15 s).
An entry that cannot be read is ignored (the file is parsed again); a cache that cannot
be written is skipped.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from tokbench.errors import TokbenchError
from tokbench.hashing import module_sha256

FORMAT = 1
#: the model's large nodes: nothing the adapter reads from the spec is in them (but
#: whether a special piece is in the vocabulary, stored as ``reachable``)
LARGE = ("vocab", "merges")


def light_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` without the model's vocabulary and merges."""
    model = spec.get("model")
    if not isinstance(model, dict):
        return spec
    return {**spec, "model": {k: v for k, v in model.items() if k not in LARGE}}


def _path(sha256: str) -> Path | None:
    code = module_sha256("tokbench.adapters.hf_tokenizers")
    if code is None:
        return None
    from tokbench.paths import cache_dir

    key = hashlib.sha256(f"{FORMAT}:{code}:{sha256}".encode("ascii")).hexdigest()
    return cache_dir() / "hf-facts" / key[:2] / f"{key}.json"


def read_facts(sha256: str) -> tuple[dict[str, Any], bool] | None:
    """The light spec and ``reachable`` stored for the file of ``sha256``, or None."""
    try:
        path = _path(sha256)
        if path is None:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        spec, reachable = data["spec"], data["reachable"]
    except (OSError, ValueError, KeyError, TypeError, TokbenchError):
        return None
    if not isinstance(spec, dict) or not isinstance(reachable, bool):
        return None
    return spec, reachable


def write_facts(sha256: str, spec: dict[str, Any], reachable: bool) -> None:
    """Store the facts of the file of ``sha256`` (``spec`` whole or light) atomically."""
    from tokbench.atomic import atomic_open

    try:
        path = _path(sha256)
        if path is None:
            return
        text = json.dumps({"spec": light_spec(spec), "reachable": reachable},
                          ensure_ascii=False)
        with atomic_open(path) as f:
            f.write(text.encode("utf-8"))
    except (OSError, TokbenchError):  # a read-only cache: parse again next time
        pass
