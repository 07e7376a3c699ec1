"""Morpheme-boundary alignment: do token boundaries fall where morphemes meet?

Positions are boundaries *between characters*, as UTF-8 byte offsets into a suite's
joined text (``SuiteLayout``). Only positions strictly inside a *word* count: a word is a
maximal run of letters, marks and digits (``tokbench.suites.words.RULE_PATTERN``; in
Japanese the run between punctuation, e.g. 自然言語処理にディープラーニングを使う), so
the edges of words, which every tokenizer and analyzer share with the spaces and
punctuation around them, say nothing.

For one scheme of gold boundaries (``tokbench.suites.morphemes``) and one tokenizer:

- *token boundaries*: the distinct starts and ends of the tokens that cover text, at a
  character boundary, strictly inside a word. A cut a byte-level BPE makes inside a
  character (言 split into two byte tokens) is no boundary between characters and is not
  counted; a token that covers no text (SentencePiece's dummy prefix ``▁`` alone, placed
  on no byte of the text) makes no boundary.
- *gold boundaries*: the analyzer's morpheme starts and ends strictly inside a word.
- ``cuts``: token boundaries; ``gold``: gold boundaries; ``hits``: positions that are both.
  Precision is hits / cuts, recall hits / gold, F1 2 hits / (cuts + gold), which equals
  2PR / (P + R) of the summed P and R and is 0, not undefined, when a tokenizer makes no
  cut inside words;
  ``tokens``/``crossers``: tokens covering part of a word, and those with a gold boundary
  strictly inside them (a token crosses a morpheme boundary); ``docs``: documents analyzed.

All are sums over documents, so shards merge by addition; the metrics are ratios of sums
(``tokbench.metrics.definitions``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

STATS = ("docs", "cuts", "gold", "hits", "tokens", "crossers")
"""What every scheme sums (statistic names are ``{scheme}_{stat}``)."""


def stat_names(scheme: str) -> tuple[str, ...]:
    """The summed statistics of ``scheme``."""
    return tuple(f"{scheme}_{s}" for s in STATS)


@dataclass
class MorphLayout:
    """Gold boundaries of one shard, computed once and shared by every tokenizer."""

    words: np.ndarray  # (n_words, 2) byte ranges of words in the joined text, sorted
    char_start: np.ndarray  # bool per byte of the joined text (+1): a character starts here
    byte_base: np.ndarray  # byte offset of each document in the joined text
    gold: dict[str, np.ndarray]  # scheme -> sorted byte offsets of gold boundaries
    analyzed: dict[str, np.ndarray]  # scheme -> bool per document
    labels: dict[str, dict[str, str]]  # lang -> scheme -> analyzer name (versions)

    @classmethod
    def build(cls, texts: Sequence[str], langs: Sequence[str], schemes: Sequence[str],
              data: bytes, offsets: np.ndarray, char_base: np.ndarray, byte_base: np.ndarray
              ) -> MorphLayout:
        """Analyze every document once per scheme (``offsets``: char -> byte of the joined
        text ``data``; ``char_base``/``byte_base``: where each document starts)."""
        from tokbench.suites.morphemes import Analyzer, analyzer_for, cached_morphemes

        bounds: dict[str, list[list[int] | None]] = {}
        labels: dict[str, dict[str, str]] = {}
        for scheme in schemes:
            by_analyzer: dict[Analyzer, list[int]] = {}
            for i, lang in enumerate(langs):
                analyzer = analyzer_for(scheme, lang)
                if analyzer is not None:
                    labels.setdefault(lang, {})[scheme] = analyzer.label
                    by_analyzer.setdefault(analyzer, []).append(i)
            found: list[list[int] | None] = [None] * len(texts)
            for analyzer, idx in by_analyzer.items():
                spans = cached_morphemes(analyzer, [texts[i] for i in idx])
                for i, doc in zip(idx, spans, strict=True):
                    found[i] = sorted({edge for span in doc for edge in span})
            bounds[scheme] = found
        return cls.from_boundaries(texts, bounds, labels, data, offsets, char_base, byte_base)

    @classmethod
    def from_boundaries(cls, texts: Sequence[str], bounds: dict[str, list[list[int] | None]],
                        labels: dict[str, dict[str, str]], data: bytes, offsets: np.ndarray,
                        char_base: np.ndarray, byte_base: np.ndarray, whole: bool = False
                        ) -> MorphLayout:
        """The layout from gold boundaries given as character offsets per document (None:
        the document has no analyzer); ``build`` gets them from the analyzers. ``whole``:
        each text is one word (gold files), else words follow ``RULE_PATTERN``."""
        from tokbench.suites.words import RULE_PATTERN, _regex

        pattern = _regex(RULE_PATTERN)
        word_chars: list[tuple[int, int]] = []
        doc_words: list[list[tuple[int, int]]] = []
        for d, text in enumerate(texts):
            spans = ([(0, len(text))] if whole else
                     [m.span() for m in pattern.finditer(text)])
            doc_words.append(spans)
            word_chars += [(a + int(char_base[d]), b + int(char_base[d])) for a, b in spans]
        words = offsets[np.asarray(word_chars, dtype=np.int64).reshape(-1, 2)]
        raw = np.frombuffer(data, dtype=np.uint8)
        char_start = np.ones(raw.size + 1, dtype=bool)
        char_start[:-1] = (raw & 0xC0) != 0x80
        gold: dict[str, np.ndarray] = {}
        analyzed: dict[str, np.ndarray] = {}
        for scheme, per_doc in bounds.items():
            marks: list[int] = []
            for d, b in enumerate(per_doc):
                if b is not None:
                    marks += [x + int(char_base[d]) for x in inside(b, doc_words[d])]
            gold[scheme] = offsets[np.asarray(marks, dtype=np.int64)]
            analyzed[scheme] = np.array([b is not None for b in per_doc], dtype=bool)
        return cls(words, char_start, np.asarray(byte_base, dtype=np.int64), gold, analyzed,
                   labels)

    def count(self, starts: np.ndarray, ends: np.ndarray, doc_of_token: np.ndarray, n: int
              ) -> dict[str, np.ndarray]:
        """Per-document statistics of every scheme for one tokenizer's token byte spans."""
        keep = ends > starts
        s, e, doc = starts[keep], ends[keep], doc_of_token[keep]
        ws, we = self.words[:, 0], self.words[:, 1]
        cuts = np.unique(np.concatenate([s, e]))
        cuts = cuts[self.char_start[np.minimum(cuts, self.char_start.size - 1)]]
        cuts = cuts[_strictly_inside(cuts, ws, we)]
        cut_doc = np.searchsorted(self.byte_base, cuts, side="right") - 1
        k = np.searchsorted(we, s, side="right")  # first word ending after the token starts
        on_word = (k < we.size) & (ws[np.minimum(k, max(we.size - 1, 0))] < e) if we.size \
            else np.zeros(s.size, dtype=bool)
        out: dict[str, np.ndarray] = {}

        def per_doc(where: np.ndarray, weights: np.ndarray) -> np.ndarray:
            return np.bincount(where, weights=weights, minlength=n).astype(np.int64)

        for scheme, gold in self.gold.items():
            done = self.analyzed[scheme]
            in_cut = done[cut_doc]
            hit = _member(cuts, gold)
            gold_doc = np.searchsorted(self.byte_base, gold, side="right") - 1
            crosses = (np.searchsorted(gold, e, side="left")
                       - np.searchsorted(gold, s, side="right")) > 0
            tok_ok = on_word & done[doc]
            out[f"{scheme}_docs"] = done.astype(np.int64)
            out[f"{scheme}_cuts"] = per_doc(cut_doc, in_cut)
            out[f"{scheme}_gold"] = per_doc(gold_doc, np.ones(gold.size))
            out[f"{scheme}_hits"] = per_doc(cut_doc, in_cut & hit)
            out[f"{scheme}_tokens"] = per_doc(doc, tok_ok)
            out[f"{scheme}_crossers"] = per_doc(doc, tok_ok & crosses)
        return out


def inside(bounds: Sequence[int], words: Sequence[tuple[int, int]]) -> list[int]:
    """The positions of ``bounds`` strictly inside one of ``words`` (sorted spans)."""
    if not words or not bounds:
        return []
    b = np.asarray(bounds, dtype=np.int64)
    w = np.asarray(words, dtype=np.int64)
    return [int(x) for x in b[_strictly_inside(b, w[:, 0], w[:, 1])]]


def _strictly_inside(pos: np.ndarray, ws: np.ndarray, we: np.ndarray) -> np.ndarray:
    """Which positions lie strictly inside a word ``[ws, we)`` (spans sorted, disjoint)."""
    if ws.size == 0 or pos.size == 0:
        return np.zeros(pos.size, dtype=bool)
    k = np.searchsorted(ws, pos, side="right") - 1
    kk = np.maximum(k, 0)
    return (k >= 0) & (pos > ws[kk]) & (pos < we[kk])


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Which ``values`` are in ``sorted_set`` (sorted, distinct)."""
    if sorted_set.size == 0:
        return np.zeros(values.size, dtype=bool)
    k = np.minimum(np.searchsorted(sorted_set, values), sorted_set.size - 1)
    return np.asarray(sorted_set[k] == values)


#: what a gold file sums per word: boundary P/R/F1 over every word (``item_*``, as for a
#: scheme) and MorphScore over the words cut into two or more tokens (``ms_*``)
GOLD_STATS = (*stat_names("item"), "ms_gold", "ms_hits", "ms_single")

