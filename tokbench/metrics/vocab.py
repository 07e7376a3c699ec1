"""Facts about a tokenizer's vocabulary that need no corpus."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

BATCH = 4096


def vocabulary_facts(tok: Tokenizer) -> dict[str, int]:
    """Vocab size, special tokens, tokens not valid UTF-8 alone, unreachable tokens.

    A token is unreachable when encoding its decoded text does not give the token
    back; tokens that are special, unknown, byte pieces or not valid UTF-8 on their
    own are not tested (they cannot be reached from text by design).
    """
    specials = set(tok.special_tokens.values())
    if tok.unk_id is not None:
        specials.add(tok.unk_id)
    invalid = 0
    candidates: list[int] = []
    texts: list[str] = []
    for t in range(tok.vocab_size):
        if t in specials:
            continue
        try:
            raw = tok.token_bytes(t)
        except Exception:  # ids the backend does not define (gaps in a declared vocab)
            continue
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            invalid += 1
            continue
        if not raw or tok.is_byte_fallback_token(t):
            continue
        candidates.append(t)
        texts.append(tok.decode([t]))
    unreachable = 0
    for k in range(0, len(texts), BATCH):
        chunk = candidates[k:k + BATCH]
        encoded = tok.encode_batch(texts[k:k + BATCH])
        unreachable += sum(ids != [t] for t, ids in zip(chunk, encoded, strict=True))
    return {
        "vocab_size": tok.vocab_size,
        "special_tokens": len(tok.special_tokens),
        "invalid_utf8_tokens": invalid,
        "unreachable_tokens": unreachable,
    }
