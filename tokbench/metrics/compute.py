"""Corpus-level metrics from encoded documents: ratios of sums, never means of ratios.

``measure_documents`` turns one tokenizer's encodings of a suite into per-document
counts (numpy arrays); ``subset_sums`` sums them over a subset and ``evaluate`` applies
the metrics' formulas to the (merged) sums. All the
per-token work is vectorized so the harness costs little next to the encoding.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tokbench.adapters.base import char_to_byte_offsets, is_utf8
from tokbench.metrics.base import MetricContext, MetricInfo, SumsView
from tokbench.metrics.definitions import ratio
from tokbench.metrics.stats import RUN_KINDS, SubsetStats, histogram
from tokbench.results import Row

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.metrics.morph import MorphLayout
    from tokbench.metrics.tablecache import StoredTable

__all__ = ["evaluate", "measure_documents", "ratio", "subset_sums"]

DIGIT_RUN = re.compile(r"\d+")
#: the bytes ``bytes.strip`` removes
_ASCII_SPACE = np.frombuffer(b" \t\n\r\x0b\x0c", dtype=np.uint8)
MIN_CHUNKED_RUN = 4  # digit runs shorter than this say nothing about chunking
#: how a run of 4+ ASCII digits is cut (see ``_count_digits``); the columns of ``DocCounts.runs``
DIGIT_CLASSES = tuple(k.replace("runs_", "digits_") for k in RUN_KINDS)


class TokenTable:
    """Per-token facts (bytes, byte length, unknown, byte fallback), looked up lazily by id.

    Every token's bytes are also kept end to end in ``flat`` (token ``t`` at
    ``start[t]:start[t] + length[t]``), so a suite's token bytes can be compared with its
    text without a Python loop per token.
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self._bytes: dict[int, bytes] = {}
        self.length = np.zeros(0, dtype=np.int64)
        self.start = np.zeros(0, dtype=np.int64)
        self.known = np.zeros(0, dtype=bool)
        self.fallback = np.zeros(0, dtype=bool)
        self.partial = np.zeros(0, dtype=bool)  # bytes not valid UTF-8 alone
        self._flat = bytearray()
        self._flat_view: np.ndarray | None = None
        self.unk_id = tokenizer.unk_id
        self._filled = False  # the first ``ensure`` fills every id it can at once

    @property
    def flat(self) -> np.ndarray:
        """All known tokens' bytes end to end (see ``start``); copied once per growth."""
        if self._flat_view is None or self._flat_view.size != len(self._flat):
            self._flat_view = np.frombuffer(bytes(self._flat), dtype=np.uint8)
        return self._flat_view

    def token_bytes(self, token_id: int) -> bytes:
        b = self._bytes.get(token_id)
        if b is None:
            if 0 <= token_id < self.known.size and self.known[token_id]:
                at = int(self.start[token_id])
                b = bytes(self._flat[at:at + int(self.length[token_id])])
            else:
                b = self.tokenizer.token_bytes(token_id)
            self._bytes[token_id] = b
        return b

    def ensure(self, ids: np.ndarray) -> None:
        """Fill the tables for every id in ``ids`` not seen before."""
        if ids.size == 0:
            return
        if not self._filled:
            self._filled = True
            self._fill_all()
        top = int(ids.max()) + 1
        if top > self.length.size:
            grow = max(top, self.length.size * 2)

            def widen(a: np.ndarray) -> np.ndarray:
                return np.concatenate([a, np.zeros(grow - a.size, a.dtype)])

            self.length, self.start = widen(self.length), widen(self.start)
            self.known, self.fallback = widen(self.known), widen(self.fallback)
            self.partial = widen(self.partial)
        new = np.unique(ids[~self.known[ids]]).tolist()
        if not new:
            return
        token_bytes = self.tokenizer.token_bytes
        pieces = [token_bytes(t) for t in new]
        self._bytes.update(zip(new, pieces, strict=True))
        self.length[new] = [len(b) for b in pieces]
        self.start[new] = len(self._flat) + np.concatenate(
            [[0], np.cumsum(self.length[new])[:-1]])
        self._flat += b"".join(pieces)
        self.partial[new] = [not is_utf8(b) for b in pieces]
        if self.tokenizer.byte_fallback:
            is_fb = self.tokenizer.is_byte_fallback_token
            self.fallback[new] = [is_fb(t) for t in new]
        self.known[new] = True

    def _fill_all(self) -> None:
        """Every id's facts: from the table cache (``tokbench.metrics.tablecache``), else
        from the backend's list of every token, else, for a tokenizer identified by its
        files, id by id (then stored); a tokenizer with neither is filled as ids come."""
        from tokbench.metrics.tablecache import StoredTable, read_table, table_key, write_table

        key = table_key(self.tokenizer)
        stored = read_table(key) if key is not None else None
        if stored is not None:
            self._adopt(stored)
            return
        listed = self.tokenizer.all_token_bytes()
        if listed is None and key is None:
            return
        everything = listed if listed is not None else self._every_token()
        known = np.fromiter((b is not None for b in everything), dtype=bool,
                            count=len(everything))
        pieces = [b or b"" for b in everything]
        self.length = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        self.start = np.concatenate([[0], np.cumsum(self.length)[:-1]]).astype(np.int64)
        self._flat = bytearray(b"".join(pieces))
        self.known = known
        self.fallback = np.zeros(len(pieces), dtype=bool)
        self.partial = _partial(pieces, self.length, self.start, self.flat)
        if self.tokenizer.byte_fallback:
            is_fb = self.tokenizer.is_byte_fallback_token
            self.fallback[known] = [is_fb(t) for t in np.flatnonzero(known).tolist()]
        if key is not None:
            write_table(key, StoredTable(self.length, bytes(self._flat), self.known,
                                         self.partial, self.fallback))

    def _every_token(self) -> list[bytes | None]:
        """``token_bytes`` of every id (None where the backend has no such id)."""
        token_bytes = self.tokenizer.token_bytes
        out: list[bytes | None] = []
        for t in range(self.tokenizer.vocab_size):
            try:
                out.append(token_bytes(t))
            except Exception:  # an id the backend does not define (a gap in a vocab)
                out.append(None)
        return out

    def _adopt(self, stored: StoredTable) -> None:
        self.length = stored.length
        self.start = np.concatenate([[0], np.cumsum(self.length)[:-1]]).astype(np.int64)
        self._flat = bytearray(stored.flat)
        self.known, self.partial, self.fallback = stored.known, stored.partial, stored.fallback


def _partial(pieces: list[bytes], length: np.ndarray, start: np.ndarray, flat: np.ndarray
             ) -> np.ndarray:
    """Which pieces are not valid UTF-8 alone; only pieces with a byte >= 0x80 are decoded
    (ASCII pieces, most of any vocabulary, are valid by construction)."""
    out = np.zeros(len(pieces), dtype=bool)
    nonempty = np.flatnonzero(length > 0)
    if nonempty.size == 0:
        return out
    high = np.zeros(len(pieces), dtype=bool)
    high[nonempty] = np.maximum.reduceat(flat, start[nonempty]) >= 0x80
    # reduceat over [start, next start) of non-empty pieces: their runs are contiguous
    for t in np.flatnonzero(high).tolist():
        out[t] = not is_utf8(pieces[t])
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
    continued: np.ndarray  # words of 2+ tokens
    single: np.ndarray  # words of exactly one token
    roundtrip: np.ndarray
    unk: np.ndarray
    unk_chars: np.ndarray
    fallback: np.ndarray
    byte_tokens: np.ndarray  # tokens whose bytes are not valid UTF-8 alone
    digits: np.ndarray
    digit_tokens: np.ndarray
    runs: np.ndarray  # shape (n, len(DIGIT_CLASSES))
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    doc_of_token: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: tokens counted for fertility: the document's own (``context``) or those of its words
    #: encoded alone (``tokbench.metrics.conventions``)
    word_tokens: np.ndarray | None = None
    #: per-document statistics of the optional families (morpheme boundaries from
    #: ``MorphLayout.count``, text variants from ``tokbench.metrics.robustness``), by name;
    #: every one is summed over a subset's documents
    per_doc: dict[str, np.ndarray] = field(default_factory=dict)

    def ids_of(self, docs: np.ndarray) -> np.ndarray:
        """All token ids of the documents ``docs``."""
        if docs.size == self.ok.size:
            return self.ids
        keep = np.zeros(self.ok.size, bool)
        keep[docs] = True
        return np.asarray(self.ids[keep[self.doc_of_token]])


@dataclass
class SuiteLayout:
    """The tokenizer-independent part of measuring a suite, computed once per suite.

    Documents are laid end to end, separated by one newline; every offset below is
    into that joined text. Word spans and digit runs are given as byte ranges in it.
    The joined text and its offsets are built when first used: metrics that only count
    tokens, bytes and characters never need them.
    """

    texts: Sequence[str]
    chars: np.ndarray
    nbytes: np.ndarray
    has_words: bool  # word spans were given (fertility is measured)
    words: np.ndarray  # words per document, -1 without a segmenter
    word_bytes: np.ndarray  # (n_words, 2) byte ranges
    doc_of_word: np.ndarray
    digit_runs: np.ndarray | None  # (n_runs, 2) char ranges of digit runs, when counted
    doc_of_run: np.ndarray | None
    #: gold morpheme boundaries (``tokbench.metrics.morph``), when morph metrics are measured
    morph: MorphLayout | None = None

    @functools.cached_property
    def joined(self) -> str:
        return "\n".join(self.texts)

    @functools.cached_property
    def offsets(self) -> np.ndarray:
        """Character -> UTF-8 byte offset in the joined text."""
        return char_to_byte_offsets(self.joined)

    @functools.cached_property
    def char_base(self) -> np.ndarray:
        """Where each document starts in the joined text, in characters."""
        return np.concatenate([[0], np.cumsum(self.chars + 1)[:-1]]).astype(np.int64)

    @functools.cached_property
    def byte_base(self) -> np.ndarray:
        """Where each document starts in the joined text, in UTF-8 bytes."""
        return np.asarray(self.offsets[self.char_base])

    @functools.cached_property
    def data(self) -> bytes:
        """The joined text's UTF-8 bytes."""
        return self.joined.encode("utf-8", "surrogatepass")

    @functools.cached_property
    def _text_bytes_before(self) -> np.ndarray:
        """How many bytes of ``data`` before each position are not ASCII whitespace."""
        blank = np.isin(np.frombuffer(self.data, dtype=np.uint8), _ASCII_SPACE)
        return np.concatenate([[0], np.cumsum(~blank)])

    def text_bytes_between(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Whether each byte range ``starts[i]:ends[i]`` of ``data`` holds a byte other than
        ASCII whitespace (what ``bytes.strip`` leaves)."""
        before = self._text_bytes_before
        return np.asarray(before[ends] > before[starts])

    @classmethod
    def build(cls, texts: Sequence[str],
              word_spans: Sequence[Sequence[tuple[int, int]] | None] | None = None,
              numbers: bool = False) -> SuiteLayout:
        n = len(texts)
        chars = np.fromiter(map(len, texts), dtype=np.int64, count=n)
        # a lone surrogate counts 3 bytes, as in the offsets (``char_to_byte_offsets``)
        nbytes = np.fromiter((len(t.encode("utf-8", "surrogatepass")) for t in texts),
                             dtype=np.int64, count=n)
        out = cls(texts, chars, nbytes, word_spans is not None, np.full(n, -1, dtype=np.int64),
                  np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64), None, None)
        if word_spans is not None:
            counts = np.fromiter((len(w) if w is not None else 0 for w in word_spans),
                                 dtype=np.int64, count=n)
            out.words = np.where([w is not None for w in word_spans], counts, -1)
            flat = np.fromiter(itertools.chain.from_iterable(
                itertools.chain.from_iterable(w) for w in word_spans if w is not None),
                dtype=np.int64).reshape(-1, 2)
            out.doc_of_word = np.repeat(np.arange(n), counts)
            if flat.size:
                out.word_bytes = out.offsets[flat + out.char_base[out.doc_of_word, None]]
        if numbers:
            runs = np.asarray([(m.start(), m.end()) for m in DIGIT_RUN.finditer(out.joined)],
                              dtype=np.int64).reshape(-1, 2)
            out.digit_runs = runs
            out.doc_of_run = np.searchsorted(out.char_base, runs[:, 0], side="right") - 1
        return out


def count_documents(layout: SuiteLayout, tokens: Sequence[int | None]) -> DocCounts:
    """The counts of metrics that need only how many tokens each document has
    (``tokens``: None where the tokenizer failed on it): no token ids, no kinds of token."""
    n = len(tokens)
    zeros = lambda: np.zeros(n, dtype=np.int64)  # noqa: E731
    return DocCounts(ok=np.array([t is not None for t in tokens], dtype=bool),
                     tokens=np.fromiter((t or 0 for t in tokens), dtype=np.int64, count=n),
                     bytes=layout.nbytes, chars=layout.chars, words=layout.words,
                     continued=zeros(), single=zeros(), roundtrip=np.zeros(n, bool),
                     unk=zeros(), unk_chars=zeros(), fallback=zeros(), byte_tokens=zeros(),
                     digits=zeros(), digit_tokens=zeros(),
                     runs=np.zeros((n, len(DIGIT_CLASSES)), np.int64))


def measure_documents(
    table: TokenTable,
    texts: Sequence[str],
    encodings: Sequence[Sequence[int] | None],
    decoded: Sequence[str | None] | None,
    word_spans: Sequence[Sequence[tuple[int, int]] | None] | None,
    numbers: bool = False,
    layout: SuiteLayout | None = None,
    offsets: Sequence[Sequence[tuple[int, int]] | None] | None = None,
    offsets_unit: str = "char",
    token_ids: bool = True,
) -> DocCounts:
    """Count everything the metrics need for a whole suite at once.

    Every per-token and per-word computation is a handful of numpy operations over
    the suite instead of a Python loop per document. Pass the suite's ``layout``
    (built from the same texts, word spans and ``numbers``) to share it between
    tokenizers. ``offsets`` are the backend's own token positions from the same encode
    (``Tokenizer.encode_batch_offsets``): they place the tokens of documents whose token
    bytes do not spell the text (a normalizer changed it, unknown tokens). Without
    ``token_ids`` (metrics that only count tokens: no words, digits, decode, kinds of
    token) the ids are not gathered and the counts of kinds of token stay 0.
    """
    if layout is None:
        layout = SuiteLayout.build(texts, word_spans, numbers)
    n = len(texts)
    zeros = lambda: np.zeros(n, dtype=np.int64)  # noqa: E731
    if not token_ids and decoded is None and not (layout.has_words or numbers
                                                   or layout.morph is not None):
        return count_documents(layout, [None if e is None else len(e) for e in encodings])
    ok = np.array([e is not None for e in encodings], dtype=bool)
    encs = [e if e is not None else () for e in encodings]
    ntok = np.fromiter((len(e) for e in encs), dtype=np.int64, count=n)
    ids = np.fromiter(itertools.chain.from_iterable(encs), dtype=np.int64, count=int(ntok.sum()))
    doc_of_token = np.repeat(np.arange(n), ntok)
    table.ensure(ids)

    c = DocCounts(ok=ok, tokens=ntok, bytes=layout.nbytes, chars=layout.chars,
                  words=layout.words, continued=zeros(), single=zeros(),
                  roundtrip=np.zeros(n, bool),
                  unk=zeros(), unk_chars=zeros(), fallback=zeros(), byte_tokens=zeros(),
                  digits=zeros(),
                  digit_tokens=zeros(), runs=np.zeros((n, len(DIGIT_CLASSES)), np.int64), ids=ids,
                  doc_of_token=doc_of_token)
    if decoded is not None:
        c.roundtrip = np.array([d is not None and d == t for d, t in zip(decoded, texts,
                                                                           strict=True)],
                               dtype=bool)  # an empty shard too
    c.fallback = np.bincount(doc_of_token, weights=table.fallback[ids], minlength=n).astype(
        np.int64)
    c.byte_tokens = np.bincount(doc_of_token, weights=table.partial[ids], minlength=n).astype(
        np.int64)
    unk_mask = ids == table.unk_id if table.unk_id is not None else np.zeros(ids.size, bool)
    c.unk = np.bincount(doc_of_token, weights=unk_mask, minlength=n).astype(np.int64)

    if layout.morph is not None and ids.size == 0:
        c.per_doc.update(layout.morph.count(ids, ids, ids, n))
    need_spans = (layout.has_words or numbers or layout.morph is not None
                  or bool(unk_mask.any()))
    if not need_spans or ids.size == 0:
        return c
    # only unknown tokens need a place: the documents that have one
    only = None if layout.has_words or numbers or layout.morph is not None else c.unk > 0
    starts, ends = token_spans(table, layout, ids, ntok, offsets, offsets_unit, only)

    if unk_mask.any():
        data = layout.data
        for t in np.flatnonzero(unk_mask).tolist():
            piece = data[starts[t]:ends[t]].decode("utf-8", errors="ignore")
            c.unk_chars[doc_of_token[t]] += len(piece)

    nonempty = ends > starts
    s_ne, e_ne = starts[nonempty], ends[nonempty]
    if layout.has_words and layout.word_bytes.size:
        first = np.searchsorted(e_ne, layout.word_bytes[:, 0], side="right")
        last = np.searchsorted(s_ne, layout.word_bytes[:, 1], side="left") - 1
        cover = last - first + 1
        c.continued = np.bincount(layout.doc_of_word, weights=cover >= 2,
                                  minlength=n).astype(np.int64)
        c.single = np.bincount(layout.doc_of_word, weights=cover == 1,
                               minlength=n).astype(np.int64)
    if numbers:
        _count_digits(c, layout, s_ne, e_ne)
    if layout.morph is not None:
        c.per_doc.update(layout.morph.count(starts, ends, doc_of_token, n))
    return c


def token_spans(table: TokenTable, layout: SuiteLayout, ids: np.ndarray, ntok: np.ndarray,
                offsets: Sequence[Sequence[tuple[int, int]] | None] | None = None,
                offsets_unit: str = "char", only: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Byte start and end of every token in the suite's joined text.

    A document whose token bytes spell its text byte for byte (byte-level tokenizers;
    SentencePiece's dummy-prefix space dropped) gets its spans by a cumulative sum:
    exact, even for a token holding part of a character. Equal lengths are not enough:
    a normalizer can add a byte in one place and remove one in another ("▁3,850 km²"
    → "▁3,850 ▁km2"). Any other document takes the backend's ``offsets`` when given
    (see ``_from_offsets``), else is aligned piece by piece with ``align_spans``.
    ``only`` (a mask over documents) places just those documents' tokens; the spans of
    the others are then meaningless.
    """
    n = ntok.size
    wanted = np.ones(n, dtype=bool) if only is None else only
    lengths = table.length[ids].copy()
    skip = np.zeros(ids.size, dtype=np.int64)  # leading token bytes that stand for no text
    first_tok = np.concatenate([[0], np.cumsum(ntok)[:-1]]).astype(np.int64)
    doc_of_token = np.repeat(np.arange(n), ntok)
    diff = np.bincount(doc_of_token, weights=lengths, minlength=n).astype(np.int64) - layout.nbytes
    # a token with no bytes (unknown, control) breaks the cumulative sum even when the
    # lengths happen to add up: such documents are placed otherwise
    empty = np.bincount(doc_of_token, weights=lengths == 0, minlength=n) > 0
    for d in np.flatnonzero((diff == 1) & ~empty & (ntok > 0) & wanted).tolist():
        t = int(first_tok[d])
        if not layout.texts[d].startswith(" ") and table.token_bytes(int(ids[t])).startswith(b" "):
            lengths[t] -= 1  # the dummy prefix stands for no byte of the text
            skip[t] = 1
            diff[d] = 0
    exact = (diff == 0) & ~empty & wanted
    exact[exact] = _same_bytes(table, layout, ids, lengths, skip, ntok, np.flatnonzero(exact))
    cum = np.concatenate([[0], np.cumsum(lengths)])
    # each document starts at its own byte base (documents are joined by one byte, a newline)
    ends = cum[1:] + np.repeat(layout.byte_base - cum[first_tok], ntok)
    starts = ends - lengths
    rest = np.flatnonzero(~exact & (ntok > 0) & wanted)
    if offsets is not None:
        given = [d for d in rest.tolist()
                 if offsets[d] is not None and len(offsets[d]) == ntok[d]]  # type: ignore[arg-type]
        if given:
            _from_offsets(table, layout, ids, ntok, first_tok, np.asarray(given), offsets,
                          offsets_unit, starts, ends)
            rest = np.setdiff1d(rest, given)
    if rest.size:
        from tokbench.adapters.base import align_spans

        for d in rest.tolist():
            t0, t1 = int(first_tok[d]), int(first_tok[d] + ntok[d])
            data = layout.texts[d].encode("utf-8")
            spans = align_spans(data, [table.token_bytes(int(t)) for t in ids[t0:t1]])
            arr = np.asarray(spans, dtype=np.int64).reshape(-1, 2) + layout.byte_base[d]
            starts[t0:t1], ends[t0:t1] = arr[:, 0], arr[:, 1]
    return starts, ends


def _same_bytes(table: TokenTable, layout: SuiteLayout, ids: np.ndarray, lengths: np.ndarray,
                skip: np.ndarray, ntok: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """For each document of ``docs`` (whose token lengths add up to its byte count),
    whether its token bytes are exactly its text's bytes."""
    if docs.size == 0:
        return np.zeros(0, dtype=bool)
    pick = np.zeros(ntok.size, dtype=bool)
    pick[docs] = True
    sel = pick[np.repeat(np.arange(ntok.size), ntok)]
    lens = lengths[sel]
    stream = table.flat[np.repeat(table.start[ids[sel]] + skip[sel], lens) + _within(lens)]
    nb = layout.nbytes[docs]
    text_pos = np.repeat(layout.byte_base[docs], nb) + _within(nb)
    text = np.frombuffer(layout.data, dtype=np.uint8)[text_pos]
    bad = np.bincount(np.repeat(np.arange(docs.size), nb), weights=stream != text,
                      minlength=docs.size)
    return np.asarray(bad == 0)


def _from_offsets(table: TokenTable, layout: SuiteLayout, ids: np.ndarray, ntok: np.ndarray,
                  first_tok: np.ndarray, docs: np.ndarray,
                  offsets: Sequence[Sequence[tuple[int, int]] | None], unit: str,
                  starts: np.ndarray, ends: np.ndarray) -> None:
    """Spans of the tokens of ``docs`` from the backend's offsets (written in place).

    Two corrections make them spans of text: a piece of only spaces that the backend
    puts on a character that is no space (Hugging Face's ``▁`` dummy prefix on the first
    character) covers nothing; a byte-fallback piece the backend gives no extent (all but
    the last byte piece of a character) covers its character, like the last one.
    """
    counts = ntok[docs]
    arr = np.fromiter(itertools.chain.from_iterable(itertools.chain.from_iterable(
        offsets[d] for d in docs.tolist())), dtype=np.int64,
        count=2 * int(counts.sum())).reshape(-1, 2)
    rep = np.repeat(docs, counts)
    tok = np.repeat(first_tok[docs], counts) + _within(counts)
    if unit == "byte":
        glob = arr + layout.byte_base[rep, None]
    else:
        chars = np.minimum(arr, layout.chars[rep, None]) + layout.char_base[rep, None]
        glob = layout.offsets[chars]
    s, e = glob[:, 0], glob[:, 1]
    tok_ids = ids[tok]
    on_text = np.isin(tok_ids, _blank_tokens(table, np.unique(tok_ids))) & (e > s)
    on_text[on_text] = layout.text_bytes_between(s[on_text], e[on_text])
    e[on_text] = s[on_text]
    holes = np.flatnonzero((e == s) & table.fallback[tok_ids])
    if holes.size:
        filled = np.flatnonzero(e > s)
        nxt = np.searchsorted(filled, holes)
        ok = nxt < filled.size
        holes, nxt = holes[ok], filled[nxt[ok]]
        same_doc = rep[nxt] == rep[holes]
        s[holes[same_doc]], e[holes[same_doc]] = s[nxt[same_doc]], e[nxt[same_doc]]
    starts[tok], ends[tok] = s, e


def _within(lengths: np.ndarray) -> np.ndarray:
    """Each element's place in its run, for runs of ``lengths`` laid end to end
    ([2, 3] -> [0, 1, 0, 1, 2])."""
    return np.asarray(np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths,
                                                                lengths))


def _blank_tokens(table: TokenTable, uniq: np.ndarray) -> np.ndarray:
    """The tokens of ``uniq`` (distinct ids the table knows) whose bytes are spaces only
    (one at least)."""
    lengths = table.length[uniq]
    byte = table.flat[np.repeat(table.start[uniq], lengths) + _within(lengths)]
    others = np.bincount(np.repeat(np.arange(uniq.size), lengths), weights=byte != 0x20,
                         minlength=uniq.size)
    return np.asarray(uniq[(lengths > 0) & (others == 0)])


def _count_digits(c: DocCounts, layout: SuiteLayout, starts: np.ndarray, ends: np.ndarray
                  ) -> None:
    """Tokens per digit run, and how runs of 4+ ASCII digits are cut (all vectorized).

    Every run of ``MIN_CHUNKED_RUN`` or more ASCII digits falls in exactly one class of
    ``DIGIT_CLASSES``: one token per digit; groups of 3 from the left ("1234" → 123|4) or
    from the right (1|234) — told apart only when the length is not a multiple of 3; groups
    of 3 when it is (123|456: both directions give the same cut, so no direction is
    claimed); the whole run one token ("2020"); any other cut. A token reaching outside the
    run (" 2020", "2020s") counts by the cuts inside the run.
    """
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
    pick = np.flatnonzero((n_digits >= MIN_CHUNKED_RUN) & (b1 - b0 == n_digits))
    if pick.size == 0:
        return
    cuts_per_run = np.maximum(last[pick] - first[pick], 0)  # tokens after the first one
    run_of_cut = np.repeat(np.arange(pick.size), cuts_per_run)
    cut_index = _within(cuts_per_run) + np.repeat(first[pick] + 1, cuts_per_run)
    rel = starts[cut_index] - np.repeat(b0[pick], cuts_per_run)  # ASCII: bytes == digits
    size = np.repeat(n_digits[pick], cuts_per_run)
    left3 = np.bincount(run_of_cut, weights=rel % 3 == 0, minlength=pick.size)
    right3 = np.bincount(run_of_cut, weights=(size - rel) % 3 == 0, minlength=pick.size)
    nd = n_digits[pick]
    k = cuts_per_run
    groups = (nd - 1) // 3
    cls = np.full(pick.size, DIGIT_CLASSES.index("digits_other"))
    cls[(k == groups) & (right3 == k)] = DIGIT_CLASSES.index("digits_r2l3")
    cls[(k == groups) & (left3 == k)] = DIGIT_CLASSES.index("digits_l2r3")
    cls[(k == groups) & (left3 == k) & (right3 == k)] = DIGIT_CLASSES.index("digits_groups3")
    cls[k == nd - 1] = DIGIT_CLASSES.index("digits_single")
    cls[k == 0] = DIGIT_CLASSES.index("digits_whole")
    np.add.at(c.runs, (doc[pick], cls), 1)


def subset_sums(c: DocCounts, idx: np.ndarray, collectors: set[str]) -> SubsetStats:
    """Reduce per-document counts of the documents ``idx`` to sums (ratios come later)."""
    ok = idx[c.ok[idx]]
    s: dict[str, int] = {
        "docs": int(idx.size), "ok": int(ok.size), "failed": int(idx.size - ok.size),
        "tokens": int(c.tokens[ok].sum()), "bytes": int(c.bytes[ok].sum()),
        "chars": int(c.chars[ok].sum()),
    }
    if "kinds" in collectors:
        s.update(unk=int(c.unk[ok].sum()), fallback=int(c.fallback[ok].sum()),
                 byte_tokens=int(c.byte_tokens[ok].sum()))
    if "decode" in collectors:
        s["roundtrip"] = int(c.roundtrip[ok].sum())
    if "words" in collectors:
        seg = ok[c.words[ok] >= 0]
        word_tokens = c.tokens if c.word_tokens is None else c.word_tokens
        s.update(seg_docs=int(seg.size), seg_tokens=int(word_tokens[seg].sum()),
                 words=int(c.words[seg].sum()), continued=int(c.continued[seg].sum()),
                 single_words=int(c.single[seg].sum()))
    for name, per_doc in c.per_doc.items():
        s[name] = int(per_doc[ok].sum())
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


def doc_columns(c: DocCounts, stats: Sequence[str]) -> np.ndarray:
    """Per-document values of ``stats`` (documents × stats), counted as ``subset_sums``
    counts them: 0 for a document that failed, and for the word statistics 0 for one
    without a segmenter; summed over a subset's documents they give its sums."""
    ok = c.ok.astype(np.int64)
    seg = ok * (c.words >= 0)
    word_tokens = c.tokens if c.word_tokens is None else c.word_tokens
    plain = {"ok": ok, "tokens": c.tokens, "bytes": c.bytes, "chars": c.chars, "unk": c.unk,
             "fallback": c.fallback, "byte_tokens": c.byte_tokens,
             "roundtrip": c.roundtrip.astype(np.int64), "unk_chars": c.unk_chars,
             "digits": c.digits, "digit_tokens": c.digit_tokens}
    words = {"seg_tokens": word_tokens, "words": c.words, "continued": c.continued,
             "single_words": c.single}
    out = np.zeros((ok.size, len(stats)), dtype=np.int64)
    for k, stat in enumerate(stats):
        if stat in plain:
            out[:, k] = ok * plain[stat]
        elif stat in words:
            out[:, k] = seg * words[stat]
        elif stat in RUN_KINDS:
            out[:, k] = ok * c.runs[:, RUN_KINDS.index(stat)]
        else:
            raise KeyError(f"no per-document values of {stat!r}")
    return out


def evaluate(stats: SubsetStats, metrics: Sequence[MetricInfo], ctx: MetricContext
             ) -> dict[str, Any]:
    """Values of the corpus ``metrics`` from one subset's merged statistics."""
    view = SumsView(stats.sums, stats.histogram)
    out: dict[str, Any] = {}
    for m in metrics:
        if m.compute is not None:
            out[m.name] = m.compute(view, ctx)
    return out


def metric_rows(tok: str, suite: str, subset: str, stats: SubsetStats,
                metrics: Sequence[MetricInfo], ctx: MetricContext) -> list[Row]:
    """The rows of the formula ``metrics`` of one (tokenizer, suite, subset); a subset
    with failed documents says how many on each row."""
    values = evaluate(stats, metrics, ctx)
    failed = stats.sums.get("failed", 0)
    extra = {"failed_docs": failed} if failed else {}
    return [Row(tok, suite, subset, m, v, dict(extra)) for m, v in values.items()
            if v is not None]


def classify_roundtrip(original: str, decoded: str, has_unk: bool,
                       normalize: Callable[[str], str | None] | None = None) -> dict[str, Any]:
    """Why a round-trip failed: kind, first differing character offset and excerpts.

    ``normalize`` is the tokenizer's own normalizer (``Tokenizer.normalize``); without
    one, Unicode NFKC stands in for it. Where the tokenizer has one, the offset is that of
    the first difference its normalizer does not explain (an unknown token, not a newline
    the normalizer collapsed), as a character offset into ``original``.
    """
    own = normalize is not None and normalize(original) is not None
    norm: Callable[[str], str] = (
        (lambda s: normalize(s) or "") if own and normalize is not None else _nfkc)
    kind = roundtrip_kind(original, decoded, has_unk, norm)
    if own and kind in ("unknown_token", "other"):
        target = norm(original)
        p = _first_difference(target, decoded)
        at = _original_offset(original, p, norm) if p < len(target) else len(original)
        got_at = p
    else:
        at = got_at = _first_difference(original, decoded)
    lo, glo = max(0, at - 20), max(0, got_at - 20)
    return {"kind": kind, "offset": at, "expected": original[lo:at + 20],
            "got": decoded[glo:got_at + 20]}


def roundtrip_kind(original: str, decoded: str, has_unk: bool,
                   norm: Callable[[str], str]) -> str:
    """The failure class, first rule that holds: unknown_token, normalization (the
    normalizer explains the change), whitespace, normalization with whitespace, other."""
    def squeeze(s: str) -> str:
        return "".join(s.split())

    if has_unk:
        return "unknown_token"
    n_o, n_d = norm(original), norm(decoded)
    if n_o in (n_d, decoded):
        return "normalization"
    if squeeze(original) == squeeze(decoded):
        return "whitespace"
    if squeeze(n_o) in (squeeze(n_d), squeeze(decoded)):
        return "normalization"  # e.g. SentencePiece's nmt_nfkc also collapses whitespace
    return "other"


def _nfkc(s: str) -> str:
    return unicodedata.normalize("NFKC", s)


def _first_difference(a: str, b: str) -> int:
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


def _original_offset(original: str, p: int, norm: Callable[[str], str]) -> int:
    """The character of ``original`` whose normalized form holds position ``p`` of
    ``norm(original)`` (normalizers act locally, so prefixes normalize to prefixes)."""
    lo, hi = 0, len(original)
    while lo < hi:  # smallest j with len(norm(original[:j])) > p
        mid = (lo + hi) // 2
        if len(norm(original[:mid])) > p:
            hi = mid
        else:
            lo = mid + 1
    return max(0, lo - 1)
