"""Single-thread encode MB/s, repeated until its confidence interval is narrow enough.

Calibration as pyperf does it, scaled down to a shared-machine budget: one warm-up
pass (discarded, also counts the tokens), then a number of passes per sample chosen so
a sample lasts at least ``min_sample_s`` (a short sample is dominated by clock noise);
samples are added until the 95% interval of their median is within ``target_rel_ci``
of it, or ``budget_s`` is spent. Outliers (Tukey's fences) are counted and reported, not
dropped: the median is robust to them. The primary clock is the thread's CPU time
(the work, unaffected by other processes); the wall-clock rate is reported beside it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tokbench.speed.clock import REAL, THREAD_CPU, Clocks
from tokbench.speed.stats import iqr_outliers, median_ci, relative_width

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer


@dataclass(frozen=True)
class RateBudget:
    """How long and how precisely to time a rate."""

    budget_s: float = 1.0
    target_rel_ci: float = 0.02  # stop once the median's 95% interval is ±1% wide
    min_samples: int = 5
    max_samples: int = 40
    min_sample_s: float = 0.03


@dataclass(frozen=True)
class Rate:
    """Encode MB/s over a fixed list of texts."""

    mb_s: float  # median of the samples, thread CPU clock
    ci: tuple[float, float]
    samples: tuple[float, ...]  # MB/s of each sample, thread CPU clock
    wall_mb_s: float  # median of the samples, wall clock
    tokens_s: float
    loops: int  # passes over the texts per sample
    nbytes: int
    outliers: int
    stop: str  # "ci", "budget" or "max_samples"

    @property
    def precision(self) -> float | None:
        """Half the 95% interval's width relative to the median (0.02: ±2%); None when
        the rate is 0."""
        width = relative_width(self.mb_s, self.ci)
        return width / 2 if math.isfinite(width) else None

    def extras(self, scale: float = 1.0) -> dict[str, Any]:
        """The row details; ``scale`` converts MB/s to the row's unit (tokens/s: the
        tokens per MB of the texts), so ``ci``, ``samples`` and ``wall_value`` are in it."""
        return {"clock": THREAD_CPU, "ci": [c * scale for c in self.ci],
                "samples": [s * scale for s in self.samples], "precision": self.precision,
                "repeats": len(self.samples), "loops": self.loops, "bytes": self.nbytes,
                "wall_value": self.wall_mb_s * scale, "outliers": self.outliers,
                "stop": self.stop,
                "cpu_share": self.wall_mb_s / self.mb_s if self.mb_s > 0 else None}


def measure_rate(tok: Tokenizer, texts: Sequence[str], budget: RateBudget = RateBudget(),
                 clocks: Clocks = REAL) -> Rate | None:
    """Time ``tok.encode`` over ``texts`` (see the module doc); None without text."""
    texts = [t for t in texts if t]
    if not texts:
        return None
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    encode = tok.encode
    wall, cpu = clocks.wall, clocks.cpu
    t0 = cpu()
    ntok = sum(len(encode(t)) for t in texts)
    once = max(cpu() - t0, 1e-9)
    loops = max(1, int(budget.min_sample_s / once) + 1) if once < budget.min_sample_s else 1
    cpu_rates: list[float] = []
    wall_rates: list[float] = []
    start = wall()
    stop = "max_samples"
    while len(cpu_rates) < budget.max_samples:
        w0, c0 = wall(), cpu()
        for _ in range(loops):
            for t in texts:
                encode(t)
        c1, w1 = cpu(), wall()
        cpu_rates.append(nbytes * loops / 1e6 / max(c1 - c0, 1e-12))
        wall_rates.append(nbytes * loops / 1e6 / max(w1 - w0, 1e-12))
        if len(cpu_rates) < budget.min_samples:
            continue
        med = statistics.median(cpu_rates)
        if relative_width(med, median_ci(cpu_rates)) <= budget.target_rel_ci:
            stop = "ci"
            break
        if w1 - start >= budget.budget_s:
            stop = "budget"
            break
    med = statistics.median(cpu_rates)
    return Rate(mb_s=med, ci=median_ci(cpu_rates), samples=tuple(cpu_rates),
                wall_mb_s=statistics.median(wall_rates), tokens_s=med * 1e6 / nbytes * ntok,
                loops=loops, nbytes=nbytes, outliers=iqr_outliers(cpu_rates), stop=stop)


@dataclass(frozen=True)
class SampledBudget:
    """How a run times its throughput rows: a fixed-size sample of every subset, timed
    in interleaved rounds (every subset once per round, so a burst of load on a shared
    machine touches every subset alike), for at least ``min_rounds`` rounds and until the
    95% interval of the whole sample's median is within ``target_rel_ci`` of it, or
    ``budget_s`` of CPU time is spent (CPU, not wall: a busy machine makes the timing
    take longer, not stop sooner with a wider interval). The cost is bounded by the
    sample, never the corpus: at most ``max_rounds`` passes over ``subset_bytes`` per
    subset."""

    subset_bytes: int = 4 * 1024
    all_bytes: int = 32 * 1024  # the whole-suite sample of a suite without subsets
    min_rounds: int = 5
    max_rounds: int = 12
    target_rel_ci: float = 0.04
    budget_s: float = 0.1
    min_sample_s: float = 0.001  # a subset's timed sample: passes enough to last this long


def measure_rates(tok: Tokenizer, groups: Mapping[str, Sequence[str]], total: str | None,
                  budget: SampledBudget = SampledBudget(), clocks: Clocks = REAL
                  ) -> dict[str, Rate]:
    """Encode MB/s of each group of texts, timed in interleaved rounds (``SampledBudget``)
    on the thread CPU clock, after one warm-up pass that also counts the tokens; with
    ``total``, also the rate of all groups together under that key (bytes of a round over
    its CPU time). Groups without text are left out."""
    groups = {k: [t for t in v if t] for k, v in groups.items()}
    groups = {k: v for k, v in groups.items() if v}
    if not groups:
        return {}
    encode = tok.encode
    wall, cpu = clocks.wall, clocks.cpu
    nbytes = {k: sum(len(t.encode("utf-8")) for t in v) for k, v in groups.items()}
    ntok: dict[str, int] = {}
    loops: dict[str, int] = {}
    for k, texts in groups.items():
        c0 = cpu()
        ntok[k] = sum(len(encode(t)) for t in texts)
        once = max(cpu() - c0, 1e-9)
        loops[k] = max(1, int(budget.min_sample_s / once) + 1) if once < budget.min_sample_s \
            else 1
    cpu_rates: dict[str, list[float]] = {k: [] for k in groups}
    wall_rates: dict[str, list[float]] = {k: [] for k in groups}
    round_cpu: list[float] = []
    round_wall: list[float] = []
    start = cpu()
    stop = "max_samples"
    while len(round_cpu) < budget.max_rounds:
        spent_c = spent_w = 0.0
        for k, texts in groups.items():
            w0, c0 = wall(), cpu()
            for _ in range(loops[k]):
                for t in texts:
                    encode(t)
            dc, dw = max(cpu() - c0, 1e-12), max(wall() - w0, 1e-12)
            cpu_rates[k].append(nbytes[k] * loops[k] / 1e6 / dc)
            wall_rates[k].append(nbytes[k] * loops[k] / 1e6 / dw)
            spent_c += dc / loops[k]
            spent_w += dw / loops[k]
        round_cpu.append(sum(nbytes.values()) / 1e6 / spent_c)
        round_wall.append(sum(nbytes.values()) / 1e6 / spent_w)
        if len(round_cpu) < budget.min_rounds:
            continue
        if relative_width(statistics.median(round_cpu), median_ci(round_cpu)) \
                <= budget.target_rel_ci:
            stop = "ci"
            break
        if cpu() - start >= budget.budget_s:
            stop = "budget"
            break

    def rate(cpus: list[float], walls: list[float], n: int, tokens: int, loop: int) -> Rate:
        med = statistics.median(cpus)
        return Rate(mb_s=med, ci=median_ci(cpus), samples=tuple(cpus),
                    wall_mb_s=statistics.median(walls), tokens_s=med * 1e6 / n * tokens,
                    loops=loop, nbytes=n, outliers=iqr_outliers(cpus), stop=stop)

    out = {k: rate(cpu_rates[k], wall_rates[k], nbytes[k], ntok[k], loops[k]) for k in groups}
    if total is not None:
        out[total] = rate(round_cpu, round_wall, sum(nbytes.values()), sum(ntok.values()), 1)
    return out
