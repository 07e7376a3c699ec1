"""Adapters: one class per backend, registered lazily by kind.

``ADAPTERS`` maps a backend kind to a loader ``(path_or_id, name=..., source=..., **options)
-> Tokenizer``. Third parties add kinds through the ``tokbench.adapters`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable

from tokbench.adapters.base import Encoding, Tokenizer, align_spans
from tokbench.record import TokenizerSource
from tokbench.registry import Registry

ADAPTERS: Registry[Callable[..., Tokenizer]] = Registry("adapter", "tokbench.adapters")
ADAPTERS.register("tiktoken", "tokbench.adapters.tiktoken_adapter:load")
ADAPTERS.register("sentencepiece", "tokbench.adapters.sentencepiece_adapter:load")
ADAPTERS.register("tokenizers", "tokbench.adapters.hf_tokenizers:load")
ADAPTERS.register("transformers", "tokbench.adapters.transformers_adapter:load")
ADAPTERS.register("wordpiece", "tokbench.adapters.wordpiece:load")
ADAPTERS.register("gguf", "tokbench.adapters.gguf_adapter:load")
ADAPTERS.register("tekken", "tokbench.adapters.tiktoken_adapter:load_tekken")
ADAPTERS.register("bytes", "tokbench.adapters.baselines:load_bytes")
ADAPTERS.register("chars", "tokbench.adapters.baselines:load_chars")

__all__ = ["ADAPTERS", "Encoding", "Tokenizer", "TokenizerSource", "align_spans"]
