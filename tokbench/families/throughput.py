"""The throughput family: encode speed of each (tokenizer, suite), timed after the shard
work so no worker competes for the CPU; and the texts every timing reads."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from tokbench.constants import ALL
from tokbench.errors import tokenizer_raised
from tokbench.events import TimingDone, TimingStarted
from tokbench.families.base import FormulaFamily, PlanView, RunContext
from tokbench.record import RunError
from tokbench.results import Row

if TYPE_CHECKING:
    from tokbench.speed.rate import Rate
    from tokbench.suites.model import RunnableSuite
    from tokbench.timing import RateDetails

THROUGHPUT_SAMPLE_BYTES = 256 * 1024


class ThroughputFamily(FormulaFamily):
    """Rows of its metrics (MB/s, then tokens/s) added once the shards are done; a unit it
    times is finished only then."""

    finishes_units = True

    def phase_units(self, plans: Sequence[PlanView]) -> int:
        return sum(len(p.tokenizers) for p in plans if self.name in p.families)

    def after_shards(self, ctx: RunContext, plan: PlanView) -> None:
        self._throughput(ctx, plan)

    def _throughput(self, ctx: RunContext, plan: PlanView) -> None:
        """Encode speed on one thread, timed here after the shard work is done (so no
        worker competes for the CPU) on a fixed-size sample of the suite and, for
        parallel suites, of each subset: a cost bounded by the samples, with the
        precision reached stated in each row (``tokbench.speed.rate.RUN_BUDGET``)."""
        if not plan.tokenizers:
            return
        from tokbench.speed.rate import (
            RUN_BUDGET,
            RUN_SAMPLE_BYTES,
            RUN_SUBSET_BYTES,
            measure_rate,
        )

        repeats = ctx.settings.throughput_repeats
        budget = replace(RUN_BUDGET, min_samples=repeats,
                         max_samples=max(RUN_BUDGET.max_samples, repeats))
        per_subset = ctx.settings.throughput_subsets and plan.suite.parallel
        targets = throughput_texts(plan.suite, False, RUN_SAMPLE_BYTES)
        if per_subset:
            subsets = throughput_texts(plan.suite, True, RUN_SUBSET_BYTES)
            targets.update((k, v) for k, v in subsets.items() if k != ALL)
        for name in plan.tokenizers:
            ctx.notify(TimingStarted(tokenizer=name, suite=plan.suite.name))
            t0 = time.perf_counter()
            for subset, texts in targets.items():
                try:
                    rate = measure_rate(ctx.toks[name], texts, budget)
                except BaseException as e:  # a tokenizer's own error: recorded, never silent
                    if not tokenizer_raised(e):
                        raise
                    ctx.results.meta.errors.append(RunError(
                        tokenizer=name, suite=plan.suite.name,
                        error=f"throughput of subset {subset} not measured: "
                              f"{type(e).__name__}: {e}"))
                    continue
                if rate is None:  # no text to time
                    continue
                per_mb = rate.tokens_s / rate.mb_s if rate.mb_s > 0 else 0.0
                for metric, value, scale in (("throughput_mb_s", rate.mb_s, 1.0),
                                             ("throughput_tokens_s", rate.tokens_s, per_mb)):
                    ctx.results.rows.append(Row(name, plan.suite.name, subset, metric, value,
                                                _throughput_details(rate, scale).to_dict()))
            ctx.timings.throughput += time.perf_counter() - t0
            ctx.unit_finished(name, plan.suite.name)
            ctx.notify(TimingDone(tokenizer=name, suite=plan.suite.name))
            ctx.checkpoint()


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


def throughput_texts(suite: RunnableSuite, per_subset: bool,
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
