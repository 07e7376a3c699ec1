"""Facts about a tokenizer's vocabulary that need no corpus.

Tokens not valid UTF-8 alone are counted in two groups: multi-byte fragments (two or
more bytes that are part of a character, e.g. GPT-2's 216, cl100k_base's 645, o200k_base's
1,434, the counts published for those vocabularies) and single bytes 0x80–0xFF (the 128
byte tokens every byte-level BPE and byte-fallback vocabulary has).

A token is unreachable when no text encodes to it where it stands alone:

* a token whose text starts a word (or any token of a tokenizer without a dummy prefix)
  is tested as ``encode(decode([t])) == [t]``;
* with a dummy prefix (SentencePiece ``add_dummy_prefix``, Hugging Face ``Metaspace``),
  a token that does not start with the prefix space cannot stand at the start of a text:
  it is tested after a separator character ``c`` that no other token contains, as
  ``encode(c + decode([t])) == encode(c) + [t]`` (nothing can merge across ``c``, so the
  token is segmented exactly as it would be inside a word); the bare prefix piece ``▁``,
  which decodes to nothing, is reachable when ``encode(c)`` or the encoding of a word
  piece's text holds it.

Special, unknown and byte-fallback tokens and tokens not valid UTF-8 are not tested: they
cannot be reached from text by design.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

BATCH = 4096
#: separator candidates for the in-context test, tried in order
SEPARATORS = ("\n", "|", "§", "¶", "~", "^", "\x7f", "\u2603")


def vocabulary_facts(tok: Tokenizer) -> dict[str, int]:
    """Vocab size, special tokens, tokens not valid UTF-8 alone (multi-byte fragments and
    single bytes, counted apart) and unreachable tokens."""
    specials = set(tok.special_tokens.values())
    if tok.unk_id is not None:
        specials.add(tok.unk_id)
    fragments = single = 0
    candidates: list[int] = []
    pieces: list[bytes] = []
    everything: list[bytes] = []
    for t in range(tok.vocab_size):
        if t in specials:
            continue
        try:
            raw = tok.token_bytes(t)
        except Exception:  # ids the backend does not define (gaps in a declared vocab)
            continue
        everything.append(raw)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            if len(raw) == 1:
                single += 1
            else:
                fragments += 1
            continue
        if not raw or tok.is_byte_fallback_token(t):
            continue
        candidates.append(t)
        pieces.append(raw)
    return {
        "vocab_size": tok.vocab_size,
        "special_tokens": len(tok.special_tokens),
        "utf8_fragment_tokens": fragments,
        "single_byte_tokens": single,
        "unreachable_tokens": count_unreachable(tok, candidates, pieces, everything),
    }


def cached_vocabulary_facts(tok: Tokenizer) -> dict[str, int]:
    """``vocabulary_facts(tok)``, from the user cache when these files were counted by
    this code before (``tokbench.metrics.factcache``): they never change for a file."""
    from tokbench.metrics.factcache import cached_facts

    return cached_facts(tok, "vocabulary", __name__, vocabulary_facts)[0]


def has_dummy_prefix(tok: Tokenizer, probe: str = "a") -> bool:
    """Whether encoding ``probe`` (text with no leading space) prepends a space
    (SentencePiece's dummy prefix)."""
    try:
        ids = tok.encode(probe)
    except Exception:  # a tokenizer that cannot encode the probe
        return False
    return bool(ids) and tok.token_bytes(ids[0]).startswith(b" ")


def separator(tok: Tokenizer, everything: Sequence[bytes]) -> str | None:
    """A character no token contains but itself (or itself after a space) that the
    tokenizer keeps as it is: nothing can be merged across it."""
    for c in SEPARATORS:
        cb = c.encode("utf-8")
        if any(cb in b and b.strip(b" ") != cb for b in everything):
            continue
        try:
            if tok.decode(tok.encode(c)) == c:
                return c
        except Exception:  # a tokenizer that cannot encode c: try the next
            continue
    return None


def count_unreachable(tok: Tokenizer, candidates: Sequence[int], pieces: Sequence[bytes],
                      everything: Sequence[bytes]) -> int:
    """How many of ``candidates`` no text encodes to (see the module docstring)."""
    texts = [tok.decode([t]) for t in candidates]
    alone = list(range(len(candidates)))
    inside: list[int] = []
    sep = None
    probe = next((t for t, p in zip(texts, pieces, strict=True)
                  if t and not p.startswith(b" ") and not t[0].isspace()), "a")
    if has_dummy_prefix(tok, probe):
        sep = separator(tok, everything)
        if sep is not None:
            inside = [k for k in alone if not pieces[k].startswith(b" ")]
            alone = [k for k in alone if pieces[k].startswith(b" ")]
    unreachable = 0
    if sep is not None:  # the bare prefix piece decodes to nothing: seen in front of ``sep``?
        bare = [k for k in alone if not texts[k]]
        alone = [k for k in alone if texts[k]]
        seen = {*tok.encode(sep), *tok.encode(probe)}
        unreachable += sum(candidates[k] not in seen for k in bare)
    for k0 in range(0, len(alone), BATCH):
        chunk = alone[k0:k0 + BATCH]
        encoded = tok.encode_batch([texts[k] for k in chunk])
        unreachable += sum(ids != [candidates[k]] for k, ids in zip(chunk, encoded, strict=True))
    if inside and sep is not None:
        prefix = tok.encode(sep)
        for k0 in range(0, len(inside), BATCH):
            chunk = inside[k0:k0 + BATCH]
            encoded = tok.encode_batch([sep + texts[k] for k in chunk])
            unreachable += sum(ids != [*prefix, candidates[k]]
                               for k, ids in zip(chunk, encoded, strict=True))
    return unreachable
