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
import statistics
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tokbench.constants import ALL, PIVOT, VOCAB_SUITE
from tokbench.engine.presets import DEFAULT_TOKENIZERS
from tokbench.engine.state import RunState, SuiteProgress, unit_key
from tokbench.engine.work import PinnedSpec, ShardResult, ShardTask
from tokbench.environment import git_commit, machine_info
from tokbench.errors import InputError, TokbenchError, tokenizer_raised
from tokbench.events import (
    Advanced,
    PhaseStarted,
    Progress,
    RunDone,
    RunStarted,
    ShardDone,
    TimingDone,
    TimingStarted,
    TokenizerFailed,
    UnitReached,
    ignore,
)
from tokbench.metrics import metrics_of, resolve_families
from tokbench.metrics.base import MetricContext
from tokbench.metrics.compute import evaluate, ratio
from tokbench.metrics.confidence import add_intervals, add_paired, moment_stats
from tokbench.metrics.fairness import fairness_rows
from tokbench.metrics.intervals import Design
from tokbench.metrics.stats import SubsetStats, UnitStats, collectors_for
from tokbench.record import Failure, RunError, RunMeta, SuiteInfo, TokenizerInfo
from tokbench.results import Results, Row
from tokbench.suites.builtin import BUILTIN_SUITES
from tokbench.version import __version__

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.engine.executors import Executor
    from tokbench.speed.rate import Rate
    from tokbench.suites.model import Suite
    from tokbench.suites.morph_gold import GoldFile
    from tokbench.suites.stream import StreamingSuite
    from tokbench.timing import RateDetails

    AnySuite = Suite | StreamingSuite

#: every built-in suite: what a run measures when no suite is named
DEFAULT_SUITES = BUILTIN_SUITES
__all__ = ["ALL", "DEFAULT_SUITES", "DEFAULT_TOKENIZERS", "PIVOT", "VOCAB_SUITE", "Settings",
           "run"]

THROUGHPUT_SAMPLE_BYTES = 256 * 1024
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
    **options: Any,
) -> Results:
    """Compare ``tokenizers`` on ``suites``; returns the results (rows + what was run).

    ``tokenizers`` and ``suites`` are names/specs or loaded objects (defaults: the
    eight reference tokenizers on every built-in suite); a tokenizer may also be a
    picklable zero-argument factory (``functools.partial(load, path)``), which worker
    processes call instead of receiving the object; ``metrics`` are metric or
    family names (default: all). ``jobs`` worker processes (None: every usable core;
    1: this process) or ``executor="dask"`` (``scheduler`` address, or a LocalCluster).
    ``resume`` reuses the rows of finished units whose tokenizer, suite, settings and
    metrics are unchanged; ``state`` is a checkpoint file of finished shards (reused
    when it matches, so an interrupted run redoes only unfinished shards). Keyword
    ``options`` set ``Settings`` fields (e.g. ``premium_join=True``). ``progress`` is
    called with each ``tokbench.events`` event as the run goes.

    >>> results = run(["bytes", "chars"], ["multilingual?languages=jpn_Jpan"], ["compression"])
    >>> results.value("bytes", "multilingual", "jpn_Jpan", "tokens")  # UTF-8 bytes
    10881
    >>> results.value("chars", "multilingual", "jpn_Jpan", "tokens")  # code points
    3681
    >>> round(results.value("chars", "multilingual", "all", "bytes_per_token"), 4)
    2.956
    """
    settings = _settings(settings, options)
    runner = _Run(settings, resolve_families(metrics), metrics is not None, progress, on_unit)
    return runner.go(list(tokenizers) if tokenizers is not None else list(DEFAULT_TOKENIZERS),
                     list(suites) if suites is not None else list(DEFAULT_SUITES),
                     resume, _executor(executor, jobs, scheduler), RunState(state))


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
                 progress: Progress | None, on_unit: Callable[[Results], object] | None
                 ) -> None:
        self.settings = settings
        self.families = families
        # digit metrics belong to suites that ask for them unless chosen by name
        self.digits_everywhere = explicit and "numbers" in families
        self.notify: Progress = progress or ignore
        self.on_unit = on_unit
        self.timings = Timings()
        self.wall0 = time.perf_counter()
        self.results = Results(meta=_meta(settings, families))
        self.toks: dict[str, Tokenizer] = {}
        self.specs: dict[str, object] = {}
        self.finished_units: list[list[str]] = []
        self.segmenters: dict[str, str | None] = {}
        self.failure_counts: dict[str, dict[str, dict[str, int]]] = {}

    # -- orchestration ---------------------------------------------------------------

    def go(self, tok_specs: list[Any], suite_specs: list[Any],
           resume: Results | None, executor: Executor, state: RunState) -> Results:
        meta = self.results.meta
        gold = None
        if self.settings.morph_gold:  # a bad gold file stops the run before any work
            from tokbench.suites.morph_gold import read_gold

            gold = read_gold(self.settings.morph_gold)
        suites = [_load_suite(s) for s in suite_specs]
        _check_unique([s.name for s in suites], "suite", "add ?name=OTHER to one of the specs")
        meta.suites = {s.name: SuiteInfo.from_dict(s.describe()) for s in suites}
        meta.tokenizers = {}
        meta.errors = []
        meta.warnings = _suite_warnings(suites, self.families)
        if self.settings.precision is not None:
            check_precision(suites)
            meta.warnings += [f"suite {s.name!r} is sampled once (?sample=); --precision "
                              "reads more only of streamed corpora (text: files)"
                              for s in suites if "sample" in s.meta and not hasattr(s, "order")]
        meta.executor = {"kind": type(executor).__name__, "workers": executor.workers}
        self._load_tokenizers(tok_specs)
        ref = self.settings.reference
        if ref is not None and ref not in self.toks:
            from tokbench.errors import UnknownNameError

            raise UnknownNameError("reference tokenizer", ref, list(self.toks),
                                   hint="--reference names one of the run's tokenizers")
        if resume is not None:
            state.load()
        vocab = "tokenizer" in self.families
        plans = [self._plan(s, resume, state, executor.workers) for s in suites]
        total = sum(sum(sh.nbytes for i, sh in enumerate(p.shards[:p.limit])
                        if i not in p.progress.done) for p in plans)
        self.notify(RunStarted(units=len(self.toks) * (len(suites) + vocab), bytes=total))
        pending = [p for p in plans if p.tokenizers and not p.finished]
        run_id = uuid.uuid4().hex
        try:
            if pending:  # a pool's workers load while the vocabulary facts are counted
                self._start(pending, executor, run_id)
            if vocab:
                for name in self.toks:
                    self._vocab_unit(name, resume)
            if gold is not None:
                self._gold_unit(gold)
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
        timed = [p for p in plans if "throughput" in p.families and p.tokenizers]
        if timed:  # a phase of its own: the shard work is done, timing takes a while
            self.notify(PhaseStarted(name="throughput",
                                     units=sum(len(p.tokenizers) for p in timed)))
        for p in plans:
            self._throughput(p)
        self._speed(plans)
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
        suite: Any = plan.suite
        suite.drawn = n
        moments = plan.progress.moments.get(ALL)
        worst = None if moments is None else widest_relative(
            moments, plan.tokenizers, metrics_of(plan.families), _design(suite),
            self.settings.ci)
        info = self.results.meta.suites[suite.name]
        done = worst is not None and worst <= target
        if done or n >= len(plan.shards):
            plan.settled = True
            info.sample = {**suite.sample_info(), "precision": target,
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
                                    p.moments, unit, stratum or "")

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
        families = [f for f in self.families if f != "numbers"
                    or self.digits_everywhere or "numbers" in suite.families]
        metrics = metrics_of(families)
        needs = {n for m in metrics for n in m.needs}
        collectors = collectors_for(needs)
        if not (suite.parallel and "premium" in families):
            collectors.discard("premium")
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
        plan = _Plan(suite, families, frozenset(collectors), todo, shards,
                     state.progress(suite.name, key), subset_by, stats)
        if self.settings.precision is not None and hasattr(suite, "order"):
            sampled: Any = suite
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
        try:
            self._describe_suite(plan)
        except InputError as e:  # a streaming suite with no documents: that suite fails
            self.results.meta.errors.append(RunError(suite=str(suite.meta.get("spec")
                                                               or suite.name), error=str(e)))
            self.results.meta.suites.pop(suite.name, None)
            plan.tokenizers = []
            state.finished(suite.name)
            self._checkpoint()
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
                    rows.extend(_metric_rows(name, suite.name, subset, sub, metrics, ctx))
            if "premium" in plan.collectors:
                premiums = self._premium_rows(name, suite, stats)
                rows.extend(premiums)
                rows.extend(fairness_rows(premiums))
            self.results.failures.extend(f.failure for f in stats.failures)
            if stats.failure_counts:
                self.failure_counts.setdefault(name, {})[suite.name] = dict(
                    sorted(stats.failure_counts.items()))
                self.results.meta.failure_counts = self.failure_counts
            self.results.rows.extend(rows)
            measured.extend(rows)
            if "throughput" not in plan.families:
                self.finished_units.append([name, suite.name])
            self.notify(UnitReached(tokenizer=name, suite=suite.name))
            self.notify(Advanced(steps=1))
        self._intervals(plan, measured, prefix)
        state.finished(suite.name)
        self._checkpoint()

    def _intervals(self, plan: _Plan, rows: list[Row], prefix: str | None) -> None:
        """Confidence intervals and paired comparisons of the suite's ratio rows."""
        level = self.settings.ci
        if level is None or not plan.moments:
            return
        t0 = time.perf_counter()
        moments = {}
        for key, m in plan.progress.moments.items():
            subset = _subset_name(key, prefix)
            if subset is not None:
                moments[subset] = m
        infos = {m.name: m for m in metrics_of(plan.families)}
        design = _design(plan.suite)
        add_intervals(rows, moments, infos, design, level)
        add_paired(rows, moments, infos, design, level, self.settings.reference)
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

    def _premium_rows(self, name: str, suite: AnySuite, stats: UnitStats) -> list[Row]:
        """Tokens per language over the aligned documents it shares with English."""
        pivot = stats.aligned.get(PIVOT)
        if not pivot:
            return []
        rows = []
        for lang, members in sorted(stats.aligned.items()):
            keys = [k for k in pivot if k in members]
            if not keys:
                continue
            if self.settings.premium_join:
                n_lang, n_eng = self._joined_counts(name, suite, lang, keys)
            else:
                n_lang = sum(members[k] for k in keys)
                n_eng = sum(pivot[k] for k in keys)
            value = ratio(n_lang, n_eng)
            if value is not None:
                rows.append(Row(name, suite.name, lang, "premium", value))
        return rows

    def _joined_counts(self, name: str, suite: AnySuite, lang: str, keys: list[str]
                       ) -> tuple[int, int]:
        """Premium as Petrov et al. count it: each language's documents joined by spaces,
        in corpus order, encoded at once."""
        texts = _aligned_texts(suite)
        order = [k for k in texts.get(PIVOT, {}) if k in set(keys)]
        tok = self.toks[name]
        t0 = time.perf_counter()
        n_lang = len(tok.encode(" ".join(texts[lang][k] for k in order)))
        n_eng = len(tok.encode(" ".join(texts[PIVOT][k] for k in order)))
        self.timings.encode += time.perf_counter() - t0
        return n_lang, n_eng

    def _vocab_unit(self, name: str, resume: Results | None) -> None:
        tok = self.toks[name]
        self.notify(UnitReached(tokenizer=name, suite=VOCAB_SUITE))
        reused = _reuse(resume, name, VOCAB_SUITE, self.results.meta.tokenizers[name], None,
                        self.settings, self.families)
        if reused is not None:
            rows = reused[0]
        else:
            from tokbench.metrics.tokenizer_facts import cached_vocabulary_facts

            t0 = time.perf_counter()
            facts = cached_vocabulary_facts(tok)
            self.timings.vocab += time.perf_counter() - t0
            rows = [Row(name, VOCAB_SUITE, ALL, k, v) for k, v in facts.items()]
        self.results.rows.extend(rows)
        self.finished_units.append([name, VOCAB_SUITE])
        self.notify(Advanced(steps=1))
        self._checkpoint()

    def _gold_unit(self, gold: GoldFile) -> None:
        """MorphScore and boundary P/R/F1 of every tokenizer on the --morph-gold file."""
        from tokbench.metrics.morph_score import score_gold
        from tokbench.suites.morph_gold import GOLD_SUITE

        langs = sorted({w.lang for w in gold.words if w.lang})
        self.results.meta.suites[GOLD_SUITE] = SuiteInfo(
            name=GOLD_SUITE, sha256=gold.sha256, source=gold.path,
            documents=len(gold.words), languages=langs)
        groups = {ALL: np.arange(len(gold.words))}
        for lang in langs:
            groups[lang] = np.asarray([i for i, w in enumerate(gold.words) if w.lang == lang])
        metrics = metrics_of(["morph_gold"])
        for name, tok in self.toks.items():
            per_word = score_gold(tok, [w.word for w in gold.words],
                                  [w.boundaries for w in gold.words])
            ctx = MetricContext(tok.vocab_size, tok.unk_id is not None)
            for subset, idx in groups.items():
                sums = {k: int(v[idx].sum()) for k, v in per_word.items()}
                sums["ok"] = sums["docs"] = int(idx.size)
                self.results.rows.extend(_metric_rows(name, GOLD_SUITE, subset,
                                                      SubsetStats(sums), metrics, ctx))
            self.notify(UnitReached(tokenizer=name, suite=GOLD_SUITE))
        self._checkpoint()

    def _throughput(self, plan: _Plan) -> None:
        """Encode speed on one thread, timed here after the shard work is done (so no
        worker competes for the CPU) on a fixed-size sample of the suite and, for
        parallel suites, of each subset: a cost bounded by the samples, with the
        precision reached stated in each row (``tokbench.speed.rate.RUN_BUDGET``)."""
        if "throughput" not in plan.families or not plan.tokenizers:
            return
        from tokbench.speed.rate import (
            RUN_BUDGET,
            RUN_SAMPLE_BYTES,
            RUN_SUBSET_BYTES,
            measure_rate,
        )

        repeats = self.settings.throughput_repeats
        budget = replace(RUN_BUDGET, min_samples=repeats,
                         max_samples=max(RUN_BUDGET.max_samples, repeats))
        per_subset = self.settings.throughput_subsets and plan.suite.parallel
        targets = _throughput_texts(plan.suite, False, RUN_SAMPLE_BYTES)
        if per_subset:
            subsets = _throughput_texts(plan.suite, True, RUN_SUBSET_BYTES)
            targets.update((k, v) for k, v in subsets.items() if k != ALL)
        for name in plan.tokenizers:
            self.notify(TimingStarted(tokenizer=name, suite=plan.suite.name))
            t0 = time.perf_counter()
            for subset, texts in targets.items():
                try:
                    rate = measure_rate(self.toks[name], texts, budget)
                except BaseException as e:  # a tokenizer's own error: recorded, never silent
                    if not tokenizer_raised(e):
                        raise
                    self.results.meta.errors.append(RunError(
                        tokenizer=name, suite=plan.suite.name,
                        error=f"throughput of subset {subset} not measured: "
                              f"{type(e).__name__}: {e}"))
                    continue
                if rate is None:  # no text to time
                    continue
                per_mb = rate.tokens_s / rate.mb_s if rate.mb_s > 0 else 0.0
                for metric, value, scale in (("throughput_mb_s", rate.mb_s, 1.0),
                                             ("throughput_tokens_s", rate.tokens_s, per_mb)):
                    self.results.rows.append(Row(name, plan.suite.name, subset, metric, value,
                                                 _throughput_details(rate, scale).to_dict()))
            self.timings.throughput += time.perf_counter() - t0
            self.finished_units.append([name, plan.suite.name])
            self.notify(TimingDone(tokenizer=name, suite=plan.suite.name))
            self._checkpoint()

    def _speed(self, plans: list[_Plan]) -> None:
        """The speed family (tail latency, threads, length scaling, load cost), once per
        tokenizer on samples of every suite, after all other work so nothing competes for
        the CPU; its rows use the pseudo-suite ``speed``."""
        if "speed" not in self.families or not self.toks:
            return
        from tokbench.speed import speed_rows
        from tokbench.speed.bench import SUITE, suite_meta

        texts = [t for p in plans for t in _throughput_texts(p.suite, False)[ALL]]
        self.results.meta.suites[SUITE] = SuiteInfo.from_dict(
            suite_meta([p.suite.name for p in plans], texts))
        for name, tok in self.toks.items():
            spec = self.specs[name]
            t0 = time.perf_counter()
            self.results.rows.extend(speed_rows(
                tok, texts, suite=SUITE, spec=spec if isinstance(spec, str) else None,
                progress=lambda what, n=name: self.notify(  # type: ignore[misc]
                    UnitReached(tokenizer=n, suite=f"speed: {what}"))))
            self.timings.throughput += time.perf_counter() - t0
            self.finished_units.append([name, SUITE])
            self._checkpoint()

    def _checkpoint(self) -> None:
        if self.on_unit is not None:
            self.results.meta.timings = self.timings.to_dict(self.wall0)
            self.results.meta.segmenters = dict(sorted(self.segmenters.items()))
            self.on_unit(self.results)


def _metric_rows(tok: str, suite: str, subset: str, stats: SubsetStats, metrics: list[Any],
                 ctx: MetricContext) -> list[Row]:
    values = evaluate(stats, metrics, ctx)
    failed = stats.sums.get("failed", 0)
    extra = {"failed_docs": failed} if failed else {}
    return [Row(tok, suite, subset, m, v, dict(extra)) for m, v in values.items()
            if v is not None]


def check_precision(suites: Sequence[AnySuite]) -> None:
    """A precision needs a sampled streamed corpus to read more of."""
    if not any(hasattr(s, "order") for s in suites):
        raise InputError("--precision reads a sample of a streamed corpus until its "
                         "intervals are narrow enough: add ?sample=SIZE to a text: "
                         "suite (e.g. -s 'text:DIR?sample=1%')")


def _design(suite: AnySuite) -> Design:
    """How the suite's units were drawn (a sample's design, else the suite read whole)."""
    sample = suite.describe().get("sample") if hasattr(suite, "sample_info") else \
        suite.meta.get("sample")
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


def _aligned_texts(suite: AnySuite) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for d in suite.documents:
        if d.align is not None:
            out.setdefault(d.lang, {})[d.align] = d.text
    return out


def _throughput_details(rate: Rate, scale: float) -> RateDetails:
    """A throughput row's details: its samples (``compare`` judges a change against their
    range, as for every run before), their spread, and the precision reached (half the
    median's 95% interval, relative: 0.02 is ±2%), with how the timing stopped."""
    details = rate.details(scale)
    details.ci = None  # the range of the samples stays the noise band compare uses
    samples = details.samples or []
    med = statistics.median(samples) if samples else 0.0
    details.spread = (max(samples) - min(samples)) / med if med else 0.0
    details.threads = 1
    return details


def _throughput_texts(suite: AnySuite, per_subset: bool,
                      limit: int = THROUGHPUT_SAMPLE_BYTES) -> dict[str, list[str]]:
    """What throughput is timed on: a sample of the suite (documents taken round-robin
    from every subset up to ``limit`` bytes, each cut to that size) and, with
    ``per_subset``, a sample of each subset (its first documents up to ``limit`` bytes).
    Deterministic, so two runs time the same text."""
    docs = suite.sample_documents()
    groups: dict[str, list[str]] = {}
    for d in docs:
        groups.setdefault(suite.subset_of(d) if suite.subset_by else d.lang, []).append(
            _cut(d.text, limit))
    out = {ALL: _round_robin(list(groups.values()), limit)}
    if per_subset:
        out.update((k, _head(g, limit)) for k, g in groups.items())
    return out


def _round_robin(lists: list[list[str]], limit: int) -> list[str]:
    """Texts taken in turn from each list until ``limit`` bytes, in corpus order."""
    picked: list[tuple[int, int]] = []
    total = 0
    for round_ in range(max((len(g) for g in lists), default=0)):
        for k, g in enumerate(lists):
            if round_ < len(g) and total < limit:
                picked.append((k, round_))
                total += len(g[round_].encode("utf-8"))
    order = {id(t): i for i, t in enumerate(t for g in lists for t in g)}
    return sorted((lists[k][r] for k, r in picked), key=lambda t: order[id(t)])


def _head(texts: list[str], limit: int) -> list[str]:
    """The first of ``texts`` up to ``limit`` UTF-8 bytes (the last one may pass it)."""
    out: list[str] = []
    total = 0
    for t in texts:
        if total >= limit:
            break
        out.append(t)
        total += len(t.encode("utf-8"))
    return out


def _cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, at a character boundary."""
    if len(text) <= limit // 4:
        return text
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", errors="ignore")


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


def _suite_warnings(suites: Sequence[AnySuite], families: Sequence[str]) -> list[str]:
    """What cannot be measured as asked, said once per suite (the rest is still measured)."""
    out = []
    if "premium" in families:
        for suite in suites:
            if suite.parallel and PIVOT not in suite.languages():
                out.append(f"suite {suite.name!r} has no {PIVOT} documents, so premium is not "
                           f"computed; include English (e.g. ?languages={PIVOT},...) to get it")
    morph = [f for f in ("morph", "morph_sudachi") if f in families]
    if morph:
        from tokbench.suites.morphemes import scheme_warnings

        langs = sorted({lang for s in suites for lang in s.languages()})
        for family in morph:
            out += scheme_warnings(family, langs)
    return out


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
