"""Token segmentation for people: what each token of a text is, where it sits, how to show it.

Used by ``tokbench show`` (terminal) and the HTML report's token viewer. For each
token: its id, piece, exact bytes, and its span in the text in characters and in
UTF-8 bytes. Byte-level tokenizers may split one character over several tokens
(``é`` = ``c3`` + ``a9``); such a token is shown with its partial bytes in hex, and
the run of tokens that together make whole characters forms one group, so the
display never pretends a token holds a character it only holds part of.

Viewer data (``build_viewer``) is plain JSON: sample texts from each suite (a few
per subset, capped) with every tokenizer's segments, saved as ``viewer.json``
next to ``results.json`` so a report can be rebuilt without loading tokenizers.
"""

from __future__ import annotations

import bisect
import json
import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tokbench.adapters.base import char_to_byte_offsets, first_line
from tokbench.errors import TokbenchError, tokenizer_raised
from tokbench.suites.stream import AnySuite, StreamingSuite

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.metrics.compute import TokenTable
    from tokbench.record import SuiteInfo, TokenizerInfo
    from tokbench.results import Results
    from tokbench.suites.model import Document, Suite

VIEWER_SCHEMA = "tokbench.engine.viewer"
VIEWER_VERSION = 2  # 2: samples carry the segmentation view (``morph``)
VIEWER_FILE = "viewer.json"

PER_SUBSET = 2
MAX_SAMPLES = 40
MAX_CHARS = 360

TokenKind = Literal["text", "partial", "empty", "unknown"]
#: JSON code of each kind (compact rows in viewer.json)
KIND_CODES: dict[str, int] = {"text": 0, "partial": 1, "empty": 2, "unknown": 3}


def hex_bytes(data: bytes) -> str:
    """``b"\\xc3\\xa9"`` -> ``"c3 a9"`` (what the report and ``show`` print)."""
    return data.hex(" ")


@dataclass(frozen=True)
class TokenView:
    """One token placed in its text.

    ``start``/``end`` are character offsets (a token holding part of a character
    covers that whole character); ``byte_start``/``byte_end`` are exact UTF-8 offsets.
    ``parts`` is what to display: ``("text", s)`` for whole characters of the text,
    ``("hex", "c3")`` for each byte of a character the token holds only part of.
    ``kind``: ``text``; ``partial`` (splits a character); ``empty`` (stands for no
    text, e.g. a SentencePiece dummy-prefix ``▁``); ``unknown`` (covers text but has
    no bytes of its own, an unknown token).
    """

    id: int
    piece: str
    bytes: bytes
    start: int
    end: int
    byte_start: int
    byte_end: int
    parts: tuple[tuple[str, str], ...]
    kind: TokenKind

    @property
    def hex(self) -> str:
        return hex_bytes(self.bytes)

    @property
    def display(self) -> str:
        """The parts as one string, hex bytes as ``‹c3›``."""
        return "".join(s if k == "text" else f"‹{s}›" for k, s in self.parts)

    def to_dict(self) -> dict[str, Any]:
        """What ``show --json`` prints for a token."""
        return {"id": self.id, "piece": self.piece, "bytes": self.hex, "start": self.start,
                "end": self.end, "byte_start": self.byte_start, "byte_end": self.byte_end}


@dataclass(frozen=True)
class Segment:
    """A display unit: uncovered text (``gap``), one token, or a ``group`` of tokens
    that split characters between them: ``text`` is the whole characters the group
    covers, ``split`` the characters whose bytes fall in more than one of its tokens."""

    kind: Literal["gap", "token", "group"]
    text: str = ""
    tokens: tuple[TokenView, ...] = ()
    split: str = ""


@dataclass
class Tokenization:
    """One tokenizer's view of one text."""

    tokenizer: str
    text: str
    tokens: list[TokenView] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)


class _Offsets:
    """Character <-> UTF-8 byte offsets of one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        #: whether the text is valid UTF-8 (no lone surrogate): then the bytes between two
        #: character boundaries decode to the characters between them
        self.plain = True
        try:
            self.data = text.encode("utf-8")
        except UnicodeEncodeError:
            self.data = text.encode("utf-8", "surrogatepass")
            self.plain = False
        self.array = char_to_byte_offsets(text)
        self.index: list[int] = self.array.tolist()

    def aligned(self, b: int) -> bool:
        k = bisect.bisect_left(self.index, b)
        return k < len(self.index) and self.index[k] == b

    def char_floor(self, b: int) -> int:
        """The character holding byte ``b`` (or starting at it)."""
        return max(0, bisect.bisect_right(self.index, b) - 1)

    def char_ceil(self, b: int) -> int:
        """The first character starting at or after byte ``b``."""
        return bisect.bisect_left(self.index, b)

    def decode(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")


#: the display part of each byte shown in hex
_HEX_PARTS = [("hex", f"{b:02x}") for b in range(256)]


def _parts(off: _Offsets, bs: int, be: int, head_end: int,
           tail_start: int) -> tuple[tuple[str, str], ...]:
    """Display parts of bytes ``bs..be``: partial characters as hex bytes, whole ones as text.

    ``head_end``: where the first character starting at or after ``bs`` starts;
    ``tail_start``: where the character holding byte ``be`` starts (or ``be`` itself).
    """
    if be <= bs:
        return ()
    data = off.data
    if head_end >= be or tail_start <= bs or head_end > tail_start:
        # every byte belongs to a character this token holds only part of
        return tuple(map(_HEX_PARTS.__getitem__, data[bs:be]))
    parts = list(map(_HEX_PARTS.__getitem__, data[bs:head_end]))
    if tail_start > head_end:
        parts.append(("text", off.decode(head_end, tail_start)))
    parts.extend(map(_HEX_PARTS.__getitem__, data[tail_start:be]))
    return tuple(parts)


#: a display unit before any object is made: ``("gap", text)``, ``("token", i)`` or
#: ``("group", first, stop, text, split)`` over the tokens ``first..stop-1``
_Unit = tuple[Any, ...]


@dataclass
class _Placed:
    """Every token of one text placed, as parallel lists (``TokenView``'s fields), and the
    display units over them: what ``tokenize`` and the viewer's JSON are both made of
    (with ``rows``, each token's ``_token_row`` instead of ``ids``, ``parts``, ``bytes``
    and ``pieces``)."""

    ids: list[int]
    byte_start: list[int]
    byte_end: list[int]
    start: list[int]
    end: list[int]
    kinds: list[TokenKind] = field(default_factory=list)
    parts: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    bytes: list[bytes] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    units: list[_Unit] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)


#: what ``_place`` keeps of a token id: its int, bytes, piece, and bytes as text (None:
#: not UTF-8)
_Known = tuple[int, bytes, str, str | None]


def _known(tok: Tokenizer, token_id: Any) -> _Known:
    """What ``_place`` needs of a token id, asked of the tokenizer once per build."""
    data = tok.token_bytes(token_id)
    piece = tok.token_str(token_id)
    try:
        utf: str | None = data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        utf = None
    return int(token_id), data, piece, utf


def _place(tok: Tokenizer, off: _Offsets, known: dict[Any, _Known],
           rows: bool = False) -> _Placed:
    """Encode ``off.text`` and place every token in it (``tokenize``, without its objects).

    ``known`` keeps what each id is for the next text of the same tokenizer. ``rows``:
    each token as its ``_token_row`` (the viewer's JSON), not as its fields.
    """
    import numpy as np

    enc = tok.encode_with_spans(off.text)
    if len(enc.ids) != len(enc.spans):
        list(zip(enc.ids, enc.spans, strict=True))  # the ValueError it always was
    n = len(off.data)
    spans = np.array(enc.spans, dtype=np.int64).reshape(-1, 2)
    bs = np.minimum(np.maximum(spans[:, 0], 0), n)
    be = np.maximum(np.minimum(spans[:, 1], n), bs)
    index = off.array
    # every offset is at most n, index's last: each search finds a character boundary
    ceil_bs, ceil_be = np.searchsorted(index, bs), np.searchsorted(index, be)
    head_end = index[ceil_bs]  # the first character boundary at or after the start
    tail_start = index[np.maximum(np.searchsorted(index, be, "right") - 1, 0)]
    aligned = (head_end == bs) & (index[ceil_be] == be)
    start = np.maximum(np.searchsorted(index, bs, "right") - 1, 0)
    text, plain = off.text, off.plain
    p = _Placed([], bs.tolist(), be.tolist(), start.tolist(),
                np.maximum(start, ceil_be).tolist())
    kinds, out = p.kinds, p.rows
    for k, (tid, b0, b1, c0, c1, e, whole) in enumerate(zip(
            enc.ids, p.byte_start, p.byte_end, p.start, ceil_be.tolist(), p.end,
            aligned.tolist(), strict=True)):
        got = known.get(tid)
        if got is None:
            got = known[tid] = _known(tok, tid)
        token_id, tb, piece, utf = got
        kind: TokenKind
        parts: tuple[tuple[str, str], ...]
        if b1 == b0:
            kind, parts = "empty", ()
        elif tb and not whole:
            kind, parts = "partial", _parts(off, b0, b1, int(head_end[k]), int(tail_start[k]))
        else:
            kind = "text" if tb else "unknown"
            shown = text[c0:c1] if whole and plain else off.decode(b0, b1)
            if rows and tb:  # _row of most tokens, with what is known of the id
                kinds.append(kind)
                row: list[Any] = [token_id, c0, e, 0, shown]
                if piece != shown:
                    row += (None if shown == utf else hex_bytes(tb), piece)
                elif shown != utf:
                    row.append(hex_bytes(tb))
                out.append(row)
                continue
            parts = (("text", shown),)
        kinds.append(kind)
        if rows:
            out.append(_row(token_id, c0, e, kind, parts, tb, piece))
        else:
            p.ids.append(token_id)
            p.parts.append(parts)
            p.bytes.append(tb)
            p.pieces.append(piece)
    p.units = _units(off, bs, be, [k == "partial" for k in p.kinds])
    return p


def _units(off: _Offsets, bs: Any, be: Any, partial: Sequence[bool]) -> list[_Unit]:
    """Tokens in display order (byte spans ``bs``/``be`` as arrays): gaps for text no token
    covers, groups for runs of tokens that split characters between them."""
    import numpy as np

    index = off.array
    n = len(off.data)
    reach = np.maximum.accumulate(be) if len(be) else be  # how far the text is covered
    at = np.minimum(np.searchsorted(index, reach), len(index) - 1)
    closes = (index[at] == reach).tolist()  # the text covered up to a character boundary
    reach_l, bs_l, be_l = reach.tolist(), bs.tolist(), be.tolist()
    out: list[_Unit] = []
    first = -1  # the open group's first token
    group_start = pos = 0
    for i, b0 in enumerate(bs_l):
        if first < 0:
            if b0 > pos:
                out.append(("gap", off.decode(pos, b0)))
            if partial[i]:
                first, group_start = i, off.index[off.char_floor(b0)]
            else:
                out.append(("token", i))
        pos = reach_l[i]
        if first >= 0 and closes[i]:
            out.append(_group(off, first, i + 1, group_start, pos, bs_l, be_l))
            first = -1
    if first >= 0:
        out.append(_group(off, first, len(bs_l), group_start, off.index[off.char_ceil(pos)],
                          bs_l, be_l))
    elif pos < n:
        out.append(("gap", off.decode(pos, n)))
    return out


def _group(off: _Offsets, first: int, stop: int, start: int, end: int, bs: list[int],
           be: list[int]) -> _Unit:
    """The group of tokens ``first..stop-1`` over bytes ``start..end``, with the characters
    whose bytes fall in more than one of its tokens."""
    cuts = {*bs[first:stop], *be[first:stop]}
    index = off.index
    split = "".join(off.text[k] for k in range(off.char_floor(start), off.char_ceil(end))
                    if any(index[k] < b < index[k + 1] for b in cuts))
    return ("group", first, stop, off.decode(start, end), split)


def tokenize(tok: Tokenizer, text: str, name: str | None = None) -> Tokenization:
    """Encode ``text`` and place every token in it (see ``TokenView``, ``Segment``)."""
    p = _place(tok, _Offsets(text), {})
    views = [TokenView(*fields) for fields in zip(p.ids, p.pieces, p.bytes, p.start, p.end,
                                                   p.byte_start, p.byte_end, p.parts, p.kinds,
                                                   strict=True)]
    return Tokenization(name or tok.name, text, views, _segments(p.units, views))


def segment(text: str, tokens: Sequence[TokenView]) -> list[Segment]:
    """Tokens in display order: gaps for text no token covers, groups for split characters."""
    import numpy as np

    bs = np.array([t.byte_start for t in tokens], dtype=np.int64)
    be = np.array([t.byte_end for t in tokens], dtype=np.int64)
    units = _units(_Offsets(text), bs, be, [t.kind == "partial" for t in tokens])
    return _segments(units, tokens)


def _segments(units: list[_Unit], tokens: Sequence[TokenView]) -> list[Segment]:
    """Display units as ``Segment`` objects of ``tokens``."""
    out = []
    for unit in units:
        if unit[0] == "gap":
            out.append(Segment("gap", unit[1]))
        elif unit[0] == "token":
            out.append(Segment("token", tokens=(tokens[unit[1]],)))
        else:
            out.append(Segment("group", unit[3], tuple(tokens[unit[1]:unit[2]]), unit[4]))
    return out


# -- sample texts ----------------------------------------------------------------------------


def _cut(text: str, max_chars: int) -> tuple[str, bool]:
    """``text`` cut to at most ``max_chars`` characters, at a line or word end when near."""
    if len(text) <= max_chars:
        return text, False
    cut = max_chars
    for sep in ("\n", " "):
        k = text.rfind(sep, 0, max_chars)
        if k >= max_chars // 2:
            cut = k + (1 if sep == "\n" else 0)
            break
    # never strand a combining mark, joiner or variation selector from its base
    while cut > 1 and (unicodedata.combining(text[cut]) or unicodedata.category(text[cut])
                       in ("Mn", "Me", "Mc", "Cf") or "\ufe00" <= text[cut] <= "\ufe0f"):
        cut -= 1
    return text[:cut], True


def sample_documents(suite: Suite, subsets: Collection[str] | None = None, *,
                     per_subset: int = PER_SUBSET,
                     max_samples: int = MAX_SAMPLES) -> list[tuple[str, Document]]:
    """A few documents of each subset (the first ones), as ``(subset, document)``.

    Round-robin over subsets (first document of every subset, then the second...) so
    a cap still shows every subset when there are many; returned in subset order.
    """
    from tokbench.results import order_subsets

    groups = suite.subsets()
    names = order_subsets([s for s in groups if subsets is None or s in subsets])
    picked: dict[str, list[Document]] = {s: [] for s in names}
    total = 0
    for k in range(per_subset):
        for s in names:
            if total >= max_samples:
                break
            if k < len(groups[s]):
                picked[s].append(groups[s][k])
                total += 1
    return [(s, d) for s in names for d in picked[s]]


def _token_row(t: TokenView) -> list[Any]:
    """Compact JSON form: ``[id, start, end, kind, display, hex, piece]``.

    ``display`` is the token's text, or for a partial token a list of ``[is_hex,
    string]`` parts. ``hex`` is null when it is the UTF-8 of ``display``, ``piece``
    null when it equals ``display``; trailing nulls are left out (most tokens).
    """
    return _row(t.id, t.start, t.end, t.kind, t.parts, t.bytes, t.piece)


def _row(token_id: int, start: int, end: int, kind: TokenKind,
         parts: tuple[tuple[str, str], ...], data: bytes, piece: str) -> list[Any]:
    """``_token_row`` of a token given by its fields."""
    display: Any = (parts[0][1] if len(parts) == 1 and parts[0][0] == "text" else
                    "" if not parts else [[int(k == "hex"), s] for k, s in parts])
    plain = kind == "text" and isinstance(display, str)
    row: list[Any] = [token_id, start, end, KIND_CODES[kind], display,
                      None if plain and data == display.encode("utf-8", "surrogatepass")
                      else hex_bytes(data),
                      None if plain and piece == display else piece]
    while row[-1] is None:
        row.pop()
    return row


def segments_json(tz: Tokenization) -> list[Any]:
    """Segments as JSON: a gap is a string, a token a ``_token_row``, a group
    ``{"g": text, "s": split characters, "t": [token rows]}``."""
    out: list[Any] = []
    for seg in tz.segments:
        if seg.kind == "gap":
            out.append(seg.text)
        elif seg.kind == "token":
            out.append(_token_row(seg.tokens[0]))
        else:
            out.append({"g": seg.text, "s": seg.split,
                        "t": [_token_row(t) for t in seg.tokens]})
    return out


def _placed_json(p: _Placed) -> dict[str, Any]:
    """A sample's row of one tokenizer, ``{"n": tokens, "segs": segments_json}``, from
    tokens placed with their rows."""
    rows = p.rows
    segs: list[Any] = []
    for unit in p.units:
        if unit[0] == "gap":
            segs.append(unit[1])
        elif unit[0] == "token":
            segs.append(rows[unit[1]])
        else:
            segs.append({"g": unit[3], "s": unit[4], "t": rows[unit[1]:unit[2]]})
    return {"n": len(rows), "segs": segs}


def build_viewer(tokenizers: Mapping[str, Tokenizer], suites: Sequence[Suite], *,
                 subsets: Mapping[str, Collection[str]] | None = None,
                 names: Sequence[str] | None = None, notes: Sequence[str] = (),
                 run: Mapping[str, Any] | None = None, per_subset: int = PER_SUBSET,
                 max_samples: int = MAX_SAMPLES, max_chars: int = MAX_CHARS,
                 morphemes: bool = False) -> dict[str, Any]:
    """Viewer data: sample texts of each suite with every tokenizer's segments.

    ``tokenizers`` maps the names used in results to loaded tokenizers; ``names`` is
    the full list in run order (those missing from ``tokenizers`` could not be
    loaded, and ``notes`` should say why). ``subsets[suite]`` limits the subsets
    sampled. ``run`` identifies what the data was built for (see ``run_identity``).
    ``morphemes``: samples in a language with a morphological analyzer also carry the
    segmentation view (``tokbench.engine.segview``), and the analyzer's example
    sentences of those languages are added as the suite ``examples``.
    """
    order = list(names) if names is not None else list(tokenizers)
    out_suites: list[dict[str, Any]] = []
    notes_out = list(notes)
    known: dict[str, dict[Any, _Known]] = {}  # each tokenizer's ids seen so far
    tables: dict[str, TokenTable] = {}  # each tokenizer's token bytes, for every view
    for suite in suites:
        wanted = (subsets or {}).get(suite.name)
        samples = []
        for subset, doc in sample_documents(suite, wanted, per_subset=per_subset,
                                            max_samples=max_samples):
            text, truncated = _cut(doc.text, max_chars)
            off = _Offsets(text)
            rows: dict[str, Any] = {}
            for name in order:
                tok = tokenizers.get(name)
                if tok is None:
                    continue
                try:
                    placed = _place(tok, off, known.setdefault(name, {}), rows=True)
                except BaseException as e:  # one text a tokenizer raises on: not the page
                    if not tokenizer_raised(e):
                        raise
                    rows[name] = {"error": f"{type(e).__name__}: {first_line(e)}"}
                    continue
                rows[name] = _placed_json(placed)
            samples.append({"subset": subset, "doc_id": doc.id, "lang": doc.lang,
                            "text": text, "truncated": truncated, "rows": rows})
            if morphemes:
                _add_morph(samples[-1], tokenizers, order, notes_out, tables)
        out_suites.append({"name": suite.name, "subset_by": suite.subset_by,
                           "samples": samples})
    if morphemes:
        out_suites += _examples(tokenizers, order, {s["lang"] for suite in out_suites
                                                    for s in suite["samples"]}, notes_out,
                                tables)
    return {"schema": VIEWER_SCHEMA, "version": VIEWER_VERSION, "tokenizers": order,
            "loaded": [n for n in order if n in tokenizers], "notes": notes_out,
            "run": dict(run or {}), "suites": out_suites}


def _add_morph(sample: dict[str, Any], tokenizers: Mapping[str, Tokenizer], order: list[str],
               notes: list[str], tables: dict[str, TokenTable]) -> None:
    """Put the segmentation view on ``sample`` when its language has an analyzer."""
    from tokbench.engine.segview import morph_view

    loaded = {n: tokenizers[n] for n in order if n in tokenizers}
    try:
        view = morph_view(loaded, sample["text"], sample["lang"], tables=tables)
    except TokbenchError as e:  # the analyzer is not installed: said once
        note = f"segmentation view: {first_line(e)}"
        if note not in notes:
            notes.append(note)
        return
    if view is not None:
        sample["morph"] = view


def _examples(tokenizers: Mapping[str, Tokenizer], order: list[str], langs: set[str],
              notes: list[str], tables: dict[str, TokenTable]) -> list[dict[str, Any]]:
    """The analyzers' example sentences of ``langs``, as the suite ``examples``."""
    from tokbench.suites.morphemes import EXAMPLES

    samples = []
    for lang in sorted(langs & set(EXAMPLES)):
        for k, text in enumerate(EXAMPLES[lang]):
            off = _Offsets(text)
            sample: dict[str, Any] = {
                "subset": lang, "doc_id": f"example-{k + 1}", "lang": lang, "text": text,
                "truncated": False,
                "rows": {n: _placed_json(_place(tokenizers[n], off, {}, rows=True))
                         for n in order if n in tokenizers}}
            _add_morph(sample, tokenizers, order, notes, tables)
            samples.append(sample)
    return [{"name": "examples", "subset_by": "lang", "samples": samples}] if samples else []


# -- from a results file ---------------------------------------------------------------------


def run_identity(results: Results) -> dict[str, Any]:
    """What viewer data must match to be reused for ``results``: names and hashes."""
    meta = results.meta
    return {
        "tokenizers": {n: d.source.sha256
                       for n, d in meta.tokenizers.items()},
        "suites": {n: d.sha256 for n, d in meta.suites.items()},
    }


def _tokenizer_specs(name: str, info: TokenizerInfo) -> list[str]:
    """Specs to try for a tokenizer named ``name`` in results: its name, then its file."""
    specs = [name]
    path = info.source.path
    if path:
        specs.append(f"file:{path}")
    return specs


def load_run_tokenizer(name: str, info: TokenizerInfo,
                       load: Callable[[str], Tokenizer] | None = None
                       ) -> tuple[Tokenizer | None, str | None]:
    """Load the tokenizer a run used, checking its file hash; returns (tokenizer, note).

    Tries the name as a spec, then ``file:`` the path the run loaded. A tokenizer whose
    sha256 differs from the run's is used only if nothing matches, with a note.
    """
    if load is None:
        from tokbench.loading.loader import load_tokenizer

        load = load_tokenizer
    want = info.source.sha256
    fallback: Tokenizer | None = None
    errors: list[str] = []
    for spec in _tokenizer_specs(name, info):
        try:
            tok = load(spec)
        except Exception as e:  # a tokenizer that cannot load is a note in the page, not a crash
            errors.append(str(e) if isinstance(e, TokbenchError) else
                          f"{type(e).__name__}: {first_line(e)}")
            continue
        if want is None or tok.source.sha256 in (None, want):
            return tok, None
        fallback = fallback or tok
    if fallback is not None:
        return fallback, (f"tokenizer {name!r}: its file changed since the run (sha256 "
                          f"{(fallback.source.sha256 or '')[:12]}, run had {str(want)[:12]}); "
                          "the viewer shows the current file")
    return None, f"tokenizer {name!r} could not be loaded for the viewer: {errors[-1]}"


def _suite_spec(name: str, info: SuiteInfo) -> str:
    """The spec to load the run's suite again: the one the run recorded (with its options,
    such as ``?languages=``, so a filtered suite is the same suite), else its name or
    source."""
    if info.spec:
        return info.spec
    source = info.source or "builtin"
    return name if source == "builtin" else source


def load_run_suite(name: str, info: SuiteInfo, subsets: Collection[str] | None,
                   load: Callable[[str], AnySuite] | None = None
                   ) -> tuple[Suite | None, str | None]:
    """Load a suite a run used (by name, or by its recorded source spec); returns (suite, note).

    The note says when the suite's content differs from the run's (a selection such
    as ``limit`` or an edit): the samples then come from the suite as it is now.
    """
    import dataclasses

    if load is None:
        from tokbench.suites import load_suite

        load = load_suite
    try:
        loaded = load(_suite_spec(name, info))
    except Exception as e:  # noted in the page
        msg = str(e) if isinstance(e, TokbenchError) else f"{type(e).__name__}: {first_line(e)}"
        return None, f"suite {name!r} could not be loaded for the viewer: {msg}"
    want = info.sha256
    if isinstance(loaded, StreamingSuite):
        # a corpus read shard by shard: samples come from the start of each file
        if loaded.sha256 == want:
            want = None
        suite = loaded.head(info.subset_by)
    else:
        suite = loaded
    if suite.name != name:
        suite = dataclasses.replace(suite, name=name)
    if subsets:
        docs = [d for d in suite.documents if suite.subset_of(d) in subsets]
        if docs and len(docs) != len(suite.documents):
            suite = dataclasses.replace(suite, documents=docs)
    if want and suite.sha256 != want:
        limited = _first_per_subset(suite, info.documents)
        if limited is not None and limited.sha256 == want:
            return limited, None  # the run used `limit`: the same documents, nothing changed
        return suite, (f"suite {name!r}: samples come from the suite as it is now; its "
                       "content differs from the run's (a selection such as limit, or an edit)")
    return suite, None


def _first_per_subset(suite: Suite, documents: object) -> Suite | None:
    """The suite cut to its first N documents per subset, when that can give ``documents``."""
    import dataclasses

    groups = suite.subsets()
    if not isinstance(documents, int) or not groups or documents % len(groups):
        return None
    n = documents // len(groups)
    keep = {id(d) for docs in groups.values() for d in docs[:n]}
    return dataclasses.replace(suite, documents=[d for d in suite.documents if id(d) in keep])


@dataclass(frozen=True)
class ViewerPart:
    """The viewer data (``build_viewer``'s) of some of a run's tokenizers, built in the
    process that loaded them (the other process of a run split by tokenizer):
    ``viewer_from_results(parts=...)`` merges it instead of loading them again."""

    data: dict[str, Any]


def merge_parts(data: dict[str, Any], parts: Sequence[Mapping[str, Any]],
                order: Sequence[str]) -> bool:
    """Add each part's rows (and segmentation-view rows) into ``data``, in place, every
    sample's rows in ``order`` as ``build_viewer`` puts them; False, with ``data``
    unchanged, when a part's samples are not the same texts."""
    def texts(d: Mapping[str, Any]) -> list[list[tuple[str, Any, str]]]:
        return [[(s["subset"], s["doc_id"], s["text"]) for s in suite["samples"]]
                for suite in d["suites"]]

    if any(texts(part) != texts(data) or [x["name"] for x in part["suites"]]
           != [x["name"] for x in data["suites"]] for part in parts):
        return False
    for i, suite in enumerate(data["suites"]):
        for j, sample in enumerate(suite["samples"]):
            theirs = [part["suites"][i]["samples"][j] for part in parts]
            rows = {**sample["rows"]}
            for t in theirs:
                rows.update(t["rows"])
            sample["rows"] = {n: rows[n] for n in order if n in rows}
            if "morph" in sample:
                views = {**sample["morph"]["rows"]}
                for t in theirs:
                    views.update(t.get("morph", {}).get("rows", {}))
                sample["morph"]["rows"] = {n: views[n] for n in order if n in views}
    loaded = {n for d in (data, *parts) for n in d["loaded"]}
    data["loaded"] = [n for n in order if n in loaded]
    data["notes"] += [n for part in parts for n in part["notes"] if n not in data["notes"]]
    return True


def viewer_from_results(results: Results, *,
                        load_tokenizer: Callable[[str], Tokenizer] | None = None,
                        load_suite: Callable[[str], AnySuite] | None = None,
                        suites: Mapping[str, AnySuite] | None = None,
                        per_subset: int = PER_SUBSET, max_samples: int = MAX_SAMPLES,
                        max_chars: int = MAX_CHARS,
                        parts: Mapping[str, ViewerPart] | None = None) -> dict[str, Any]:
    """Viewer data for a finished run: loads the tokenizers and suites named in its meta
    (``suites``: the run's own suite objects by name, used as they are instead; ``parts``:
    tokenizers whose data was built elsewhere, by name, merged instead of loaded).

    Whatever cannot be loaded becomes a note in the data (and the page), never an error.
    """
    meta = results.meta
    notes: list[str] = []
    loaded: dict[str, Tokenizer] = {}
    for name, info in meta.tokenizers.items():
        if parts and name in parts:
            continue
        tok, note = load_run_tokenizer(name, info, load_tokenizer)
        if tok is not None:
            loaded[name] = tok
        if note:
            notes.append(note)
    given = suites or {}
    chosen: list[Suite] = []
    subsets: dict[str, set[str]] = {}
    for name, sinfo in meta.suites.items():
        present = {r.subset for r in results.rows if r.suite == name and r.subset != "all"}
        load = (lambda spec, s=given[name]: s) if name in given else load_suite
        suite, note = load_run_suite(name, sinfo, present or None, load)
        if suite is not None:
            chosen.append(suite)
            if present:
                subsets[name] = present
        if note:
            notes.append(note)
    data = build_viewer(loaded, chosen, subsets=subsets, names=list(meta.tokenizers),
                        notes=notes, run=run_identity(results), per_subset=per_subset,
                        max_samples=max_samples, max_chars=max_chars,
                        morphemes="morph" in (meta.metric_families or []))
    if parts and not merge_parts(data, [p.data for p in {id(p): p for p in parts.values()}
                                        .values()], list(meta.tokenizers)):
        # built on other samples (the run changed between them): load those too
        return viewer_from_results(results, load_tokenizer=load_tokenizer,
                                   load_suite=load_suite, suites=suites,
                                   per_subset=per_subset, max_samples=max_samples,
                                   max_chars=max_chars)
    return data


def save_viewer(data: Mapping[str, Any], out_dir: str | Path) -> Path:
    """Write ``viewer.json`` into ``out_dir``."""
    from tokbench.atomic import write_atomic
    from tokbench.results import dumps_json

    return write_atomic(Path(out_dir) / VIEWER_FILE, dumps_json(data, separators=(",", ":")) + "\n")


def load_viewer(out_dir: str | Path, results: Results | None = None) -> dict[str, Any] | None:
    """``viewer.json`` from ``out_dir`` if it is there, readable and (given ``results``)
    built for the same tokenizers and suites; else None (it should be rebuilt)."""
    path = Path(out_dir) / VIEWER_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("schema") != VIEWER_SCHEMA \
            or data.get("version") != VIEWER_VERSION:
        return None
    if results is not None and data.get("run") != run_identity(results):
        return None
    return data


def viewer_for(results: Results, out_dir: str | Path, **options: Any) -> dict[str, Any]:
    """The viewer data of a run folder: ``viewer.json`` when it was built for these
    results, else built by loading the run's tokenizers and suites (and saved)."""
    out = Path(out_dir)
    viewer = load_viewer(out, results) if not options else None
    if viewer is None:
        viewer = viewer_from_results(results, **options)
    save_viewer(viewer, out)
    return viewer
