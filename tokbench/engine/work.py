"""One shard through every tokenizer: encode once, decode once, reduce to statistics.

This is the only code that runs in worker processes (local or on a Dask cluster).
A worker loads each tokenizer of a run once (``Toolkit``) and keeps it for every shard
it is given; the per-shard layout (joined text, word spans, digit runs) is built once
and shared by all tokenizers. What comes back is small: mergeable statistics per
tokenizer (``UnitStats``), never documents or encodings.
"""

from __future__ import annotations

import platform
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from tokbench.constants import ALL
from tokbench.errors import InputError, TokbenchError, tokenizer_raised
from tokbench.metrics.compute import (
    DocCounts,
    SuiteLayout,
    TokenTable,
    classify_roundtrip,
    count_documents,
    doc_columns,
    measure_documents,
    subset_sums,
)
from tokbench.metrics.conventions import DEFAULT as DEFAULT_CONVENTION
from tokbench.metrics.conventions import FertilityConvention, Span, count_alone, word_spans
from tokbench.metrics.intervals import SIZE, Moments, unit_rows, var_name
from tokbench.metrics.stats import MORPH_COLLECTORS, FailureExample, UnitStats, bound_failures
from tokbench.record import Failure
from tokbench.suites.model import Document
from tokbench.suites.model import Shard as ShardSource

if TYPE_CHECKING:
    from tokbench.adapters.base import EncodedWithOffsets, Tokenizer
    from tokbench.suites.variants import Variant


@dataclass(frozen=True)
class ShardTask:
    """What a worker needs to process one shard.

    ``subset_by`` is ``lang``, ``domain`` or ``both`` (a streaming suite whose breakdown
    is decided once its languages are known; keys are then ``lang:X`` / ``domain:X``).
    ``moments`` names the statistics whose moments the confidence intervals need
    (``tokbench.metrics.intervals``; empty: none); ``unit`` is what one sampled unit is:
    ``doc``, ``align`` (the translations of one text) or ``shard`` (this whole shard, a
    block of a sampled corpus) and ``stratum`` the stratum it was drawn from.
    """

    run_id: str
    suite: str
    index: int
    source: ShardSource
    tokenizers: tuple[str, ...]
    collectors: frozenset[str]
    subset_by: str
    parallel: bool
    threads: int = 1
    fertility: str = "context/words"  # FertilityConvention, as text
    moments: tuple[str, ...] = ()
    unit: str = "doc"
    stratum: str = ""
    #: what to do with the shard: "metrics", or "module:function" taking (task, toolkit)
    #: and returning a ShardResult (``tokbench parity`` uses this); ``options`` are its own
    job: str = "metrics"
    options: tuple[tuple[str, Any], ...] = ()
    #: return each subset's units (``ShardResult.units``) instead of their moments: a run
    #: split by tokenizer joins both processes' units before taking moments
    units: bool = False
    #: threads for tokenizers that encode outside the GIL (``takes_threads``) where
    #: ``threads`` is 1: the free cores of a run that stays in one process
    native_threads: int = 1

    @property
    def nbytes(self) -> int:
        return self.source.nbytes


@dataclass
class ShardResult:
    """A shard's statistics per tokenizer, plus what reading it counted."""

    suite: str
    index: int
    nbytes: int
    stats: dict[str, UnitStats]
    counts: dict[str, int]
    languages: list[str]
    segmenters: dict[str, str | None] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    host: str = ""
    moments: dict[str, Moments] = field(default_factory=dict)  # subset -> every tokenizer's
    payload: Any = None  # what a job other than "metrics" returns
    units: dict[str, UnitTable] = field(default_factory=dict)  # subset -> (``task.units``)


@dataclass
class UnitTable:
    """One subset's units of one shard: each tokenizer's variables (one row per unit, the
    statistics ``ShardTask.moments`` names), the ``SIZE`` column of a sampled block, and
    the stratum the units were drawn from. Tables of the same shard made by different
    processes (each with some of the tokenizers) join into the moments one process would
    have taken (``joint_moments``)."""

    blocks: dict[str, np.ndarray]
    stratum: str
    size: np.ndarray | None = None


def joint_moments(tables: Sequence[UnitTable], order: Sequence[str], stats: Sequence[str]
                  ) -> Moments:
    """The moments of one shard's subset from tables of the same units, the tokenizers'
    variables side by side in ``order`` (the run's), as ``shard_moments`` lays them out."""
    blocks = {name: b for t in tables for name, b in t.blocks.items()}
    names = [var_name(n, s) for n in order if n in blocks for s in stats]
    parts = [blocks[n] for n in order if n in blocks]
    size = next((t.size for t in tables if t.size is not None), None)
    if size is not None:
        names.append(SIZE)
        parts.append(size)
    rows = np.concatenate(parts, axis=1) if parts else np.zeros((0, 0), np.int64)
    return Moments.of_units(names, rows, [tables[0].stratum] * rows.shape[0])


class Toolkit:
    """The loaded tokenizers of one run in this process, by name, with their tables."""

    def __init__(self, tokenizers: Sequence[tuple[str, Tokenizer]]) -> None:
        self.tokenizers = {name: tok for name, tok in tokenizers}
        self.tables = {name: TokenTable(tok) for name, tok in tokenizers}


T = TypeVar("T")

_TOOLKITS: dict[str, Toolkit] = {}
_FAILED: dict[str, TokbenchError] = {}  # run id -> why its tokenizers did not load here
_LOCK = threading.Lock()


@dataclass(frozen=True)
class PinnedSpec:
    """A tokenizer spec and the sha256 of the file the run loaded it from: a worker that
    loads it again refuses a file changed since (it would measure another tokenizer
    under the recorded hash)."""

    spec: str
    sha256: str

    def __call__(self) -> Tokenizer:
        from tokbench.loading.loader import load_tokenizer

        tok = load_tokenizer(self.spec)
        now = tok.source.sha256
        if now and now != self.sha256:
            raise InputError(f"tokenizer {self.spec}: its file changed during the run (sha256 "
                             f"{now[:12]} now, {self.sha256[:12]} when the run started); rerun "
                             "once it is no longer being written")
        return tok


def install(run_id: str, tokenizers: Sequence[tuple[str, Tokenizer]]) -> None:
    """Make already loaded tokenizers available to ``process_shard`` in this process."""
    with _LOCK:
        _TOOLKITS[run_id] = Toolkit(tokenizers)


def install_from_specs(run_id: str, payload: Sequence[tuple[str, object]]) -> None:
    """Load a run's tokenizers in a worker: ``payload`` holds (name, how to get it): a
    spec string, a picklable zero-argument factory, or the tokenizer object itself."""
    with _LOCK:
        if run_id in _TOOLKITS or run_id in _FAILED:
            return
        try:
            loaded = [(name, materialize(spec)) for name, spec in payload]
        except TokbenchError as e:  # said by the first shard (a pool's initializer cannot)
            _FAILED[run_id] = e
            return
        _TOOLKITS.clear()  # one run at a time per worker: free the previous run's
        _TOOLKITS[run_id] = Toolkit(loaded)


def materialize(spec: object) -> Tokenizer:
    """A tokenizer from a spec string, a zero-argument factory, or itself."""
    from tokbench.adapters.base import Tokenizer

    if isinstance(spec, Tokenizer):
        return spec
    if isinstance(spec, str):
        from tokbench.loading.loader import load_tokenizer

        return load_tokenizer(spec)
    if callable(spec):
        tok = spec()
        if isinstance(tok, Tokenizer):
            return tok
    raise TypeError(f"not a tokenizer, spec or tokenizer factory: {spec!r}")


def process_shard(task: ShardTask) -> ShardResult:
    """Read, encode, decode and measure one shard with every tokenizer of the run."""
    toolkit = _TOOLKITS.get(task.run_id)
    if toolkit is None and task.run_id in _FAILED:
        raise _FAILED[task.run_id]
    if toolkit is None:
        raise RuntimeError(f"tokenizers of run {task.run_id} are not loaded in this worker")
    if task.job != "metrics":
        from tokbench.registry import import_object

        job: Any = import_object(task.job)
        result: ShardResult = job(task, toolkit)
        return result
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    docs, counts = task.source.read()
    timings["read"] = time.perf_counter() - t0
    texts = [d.text for d in docs]
    conv = FertilityConvention.parse(task.fertility)
    layout, spans, segmenters = _layout(docs, task.collectors, conv, timings)
    groups = _groups(docs, task.subset_by)
    variants = None
    if "variants" in task.collectors:
        from tokbench.metrics.robustness import make_variants

        variants = make_variants(texts, [d.lang for d in docs], [d.id for d in docs])
    stats = {}
    columns = []
    for name in task.tokenizers:
        stats[name], doc_counts = _measure(task, docs, texts, layout, groups,
                                           toolkit.tokenizers[name], toolkit.tables[name],
                                           name, timings, conv, spans, variants)
        if task.moments:
            columns.append(doc_columns(doc_counts, task.moments))
    result = ShardResult(task.suite, task.index, task.nbytes, stats, counts,
                         sorted({d.lang for d in docs}), segmenters, timings, platform.node())
    if task.moments:
        t0 = time.perf_counter()
        if task.units:
            result.units = shard_units(task, docs, groups, columns)
        else:
            result.moments = shard_moments(task, docs, groups, columns)
        timings["moments"] = time.perf_counter() - t0
    return result


def shard_units(task: ShardTask, docs: list[Document], groups: dict[str, np.ndarray],
                columns: list[np.ndarray]) -> dict[str, UnitTable]:
    """Each subset's units (``task.unit``) as one table per tokenizer (``UnitTable``)."""
    k = len(task.moments)
    return {subset: UnitTable({n: rows[:, i * k:(i + 1) * k]
                               for i, n in enumerate(task.tokenizers)}, task.stratum,
                              rows[:, -1:] if task.unit == "shard" else None)
            for subset, rows in _unit_rows(task, docs, groups, columns).items()}


def shard_moments(task: ShardTask, docs: list[Document], groups: dict[str, np.ndarray],
                  columns: list[np.ndarray]) -> dict[str, Moments]:
    """Each subset's moments over its units (``task.unit``), every tokenizer's variables
    side by side so that tokenizers can be compared on the same units."""
    names = [var_name(t, s) for t in task.tokenizers for s in task.moments]
    if task.unit == "shard":
        names.append(SIZE)
    return {subset: Moments.of_units(names, rows, [task.stratum] * rows.shape[0])
            for subset, rows in _unit_rows(task, docs, groups, columns).items()}


def _unit_rows(task: ShardTask, docs: list[Document], groups: dict[str, np.ndarray],
               columns: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Each subset's units, one row each: every tokenizer's variables side by side (and
    the block's size last, for a block of a sampled corpus)."""
    table = np.concatenate(columns, axis=1) if columns else np.zeros((len(docs), 0), np.int64)
    units: np.ndarray | None = None
    if task.unit == "align":  # each text's code: its rank among the shard's texts
        keys = [d.align if d.align is not None else f"\0{i}" for i, d in enumerate(docs)]
        rank = {k: r for r, k in enumerate(sorted(set(keys)))}
        units = np.fromiter(map(rank.__getitem__, keys), dtype=np.int64, count=len(keys))
    if task.unit == "shard":  # a block of a sampled corpus: its size is known in advance
        table = np.concatenate([table, np.zeros((len(docs), 1), np.int64)], axis=1)
    out = {}
    for subset, idx in groups.items():
        if task.unit == "shard":
            rows = table[idx].sum(axis=0, keepdims=True)
            rows[0, -1] = task.nbytes
        else:
            rows = unit_rows(table[idx], None if units is None else units[idx])
        out[subset] = rows
    return out


def _layout(docs: list[Document], collectors: frozenset[str], conv: FertilityConvention,
            timings: dict[str, float]
            ) -> tuple[SuiteLayout, list[Sequence[Span] | None] | None, dict[str, str | None]]:
    """The shard's layout, its word spans under ``conv`` and the segmenter of each language."""
    t0 = time.perf_counter()
    spans = None
    segmenters: dict[str, str | None] = {}
    texts = [d.text for d in docs]
    if "words" in collectors:
        from tokbench.suites.words import segment_documents, segmenter_for

        segmented = None
        if conv.words != "whitespace":
            for lang in dict.fromkeys(d.lang for d in docs):
                seg = segmenter_for(lang)
                segmenters[lang] = f"{seg.name} ({seg.version})" if seg else None
            segmented = segment_documents(docs)
        else:
            segmenters.update({lang: "whitespace (str.split)"
                               for lang in dict.fromkeys(d.lang for d in docs)})
        spans = word_spans(conv, texts, segmented)
    layout = SuiteLayout.build(texts, spans, "digits" in collectors)
    schemes = morph_schemes(collectors)
    if schemes:
        from tokbench.metrics.morph import MorphLayout

        layout.morph = MorphLayout.build(texts, [d.lang for d in docs], schemes, layout.data,
                                         layout.offsets, layout.char_base, layout.byte_base)
        segmenters.update({f"{lang}/{scheme}": label for lang, by in layout.morph.labels.items()
                           for scheme, label in by.items()})
    timings["words"] = time.perf_counter() - t0
    return layout, spans, segmenters


#: collectors that need only how many tokens each document has, not which
COUNTS_ONLY = frozenset({"counts", "aligned"})


def morph_schemes(collectors: frozenset[str]) -> list[str]:
    """The gold-boundary schemes the ``collectors`` measure."""
    if not collectors & set(MORPH_COLLECTORS):
        return []  # the morpheme tables are not imported for nothing
    from tokbench.suites.morphemes import FAMILY_SCHEMES

    return [s for c in MORPH_COLLECTORS if c in collectors for s in FAMILY_SCHEMES[c]]


def _groups(docs: list[Document], subset_by: str) -> dict[str, np.ndarray]:
    """Document indexes of every subset (and ``all``)."""
    groups: dict[str, list[int]] = {}
    for i, d in enumerate(docs):
        if subset_by == "both":
            groups.setdefault(f"lang:{d.lang}", []).append(i)
            groups.setdefault(f"domain:{d.domain}", []).append(i)
        else:
            groups.setdefault(d.lang if subset_by == "lang" else d.domain, []).append(i)
    out = {ALL: np.arange(len(docs), dtype=np.int64)}
    out.update({k: np.asarray(v, dtype=np.int64) for k, v in groups.items()})
    return out


def encode_all(tok: Tokenizer, texts: list[str], threads: int = 1
               ) -> tuple[list[EncodedWithOffsets | None], list[tuple[int, str]]]:
    """Encode every text once, with the backend's offsets where it gives them in the same
    call (``Tokenizer.encode_batch_offsets``); a text the tokenizer raises on is recorded,
    the rest go on."""
    return _each(lambda batch: list(tok.encode_batch_offsets(batch, threads=threads)), texts)


def encode_ids(tok: Tokenizer, texts: list[str], threads: int = 1
               ) -> tuple[list[list[int] | None], list[tuple[int, str]]]:
    """``encode_all`` without offsets: the ids alone (what counting tokens needs)."""
    return _each(lambda batch: tok.encode_batch(batch, threads=threads), texts)


#: texts encoded at a time when only their tokens are counted: each batch's ids are
#: dropped once counted (holding a whole shard's ids costs about a third more than the
#: encoding itself, in memory traffic and garbage collection)
COUNT_BATCH = 64


def count_tokens(tok: Tokenizer, texts: list[str], threads: int = 1
                 ) -> tuple[list[int | None], list[tuple[int, str]]]:
    """How many tokens each text has (None where the tokenizer raised, with the error);
    on several threads the shard is one batch (a backend's thread pool starts per call)."""
    out: list[int | None] = []
    errors: list[tuple[int, str]] = []
    step = COUNT_BATCH if threads <= 1 else max(1, len(texts))
    for start in range(0, len(texts), step):
        got, errs = _each(lambda batch: tok.count_batch(batch, threads=threads),
                          texts[start:start + step])
        out += got
        errors += [(start + i, msg) for i, msg in errs]
    return out, errors


def takes_threads(tok: Tokenizer, collectors: frozenset[str]) -> bool:
    """Whether ``tok`` runs faster on a shard measuring ``collectors`` when given the free
    cores as threads: its library encodes a whole batch outside the GIL, or the shard only
    counts tokens and its per-text encode releases the GIL (``Tokenizer.count_batch``)."""
    return tok.native_threads or (tok.gil_free_encode and collectors <= COUNTS_ONLY)


def language_order(docs: Sequence[Document]) -> list[int] | None:
    """The documents' indexes with each language's together (in order of first
    appearance, documents in their order); None when they already are. A shard of a
    parallel suite holds the translations of each text side by side, and tokenizers
    encode one language after another about a fifth faster (their caches stay warm)."""
    first: dict[str, int] = {}
    last = None
    grouped = True
    for d in docs:
        if d.lang != last:
            grouped = grouped and d.lang not in first
            first.setdefault(d.lang, len(first))
            last = d.lang
    if grouped:
        return None
    return sorted(range(len(docs)), key=lambda i: first[docs[i].lang])


def in_order(order: list[int] | None, texts: list[str],
             encode: Callable[[list[str]], tuple[list[T | None], list[tuple[int, str]]]]
             ) -> tuple[list[T | None], list[tuple[int, str]]]:
    """``encode(texts)`` run on the texts taken in ``order`` (None: as they are), its
    results and errors given back by the texts' own indexes."""
    if order is None:
        return encode(texts)
    got, errors = encode([texts[i] for i in order])
    out: list[T | None] = [None] * len(texts)
    for k, i in enumerate(order):
        out[i] = got[k]
    return out, sorted((order[k], msg) for k, msg in errors)


def _each(encode: Callable[[list[str]], Sequence[T]], texts: list[str]
          ) -> tuple[list[T | None], list[tuple[int, str]]]:
    """``encode(texts)``; when the tokenizer raises, each text alone, so that only the
    texts it raises on are lost (None, with their error)."""
    try:
        every: list[T | None] = list(encode(texts))
        return every, []
    except BaseException as e:  # find the bad documents one by one
        if not tokenizer_raised(e):
            raise
    out: list[T | None] = []
    errors: list[tuple[int, str]] = []
    for i, t in enumerate(texts):
        try:
            out.append(encode([t])[0])
        except BaseException as e:
            if not tokenizer_raised(e):
                raise
            out.append(None)
            errors.append((i, f"{type(e).__name__}: {e}"))
    return out, errors


def _measure(task: ShardTask, docs: list[Document], texts: list[str], layout: SuiteLayout,
             groups: dict[str, np.ndarray], tok: Tokenizer, table: TokenTable, name: str,
             timings: dict[str, float], conv: FertilityConvention = DEFAULT_CONVENTION,
             spans: list[Sequence[Span] | None] | None = None,
             variants: dict[str, list[Variant | None]] | None = None
             ) -> tuple[UnitStats, DocCounts]:
    t0 = time.perf_counter()
    # every token needs a span for words and digit runs; otherwise only the tokens of
    # documents with unknown tokens do (unk_chars): those few documents are encoded
    # again with offsets rather than asking offsets of every document
    every_span = bool({"words", "digits", "variants", *MORPH_COLLECTORS} & task.collectors)
    offsets: list[Sequence[tuple[int, int]] | None] | None = None
    encoded: list[EncodedWithOffsets | None] = []
    encodings: list[list[int] | None] = []
    ntok: list[int | None] | None = None
    order = language_order(docs)
    threads = (task.native_threads if task.threads == 1 and takes_threads(tok, task.collectors)
               else task.threads)
    if task.collectors <= COUNTS_ONLY:
        ntok, errors = in_order(order, texts, lambda t: count_tokens(tok, t, threads))
    elif every_span:
        encoded, errors = in_order(order, texts, lambda t: encode_all(tok, t, threads))
        encodings = [e.ids if e is not None else None for e in encoded]
        offsets = [e.offsets if e is not None else None for e in encoded]
    else:
        encodings, errors = in_order(order, texts, lambda t: encode_ids(tok, t, threads))
        unk_id = tok.unk_id
        unk = [] if "unk_spans" not in task.collectors or unk_id is None else [
            i for i, ids in enumerate(encodings) if ids is not None and unk_id in ids]
        if unk:
            offsets = [None] * len(texts)
            again, _ = encode_all(tok, [texts[i] for i in unk], threads)
            for i, enc in zip(unk, again, strict=True):
                if enc is not None:
                    encodings[i], offsets[i] = enc.ids, enc.offsets
    timings["encode"] = timings.get("encode", 0.0) + time.perf_counter() - t0

    def failure(i: int, **detail: Any) -> FailureExample:
        return FailureExample(Failure.from_dict({"tokenizer": name, "suite": task.suite,
                                                 "doc_id": docs[i].id, **detail}),
                              task.index, i)

    failures = [failure(i, kind="error", error=msg) for i, msg in errors]
    decoded: list[str | None] | None = None
    if "decode" in task.collectors:
        t0 = time.perf_counter()
        decoded = []
        for i, e in enumerate(encodings):
            if e is None:
                decoded.append(None)
                continue
            try:
                decoded.append(tok.decode(e))
            except BaseException as ex:
                if not tokenizer_raised(ex):
                    raise
                decoded.append(None)
                failures.append(failure(i, kind="error",
                                        error=f"decode: {type(ex).__name__}: {ex}"))
        timings["decode"] = timings.get("decode", 0.0) + time.perf_counter() - t0

    t0 = time.perf_counter()
    counts = count_documents(layout, ntok) if ntok is not None else measure_documents(
        table, texts, encodings, decoded, None, numbers="digits" in task.collectors,
        layout=layout, offsets=offsets, offsets_unit=tok.offsets_unit)
    if spans is not None and conv.encoding != "context" and "words" in task.collectors:
        t1 = time.perf_counter()
        alone = count_alone(tok, texts, spans, leading_space=conv.encoding == "alone_space")
        counts.words, counts.continued, counts.single = alone.words, alone.continued, alone.single
        counts.word_tokens = alone.tokens
        timings["encode"] = timings.get("encode", 0.0) + time.perf_counter() - t1
    if variants is not None:
        from tokbench.metrics.robustness import variant_stats

        t1 = time.perf_counter()
        counts.per_doc.update(variant_stats(tok, table, texts, encoded, variants, threads))
        timings["variants"] = timings.get("variants", 0.0) + time.perf_counter() - t1
    if decoded is not None:
        for i in np.flatnonzero(counts.ok & ~counts.roundtrip).tolist():
            got = decoded[i]
            if got is not None:
                failures.append(failure(i, lang=docs[i].lang, **classify_roundtrip(
                    texts[i], got, bool(counts.unk[i]), tok.normalize)))
    out = UnitStats()
    for subset, idx in groups.items():
        out.subsets[subset] = subset_sums(counts, idx, set(task.collectors))
    if task.parallel and "aligned" in task.collectors:
        for i, d in enumerate(docs):
            if d.align is not None and counts.ok[i]:
                out.aligned.setdefault(d.lang, {})[d.align] = int(counts.tokens[i])
    for f in failures:
        kind = f.failure.kind
        out.failure_counts[kind] = out.failure_counts.get(kind, 0) + 1
    out.failures = bound_failures(failures)
    timings["measure"] = timings.get("measure", 0.0) + time.perf_counter() - t0
    return out, counts
