"""A vocabulary rebuilt as a ``tokenizers`` backend, wrapped by the ``tokenizers``
adapter: the shared steps of the WordPiece and byte-level BPE rebuilds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tokbench.adapters.base import Tokenizer
from tokbench.adapters.gguf_reader import CONTROL, USER_DEFINED
from tokbench.errors import require
from tokbench.record import TokenizerSource

if TYPE_CHECKING:
    import tokenizers

def import_tokenizers() -> Any:
    return require("tokenizers", purpose="GGUF WordPiece and BPE vocabularies")


def added_tokens(tk: Any, pieces: Sequence[str], token_types: Sequence[int]) -> list[Any]:
    """CONTROL tokens as special added tokens (plain text in the input, since the
    ``tokenizers`` adapter turns special-token matching off) and USER_DEFINED ones as
    plain added tokens, matched in the raw text before anything else."""
    out = []
    for piece, ttype in zip(pieces, token_types, strict=True):
        if piece and ttype in (CONTROL, USER_DEFINED):
            out.append(tk.AddedToken(piece, special=ttype == CONTROL, normalized=False))
    return out


def add_tokens(backend: tokenizers.Tokenizer, added: list[Any]) -> None:
    special = [t for t in added if t.special]
    plain = [t for t in added if not t.special]
    if special:
        backend.add_special_tokens(special)
    if plain:
        backend.add_tokens(plain)


def _component(obj: Any) -> Any:
    """A ``tokenizers`` normalizer / pre-tokenizer / decoder as its ``tokenizer.json`` node."""
    return None if obj is None else json.loads(obj.__getstate__())


def load_as_tokenizers(backend: tokenizers.Tokenizer, model: dict[str, Any], name: str,
                     source: TokenizerSource) -> Tokenizer:
    """The ``tokenizers`` adapter's tokenizer around ``backend``.

    Its ``load`` would serialize the whole vocabulary to JSON and parse it back (1.4 s
    for Llama-3) to switch off truncation, padding and decoder clean-up, none of which a
    tokenizer built here has; the adapter class is given the ``tokenizer.json`` nodes it
    reads (``model`` without the vocabulary) instead.
    """
    from tokbench.adapters.hf_tokenizers import HFTokenizersTokenizer

    spec = {"truncation": None, "padding": None, "model": model,
            "normalizer": _component(backend.normalizer),
            "pre_tokenizer": _component(backend.pre_tokenizer),
            "decoder": _component(backend.decoder)}
    return HFTokenizersTokenizer(name, source, backend, spec)
