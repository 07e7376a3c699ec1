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

import json
from pathlib import Path
from typing import Any

from tokbench.adapters.file_cache import entry_path
from tokbench.atomic import write_entry
from tokbench.errors import TokbenchError

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
    return entry_path("hf-facts", "tokbench.adapters.hf_tokenizers", sha256, ".json",
                      str(FORMAT))


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
    text = json.dumps({"spec": light_spec(spec), "reachable": reachable}, ensure_ascii=False)
    write_entry(_path(sha256), text.encode("utf-8"))
