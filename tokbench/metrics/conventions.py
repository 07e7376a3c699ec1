"""Fertility conventions: what a word is and how its tokens are counted.

Published fertilities differ mostly by convention, not by tokenizer. A convention is
``ENCODING/WORDS`` (e.g. ``context/words``, the default, or ``alone/whitespace``):

ENCODING — how a word's tokens are counted:

* ``context``: tokens of the document's own encoding that overlap the word; fertility
  is Σ tokens of the document / Σ words (Rust et al. 2021; tokscope);
* ``alone``: each word encoded by itself, ``encode("word")``; fertility is Σ tokens of
  the words / Σ words (toklens; glotscope ``--no-leading-space``);
* ``alone_space``: each word encoded by itself after one space, ``encode(" word")``
  (glotscope ``--leading-space``).

WORDS — what counts as a word:

* ``words``: the language's word segmenter (``tokbench.suites.words``); punctuation and
  symbols are no words;
* ``words+punct``: the same words, and every run of other non-space characters between
  them (punctuation, symbols, emoji) counts as a word too;
* ``whitespace``: ``str.split()`` pieces, punctuation attached ("world!" is one word;
  toklens, tokscope, glotscope ``--segmenter whitespace``).

``continued_words`` is the share of words of two or more tokens and ``strr`` (single-token
retention rate, as toklens reports it) the share of words of exactly one token, both
under the convention.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tokbench.errors import InputError

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

#: the ``Settings`` field holding the convention; metrics that depend on it
#: (``MetricInfo.settings``) depend on the languages' word segmenters too
SETTING = "fertility"
ENCODINGS = ("context", "alone", "alone_space")
WORDS = ("words", "words+punct", "whitespace")
BATCH = 4096
_NONSPACE = re.compile(r"\S+")

Span = tuple[int, int]


@dataclass(frozen=True)
class FertilityConvention:
    """How fertility is measured; ``str()`` is the name recorded with results."""

    encoding: str = "context"
    words: str = "words"

    def __str__(self) -> str:
        return f"{self.encoding}/{self.words}"

    @classmethod
    def parse(cls, spec: str) -> FertilityConvention:
        """``ENCODING/WORDS`` (either part may be left out: ``alone``, ``/whitespace``)."""
        enc, _, words = spec.strip().partition("/")
        conv = cls(enc or "context", words or "words")
        if conv.encoding not in ENCODINGS or conv.words not in WORDS:
            raise InputError(f"fertility convention {spec!r}: expected ENCODING/WORDS with "
                             f"ENCODING one of {', '.join(ENCODINGS)} and WORDS one of "
                             f"{', '.join(WORDS)} (e.g. alone/whitespace)")
        return conv


DEFAULT = FertilityConvention()


def whitespace_spans(text: str) -> list[Span]:
    """Character spans of the ``str.split()`` pieces of ``text``."""
    return [m.span() for m in _NONSPACE.finditer(text)]


def with_punctuation(text: str, words: Sequence[Span]) -> list[Span]:
    """``words`` plus every maximal run of non-space characters outside them, in order."""
    out: list[Span] = []
    pos = 0
    for a, b in [*words, (len(text), len(text))]:
        out += [(pos + s, pos + e) for s, e in whitespace_spans(text[pos:a])]
        if b > a:
            out.append((a, b))
        pos = b
    return out


def word_spans(convention: FertilityConvention, texts: Sequence[str],
               segmented: Sequence[Sequence[Span] | None] | None,
               ) -> list[Sequence[Span] | None]:
    """The word spans of every document under ``convention`` (None: no segmenter)."""
    if convention.words == "whitespace":
        return [whitespace_spans(t) for t in texts]
    if segmented is None:
        return [None] * len(texts)
    if convention.words == "words":
        return list(segmented)
    return [with_punctuation(t, w) if w is not None else None
            for t, w in zip(texts, segmented, strict=True)]


@dataclass
class AloneCounts:
    """Per-document counts of words encoded alone (arrays aligned with the documents)."""

    words: np.ndarray  # -1 where the document has no word spans
    tokens: np.ndarray
    continued: np.ndarray  # words of 2+ tokens
    single: np.ndarray  # words of exactly one token


def count_alone(tok: Tokenizer, texts: Sequence[str], spans: Sequence[Sequence[Span] | None],
                leading_space: bool) -> AloneCounts:
    """Encode every distinct word once by itself (after a space with ``leading_space``)
    and count, per document, words, their tokens, and words of one and of 2+ tokens."""
    n = len(texts)
    words = np.full(n, -1, dtype=np.int64)
    per_doc: list[list[str]] = []
    for d, (text, doc_spans) in enumerate(zip(texts, spans, strict=True)):
        if doc_spans is None:
            per_doc.append([])
            continue
        words[d] = len(doc_spans)
        per_doc.append([text[a:b] for a, b in doc_spans])
    types = sorted({w for ws in per_doc for w in ws})
    prefix = " " if leading_space else ""
    length: dict[str, int] = {}
    for k in range(0, len(types), BATCH):
        chunk = types[k:k + BATCH]
        for w, ids in zip(chunk, tok.encode_batch([prefix + w for w in chunk]), strict=True):
            length[w] = len(ids)
    tokens = np.zeros(n, dtype=np.int64)
    continued = np.zeros(n, dtype=np.int64)
    single = np.zeros(n, dtype=np.int64)
    for d, ws in enumerate(per_doc):
        counts = [length[w] for w in ws]
        tokens[d] = sum(counts)
        continued[d] = sum(c >= 2 for c in counts)
        single[d] = sum(c == 1 for c in counts)
    return AloneCounts(words, tokens, continued, single)
