"""Corpus-level metrics from encoded documents: ratios of sums, never means of ratios.

``measure_documents`` turns one tokenizer's encodings of a suite into per-document
counts (numpy arrays); ``aggregate`` sums them over a subset and divides. All the
per-token work is vectorized so the harness costs little next to the encoding.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

RENYI_ALPHA = 2.5
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
        top = int(ids.max()) + 1
        if top > self.length.size:
            grow = max(top, self.length.size * 2)
            self.length = np.concatenate([self.length, np.zeros(grow - self.length.size, np.int64)])
            self.known = np.concatenate([self.known, np.zeros(grow - self.known.size, bool)])
            self.fallback = np.concatenate(
                [self.fallback, np.zeros(grow - self.fallback.size, bool)])
        new = np.unique(ids[~self.known[ids]])
        is_fb = self.tokenizer.is_byte_fallback_token
        for t in new.tolist():
            self.length[t] = len(self.token_bytes(t))
            self.fallback[t] = is_fb(t)
        self.known[new] = True


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


def token_spans(table: TokenTable, ids: np.ndarray, data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Byte start and end of each token in ``data`` (the text's UTF-8)."""
    lengths = table.length[ids]
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if ends.size else 0
    if total == len(data):
        return ends - lengths, ends
    if (total == len(data) + 1 and ids.size and not data.startswith(b" ")
            and table.token_bytes(int(ids[0])).startswith(b" ")):
        # SentencePiece's dummy prefix: the first "▁" stands for no byte of the text.
        ends = np.maximum(ends - 1, 0)
        return np.maximum(ends - lengths, 0), ends
    from tokbench.adapters.base import align_spans

    spans = align_spans(data, [table.token_bytes(int(t)) for t in ids])
    arr = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    return arr[:, 0], arr[:, 1]


@dataclass
class DocCounts:
    """Per-document counts for one tokenizer over one suite (arrays aligned with docs)."""

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
    ids: list[np.ndarray] = field(default_factory=list)


def measure_documents(
    table: TokenTable,
    texts: Sequence[str],
    encodings: Sequence[Sequence[int] | None],
    decoded: Sequence[str | None] | None,
    word_spans: Sequence[Sequence[tuple[int, int]] | None] | None,
    numbers: bool = False,
) -> DocCounts:
    """Count everything the metrics need, one document at a time (tokens vectorized)."""
    n = len(texts)
    z = lambda: np.zeros(n, dtype=np.int64)  # noqa: E731
    c = DocCounts(ok=np.zeros(n, bool), tokens=z(), bytes=z(), chars=z(), words=np.full(n, -1),
                  continued=z(), roundtrip=np.zeros(n, bool), unk=z(), unk_chars=z(),
                  fallback=z(), digits=z(), digit_tokens=z(), runs=np.zeros((n, 4), np.int64))
    all_ids = [np.asarray(e if e is not None else (), dtype=np.int64) for e in encodings]
    table.ensure(np.concatenate(all_ids) if all_ids else np.zeros(0, np.int64))
    unk_id = table.unk_id
    for i, text in enumerate(texts):
        ids = all_ids[i]
        c.ids.append(ids)
        if encodings[i] is None:
            continue
        c.ok[i] = True
        data = text.encode("utf-8")
        c.tokens[i] = ids.size
        c.bytes[i] = len(data)
        c.chars[i] = len(text)
        if decoded is not None:
            c.roundtrip[i] = decoded[i] == text
        c.fallback[i] = int(table.fallback[ids].sum())
        unk_mask = (ids == unk_id) if unk_id is not None else None
        spans_needed = (word_spans is not None and word_spans[i] is not None) or numbers or (
            unk_mask is not None and unk_mask.any())
        if not spans_needed:
            continue
        starts, ends = token_spans(table, ids, data)
        offsets = char_to_byte_offsets(text)
        if unk_mask is not None and unk_mask.any():
            c.unk[i] = int(unk_mask.sum())
            covered = 0
            for s, e in zip(starts[unk_mask].tolist(), ends[unk_mask].tolist(), strict=True):
                covered += len(data[s:e].decode("utf-8", errors="ignore"))
            c.unk_chars[i] = covered
        nonempty = ends > starts
        s_ne, e_ne = starts[nonempty], ends[nonempty]
        if word_spans is not None and word_spans[i] is not None:
            spans = np.asarray(word_spans[i], dtype=np.int64).reshape(-1, 2)
            c.words[i] = spans.shape[0]
            if spans.shape[0]:
                wb = offsets[spans[:, 0]]
                we = offsets[spans[:, 1]]
                first = np.searchsorted(e_ne, wb, side="right")
                last = np.searchsorted(s_ne, we, side="left") - 1
                c.continued[i] = int(((last - first + 1) >= 2).sum())
        if numbers:
            _count_digits(c, i, text, offsets, s_ne, e_ne)
    return c


def _count_digits(c: DocCounts, i: int, text: str, offsets: np.ndarray,
                  starts: np.ndarray, ends: np.ndarray) -> None:
    for m in DIGIT_RUN.finditer(text):
        b0, b1 = int(offsets[m.start()]), int(offsets[m.end()])
        first = int(np.searchsorted(ends, b0, side="right"))
        last = int(np.searchsorted(starts, b1, side="left")) - 1
        n_digits = m.end() - m.start()
        c.digits[i] += n_digits
        c.digit_tokens[i] += max(last - first + 1, 0)
        if n_digits < MIN_CHUNKED_RUN or n_digits % 3 == 0:
            continue  # l2r and r2l groups of 3 coincide when the length is a multiple of 3
        # internal cut points, as digit counts from the run's start
        char_cuts = set()
        for s in starts[first + 1:last + 1].tolist():
            if b0 < s < b1:
                char_cuts.add(int(np.searchsorted(offsets, s)) - m.start())
        c.runs[i, _chunk_class(char_cuts, n_digits)] += 1


def _chunk_class(cuts: set[int], n: int) -> int:
    """0 single digits, 1 groups of 3 from the left, 2 from the right, 3 other."""
    if cuts == set(range(1, n)):
        return 0
    if cuts == set(range(3, n, 3)):
        return 1
    if cuts == {n - k for k in range(3, n, 3)}:
        return 2
    return 3


def ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def renyi_efficiency(ids: np.ndarray, vocab_size: int, alpha: float = RENYI_ALPHA) -> float | None:
    """Rényi entropy of the unigram distribution divided by log |V| (Zouhar et al. 2023)."""
    if ids.size == 0 or vocab_size < 2:
        return None
    counts = np.unique(ids, return_counts=True)[1].astype(np.float64)
    p = counts / counts.sum()
    h = math.log(float(np.sum(p ** alpha))) / (1.0 - alpha)
    return h / math.log(vocab_size)


def aggregate(c: DocCounts, idx: np.ndarray, families: Sequence[str], vocab_size: int,
              has_unk: bool) -> dict[str, Any]:
    """Metric values over the documents ``idx`` (ratios of sums)."""
    ok = idx[c.ok[idx]]
    tokens = int(c.tokens[ok].sum())
    out: dict[str, Any] = {}
    if "compression" in families:
        out["tokens"] = tokens
        out["bytes_per_token"] = ratio(int(c.bytes[ok].sum()), tokens)
        out["chars_per_token"] = ratio(int(c.chars[ok].sum()), tokens)
    if "fertility" in families:
        seg = ok[c.words[ok] >= 0]
        if seg.size == ok.size and seg.size:
            words = int(c.words[seg].sum())
            out["fertility"] = ratio(int(c.tokens[seg].sum()), words)
            out["continued_words"] = ratio(int(c.continued[seg].sum()), words)
    if "roundtrip" in families and ok.size:
        out["roundtrip"] = float(c.roundtrip[ok].sum()) / ok.size
    if "unknown" in families:
        out["unk_rate"] = ratio(int(c.unk[ok].sum()), tokens) if has_unk else 0.0
        out["unk_chars"] = ratio(int(c.unk_chars[ok].sum()), int(c.chars[ok].sum()))
        out["byte_fallback"] = ratio(int(c.fallback[ok].sum()), tokens)
    if "vocab_use" in families:
        ids = np.concatenate([c.ids[i] for i in ok]) if ok.size else np.zeros(0, np.int64)
        out["vocab_used"] = ratio(int(np.unique(ids).size), vocab_size)
        out["renyi_efficiency"] = renyi_efficiency(ids, vocab_size)
    if "numbers" in families:
        digits = int(c.digits[ok].sum())
        if digits:
            out["tokens_per_digit"] = ratio(int(c.digit_tokens[ok].sum()), digits)
            runs = c.runs[ok].sum(axis=0)
            total = int(runs.sum())
            if total:
                for k, name in enumerate(("digits_single", "digits_l2r3", "digits_r2l3",
                                          "digits_other")):
                    out[name] = int(runs[k]) / total
    return out


def classify_roundtrip(original: str, decoded: str, has_unk: bool) -> dict[str, Any]:
    """Why a round-trip failed: kind, first differing character offset and excerpts."""
    if has_unk:
        kind = "unknown_token"
    elif unicodedata.normalize("NFKC", original) == unicodedata.normalize("NFKC", decoded):
        kind = "normalization"
    elif "".join(original.split()) == "".join(decoded.split()):
        kind = "whitespace"
    else:
        kind = "other"
    at = next((k for k, (a, b) in enumerate(zip(original, decoded, strict=False)) if a != b),
              min(len(original), len(decoded)))
    lo = max(0, at - 20)
    return {"kind": kind, "offset": at, "expected": original[lo:at + 20],
            "got": decoded[lo:at + 20]}
