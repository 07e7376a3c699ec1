"""Summaries of timing samples: percentiles with distribution-free confidence intervals.

Everything here is plain arithmetic on lists of floats, so tests can feed it injected
timings. Percentiles use linear interpolation between order statistics (numpy's
default); their 95% intervals are order-statistic intervals (the binomial count of
samples below the true quantile, normal approximation), which need no assumption
about the shape of the distribution. The interval's upper end is open (None) when
too few samples lie above the percentile to bound it, e.g. p99 of fewer than ~460 calls.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054


def quantile(sorted_xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ascending ``sorted_xs``, interpolating linearly."""
    if not sorted_xs:
        raise ValueError("quantile of no samples")
    pos = (len(sorted_xs) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def quantile_ci(sorted_xs: Sequence[float], q: float, z: float = Z95
                ) -> tuple[float, float | None]:
    """Order-statistic confidence interval of the ``q`` quantile.

    Ranks ``nq ± z·sqrt(nq(1-q))`` (1-based, rounded outwards); a lower rank below 1
    is the minimum, an upper rank beyond ``n`` leaves the interval open (None).
    """
    n = len(sorted_xs)
    if n == 0:
        raise ValueError("quantile interval of no samples")
    half = z * math.sqrt(n * q * (1 - q))
    lo_rank = math.floor(n * q - half)
    hi_rank = math.ceil(n * q + half) + 1  # +1: the interval covers the rank nq itself
    lo = sorted_xs[max(lo_rank, 1) - 1]
    hi = sorted_xs[hi_rank - 1] if hi_rank <= n else None
    return lo, hi


def median_ci(xs: Sequence[float], resamples: int = 1000, seed: int = 0
              ) -> tuple[float, float]:
    """95% percentile-bootstrap interval of the median (seeded: the same samples give
    the same interval). Resampled in one array operation over draws made once per sample
    count: a run calls this for every throughput row after every sample, so it must cost
    far less than the timing."""
    if not xs:
        raise ValueError("median interval of no samples")
    if len(xs) == 1:
        return xs[0], xs[0]
    import numpy as np

    ordered = np.sort(np.asarray(xs, dtype=float))
    low, high = _median_draws(ordered.size, resamples, seed)
    sorted_meds = np.sort((ordered[low] + ordered[high]) / 2).tolist()
    return quantile(sorted_meds, 0.025), quantile(sorted_meds, 0.975)


@functools.lru_cache(maxsize=64)
def _median_draws(n: int, resamples: int, seed: int) -> tuple[Any, Any]:
    """For each of ``resamples`` seeded resamples of ``n`` sorted samples, the indexes of
    its two middle order statistics (equal when ``n`` is odd): their mean is its median."""
    import numpy as np

    draws = np.sort(np.random.default_rng(seed).integers(0, n, size=(resamples, n)), axis=1)
    return draws[:, (n - 1) // 2].copy(), draws[:, n // 2].copy()


def iqr_outliers(xs: Sequence[float]) -> int:
    """Samples outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] (Tukey's fences); counted, not removed."""
    if len(xs) < 4:
        return 0
    s = sorted(xs)
    q1, q3 = quantile(s, 0.25), quantile(s, 0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    return sum(1 for x in s if x < lo or x > hi)


def relative_width(value: float, ci: tuple[float, float | None]) -> float:
    """(high - low) / value; infinite when the interval is open or the value is 0."""
    lo, hi = ci
    if hi is None or value <= 0:
        return math.inf
    return (hi - lo) / value


#: percentiles every latency summary reports, by name
PERCENTILES = {"p50": 0.50, "p90": 0.90, "p99": 0.99}
#: points of the stored CDF (the quantiles at 0%, 1%, ..., 100%)
CDF_POINTS = 101


@dataclass(frozen=True)
class Distribution:
    """Percentiles of many single-call timings (seconds), with their intervals."""

    n: int
    values: dict[str, float]  # p50, p90, p99, max
    cis: dict[str, tuple[float, float | None]]  # p50, p90, p99
    mean: float
    cdf: tuple[float, ...]  # quantiles at 0, 1, ..., 100 %
    outliers: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Distribution:
        s = sorted(samples)
        values = {k: quantile(s, q) for k, q in PERCENTILES.items()}
        values["max"] = s[-1]
        cis = {k: quantile_ci(s, q) for k, q in PERCENTILES.items()}
        cdf = tuple(quantile(s, i / (CDF_POINTS - 1)) for i in range(CDF_POINTS))
        return cls(len(s), values, cis, statistics.fmean(s), cdf, iqr_outliers(s))


def fit_loglog(points: Sequence[tuple[float, float]]) -> tuple[float, float] | None:
    """Least-squares slope of log(time) on log(size), with its standard error.

    The slope is the scaling exponent: 1 is linear, 2 quadratic. None with fewer than
    two points; the error is 0 with exactly two.
    """
    pts = [(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0]
    n = len(pts)
    if n < 2:
        return None
    mx = statistics.fmean(p[0] for p in pts)
    my = statistics.fmean(p[1] for p in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
    if n == 2:
        return slope, 0.0
    resid = sum((y - my - slope * (x - mx)) ** 2 for x, y in pts)
    return slope, math.sqrt(resid / (n - 2) / sxx)
