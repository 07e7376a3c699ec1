"""Run tokenizers over suites and collect metric rows.

Data flows one way: suites are cut into shards; each shard is read, encoded and
decoded once per tokenizer and reduced to mergeable statistics (``tokbench.engine``);
a suite's merged statistics give its metric rows (``tokbench.metrics``). Shards run
in this process, a local process pool (``jobs``) or on a Dask cluster, in bounded
memory whatever the corpus size. A (tokenizer, suite) unit that finishes is handed to
``on_unit`` (the CLI checkpoints it); finished shards are checkpointed too (``state``),
so an interruption, even ``kill -9``, loses at most a few seconds of work, and one
bad document is recorded as that document's failure while the run goes on.
"""

from __future__ import annotations

import math
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.constants import ALL, PIVOT, VOCAB_SUITE
from tokbench.engine.helper import can_fork
from tokbench.engine.presets import DEFAULT_TOKENIZERS
from tokbench.engine.split import Mark, sendable_error
from tokbench.engine.state import RunState, SuiteProgress, unit_key
from tokbench.engine.work import PinnedSpec, ShardResult, ShardTask
from tokbench.environment import git_commit, machine_info
from tokbench.errors import InputError, TokbenchError
from tokbench.events import (
    Advanced,
    Event,
    PhaseStarted,
    Progress,
    RunDone,
    RunStarted,
    ShardDone,
    TokenizerFailed,
    UnitReached,
    ignore,
)
from tokbench.families import Family, run_families
from tokbench.metrics import metrics_of, resolve_families
from tokbench.metrics.base import MetricContext
from tokbench.metrics.compute import metric_rows
from tokbench.metrics.confidence import add_confidence, moment_stats
from tokbench.metrics.intervals import Design, Moments
from tokbench.metrics.stats import UnitStats
from tokbench.record import Failure, RunError, RunMeta, SuiteInfo, TokenizerInfo
from tokbench.results import Results, Row
from tokbench.suites.builtin import BUILTIN_SUITES
from tokbench.version import __version__

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from tokbench.adapters.base import Tokenizer
    from tokbench.engine.executors import Executor
    from tokbench.engine.split import OtherProcess, Outbox
    from tokbench.engine.work import UnitTable
    from tokbench.suites.model import Suite
    from tokbench.suites.stream import StreamingSuite

    AnySuite = Suite | StreamingSuite

#: every built-in suite: what a run measures when no suite is named
DEFAULT_SUITES = BUILTIN_SUITES
__all__ = ["ALL", "DEFAULT_SUITES", "DEFAULT_TOKENIZERS", "PIVOT", "VOCAB_SUITE", "Settings",
           "run"]

#: a corpus read to a precision starts with at least this many blocks
MIN_PRECISION_BLOCKS = 30


@dataclass
class Settings:
    """Every setting that changes a number; recorded in the results (``tokbench.Settings``).

    Pass one to ``tokbench.run(settings=...)`` (or its fields as keyword arguments):
    ``premium_join`` joins each language's documents before counting premium (as Petrov
    et al. 2023 do); ``throughput_repeats`` the least timed samples of a throughput row;
    ``threads`` for the bulk encode; ``fertility`` the word-counting convention
    (``tokbench.metrics.conventions``).
    """

    premium_join: bool = False
    throughput_repeats: int = 5
    throughput_subsets: bool = True  # also time each subset, not only "all"
    threads: int = 1
    fertility: str = "context/words"  # see tokbench.metrics.conventions
    morph_gold: str = ""  # a gold segmentation file (tokbench.suites.morph_gold), scored too
    #: confidence level of the intervals of corpus ratios (None: no intervals)
    ci: float | None = 0.95
    #: paired comparisons against this tokenizer (None: each subset's best)
    reference: str | None = None
    #: sampled streamed suites read until every ratio's relative half-width is at most this
    precision: float | None = None

    def __post_init__(self) -> None:
        from tokbench.metrics.conventions import FertilityConvention

        self.fertility = str(FertilityConvention.parse(self.fertility))
        for name in ("ci", "precision"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(
                    value, (int, float)) or not 0 < value < 1):
                raise InputError(f"{name} must be a number between 0 and 1 (exclusive) or "
                                 f"none, got {value!r}")
        if self.precision is not None and self.ci is None:
            raise InputError("precision needs intervals; drop --ci none or --precision")
        if not isinstance(self.premium_join, bool):
            raise InputError(f"premium_join must be true or false, got {self.premium_join!r}")
        for name, low in (("throughput_repeats", 1), ("threads", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise InputError(f"{name} must be an integer >= {low}, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Timings:
    """Where the time went (seconds). ``encode``/``decode`` are summed over workers: the
    tokenizers' own work; ``wall`` is the run's elapsed time."""

    encode: float = 0.0
    decode: float = 0.0
    throughput: float = 0.0
    vocab: float = 0.0
    words: float = 0.0
    measure: float = 0.0
    read: float = 0.0
    load: float = 0.0
    intervals: float = 0.0  # moments in the workers and intervals at the end
    wall: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)

    def add(self, worker: dict[str, float]) -> None:
        for k in ("encode", "decode", "words", "measure", "read"):
            setattr(self, k, getattr(self, k) + worker.get(k, 0.0))
        self.intervals += worker.get("moments", 0.0)

    def to_dict(self, wall0: float) -> dict[str, float]:
        self.wall = time.perf_counter() - wall0
        return {f"{f.name}_s": getattr(self, f.name) for f in fields(self) if f.name != "extra"}


def run(
    tokenizers: Sequence[str | Tokenizer | Callable[[], Tokenizer]] | None = None,
    suites: Sequence[str | AnySuite] | None = None,
    metrics: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    on_unit: Callable[[Results], object] | None = None,
    progress: Progress | None = None,
    resume: Results | None = None,
    jobs: int | None = 1,
    executor: str | Executor = "local",
    scheduler: str | None = None,
    state: str | Path | None = None,
    on_loaded: Callable[[Mapping[str, Any]], object] | None = None,
    second: SecondProcess | None = None,
    **options: Any,
) -> Results:
    """Compare ``tokenizers`` on ``suites``; returns the results (rows + what was run).

    ``tokenizers`` and ``suites`` are names/specs or loaded objects (defaults: the
    eight reference tokenizers on every built-in suite); a tokenizer may also be a
    picklable zero-argument factory (``functools.partial(load, path)``), which worker
    processes call instead of receiving the object; ``metrics`` are metric or
    family names (default: all). ``jobs`` worker processes (None: every usable core when a
    pool pays, or, for a small corpus, the tokenizers split over two processes; 1: this
    process) or ``executor="dask"`` (``scheduler`` address, or a LocalCluster).
    ``resume`` reuses the rows of finished units whose tokenizer, suite, settings and
    metrics are unchanged; ``state`` is a checkpoint file of finished shards (reused
    when it matches, so an interrupted run redoes only unfinished shards).
    ``on_loaded`` receives the loaded tokenizers by name once they are loaded (the CLI's
    token viewer reuses them instead of loading every file again; a run split by
    tokenizer, ``tokbench.engine.split``, gives those its other process loaded as that
    process's part of the viewer data, ``tokbench.engine.viewer.ViewerPart``). Keyword
    ``options`` set ``Settings`` fields (e.g. ``premium_join=True``). ``progress`` is
    called with each ``tokbench.events`` event as the run goes. ``second``: the run's
    second process, started earlier by ``start_second_process`` (the CLI starts it before
    reading the suites); the run ends it.

    >>> results = run(["bytes", "chars"], ["multilingual?languages=jpn_Jpan"], ["compression"])
    >>> results.value("bytes", "multilingual", "jpn_Jpan", "tokens")  # UTF-8 bytes
    10881
    >>> results.value("chars", "multilingual", "jpn_Jpan", "tokens")  # code points
    3681
    >>> round(results.value("chars", "multilingual", "all", "bytes_per_token"), 4)
    2.956
    """
    settings = _settings(settings, options)
    families = resolve_families(metrics)
    tok_specs = list(tokenizers) if tokenizers is not None else list(DEFAULT_TOKENIZERS)
    suite_specs: list[Any] = list(suites) if suites is not None else list(DEFAULT_SUITES)
    chosen = _executor(executor, jobs, scheduler)
    may = _second_process(chosen, tok_specs, families, settings, second) \
        if resume is None else None
    # the helper forked once the tokenizers are loaded (``fork_helper``)
    forks = may is not None and can_fork() and shards_only([str(s) for s in tok_specs],
                                                           families)
    if (may is None or forks) and second is not None:
        second.close()
    if forks:
        from tokbench.engine.executors import AutoExecutor

        if isinstance(chosen, AutoExecutor):  # as ``may`` says
            chosen.forks = True
    elif may is not None:
        free, splittable = may
        split = _Split(settings, families, metrics is not None, progress, on_unit, on_loaded,
                       second.other if second is not None else None)
        done = split.go([str(s) for s in tok_specs], suite_specs, chosen, free, splittable)
        if done is not None:
            return done
        suite_specs = split.suites  # loaded already
    runner = _Run(settings, families, metrics is not None, progress, on_unit, on_loaded)
    try:
        return runner.go(tok_specs, suite_specs, resume, chosen, RunState(state))
    finally:
        if may is not None:  # its helper ends too if the run stopped before its shards
            chosen.close()


def _settings(settings: Settings | None, options: dict[str, Any]) -> Settings:
    if settings is not None and options:
        raise TypeError(f"pass either settings= or setting keywords, not both (got "
                        f"{', '.join(sorted(options))})")
    if settings is not None:
        return settings
    known = {f.name for f in fields(Settings)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"run() got an unknown setting {unknown[0]!r}; settings: "
                        f"{', '.join(sorted(known))}")
    return Settings(**options)


def _executor(executor: str | Executor, jobs: int | None, scheduler: str | None) -> Executor:
    if not isinstance(executor, str):
        return executor
    from tokbench.engine.executors import make_executor

    return make_executor(executor, jobs, scheduler)


@dataclass
class _Plan:
    """One suite's work: which tokenizers still need it, its shards, its statistics."""

    suite: AnySuite
    families: list[str]
    #: the run's family objects measured on this suite (those of ``families``)
    hooks: list[Family]
    collectors: frozenset[str]
    tokenizers: list[str]
    shards: list[Any]
    progress: SuiteProgress
    subset_by: str
    moments: tuple[str, ...] = ()
    #: shards [0, limit) are read (None: all); a plan read to a precision is ``settled``
    #: once its intervals are narrow enough or its corpus is read
    limit: int | None = None
    settled: bool = True

    @property
    def finished(self) -> bool:
        return self.settled and len(self.progress.done) == len(self.shards[:self.limit])


class _Run:
    """The state of one ``run()`` call."""

    def __init__(self, settings: Settings, families: list[str], explicit: bool,
                 progress: Progress | None, on_unit: Callable[[Results], object] | None,
                 on_loaded: Callable[[Mapping[str, Any]], object] | None = None
                 ) -> None:
        self.settings = settings
        self.families = families
        self.explicit = explicit  # the metrics were chosen by name
        self.hooks = run_families(families, settings)
        self.resume: Results | None = None
        self.notify: Progress = progress or ignore
        self.on_unit = on_unit
        self.on_loaded = on_loaded
        self.timings = Timings()
        self.wall0 = time.perf_counter()
        self.results = Results(meta=_meta(settings, families))
        self.toks: dict[str, Tokenizer] = {}
        self.specs: dict[str, object] = {}
        self.finished_units: list[list[str]] = []
        self.segmenters: dict[str, str | None] = {}
        self.failure_counts: dict[str, dict[str, dict[str, int]]] = {}
        #: where each step began (``split.Mark``): a run split by tokenizer merges its
        #: processes' results step by step
        self.marks: list[Mark] = []
        #: one process of a run split by tokenizer: it keeps each shard's units
        #: (suite -> shard -> subset) and each suite's subset prefix, and leaves the
        #: intervals (which compare tokenizers) and the reference check to the merge
        self.half = False
        self.units: dict[str, dict[int, dict[str, UnitTable]]] = {}
        self.prefixes: dict[str, str | None] = {}
        self.plans: dict[str, _Plan] = {}

    # -- orchestration ---------------------------------------------------------------

    def go(self, tok_specs: list[Any], suite_specs: list[Any],
           resume: Results | None, executor: Executor, state: RunState) -> Results:
        meta = self.results.meta
        for fam in self.hooks:  # bad input (a gold file) stops the run before any work
            fam.prepare(self)
        suites = [_load_suite(s) for s in suite_specs]
        _check_unique([s.name for s in suites], "suite", "add ?name=OTHER to one of the specs")
        meta.suites = {s.name: SuiteInfo.from_dict(s.describe()) for s in suites}
        meta.tokenizers = {}
        meta.errors = []
        meta.warnings = [w for fam in self.hooks for w in fam.warnings(suites)]
        if self.settings.precision is not None:
            check_precision(suites)
            meta.warnings += [f"suite {s.name!r} is sampled once (?sample=); --precision "
                              "reads more only of streamed corpora (text: files)"
                              for s in suites if s.sample_record() is not None
                              and s.growable_sample() is None]
        meta.executor = {"kind": type(executor).__name__, "workers": executor.workers}
        self._mark("load")
        self._load_tokenizers(tok_specs)
        if self.on_loaded is not None:
            self.on_loaded(dict(self.toks))
        ref = self.settings.reference
        if ref is not None and ref not in self.toks and not self.half:
            from tokbench.errors import UnknownNameError

            raise UnknownNameError("reference tokenizer", ref, list(self.toks),
                                   hint="--reference names one of the run's tokenizers")
        if resume is not None:
            state.load()
        self.resume = resume
        plans = [self._plan(s, resume, state, executor.workers) for s in suites]
        self.plans = {p.suite.name: p for p in plans}
        total = sum(sum(sh.nbytes for i, sh in enumerate(p.shards[:p.limit])
                        if i not in p.progress.done) for p in plans)
        units = len(self.toks) * len(suites) + sum(fam.units(self) for fam in self.hooks)
        self.notify(RunStarted(units=units, bytes=total))
        pending = [p for p in plans if p.tokenizers and not p.finished]
        run_id = uuid.uuid4().hex
        try:
            if pending:  # a pool's workers load while the vocabulary facts are counted
                self._start(pending, executor, run_id)
            for fam in self.hooks:
                self._mark(f"before:{fam.name}")
                fam.before_shards(self)
            for p in plans:
                if p.tokenizers and p.finished:
                    self._finish(p, state)
            if pending:
                self._work(pending, executor, state, run_id)
        except BaseException:
            state.flush()
            raise
        finally:
            executor.close()
        chosen = getattr(executor, "chosen", None)
        if chosen is not None:
            meta.executor = {**meta.executor, "chosen": chosen}
        threads = getattr(executor, "threads", 1)
        if threads > 1:
            meta.executor = {**meta.executor, "threads": threads}
        for fam in self.hooks:
            timed = fam.phase_units(plans)
            if timed:  # a phase of its own: the shard work is done, timing takes a while
                self.notify(PhaseStarted(name=fam.name, units=timed))
            for p in plans:
                if fam in p.hooks:
                    self._mark(f"after:{fam.name}:{p.suite.name}")
                    fam.after_shards(self, p)
        for fam in self.hooks:
            self._mark(f"after_all:{fam.name}")
            fam.after_all(self, plans)
        state.remove()
        meta.segmenters = dict(sorted(self.segmenters.items()))
        meta.warnings = [*(meta.warnings or []), *_segmenter_warnings(meta.segmenters)]
        meta.timings = self.timings.to_dict(self.wall0)
        meta.complete = True
        self.notify(RunDone())
        return self.results

    def _start(self, plans: list[_Plan], executor: Executor, run_id: str) -> None:
        names = sorted({n for p in plans for n in p.tokenizers})
        expect = getattr(executor, "expect", None)
        if expect is not None:  # the default: a pool only when it pays (AutoExecutor)
            left = [(sh.nbytes * len(p.tokenizers)) for p in plans
                    for i, sh in enumerate(p.shards) if i not in p.progress.done]
            expect(sum(left), len(left), self.timings.load)
        executor.start(run_id, [(n, self.toks[n]) for n in names],
                       [(n, self._pinned(n)) for n in names])

    def _work(self, plans: list[_Plan], executor: Executor, state: RunState, run_id: str
              ) -> None:
        self._map(plans, executor, state, run_id)
        while True:  # plans read to a precision: read more of the same order until it holds
            rounds = [p for p in plans if not p.settled]
            for p in rounds:
                self._next_round(p, state)
            rounds = [p for p in rounds if not p.settled]
            if not rounds:
                return
            self._map(rounds, executor, state, run_id)

    def _map(self, plans: list[_Plan], executor: Executor, state: RunState, run_id: str
             ) -> None:
        by_suite = {p.suite.name: p for p in plans}
        for result in executor.map(self._tasks(plans, run_id)):
            plan = by_suite[result.suite]
            self._absorb(plan, result)
            state.touched()
            self.notify(ShardDone(suite=result.suite, bytes=result.nbytes))
            if plan.finished:
                self._finish(plan, state)

    def _next_round(self, plan: _Plan, state: RunState) -> None:
        """Settle a plan read to a precision, or read more: the number of blocks the
        widest interval says is needed (at least 1.2 and at most 4 times as many), so
        the blocks read depend only on the values, not on how shards were scheduled."""
        from tokbench.metrics.confidence import widest_relative

        target = self.settings.precision
        assert target is not None and self.settings.ci is not None
        n = len(plan.shards[:plan.limit])
        sample = plan.suite.growable_sample()
        assert sample is not None
        sample.drawn = n
        moments = plan.progress.moments.get(ALL)
        worst = None if moments is None else widest_relative(
            moments, plan.tokenizers, metrics_of(plan.families), _design(plan.suite),
            self.settings.ci)
        info = self.results.meta.suites[plan.suite.name]
        done = worst is not None and worst <= target
        if done or n >= len(plan.shards):
            plan.settled = True
            info.sample = {**sample.sample_info(), "precision": target,
                           "reached": done, "relative_half_width": worst}
            self._finish(plan, state)
            return
        grow = 4.0 if worst is None else min(4.0, max(1.2, 1.1 * (worst / target) ** 2))
        plan.limit = min(len(plan.shards), math.ceil(n * grow))

    def _pinned(self, name: str) -> object:
        """How a worker loads tokenizer ``name``: a spec of a file is pinned to the hash
        this run recorded."""
        spec, sha = self.specs[name], self.toks[name].source.sha256
        return PinnedSpec(spec, sha) if isinstance(spec, str) and sha else spec

    def _tasks(self, plans: list[_Plan], run_id: str) -> Iterator[ShardTask]:
        for p in plans:
            for i, source in enumerate(p.shards[:p.limit]):
                if i not in p.progress.done:
                    stratum = getattr(source, "stratum", None)
                    unit = ("shard" if stratum is not None
                            else "align" if p.suite.parallel else "doc")
                    yield ShardTask(run_id, p.suite.name, i, source, tuple(p.tokenizers),
                                    p.collectors, p.subset_by, p.suite.parallel,
                                    self.settings.threads, self.settings.fertility,
                                    p.moments, unit, stratum or "", units=self.half)

    def _absorb(self, plan: _Plan, r: ShardResult) -> None:
        prog = plan.progress
        for name, stats in r.stats.items():
            if name in prog.stats:
                prog.stats[name].merge(stats)
            else:
                prog.stats[name] = stats
        for k, v in r.counts.items():
            prog.counts[k] = prog.counts.get(k, 0) + v
        prog.languages.update(r.languages)
        prog.segmenters.update(r.segmenters)
        for key, m in r.moments.items():
            if key in prog.moments:
                prog.moments[key].merge(m)
            else:
                prog.moments[key] = m
        if r.units:
            self.units.setdefault(plan.suite.name, {})[r.index] = r.units
        prog.done.add(r.index)
        self.timings.add(r.timings)

    # -- loading and planning --------------------------------------------------------

    def _load_tokenizers(self, specs: list[Any]) -> None:
        meta = self.results.meta
        seen: dict[str, str] = {}
        for spec in specs:
            t0 = time.perf_counter()
            try:
                tok = _load(spec)
            except TokbenchError as e:
                meta.errors.append(RunError(tokenizer=str(spec), error=str(e)))
                self.notify(TokenizerFailed(tokenizer=str(spec), error=str(e)))
                continue
            self.timings.load += time.perf_counter() - t0
            if tok.name in seen:
                raise InputError(f"tokenizers {seen[tok.name]!r} and {spec!s} are the same "
                                 f"tokenizer {tok.name!r}; list it once")
            seen[tok.name] = str(spec)
            self.toks[tok.name] = tok
            self.specs[tok.name] = spec
            info = TokenizerInfo.from_dict(tok.describe())
            if isinstance(spec, str):  # how to load it again (tokbench verify)
                info.spec = spec
            meta.tokenizers[tok.name] = info

    def _plan(self, suite: AnySuite, resume: Results | None, state: RunState, workers: int
              ) -> _Plan:
        skipped = {fam.name for fam in self.hooks if not fam.applies_to(suite, self.explicit)}
        families = [f for f in self.families if f not in skipped]
        hooks = [fam for fam in self.hooks if fam.name in families]
        metrics = metrics_of(families)
        collectors = {"counts"}.union(*(fam.collectors(suite) for fam in hooks))
        todo = []
        for name in self.toks:
            reused = _reuse(resume, name, suite.name, self.results.meta.tokenizers[name],
                            suite.sha256, self.settings, self.families)
            if reused is None:
                todo.append(name)
                continue
            rows, failures = reused
            self.results.failures.extend(failures)
            self.results.rows.extend(rows)
            self._copy_unit_meta(resume, name, suite)
            self.finished_units.append([name, suite.name])
        self.results.meta.finished_units = self.finished_units
        shards, shard_bytes = suite.plan_shards(workers)
        subset_by = suite.subset_by or "both"
        key = unit_key(tokenizers={n: _plain_source(self.results.meta.tokenizers[n])
                                   for n in todo},
                       suite=suite.sha256, settings=self.settings.to_dict(),
                       collectors=sorted(collectors), shard_bytes=shard_bytes,
                       subset_by=subset_by, version=__version__)
        stats = moment_stats(metrics, collectors) if self.settings.ci is not None else ()
        plan = _Plan(suite, families, hooks, frozenset(collectors), todo, shards,
                     state.progress(suite.name, key), subset_by, stats)
        sampled = suite.growable_sample()
        if self.settings.precision is not None and sampled is not None:
            plan.shards = sampled.order()
            strata = len(sampled.population)
            plan.limit = min(len(plan.shards), max(sampled.initial_size(), 2 * strata,
                                                   MIN_PRECISION_BLOCKS))
            plan.settled = False
        return plan

    def _copy_unit_meta(self, resume: Results | None, name: str, suite: AnySuite) -> None:
        """What a reused unit recorded besides rows: failure counts, segmenters."""
        if resume is None:
            return
        old = resume.meta
        counts = (old.failure_counts or {}).get(name, {}).get(suite.name)
        if counts:
            self.failure_counts.setdefault(name, {})[suite.name] = dict(counts)
            self.results.meta.failure_counts = self.failure_counts
        info = old.suites.get(suite.name)
        now = self.results.meta.suites[suite.name]
        if info is not None and suite.reuse_reading(list(info.languages)):
            # what only reading told; no shard is read again when every unit is reused
            now.documents, now.languages = info.documents, info.languages
            now.subset_by, now.left_out = info.subset_by, info.left_out
        segmenters = old.segmenters or {}
        for lang in info.languages if info is not None else []:
            for key, seg in segmenters.items():  # LANG, and LANG/SCHEME (morph analyzers)
                if key == lang or key.startswith(f"{lang}/"):
                    self.segmenters[key] = seg

    # -- turning statistics into rows ------------------------------------------------

    def _finish(self, plan: _Plan, state: RunState) -> None:
        suite, prog = plan.suite, plan.progress
        self._mark(f"finish:{suite.name}")
        try:
            self._describe_suite(plan)
        except InputError as e:  # a streaming suite with no documents: that suite fails
            self.results.meta.errors.append(RunError(suite=str(suite.meta.get("spec")
                                                               or suite.name), error=str(e)))
            self.results.meta.suites.pop(suite.name, None)
            plan.tokenizers = []
            state.finished(suite.name)
            self.checkpoint()
            return
        self.segmenters.update(prog.segmenters)
        prefix = _subset_prefix(suite, plan.subset_by)
        metrics = metrics_of(plan.families)
        measured: list[Row] = []
        for name in plan.tokenizers:
            tok = self.toks[name]
            stats = prog.stats.get(name, UnitStats())
            ctx = MetricContext(tok.vocab_size, tok.unk_id is not None)
            rows: list[Row] = []
            for key, sub in sorted(stats.subsets.items()):
                subset = _subset_name(key, prefix)
                if subset is not None:
                    rows.extend(metric_rows(name, suite.name, subset, sub, metrics, ctx))
            for fam in plan.hooks:
                rows.extend(fam.suite_rows(self, plan, name, stats))
            self.results.failures.extend(f.failure for f in stats.failures)
            if stats.failure_counts:
                self.failure_counts.setdefault(name, {})[suite.name] = dict(
                    sorted(stats.failure_counts.items()))
                self.results.meta.failure_counts = self.failure_counts
            self.results.rows.extend(rows)
            measured.extend(rows)
            if not any(fam.finishes_units for fam in plan.hooks):
                self.finished_units.append([name, suite.name])
            self.notify(UnitReached(tokenizer=name, suite=suite.name))
            self.notify(Advanced(steps=1))
        if self.half:  # taken at the merge, on both processes' units
            self.prefixes[suite.name] = prefix
        else:
            self._intervals(plan, measured, prefix)
        state.finished(suite.name)
        self.checkpoint()

    def _intervals(self, plan: _Plan, rows: list[Row], prefix: str | None,
                   by_key: Mapping[str, Moments] | None = None) -> None:
        """Confidence intervals and paired comparisons of the suite's ratio rows (from
        ``by_key``, the moments by subset key, when given: a split run's joint ones)."""
        level = self.settings.ci
        if level is None or not plan.moments:
            return
        t0 = time.perf_counter()
        moments = {}
        for key, m in (by_key if by_key is not None else plan.progress.moments).items():
            subset = _subset_name(key, prefix)
            if subset is not None:
                moments[subset] = m
        infos = {m.name: m for m in metrics_of(plan.families)}
        design = _design(plan.suite)
        add_confidence(rows, moments, infos, design, level, self.settings.reference)
        self.timings.intervals += time.perf_counter() - t0

    def _describe_suite(self, plan: _Plan) -> None:
        """Fill in what only reading the suite tells: documents, languages, what was left
        out (empty lines, invalid UTF-8 under errors=replace|skip)."""
        info = self.results.meta.suites[plan.suite.name]
        prog = plan.progress
        any_stats = next(iter(prog.stats.values()), None)
        if any_stats is not None and ALL in any_stats.subsets:
            info.documents = any_stats.subsets[ALL].sums.get("docs", 0)
        report = plan.suite.after_reading(sorted(prog.languages), prog.counts,
                                          info.documents or 0)
        if report.languages is not None:
            info.languages, info.subset_by = report.languages, report.subset_by
        left_out = {k: int(v) for k, v in sorted(report.counts.items())
                    if k.startswith(("skipped", "replaced")) and v}
        if left_out:
            info.left_out = left_out

    def _mark(self, step: str) -> None:
        meta = self.results.meta
        self.marks.append(Mark(step, len(self.results.rows), len(self.results.failures),
                               len(meta.errors), len(self.finished_units)))

    def join_intervals(self, suite: str, rows: list[Row],
                       units: list[dict[int, dict[str, UnitTable]]], prefix: str | None,
                       order: list[str]) -> None:
        """The intervals of ``suite``'s rows measured by the processes of a split run,
        from the moments their ``units`` give joined, tokenizers in ``order`` (the run's;
        ``split.Merger``)."""
        from tokbench.engine.work import joint_moments

        plan = self.plans[suite]
        by_key: dict[str, Moments] = {}
        for index in sorted({i for half in units for i in half}):
            parts = [half[index] for half in units if index in half]
            for key in parts[0]:
                m = joint_moments([p[key] for p in parts if key in p], order, plan.moments)
                if key in by_key:
                    by_key[key].merge(m)
                else:
                    by_key[key] = m
        self._intervals(plan, rows, prefix, by_key)

    # -- what families use of the run (tokbench.families.RunContext) ---------------

    def reused(self, tokenizer: str, suite: str) -> list[Row] | None:
        """The rows of this unit from the run resumed, when nothing it depends on changed."""
        found = _reuse(self.resume, tokenizer, suite, self.results.meta.tokenizers[tokenizer],
                       None, self.settings, self.families)
        return None if found is None else found[0]

    def unit_finished(self, tokenizer: str, suite: str) -> None:
        """Record a (tokenizer, suite) unit as finished (``--resume`` reuses it)."""
        self.finished_units.append([tokenizer, suite])

    def checkpoint(self) -> None:
        """Hand the results so far to ``on_unit`` (the CLI writes them)."""
        if self.on_unit is not None:
            self.results.meta.timings = self.timings.to_dict(self.wall0)
            self.results.meta.segmenters = dict(sorted(self.segmenters.items()))
            self.on_unit(self.results)


@dataclass
class SecondProcess:
    """A run's second process started before anything is loaded (``start_second_process``),
    and the free cores measured before it started (measured after, they would count it as
    another's). ``other`` None: it is forked later, where the platform forks cheaply:
    once the suites say the run splits by tokenizer (``_Split``), or once the tokenizers
    are loaded for a run of shards (``tokbench.engine.helper.fork_helper``)."""

    other: OtherProcess | None
    free: float

    def close(self) -> None:
        """End it (the run did not take it; closing twice is harmless)."""
        if self.other is not None:
            self.other.send(None)
            self.other.close()


def start_second_process(tokenizers: Sequence[str], *, jobs: int | None,
                         executor: str = "local", metrics: Sequence[str] | None = None
                         ) -> SecondProcess | None:
    """The run's second process; None when the run will have none (``_second_process``).

    Where the platform forks cheaply (``can_fork``) nothing starts now: the run forks it
    when it knows its work, and the fork has every module and suite this process has (a
    spawned process took 0.5 s of a core for its interpreter and imports). Elsewhere it
    is spawned at once, so that its start overlaps whatever comes before the run (the CLI
    reads the suites meanwhile); when the run cannot split whatever its suites (one
    tokenizer, or the files' costs say a split saves too little and no family of
    ``metrics`` adds to them), it starts loading the tokenizers at once, to run document
    shards (``tokbench.engine.helper``)."""
    from tokbench.engine.executors import free_cores
    from tokbench.engine.split import SECOND_CORE, OtherProcess

    specs = list(tokenizers)
    if jobs is not None or executor != "local" or not _by_spec(specs):
        return None
    free = free_cores()
    if free < SECOND_CORE:
        return None
    if can_fork():
        return SecondProcess(None, free)
    if not shards_only(specs, resolve_families(metrics)):
        return SecondProcess(OtherProcess(_split_child), free)
    other = OtherProcess(_split_child)
    other.send(("preload", specs))
    return SecondProcess(other, free)


def shards_only(specs: Sequence[str], families: Sequence[str]) -> bool:
    """Whether a run of ``specs`` cannot be split by tokenizer whatever its suites: one
    tokenizer, or the files' costs say a split saves too little (``split.MIN_SAVED_S``,
    ``MIN_FORKED_SAVED_S`` where the other process is forked)
    and no family adds to them (``split.FAMILY_COSTS_PER_MB``). Its second process runs
    document shards."""
    from tokbench.engine.split import FAMILY_COSTS_PER_MB, MIN_FORKED_SAVED_S, MIN_SAVED_S

    grows = not FAMILY_COSTS_PER_MB.keys().isdisjoint(families)
    least = MIN_FORKED_SAVED_S if can_fork() else MIN_SAVED_S
    return len(specs) == 1 or (not grows and _estimate(specs)[1] < least)


def _by_spec(specs: Sequence[Any]) -> bool:
    """Whether the tokenizers are distinct spec strings (a second process loads them)."""
    return all(isinstance(s, str) for s in specs) and len(set(specs)) == len(specs)


def _estimate(specs: Sequence[str], families: Sequence[str] = (), text: int = 0
              ) -> tuple[list[bool], float, list[float]]:
    """Which tokenizers the other process would take (``split.balance``), the seconds
    that saves (``split.saving``) and the costs they come from (``split.tokenizer_cost``:
    of their files, ``families`` and ``text``, bytes)."""
    from tokbench.engine.split import balance, saving, tokenizer_cost
    from tokbench.loading.loader import local_file

    costs = [tokenizer_cost(*local_file(s), families, text) for s in specs]
    other = balance(costs)
    return other, saving(costs, other), costs


def _second_process(executor: Executor, specs: list[Any], families: list[str],
                    settings: Settings, early: SecondProcess | None = None
                    ) -> tuple[float, bool] | None:
    """The free cores (``executors.free_cores``, or those ``early`` measured) and whether
    the run may be split by tokenizer (``tokbench.engine.split``), when a second process
    runs beside this one, started before anything is loaded: the default ``jobs``,
    distinct tokenizer specs (the other process loads them by spec) and a second core
    free; else None. Not split, it runs shards (``tokbench.engine.helper``). A split
    needs every family's rows per tokenizer, two tokenizers at least and no reading to a
    precision."""
    from tokbench.engine.executors import AutoExecutor, free_cores
    from tokbench.engine.split import SECOND_CORE

    if not isinstance(executor, AutoExecutor) or not _by_spec(specs):
        return None
    free = early.free if early is not None else free_cores()
    if free < SECOND_CORE:
        return None
    return free, (settings.precision is None and len(specs) >= 2
                  and all(f.per_tokenizer for f in run_families(families, settings)))


#: the longest a split's half waits for the other's messages on their way before it
#: decides whether the other is done (``_Split._other_done``)
OTHER_DONE_WAIT = 0.25


class _Split:
    """A run split by tokenizer (``tokbench.engine.split``): once the suites are loaded and
    the split pays, the other process measures its group of the tokenizers while this
    process measures the rest, and the halves merge. The other process is forked then
    (``can_fork``), or was spawned at once (``other``, or started here)."""

    def __init__(self, settings: Settings, families: list[str], explicit: bool,
                 progress: Progress | None, on_unit: Callable[[Results], object] | None,
                 on_loaded: Callable[[Mapping[str, Any]], object] | None,
                 other: OtherProcess | None = None) -> None:
        from tokbench.engine.split import OtherProcess

        # spawned first: its start overlaps the loading (``other``: started earlier still)
        self.other = other if other is not None or can_fork() else OtherProcess(_split_child)
        self.settings, self.families, self.explicit = settings, families, explicit
        self.progress = progress or ignore
        self.on_unit, self.on_loaded = on_unit, on_loaded
        self.suites: list[AnySuite] = []
        self.forked = False  # the other process forked once the split was chosen

    def go(self, specs: list[str], suite_specs: list[Any], executor: Executor,
           free: float, splittable: bool) -> Results | None:
        """The merged results, or None when the run is not split after all: the other
        process then runs shards beside this one (``executor.helper``, a ``ShardHelper``)
        if the corpus has two shards or more, else it is ended; ``self.suites`` holds the
        suites loaded. ``free``: the free cores measured before the other process started
        (measured now, they would count it as another's); ``splittable``: nothing known
        before the suites keeps the run in one process (``_second_process``)."""
        from tokbench.engine.executors import AutoExecutor
        from tokbench.engine.split import SPLIT, choose, sendable

        wall0 = time.perf_counter()
        helps = False
        try:
            self.suites = [_load_suite(s) for s in suite_specs]
            shards = [sh for s in self.suites for sh in s.plan_shards(1)[0]]
            text = sum(sh.nbytes for sh in shards)
            other, saved, costs = _estimate(specs, self.families, text)
            mine = [s for s, o in zip(specs, other, strict=True) if not o]
            theirs = [s for s, o in zip(specs, other, strict=True) if o]
            forked = self.other is None
            splittable = splittable and bool(mine and theirs) and sendable(
                {s.name: s for s in self.suites})
            if choose(tokenizers=len(specs), free_cores=free,
                      work_bytes=text * len(specs), splittable=splittable,
                      saved_s=saved, forked=forked) != SPLIT:
                auto = executor if isinstance(executor, AutoExecutor) and len(shards) >= 2 \
                    else None
                if auto is not None and can_fork():  # forked once loaded: no second load
                    auto.forks = True
                elif auto is not None and self.other is not None:
                    from tokbench.engine.helper import ShardHelper

                    auto.helper = ShardHelper(self.other, specs)
                    helps = True
                if not helps and self.other is not None:
                    self.other.send(None)
                return None
            if forked:
                from tokbench.engine.split import fork_other

                if len(theirs) == 1 and costs[specs.index(theirs[0])] > sum(
                        c for s, c in zip(specs, costs, strict=True) if s in mine):
                    # one tokenizer costs more than the rest: this process takes it, to
                    # share its shards with a helper once the rest is done (``_mine_on``)
                    mine, theirs = theirs, mine
                self.other = fork_other(_forked_split_child)
                self.forked = True
            assert self.other is not None
            self.other.send(("split", (self.settings, self.families, self.explicit, theirs,
                                       self.suites, self.on_loaded is not None)))
            results = self._run(specs, mine, theirs, executor, wall0)
        finally:
            if not helps:
                if self.other is not None:
                    self.other.close()
                executor.close()
        return results

    def _run(self, specs: list[str], mine: list[str], theirs: list[str], executor: Executor,
             wall0: float) -> Results:
        from tokbench.engine.split import Half, JoinedProgress, Merger

        self.specs = specs
        self.joined = JoinedProgress(self.progress, len(mine) / len(specs))
        here = _Run(self.settings, self.families, self.explicit, self._mine,
                    self._checkpoint, self.on_loaded)
        here.half = True
        self.here = Half(here.results, here.marks, here.units, here.prefixes)
        self.there = Half(Results(), [])
        self.merger = Merger([self.here, self.there], specs, here.join_intervals)
        self.executor = {"kind": type(executor).__name__, "workers": executor.workers,
                         "chosen": "split"}
        self.gone: str | None = None  # how the other process died, if it did
        mine_on = self._mine_on(mine)
        try:
            here.go(mine, self.suites, None, mine_on, RunState(None))
        finally:
            mine_on.close()
        self.here.done = True
        if self.on_loaded is not None:  # built while the other process builds its own
            from tokbench.engine.viewer import ViewerPart

            part = _viewer_part(here, self.suites)
            self.on_loaded(dict.fromkeys(part["loaded"], ViewerPart(part)))
        self._pump(block=True, until=lambda: self.there.done)
        if self.gone is not None:  # the other process died: its tokenizers are done here
            self._redo(theirs, here)
        results = self.merger.merge(self.executor)
        if self.settings.reference is not None and \
                self.settings.reference not in results.meta.tokenizers:
            from tokbench.errors import UnknownNameError

            raise UnknownNameError("reference tokenizer", self.settings.reference,
                                   list(results.meta.tokenizers),
                                   hint="--reference names one of the run's tokenizers")
        if self.gone is None:
            other = self.other
            assert other is not None
            self._pump(block=True, until=lambda: other.finished)
        results = self.merger.merge(self.executor, time.perf_counter() - wall0)
        self.progress(RunDone())
        return results

    def _mine_on(self, mine: list[str]) -> Executor:
        """How this process runs its shards: here, or, where it forked the other process
        and measures one tokenizer, also in a helper forked once that tokenizer is loaded
        if the other process is done by then (its core is free). Shards are planned as the
        other process plans them (one worker): the intervals join both processes' units."""
        from tokbench.engine.executors import AutoExecutor, SerialExecutor

        if not self.forked or len(mine) != 1:
            return SerialExecutor()
        auto = AutoExecutor(1)
        auto.forks, auto.pool_allowed, auto.fork_if = True, False, self._other_done
        return auto

    def _other_done(self) -> bool:
        """Whether the other process has finished its tokenizers. What it said may still
        be on its way (``OtherProcess.pending``): that is taken first, for
        ``OTHER_DONE_WAIT`` seconds at most (a process still working sends its progress)."""
        assert self.other is not None
        end = time.perf_counter() + OTHER_DONE_WAIT
        while not self.there.done and self.gone is None and self.other.pending() \
                and time.perf_counter() < end:
            self._pump(block=True, until=lambda: self.there.done, timeout=0.05)
        return self.there.done

    def _redo(self, specs: list[str], here: _Run) -> None:
        from tokbench.engine.executors import SerialExecutor
        from tokbench.engine.split import Half, Merger

        again = _Run(self.settings, self.families, self.explicit,
                     lambda e: self.joined(e, mine=False), self._checkpoint, self.on_loaded)
        again.half = True
        self.there = Half(again.results, again.marks, again.units, again.prefixes)
        self.merger = Merger([self.here, self.there], self.specs, here.join_intervals)
        again.go(specs, self.suites, None, SerialExecutor(), RunState(None))
        self.there.done = True
        self.here.results.meta.warnings = [
            *(self.here.results.meta.warnings or []),
            f"the second process of this run ended ({self.gone}); its tokenizers were "
            "measured in the first"]

    def _mine(self, event: Event) -> None:
        self._pump(block=False)
        self.joined(event)

    def _checkpoint(self, results: Results) -> None:
        self._pump(block=False)
        if self.on_unit is not None:
            self.on_unit(self.merger.merge(self.executor))

    def _pump(self, block: bool, until: Callable[[], bool] | None = None,
              timeout: float | None = None) -> None:
        """Take the other process's messages (its events, checkpoints, its end): those
        waiting, or with ``block`` until ``until()`` holds (or none came for ``timeout``
        seconds)."""
        if self.gone is not None or (until is not None and until()):
            return
        assert self.other is not None  # started or forked before the split's work
        for kind, body in self.other.messages(block, timeout):
            if kind == "event":
                self.joined(body, mine=False)
            elif kind in ("unit", "done"):
                self.there.update(body)
                if kind == "unit" and self.on_unit is not None:
                    self.on_unit(self.merger.merge(self.executor))
            elif kind == "viewer":
                if body is not None and self.on_loaded is not None:
                    from tokbench.engine.viewer import ViewerPart

                    part = ViewerPart(body)
                    self.on_loaded(dict.fromkeys(body["loaded"], part))
            elif kind == "error":
                raise body
            elif kind == "died":
                from tokbench.engine.split import describe_death

                self.gone = describe_death(body)
                return
            if until is not None and until():
                return


def _split_child(conn: Connection, parent: int) -> None:
    """The run's second process: told None, it ends; told ``("split", ...)`` (a split
    run), it measures the tokenizers it is given, sending its progress, checkpoints,
    results and (if asked) its part of the token viewer; told ``("shards", specs)``,
    perhaps after ``("preload", specs)``, it runs shards (``tokbench.engine.helper``)."""
    from tokbench.engine.split import Outbox
    from tokbench.engine.watch import watch_parent

    watch_parent(parent)
    outbox = Outbox(conn)  # this process never waits for the run's process to read
    try:
        work = conn.recv()
        preloaded: dict[str, Tokenizer] = {}
        if work is not None and work[0] == "preload":  # it will run shards, if anything
            from tokbench.engine.helper import preload

            preloaded = preload(work[1])
            work = conn.recv()
        if work is not None and work[0] == "shards":  # a helper running shards
            from tokbench.engine.helper import serve

            serve(conn, outbox, work[1], preloaded)
        elif work is not None:
            _split_half(outbox, *work[1])
    except KeyboardInterrupt:  # Ctrl-C reaches both processes; the first one says it
        return
    except BaseException as e:
        outbox.send(("error", sendable_error(e)))
    finally:
        outbox.close(wait=None)  # all said (a pipe whose reader is gone fails at once)


def _forked_split_child(conn: Connection, parent: int) -> None:
    """``_split_child`` forked from the run's process: it never writes to the terminal
    (another thread of that process, the progress display, may have held a stream's lock
    at the fork)."""
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (until it ends)
    _split_child(conn, parent)


def _split_half(outbox: Outbox, settings: Settings, families: list[str], explicit: bool,
                specs: list[str], suites: list[AnySuite], viewer: bool) -> None:
    from tokbench.engine.executors import SerialExecutor
    from tokbench.engine.split import DeltaMaker, Half

    me = _Run(settings, families, explicit, lambda e: outbox.send(("event", e)), None)
    me.half = True
    half = Half(me.results, me.marks, me.units, me.prefixes)
    delta = DeltaMaker(half)
    me.on_unit = lambda _: outbox.send(("unit", delta()))
    me.go(specs, suites, None, SerialExecutor(), RunState(None))
    half.done = True
    outbox.send(("done", delta(done=True)))
    outbox.send(("viewer", _viewer_part(me, suites) if viewer else None))


def _viewer_part(half: _Run, suites: Sequence[AnySuite]) -> dict[str, Any]:
    """The token viewer's data for the tokenizers of one process of a split run, built
    from that process's results with the tokenizers it loaded (``ViewerPart``)."""
    from tokbench.engine.viewer import viewer_from_results
    from tokbench.loading.loader import load_tokenizer
    from tokbench.suites.model import Suite

    def load(spec: str) -> Tokenizer:
        return half.toks[spec] if spec in half.toks else load_tokenizer(spec)

    return viewer_from_results(half.results, load_tokenizer=load,
                               suites={s.name: s for s in suites if isinstance(s, Suite)})


def check_precision(suites: Sequence[AnySuite]) -> None:
    """A precision needs a sampled streamed corpus to read more of."""
    if all(s.growable_sample() is None for s in suites):
        raise InputError("--precision reads a sample of a streamed corpus until its "
                         "intervals are narrow enough: add ?sample=SIZE to a text: "
                         "suite (e.g. -s 'text:DIR?sample=1%')")


def _design(suite: AnySuite) -> Design:
    """How the suite's units were drawn (a sample's design, else the suite read whole)."""
    sample = suite.sample_record()
    if isinstance(sample, dict) and "strata" in sample:
        strata = sample["strata"]
        return Design({h: v[0] / v[1] for h, v in strata.items() if v[1]},
                      "delta method; stratified sample of blocks (clusters of documents), "
                      "totals from each stratum's bytes",
                      size={h: float(v[2]) for h, v in strata.items()})
    if isinstance(sample, dict):
        unit = str(sample["method"]).split("unit: ")[-1]
        return Design({"": sample["units"] / sample["population_units"]},
                      f"delta method; simple random sample; unit: {unit}")
    if suite.parallel:
        return Design(None, "delta method; unit: the translations of one text")
    return Design(None, "delta method; unit: a document")


def _subset_prefix(suite: AnySuite, subset_by: str) -> str | None:
    """For a suite measured both ways, the prefix of the breakdown that was chosen."""
    if subset_by != "both":
        return None
    return "lang:" if suite.subset_by == "lang" else "domain:"


def _subset_name(key: str, prefix: str | None) -> str | None:
    if key == ALL or prefix is None:
        return key
    return key[len(prefix):] if key.startswith(prefix) else None


def _load(spec: str | Tokenizer | Callable[[], Tokenizer]) -> Tokenizer:
    from tokbench.engine.work import materialize

    return materialize(spec)


def _load_suite(spec: Any) -> AnySuite:
    if not isinstance(spec, str):
        suite: AnySuite = spec
        return suite
    from tokbench.suites import load_suite

    suite = load_suite(spec)
    suite.meta.setdefault("spec", spec)
    return suite


def _check_unique(names: list[str], kind: str, fix: str) -> None:
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise InputError(f"two {kind}s are named {n!r}; {fix}")
        seen.add(n)


def _segmenter_warnings(segmenters: dict[str, str | None]) -> list[str]:
    """One line naming the languages whose fertility is empty because their word
    segmenter's library is not installed, with the pip command."""
    from tokbench.suites.words import missing_segmenters

    missing = missing_segmenters(lang for lang, seg in segmenters.items() if seg is None)
    by_fix: dict[str, list[str]] = {}
    for lang, fix in missing.items():
        by_fix.setdefault(fix, []).append(lang)
    return [f"fertility, continued_words and strr are left empty for {', '.join(langs)}: "
            f"no word segmenter installed for them ({fix})" for fix, langs in by_fix.items()]


def _reuse(resume: Results | None, tokenizer: str, suite: str, info: TokenizerInfo,
           suite_hash: str | None, settings: Settings, families: list[str]
           ) -> tuple[list[Row], list[Failure]] | None:
    """Rows and failures of a finished unit of an earlier run, if nothing it depends on
    changed: tokenizer source, suite content, settings and the metrics asked for."""
    if resume is None:
        return None
    meta = resume.meta
    old = meta.tokenizers.get(tokenizer)
    if (_plain_source(old) if old is not None else None) != _plain_source(info):
        return None
    old_suite = meta.suites.get(suite)
    if suite_hash is not None and (old_suite is None or old_suite.sha256 != suite_hash):
        return None
    if meta.settings != settings.to_dict() or meta.metric_families != families:
        return None
    finished = meta.finished_units
    if finished is not None and [tokenizer, suite] not in finished:
        return None
    rows = [r for r in resume.rows if r.tokenizer == tokenizer and r.suite == suite]
    if not rows:
        return None
    failures = [f for f in resume.failures if f.tokenizer == tokenizer and f.suite == suite]
    return rows, failures


def _formulas(families: list[str]) -> dict[str, str]:
    """metric -> its formula as defined in this version (``compare`` refuses to compare a
    metric whose definition changed, e.g. a Rényi efficiency over another denominator)."""
    from tokbench.metrics import metrics_of

    return {m.name: m.formula for m in metrics_of(families) if m.formula}


def _meta(settings: Settings, families: list[str]) -> RunMeta:
    return RunMeta(tokbench_version=__version__,
                   created=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   git_commit=git_commit(), machine=machine_info(),
                   settings=settings.to_dict(), metric_families=families,
                   metric_formulas=_formulas(families), complete=False)


def _plain_source(info: TokenizerInfo) -> dict[str, Any]:
    """A tokenizer's source as JSON (what the resume key and checks compare)."""
    return info.source.to_dict()
