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

import statistics
from collections.abc import Sequence
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

    def extras(self) -> dict[str, Any]:
        return {"clock": THREAD_CPU, "ci": list(self.ci), "samples": list(self.samples),
                "repeats": len(self.samples), "loops": self.loops, "bytes": self.nbytes,
                "wall_value": self.wall_mb_s, "outliers": self.outliers, "stop": self.stop,
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
