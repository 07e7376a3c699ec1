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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tokbench.speed.clock import REAL, THREAD_CPU, Clocks
from tokbench.speed.stats import iqr_outliers, median_ci, relative_width
from tokbench.timing import RateDetails

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
    #: a pass over the texts this long (seconds) is a sample precise enough alone: then
    #: ``long_pass_samples`` samples suffice (None: always ``min_samples``)
    long_pass_s: float | None = None
    long_pass_samples: int = 3
    #: stop ("reach") once the interval, narrowing as 1/sqrt(samples), could not reach
    #: ``target_rel_ci`` by ``max_samples``: more samples would cost time and miss it
    stop_out_of_reach: bool = False


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
    stop: str  # "ci", "budget", "reach" (``RateBudget.stop_out_of_reach``) or "max_samples"

    @property
    def precision(self) -> float | None:
        """Half the 95% interval's width relative to the median (0.02: ±2%); None when
        the rate is 0."""
        width = relative_width(self.mb_s, self.ci)
        return width / 2 if math.isfinite(width) else None

    def details(self, scale: float = 1.0) -> RateDetails:
        """The row details; ``scale`` converts MB/s to the row's unit (tokens/s: the
        tokens per MB of the texts), so ``ci``, ``samples`` and ``wall_value`` are in it."""
        return RateDetails(
            clock=THREAD_CPU, ci=[c * scale for c in self.ci],
            samples=[s * scale for s in self.samples], precision=self.precision,
            repeats=len(self.samples), loops=self.loops, bytes=self.nbytes,
            wall_value=self.wall_mb_s * scale, outliers=self.outliers, stop=self.stop,
            cpu_share=min(1.0, self.wall_mb_s / self.mb_s) if self.mb_s > 0 else None)


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
    min_samples = budget.min_samples
    if budget.long_pass_s is not None and once >= budget.long_pass_s:
        min_samples = min(min_samples, budget.long_pass_samples)
    cpu_rates: list[float] = []
    wall_rates: list[float] = []
    start = wall()
    stop = "max_samples"
    ci: tuple[float, float] | None = None  # of the samples so far, once there are enough
    while len(cpu_rates) < budget.max_samples:
        w0, c0 = wall(), cpu()
        for _ in range(loops):
            for t in texts:
                encode(t)
        c1, w1 = cpu(), wall()
        cpu_rates.append(nbytes * loops / 1e6 / max(c1 - c0, 1e-12))
        wall_rates.append(nbytes * loops / 1e6 / max(w1 - w0, 1e-12))
        if len(cpu_rates) < min_samples:
            continue
        ci = median_ci(cpu_rates)
        width = relative_width(statistics.median(cpu_rates), ci)
        if width <= budget.target_rel_ci:
            stop = "ci"
            break
        if w1 - start >= budget.budget_s:
            stop = "budget"
            break
        n = len(cpu_rates)
        if budget.stop_out_of_reach and n < budget.max_samples and \
                width * math.sqrt(n / budget.max_samples) > budget.target_rel_ci:
            stop = "reach"
            break
    med = statistics.median(cpu_rates)
    if ci is None:
        ci = median_ci(cpu_rates)
    return Rate(mb_s=med, ci=ci, samples=tuple(cpu_rates),
                wall_mb_s=statistics.median(wall_rates), tokens_s=med * 1e6 / nbytes * ntok,
                loops=loops, nbytes=nbytes, outliers=iqr_outliers(cpu_rates), stop=stop)



#: how a run times its throughput rows (``tokbench run``, family ``throughput``): a
#: small fixed sample per subset (``RUN_SUBSET_BYTES``; ``RUN_SAMPLE_BYTES`` for the
#: whole suite), at least 5 samples of 1 ms on the thread's CPU clock (3 when one pass
#: takes 50 ms), more until the median's interval is ±2% wide, at most 7 or 0.03 s, and
#: none once ±2% is out of reach by 7: a cost bounded by the sample, never the corpus
#: (``tests/bench/speed_fidelity.py --run`` checks the figures against a bare loop). On
#: the default run, 267 of 312 rows went on to 7 samples and 9 reached ±2%.
RUN_BUDGET = RateBudget(budget_s=0.03, target_rel_ci=0.04, min_samples=5, max_samples=7,
                        min_sample_s=0.001, long_pass_s=0.05, stop_out_of_reach=True)
RUN_SUBSET_BYTES = 2 * 1024
RUN_SAMPLE_BYTES = 16 * 1024
