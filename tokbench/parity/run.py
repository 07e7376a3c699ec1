"""``tokbench.parity``: is each implementation id-for-id identical to the reference, and how
much faster is it?

The suites stream through the engine (shards, local processes or Dask, a checkpoint
that an interrupted run resumes from): each shard is encoded by the reference and every
implementation (``tokbench.parity.shard``) and reduced to counts. Per (implementation,
suite, subset) the rows are ratios of sums: identical documents / documents, aligned
identical tokens / reference tokens, decode parity (the implementation's decode of the
reference ids equals the reference's) and round-trip. Each kept differing document is
shrunk to a minimal reproducer (``minimize``) in this process. Speed is measured in the
same run with tokbench's speed profile (``speed_rows``), speed-up over the reference.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.adapters.base import first_line
from tokbench.constants import ALL
from tokbench.engine.runner import _load_suite
from tokbench.engine.work import ShardTask
from tokbench.environment import git_commit, machine_info
from tokbench.errors import InputError, TokbenchError
from tokbench.events import (
    Minimizing,
    ParityStarted,
    Progress,
    ShardDone,
    SpeedTiming,
    TokenizerFailed,
    ignore,
)
from tokbench.families.throughput import throughput_texts
from tokbench.parity.diff import DocDiff
from tokbench.parity.minimize import minimize
from tokbench.parity.shard import EXAMPLES_PER_SHARD, TIME_LIMIT, ParityStats
from tokbench.record import Failure, RunError, RunMeta, SuiteInfo, TokenizerInfo
from tokbench.results import Results, Row
from tokbench.version import __version__

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.engine.executors import Executor

JOB = "tokbench.parity.shard:process_parity_shard"
SPEED_SUITE = "speed"
#: the speed parts measured by default (threads and length scaling on request)
SPEED_PARTS = ("latency", "rate", "footprint")
#: a tokenizer spec string, or a picklable zero-argument factory (``tokbench drift``)
Spec = str | Callable[[], "Tokenizer"]

#: metric -> (numerator count, denominator count)
RATIOS = {"identical_docs": ("identical", "compared"),
          "identical_tokens": ("matched_tokens", "reference_tokens"),
          "decode_parity": ("decode_equal", "compared"),
          "roundtrip": ("roundtrip", "compared"),
          "reference_roundtrip": ("reference_roundtrip", "documents")}


def parity(reference: Spec, implementations: Sequence[Spec], suites: Sequence[str], *,
           jobs: int | None = 1, executor: str | Executor = "local", scheduler: str | None = None,
           state: str | Path | None = None, time_limit: float = TIME_LIMIT,
           examples: int = 20, speed: Sequence[str] | None = SPEED_PARTS,
           speed_budget: float = 1.0, event: Progress | None = None) -> Results:
    """Compare ``implementations`` (specs, e.g. ``cl100k_base@splintr``) with ``reference``
    on ``suites``.

    ``time_limit`` seconds per document and call (0: none); ``examples`` differing documents
    kept (and minimized) per implementation; ``speed`` the parts of the speed profile to
    measure (None or empty: none); ``state`` a checkpoint file (an interrupted run
    resumes from it). An implementation that fails to load is one line in
    ``meta.errors`` and the run goes on without it.
    """
    emit = event or ignore
    _check_parts(tuple(speed or ()))
    wall0 = time.perf_counter()
    meta = RunMeta(tokbench_version=__version__,
                   created=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   git_commit=git_commit(), machine=machine_info(), metric_families=["parity"],
                   complete=False)
    results = Results(meta=meta)
    toks, specs = _load(reference, implementations, meta, emit)
    ref_name, impl_names = next(iter(toks)), list(toks)[1:]
    if not impl_names:
        raise InputError("no implementation could be loaded: "
                         + "; ".join(e.error for e in meta.errors))
    loaded = [_load_suite(s) for s in suites]
    meta.suites = {s.name: SuiteInfo.from_dict(s.describe()) for s in loaded}
    meta.parity = {"reference": ref_name, "implementations": impl_names,
                   "time_limit_s": time_limit, "examples": examples}
    from tokbench.engine.executors import make_executor

    ex = make_executor(executor, jobs, scheduler) if isinstance(executor, str) else executor
    meta.executor = {"kind": type(ex).__name__, "workers": ex.workers}
    checkpoint = _Checkpoint(state, _key(toks, loaded, examples, time_limit))
    plans = []
    for suite in loaded:
        shards, _ = suite.plan_shards(ex.workers)
        plans.append((suite, shards, checkpoint.suite(suite.name)))
    total = sum(len(sh) for _, sh, _ in plans)
    emit(ParityStarted(shards=total))
    run_id = uuid.uuid4().hex
    options = (("time_limit", float(time_limit)), ("keep", min(examples, EXAMPLES_PER_SHARD)))
    try:
        ex.start(run_id, list(toks.items()), list(specs.items()))
        tasks = (ShardTask(run_id, s.name, i, src, tuple(toks), frozenset(),
                           s.subset_by or "lang", s.parallel, job=JOB, options=options)
                 for s, shards, prog in plans for i, src in enumerate(shards)
                 if i not in prog["done"])
        for r in ex.map(tasks):
            prog = checkpoint.suite(r.suite)
            merged = ParityStats.from_dict(prog["stats"])
            merged.merge(ParityStats.from_dict(r.payload), examples)
            prog["stats"] = merged.to_dict()
            prog["done"].add(r.index)
            prog["languages"].update(r.languages)
            checkpoint.touched()
            emit(ShardDone(suite=r.suite, bytes=r.nbytes))
    except BaseException:
        checkpoint.flush()
        raise
    finally:
        ex.close()
    for suite, _, prog in plans:
        info = meta.suites[suite.name]
        report = suite.after_reading(sorted(prog["languages"]), {}, None)
        if report.languages is not None:  # a streamed suite: its languages are known now
            info.languages = report.languages
        stats = ParityStats.from_dict(prog["stats"])
        _rows(results, ref_name, suite.name, stats)
        _failures(results, ref_name, toks, stats, examples, emit)
        meta.parity.setdefault("classes", {})[suite.name] = stats.classes
    if speed:
        _speed(results, toks, loaded, tuple(speed), speed_budget, specs, emit)
    checkpoint.remove()
    meta.timings = {"wall": time.perf_counter() - wall0}
    meta.complete = True
    return results


def _load(reference: Spec, implementations: Sequence[Spec], meta: RunMeta, emit: Progress
          ) -> tuple[dict[str, Tokenizer], dict[str, object]]:
    from tokbench.engine.work import materialize
    from tokbench.loading.loader import parse_tokenizer_spec

    for spec in [reference, *implementations]:  # a misspelt name fails before any work
        if isinstance(spec, str):
            parse_tokenizer_spec(spec)
    toks: dict[str, Tokenizer] = {}
    specs: dict[str, object] = {}
    for k, spec in enumerate([reference, *implementations]):
        t0 = time.perf_counter()
        try:
            tok = materialize(spec)
        except TokbenchError as e:
            if k == 0:
                raise
            meta.errors.append(RunError(tokenizer=_label(spec), error=first_line(e)))
            emit(TokenizerFailed(tokenizer=_label(spec), error=first_line(e)))
            continue
        if tok.name in toks:
            raise InputError(f"{_label(spec)!r} is the same tokenizer as {tok.name!r}; "
                             "list it once")
        toks[tok.name] = tok
        specs[tok.name] = spec
        info = TokenizerInfo.from_dict(tok.describe())
        if isinstance(spec, str):
            info.spec = spec
        info.extra["load_s"] = round(getattr(tok, "load_seconds", time.perf_counter() - t0), 4)
        meta.tokenizers[tok.name] = info
    return toks, specs


def _label(spec: Spec) -> str:
    if isinstance(spec, str):
        return spec
    args = getattr(spec, "args", ())
    return " ".join(map(str, args)) or repr(spec)


def _rows(results: Results, ref: str, suite: str, stats: ParityStats) -> None:
    for impl, subsets in stats.counts.items():
        for subset, c in subsets.items():
            c = {**c, "compared": c["documents"] - c["failed"]}
            extra = {"reference": ref, "documents": c["documents"]}
            for metric, (num, den) in RATIOS.items():
                value = c[num] / c[den] if c[den] else None
                results.rows.append(Row(impl, suite, subset, metric, value,
                                        {**extra, "numerator": c[num], "denominator": c[den]}))
            results.rows.append(Row(impl, suite, subset, "differing_docs",
                                    c["compared"] - c["identical"], extra))
            results.rows.append(Row(impl, suite, subset, "failed_docs", c["failed"], extra))


def _failures(results: Results, ref_name: str, toks: dict[str, Tokenizer], stats: ParityStats,
              limit: int, emit: Progress) -> None:
    ref = toks[ref_name]
    results.failures.extend(stats.failures)
    for impl, kept in stats.examples.items():
        tok = toks[impl]
        for d in (DocDiff.from_dict(x) for x in kept[:limit]):
            emit(Minimizing(tokenizer=impl, doc_id=d.doc_id))
            rep = reproducer(ref, tok, d.text, d.offset)
            fail = Failure(tokenizer=impl, suite=d.suite, doc_id=d.doc_id, lang=d.lang,
                           kind=d.klass, offset=d.offset, reference=ref_name,
                           first_token=d.first_token,
                           around={"reference": d.reference, "implementation": d.implementation},
                           expected=_cut(d.text))
            if rep is not None:
                fail.reproducer = rep
                fail.reproducer_reference_ids = ref.encode(rep)
                fail.reproducer_ids = tok.encode(rep)
            results.failures.append(fail)


def reproducer(ref: Tokenizer, impl: Tokenizer, text: str, offset: int = 0,
               max_calls: int = 4000) -> str | None:
    """The shortest substring of ``text`` found on which ``impl`` and ``ref`` differ."""

    def differs(s: str) -> bool:
        try:
            return impl.encode(s) != ref.encode(s)
        except Exception:
            return False

    # anchored at the first character of the difference that is not whitespace (a lone
    # space differs between some libraries on its own, whatever the difference was)
    anchor = offset
    while anchor < len(text) - 1 and text[anchor].isspace():
        anchor += 1
    return minimize(text, differs, anchor=anchor, max_calls=max_calls)


def _cut(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _speed(results: Results, toks: dict[str, Tokenizer], suites: Sequence[Any],
           parts: tuple[str, ...], budget: float, specs: dict[str, object], emit: Progress) -> None:
    """The speed profile of every tokenizer on the same sample, then speed-up rows."""
    from dataclasses import replace

    from tokbench.speed.rows import SpeedSettings, speed_rows

    d = SpeedSettings()
    settings = SpeedSettings(parts=parts, latency=replace(d.latency, budget_s=d.latency.budget_s
                                                          * budget),
                             rate=replace(d.rate, budget_s=d.rate.budget_s * budget))
    texts = [t for s in suites for t in throughput_texts(s, False)[ALL]]
    h = hashlib.sha256("\n".join(texts).encode("utf-8", "surrogatepass")).hexdigest()
    results.meta.suites[SPEED_SUITE] = SuiteInfo(
        name=SPEED_SUITE, version="1", sha256=h, source="sample",
        spec=",".join(s.name for s in suites), documents=len(texts),
        bytes=sum(len(t.encode("utf-8")) for t in texts))
    results.meta.settings = settings.to_dict()
    for name, tok in toks.items():
        emit(SpeedTiming(tokenizer=name))
        spec = specs.get(name)
        results.rows.extend(speed_rows(tok, texts, suite=SPEED_SUITE,
                                       spec=spec if isinstance(spec, str) else None,
                                       settings=settings))
    rates = {r.tokenizer: r.value for r in results.rows
             if r.suite == SPEED_SUITE and r.metric == "encode_mb_s" and r.subset == ALL}
    ref = next(iter(toks))
    base = rates.get(ref)
    for name in toks:
        mine = rates.get(name)
        value = mine / base if isinstance(mine, (int, float)) and isinstance(
            base, (int, float)) and base > 0 else None
        results.rows.append(Row(name, SPEED_SUITE, ALL, "speedup", value, {"reference": ref}))


def _check_parts(parts: tuple[str, ...]) -> None:
    from tokbench.speed.rows import PARTS

    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise InputError(f"unknown speed part(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(PARTS)}, or none")


def _key(toks: dict[str, Tokenizer], suites: Sequence[Any], examples: int,
         time_limit: float) -> str:
    what = {"tokenizers": {n: [t.backend, t.backend_version(), t.source.sha256,
                               t.source.path] for n, t in toks.items()},
            "suites": {s.name: s.sha256 for s in suites}, "examples": examples,
            "time_limit": time_limit, "version": __version__}
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


class _Checkpoint:
    """Finished shards and their merged statistics, on disk every few seconds."""

    def __init__(self, path: str | Path | None, key: str, interval: float = 2.0) -> None:
        self.path = Path(path) if path is not None else None
        self.key = key
        self.interval = interval
        self._at = time.monotonic()
        self.suites: dict[str, dict[str, Any]] = {}
        if self.path is not None and self.path.is_file():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            if isinstance(data, dict) and data.get("key") == key:
                for name, s in data.get("suites", {}).items():
                    self.suites[name] = {"done": set(s["done"]), "stats": s["stats"],
                                         "languages": set(s["languages"])}

    def suite(self, name: str) -> dict[str, Any]:
        return self.suites.setdefault(name, {"done": set(), "stats": {}, "languages": set()})

    def touched(self) -> None:
        if time.monotonic() - self._at >= self.interval:
            self.flush()

    def flush(self) -> None:
        if self.path is None:
            return
        from tokbench.atomic import write_atomic

        data = {"key": self.key, "suites": {
            n: {"done": sorted(s["done"]), "stats": s["stats"],
                "languages": sorted(s["languages"])} for n, s in self.suites.items()}}
        write_atomic(self.path, json.dumps(data, ensure_ascii=False))
        self._at = time.monotonic()

    def remove(self) -> None:
        if self.path is not None and self.path.exists():
            self.path.unlink()
