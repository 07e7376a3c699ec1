"""How two encodings of one document differ: where, by how many tokens, and of what class.

Both id sequences are read against one vocabulary (the reference's ``token_bytes``), so
the class says what changed between the two libraries:

* ``special tokens added``: one side has special ids the other has not (``<s>``, ``</s>``,
  a special token matched in the text);
* ``unknown/byte fallback``: the differing stretch holds the unknown id or byte pieces;
* ``whitespace``: the two stretches spell texts that differ only in whitespace;
* ``normalization``: they spell different texts (one side normalized the input);
* ``pre-tokenizer split``: same text, but a token boundary of one side falls where the
  character class changes (letter, digit, space, punctuation) and the other side has a
  token across it;
* ``merge order``: same text, boundaries differ only inside a run of one class;
* ``other``: none of these.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

CLASSES = ("special tokens added", "unknown/byte fallback", "whitespace", "normalization",
           "pre-tokenizer split", "merge order", "other")
CONTEXT = 3  # tokens shown on each side of the first difference


def common_ends(a: Sequence[int], b: Sequence[int]) -> tuple[int, int]:
    """Lengths of the common prefix and (non-overlapping) common suffix."""
    n = min(len(a), len(b))
    p = 0
    while p < n and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    return p, s


def matched_tokens(ref: Sequence[int], impl: Sequence[int]) -> int:
    """Tokens of ``ref`` found aligned in ``impl``: the common ends plus the matching blocks
    of the middle (``difflib``, no junk heuristic)."""
    if ref == impl:
        return len(ref)
    p, s = common_ends(ref, impl)
    mid_a, mid_b = ref[p:len(ref) - s], impl[p:len(impl) - s]
    sm = difflib.SequenceMatcher(None, list(mid_a), list(mid_b), autojunk=False)
    return p + s + sum(block.size for block in sm.get_matching_blocks())


def _category(ch: str) -> str:
    if ch.isspace():
        return "space"
    cat = unicodedata.category(ch)
    if cat[0] in "LM":
        return "letter"
    if cat[0] == "N":
        return "digit"
    return "punct"


def _boundaries(pieces: Sequence[bytes]) -> set[int]:
    out, pos = set(), 0
    for p in pieces:
        pos += len(p)
        out.add(pos)
    return out


def classify(ref: Sequence[int], impl: Sequence[int], vocab: Tokenizer) -> str:
    """The class of the difference between two encodings (see the module doc)."""
    p, s = common_ends(ref, impl)
    a, b = list(ref[p:len(ref) - s]), list(impl[p:len(impl) - s])
    unk = vocab.unk_id
    specials = set(vocab.special_tokens.values()) - {unk}
    if sum(i in specials for i in a) != sum(i in specials for i in b):
        return "special tokens added"
    if (unk is not None and (unk in a or unk in b)) or any(
            vocab.is_byte_fallback_token(i) for i in a + b):
        return "unknown/byte fallback"
    pa, pb = [vocab.token_bytes(i) for i in a], [vocab.token_bytes(i) for i in b]
    ta, tb = b"".join(pa), b"".join(pb)
    if ta != tb:
        if b"".join(ta.split()) == b"".join(tb.split()):
            return "whitespace"
        return "normalization"
    # boundaries at character boundaries of the whole text, classes from the characters
    # around them (a boundary inside a character's bytes is a merge, not a split)
    whole = b"".join(vocab.token_bytes(i) for i in ref)
    start = sum(len(vocab.token_bytes(i)) for i in ref[:p])
    for k in sorted(_boundaries(pa) ^ _boundaries(pb)):
        at = start + k
        if not 0 < at < len(whole) or (whole[at] & 0xC0) == 0x80:
            continue
        left = whole[:at].decode("utf-8", errors="ignore")[-1:]
        right = whole[at:].decode("utf-8", errors="ignore")[:1]
        if left and right and _category(left) != _category(right):
            return "pre-tokenizer split"
    return "merge order" if ta else "other"


def first_offset(text: str, ref: Sequence[int], first: int, vocab: Tokenizer) -> int:
    """Character offset in ``text`` where token ``first`` of the reference starts (spans
    aligned from the tokens' bytes, so a dummy-prefix space counts for nothing)."""
    from tokbench.adapters.base import align_spans

    data = text.encode("utf-8", "surrogatepass")
    spans = align_spans(data, [vocab.token_bytes(i) for i in ref[:first + 1]])
    nbytes = spans[first][0] if first < len(spans) else (spans[-1][1] if spans else 0)
    return len(data[:nbytes].decode("utf-8", errors="ignore"))


def around(ids: Sequence[int], first: int, vocab: Tokenizer) -> list[list[Any]]:
    """``[id, piece]`` of the tokens around index ``first``."""
    lo, hi = max(0, first - CONTEXT), min(len(ids), first + CONTEXT + 1)
    return [[int(i), vocab.token_str(int(i))] for i in ids[lo:hi]]


@dataclass
class DocDiff:
    """One differing document, as kept for the report."""

    suite: str
    subset: str
    doc_id: str | int | None
    lang: str | None
    text: str
    klass: str
    offset: int
    first_token: int
    reference: list[list[Any]]
    implementation: list[list[Any]]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DocDiff:
        return cls(**d)


def describe(suite: str, subset: str, doc_id: str | int | None, lang: str | None, text: str,
             ref: Sequence[int], impl: Sequence[int], vocab: Tokenizer) -> DocDiff:
    """The kept record of one differing document."""
    first, _ = common_ends(ref, impl)
    return DocDiff(suite, subset, doc_id, lang, text, classify(ref, impl, vocab),
                   first_offset(text, ref, first, vocab), first, around(ref, first, vocab),
                   around(impl, first, vocab))
