"""Corpus-level metrics from encoded documents: ratios of sums, never means of ratios.

``measure_documents`` turns one tokenizer's encodings of a suite into per-document
counts (numpy arrays); ``aggregate`` sums them over a subset and divides. All the
per-token work is vectorized so the harness costs little next to the encoding.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tokbench.metrics.base import MetricContext, MetricInfo, SumsView
from tokbench.metrics.definitions import RENYI_ALPHA, ratio, renyi_from_counts
from tokbench.metrics.stats import RUN_KINDS, SubsetStats, collectors_for, histogram

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

__all__ = ["RENYI_ALPHA", "ratio"]

DIGIT_RUN = re.compile(r"\d+")
MIN_CHUNKED_RUN = 4  # digit runs shorter than this say nothing about chunking


class TokenTable:
    """Per-token facts (byte length, unknown, byte fallback), looked up lazily by id."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self._bytes: dict[int, bytes] = {}
        self.length = np.zeros(0, dtype=np.int64)
        self.known = np.zeros(0, dtype=bool)
        self.fallback = np.zeros(0, dtype=bool)
        self.unk_id = tokenizer.unk_id

    def token_bytes(self, token_id: int) -> bytes:
        b = self._bytes.get(token_id)
        if b is None:
            b = self._bytes[token_id] = self.tokenizer.token_bytes(token_id)
        return b

    def ensure(self, ids: np.ndarray) -> None:
        """Fill the tables for every id in ``ids`` not seen before."""
        if ids.size == 0:
            return
        if not self._bytes and not self.known.any():
            self._fill_all()
        top = int(ids.max()) + 1
        if top > self.length.size:
            grow = max(top, self.length.size * 2)
            self.length = np.concatenate([self.length, np.zeros(grow - self.length.size, np.int64)])
            self.known = np.concatenate([self.known, np.zeros(grow - self.known.size, bool)])
            self.fallback = np.concatenate(
                [self.fallback, np.zeros(grow - self.fallback.size, bool)])
        new = np.unique(ids[~self.known[ids]]).tolist()
        token_bytes = self.token_bytes
        self.length[new] = [len(token_bytes(t)) for t in new]
        if self.tokenizer.byte_fallback:
            is_fb = self.tokenizer.is_byte_fallback_token
            self.fallback[new] = [is_fb(t) for t in new]
        self.known[new] = True


    def _fill_all(self) -> None:
        everything = self.tokenizer.all_token_bytes()
        if everything is None:
            return
        self._bytes = dict(enumerate(everything))
        self.length = np.fromiter(map(len, everything), dtype=np.int64, count=len(everything))
        self.known = np.ones(len(everything), dtype=bool)
        self.fallback = np.zeros(len(everything), dtype=bool)
        if self.tokenizer.byte_fallback:
            is_fb = self.tokenizer.is_byte_fallback_token
            self.fallback[:] = [is_fb(t) for t in range(len(everything))]


def char_to_byte_offsets(text: str) -> np.ndarray:
    """``offsets[i]`` = UTF-8 byte offset of character ``i`` (length ``len(text) + 1``)."""
    out = np.zeros(len(text) + 1, dtype=np.int64)
    if text.isascii():
        out[1:] = np.arange(1, len(text) + 1)
        return out
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    widths = 1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000)
    np.cumsum(widths, out=out[1:])
    return out


@dataclass
class DocCounts:
    """Per-document counts for one tokenizer over one suite (arrays aligned with docs).

    ``ids`` holds every token id of every document, concatenated; ``doc_of_token``
    says which document each belongs to.
    """

    ok: np.ndarray  # encoded without error
    tokens: np.ndarray
    bytes: np.ndarray
    chars: np.ndarray
    words: np.ndarray  # -1 where the language has no segmenter
    continued: np.ndarray
    roundtrip: np.ndarray
    unk: np.ndarray
    unk_chars: np.ndarray
    fallback: np.ndarray
    digits: np.ndarray
    digit_tokens: np.ndarray
    runs: np.ndarray  # shape (n, 4): single, l2r3, r2l3, other
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    doc_of_token: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def ids_of(self, docs: np.ndarray) -> np.ndarray:
        """All token ids of the documents ``docs``."""
        if docs.size == self.ok.size:
            return self.ids
        keep = np.zeros(self.ok.size, bool)
        keep[docs] = True
        return self.ids[keep[self.doc_of_token]]


@dataclass
class SuiteLayout:
    """The tokenizer-independent part of measuring a suite, computed once per suite.

    Documents are laid end to end, separated by one newline; every offset below is
    into that joined text. Word spans and digit runs are given as byte ranges in it.
    """

    texts: Sequence[str]
    joined: str
    offsets: np.ndarray  # char -> byte in the joined text
    chars: np.ndarray
    char_base: np.ndarray
    byte_base: np.ndarray
    nbytes: np.ndarray
    has_words: bool  # word spans were given (fertility is measured)
    words: np.ndarray  # words per document, -1 without a segmenter
    word_bytes: np.ndarray  # (n_words, 2) byte ranges
    doc_of_word: np.ndarray
    digit_runs: np.ndarray | None  # (n_runs, 2) char ranges of digit runs, when counted
    doc_of_run: np.ndarray | None

    @classmethod
    def build(cls, texts: Sequence[str],
              word_spans: Sequence[Sequence[tuple[int, int]] | None] | None = None,
              numbers: bool = False) -> SuiteLayout:
        n = len(texts)
        chars = np.fromiter((len(t) for t in texts), dtype=np.int64, count=n)
        joined = "\n".join(texts)
        offsets = char_to_byte_offsets(joined)
        char_base = np.concatenate([[0], np.cumsum(chars + 1)[:-1]]).astype(np.int64)
        byte_base = offsets[char_base]
        nbytes = offsets[char_base + chars] - byte_base
        words = np.full(n, -1, dtype=np.int64)
        word_bytes = np.zeros((0, 2), dtype=np.int64)
        doc_of_word = np.zeros(0, dtype=np.int64)
        if word_spans is not None:
            counts = np.fromiter((len(w) if w is not None else 0 for w in word_spans),
                                 dtype=np.int64, count=n)
            words = np.where([w is not None for w in word_spans], counts, -1)
            flat = np.fromiter(itertools.chain.from_iterable(
                itertools.chain.from_iterable(w) for w in word_spans if w is not None),
                dtype=np.int64).reshape(-1, 2)
            doc_of_word = np.repeat(np.arange(n), counts)
            if flat.size:
                word_bytes = offsets[flat + char_base[doc_of_word, None]]
        runs = doc_of_run = None
        if numbers:
            runs = np.asarray([(m.start(), m.end()) for m in DIGIT_RUN.finditer(joined)],
                              dtype=np.int64).reshape(-1, 2)
            doc_of_run = np.searchsorted(char_base, runs[:, 0], side="right") - 1
        return cls(texts, joined, offsets, chars, char_base, byte_base, nbytes,
                   word_spans is not None, words, word_bytes, doc_of_word, runs, doc_of_run)


def measure_documents(
    table: TokenTable,
    texts: Sequence[str],
    encodings: Sequence[Sequence[int] | None],
    decoded: Sequence[str | None] | None,
    word_spans: Sequence[Sequence[tuple[int, int]] | None] | None,
    numbers: bool = False,
    layout: SuiteLayout | None = None,
) -> DocCounts:
    """Count everything the metrics need for a whole suite at once.

    Every per-token and per-word computation is a handful of numpy operations over
    the suite instead of a Python loop per document. Pass the suite's ``layout``
    (built from the same texts, word spans and ``numbers``) to share it between
    tokenizers.
    """
    if layout is None:
        layout = SuiteLayout.build(texts, word_spans, numbers)
    n = len(texts)
    zeros = lambda: np.zeros(n, dtype=np.int64)  # noqa: E731
    ok = np.array([e is not None for e in encodings], dtype=bool)
    encs = [e if e is not None else () for e in encodings]
    ntok = np.fromiter((len(e) for e in encs), dtype=np.int64, count=n)
    ids = np.fromiter(itertools.chain.from_iterable(encs), dtype=np.int64, count=int(ntok.sum()))
    doc_of_token = np.repeat(np.arange(n), ntok)
    table.ensure(ids)

    c = DocCounts(ok=ok, tokens=ntok, bytes=layout.nbytes, chars=layout.chars,
                  words=layout.words, continued=zeros(), roundtrip=np.zeros(n, bool),
                  unk=zeros(), unk_chars=zeros(), fallback=zeros(), digits=zeros(),
                  digit_tokens=zeros(), runs=np.zeros((n, 4), np.int64), ids=ids,
                  doc_of_token=doc_of_token)
    if decoded is not None:
        c.roundtrip = np.array([d is not None and d == t for d, t in zip(decoded, texts,
                                                                           strict=True)])
    c.fallback = np.bincount(doc_of_token, weights=table.fallback[ids], minlength=n).astype(
        np.int64)
    unk_mask = ids == table.unk_id if table.unk_id is not None else np.zeros(ids.size, bool)
    c.unk = np.bincount(doc_of_token, weights=unk_mask, minlength=n).astype(np.int64)

    need_spans = layout.has_words or numbers or bool(unk_mask.any())
    if not need_spans or ids.size == 0:
        return c
    starts, ends = _global_spans(table, texts, ids, ntok, layout.nbytes, layout.byte_base)

    if unk_mask.any():
        data = layout.joined.encode("utf-8")
        for t in np.flatnonzero(unk_mask).tolist():
            piece = data[starts[t]:ends[t]].decode("utf-8", errors="ignore")
            c.unk_chars[doc_of_token[t]] += len(piece)

    nonempty = ends > starts
    s_ne, e_ne = starts[nonempty], ends[nonempty]
    if layout.has_words and layout.word_bytes.size:
        first = np.searchsorted(e_ne, layout.word_bytes[:, 0], side="right")
        last = np.searchsorted(s_ne, layout.word_bytes[:, 1], side="left") - 1
        cont = (last - first + 1) >= 2
        c.continued = np.bincount(layout.doc_of_word, weights=cont, minlength=n).astype(np.int64)
    if numbers:
        _count_digits(c, layout, s_ne, e_ne)
    return c


def _global_spans(table: TokenTable, texts: Sequence[str], ids: np.ndarray, ntok: np.ndarray,
                  nbytes: np.ndarray, byte_base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Byte start and end of every token in the joined text.

    Where a document's token bytes add up to its text (byte-level tokenizers), the
    spans are a cumulative sum; SentencePiece's dummy-prefix space is dropped; any
    other document is aligned piece by piece with ``align_spans``.
    """
    lengths = table.length[ids].copy()
    first_tok = np.concatenate([[0], np.cumsum(ntok)[:-1]]).astype(np.int64)
    doc_of_token = np.repeat(np.arange(ntok.size), ntok)
    per_doc = np.bincount(doc_of_token, weights=lengths, minlength=ntok.size).astype(np.int64)
    diff = per_doc - nbytes
    # a token with no bytes (unknown, control) breaks the cumulative sum even when the
    # lengths happen to add up: such documents are aligned piece by piece
    empty = np.bincount(doc_of_token, weights=lengths == 0, minlength=ntok.size) > 0
    odd = np.flatnonzero((diff != 0) | empty)
    slow: list[int] = []
    for d in odd.tolist():
        t = int(first_tok[d])
        if (diff[d] == 1 and not empty[d] and not texts[d].startswith(" ")
                and table.token_bytes(int(ids[t])).startswith(b" ")):
            lengths[t] -= 1  # the dummy prefix stands for no byte of the text
        else:
            slow.append(d)
    cum = np.concatenate([[0], np.cumsum(lengths)])
    # each document starts at its own byte base (documents are joined by one byte, a newline)
    ends = cum[1:] + np.repeat(byte_base - cum[first_tok], ntok)
    starts = ends - lengths
    if slow:
        from tokbench.adapters.base import align_spans

        for d in slow:
            t0, t1 = int(first_tok[d]), int(first_tok[d] + ntok[d])
            data = texts[d].encode("utf-8")
            spans = align_spans(data, [table.token_bytes(int(t)) for t in ids[t0:t1]])
            arr = np.asarray(spans, dtype=np.int64).reshape(-1, 2) + byte_base[d]
            starts[t0:t1], ends[t0:t1] = arr[:, 0], arr[:, 1]
    return starts, ends


def _count_digits(c: DocCounts, layout: SuiteLayout, starts: np.ndarray, ends: np.ndarray
                  ) -> None:
    """Tokens per digit run, and how runs of 4+ ASCII digits are cut (all vectorized)."""
    runs, doc, offsets = layout.digit_runs, layout.doc_of_run, layout.offsets
    if runs is None or doc is None or runs.size == 0:
        return
    rs, re_ = runs[:, 0], runs[:, 1]
    n_digits = re_ - rs
    b0, b1 = offsets[rs], offsets[re_]
    first = np.searchsorted(ends, b0, side="right")
    last = np.searchsorted(starts, b1, side="left") - 1
    n = c.digits.size
    c.digits += np.bincount(doc, weights=n_digits, minlength=n).astype(np.int64)
    c.digit_tokens += np.bincount(doc, weights=np.maximum(last - first + 1, 0),
                                  minlength=n).astype(np.int64)
    # Chunking: ASCII runs long enough to tell the patterns apart (l2r and r2l groups of 3
    # coincide when the length is a multiple of 3).
    pick = np.flatnonzero((n_digits >= MIN_CHUNKED_RUN) & (n_digits % 3 != 0)
                          & (b1 - b0 == n_digits))
    if pick.size == 0:
        return
    cuts_per_run = np.maximum(last[pick] - first[pick], 0)  # tokens after the first one
    run_of_cut = np.repeat(np.arange(pick.size), cuts_per_run)
    cut_index = (np.arange(run_of_cut.size) - np.repeat(np.cumsum(cuts_per_run) - cuts_per_run,
                                                        cuts_per_run)
                 + np.repeat(first[pick] + 1, cuts_per_run))
    rel = starts[cut_index] - np.repeat(b0[pick], cuts_per_run)  # ASCII: bytes == digits
    size = np.repeat(n_digits[pick], cuts_per_run)
    left3 = np.bincount(run_of_cut, weights=rel % 3 == 0, minlength=pick.size)
    right3 = np.bincount(run_of_cut, weights=(size - rel) % 3 == 0, minlength=pick.size)
    nd = n_digits[pick]
    k = cuts_per_run
    groups = (nd - 1) // 3
    cls = np.full(pick.size, 3)
    cls[(k == groups) & (right3 == k)] = 2
    cls[(k == groups) & (left3 == k)] = 1
    cls[k == nd - 1] = 0
    np.add.at(c.runs, (doc[pick], cls), 1)


def subset_sums(c: DocCounts, idx: np.ndarray, collectors: set[str]) -> SubsetStats:
    """Reduce per-document counts of the documents ``idx`` to sums (ratios come later)."""
    ok = idx[c.ok[idx]]
    s: dict[str, int] = {
        "docs": int(idx.size), "ok": int(ok.size), "failed": int(idx.size - ok.size),
        "tokens": int(c.tokens[ok].sum()), "bytes": int(c.bytes[ok].sum()),
        "chars": int(c.chars[ok].sum()), "unk": int(c.unk[ok].sum()),
        "fallback": int(c.fallback[ok].sum()),
    }
    if "decode" in collectors:
        s["roundtrip"] = int(c.roundtrip[ok].sum())
    if "words" in collectors:
        seg = ok[c.words[ok] >= 0]
        s.update(seg_docs=int(seg.size), seg_tokens=int(c.tokens[seg].sum()),
                 words=int(c.words[seg].sum()), continued=int(c.continued[seg].sum()))
    if "unk_spans" in collectors:
        s["unk_chars"] = int(c.unk_chars[ok].sum())
    if "digits" in collectors:
        s["digits"] = int(c.digits[ok].sum())
        s["digit_tokens"] = int(c.digit_tokens[ok].sum())
        runs = c.runs[ok].sum(axis=0)
        s.update({name: int(runs[k]) for k, name in enumerate(RUN_KINDS)})
    out = SubsetStats(s)
    if "histogram" in collectors:
        out.hist_ids, out.hist_counts = histogram(c.ids_of(ok))
    return out


def renyi_efficiency(ids: np.ndarray, vocab_size: int, alpha: float = RENYI_ALPHA) -> float | None:
    """Rényi entropy of the unigram distribution divided by log |V| (Zouhar et al. 2023)."""
    if ids.size == 0:
        return None
    return renyi_from_counts(np.bincount(ids), vocab_size, alpha)


def evaluate(stats: SubsetStats, metrics: Sequence[MetricInfo], ctx: MetricContext
             ) -> dict[str, Any]:
    """Values of the corpus ``metrics`` from one subset's merged statistics."""
    view = SumsView(stats.sums, stats.histogram)
    out: dict[str, Any] = {}
    for m in metrics:
        if m.compute is not None:
            out[m.name] = m.compute(view, ctx)
    return out


def aggregate(c: DocCounts, idx: np.ndarray, families: Sequence[str], vocab_size: int,
              has_unk: bool) -> dict[str, Any]:
    """Metric values over the documents ``idx`` (ratios of sums)."""
    from tokbench.metrics import metrics_of

    metrics = metrics_of(families)
    stats = subset_sums(c, idx, collectors_for(n for m in metrics for n in m.needs))
    values = evaluate(stats, metrics, MetricContext(vocab_size, has_unk))
    return {k: v for k, v in values.items() if v is not None}


def classify_roundtrip(original: str, decoded: str, has_unk: bool) -> dict[str, Any]:
    """Why a round-trip failed: kind, first differing character offset and excerpts."""
    def squeeze(s: str) -> str:
        return "".join(s.split())

    nfkc_o, nfkc_d = (unicodedata.normalize("NFKC", s) for s in (original, decoded))
    if has_unk:
        kind = "unknown_token"
    elif nfkc_o == nfkc_d:
        kind = "normalization"
    elif squeeze(original) == squeeze(decoded):
        kind = "whitespace"
    elif squeeze(nfkc_o) == squeeze(nfkc_d):
        kind = "normalization"  # e.g. SentencePiece's nmt_nfkc also collapses whitespace
    else:
        kind = "other"
    at = next((k for k, (a, b) in enumerate(zip(original, decoded, strict=False)) if a != b),
              min(len(original), len(decoded)))
    lo = max(0, at - 20)
    return {"kind": kind, "offset": at, "expected": original[lo:at + 20],
            "got": decoded[lo:at + 20]}
