"""Length scaling: encode time against input length, and the fitted log-log exponent.

For each kind of input, sizes grow 4x from 1 KB to 1 MB. Each size is timed on the
thread CPU clock for at least ``min_time_s`` (twice at least, once for a call over
``single_s``); the median is kept.
Bounded in time: once one call takes longer than ``call_cap_s`` the larger sizes of
that kind are skipped, and each kind gets an equal share of what is left of the
tokenizer's ``budget_s`` (wall clock), its larger sizes skipped once the next size
(guessed from the last one, as if linear) would overrun that share; both are recorded.
An exponent above ``SUPERLINEAR`` flags the kind.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tokbench.speed.clock import REAL, THREAD_CPU, Clocks
from tokbench.speed.stats import fit_loglog
from tokbench.speed.workload import LENGTH_SIZES, nbytes
from tokbench.timing import UNKNOWN, LengthDetails

SUPERLINEAR = 1.2
#: the fit uses points from this size on (below it, per-call overhead bends the line)
FIT_FROM = 1 << 12


@dataclass(frozen=True)
class LengthBudget:
    budget_s: float = 5.0  # wall seconds per tokenizer, all kinds together
    call_cap_s: float = 0.3  # a call longer than this (CPU) stops the kind from growing
    min_time_s: float = 0.02  # per size: repeat until this much CPU time (twice at least,
    single_s: float = 0.1  # once when one call takes longer than this)
    max_repeats: int = 20


@dataclass
class LengthCurve:
    """Seconds per call by size, for one kind of input."""

    kind: str
    points: list[tuple[int, float]] = field(default_factory=list)  # (bytes, seconds)
    skipped: list[int] = field(default_factory=list)  # sizes not timed
    why_skipped: str = ""

    @property
    def fit(self) -> tuple[float, float] | None:
        big = [p for p in self.points if p[0] >= FIT_FROM]
        return fit_loglog(big if len(big) >= 2 else self.points)

    @property
    def superlinear(self) -> bool:
        fit = self.fit
        return fit is not None and fit[0] > SUPERLINEAR

    def details(self) -> LengthDetails:
        fit = self.fit
        d = LengthDetails(clock=THREAD_CPU, points=[list(p) for p in self.points],
                           superlinear=self.superlinear, threshold=SUPERLINEAR,
                           fit_from_bytes=FIT_FROM)
        if fit is not None:
            d.stderr = fit[1]
            d.ci = [fit[0] - 1.96 * fit[1], fit[0] + 1.96 * fit[1]]
        if self.skipped:
            d.skipped_bytes = list(self.skipped)
            d.skipped_why = self.why_skipped
        if self.points:
            size, secs = self.points[-1]
            d.largest_mb_s = size / 1e6 / secs if secs > 0 else UNKNOWN
        return d


def measure_length_curves(encode: Callable[[str], object],
                          sources: Mapping[str, Callable[[int], str]],
                          budget: LengthBudget = LengthBudget(),
                          sizes: Sequence[int] = LENGTH_SIZES,
                          clocks: Clocks = REAL) -> list[LengthCurve]:
    """Time ``encode`` on every kind of input at every size (see the module doc)."""
    cpu, wall = clocks.cpu, clocks.wall
    start = wall()
    out = []
    for j, (kind, make) in enumerate(sources.items()):
        result = LengthCurve(kind)
        now = wall()
        share = (budget.budget_s - (now - start)) / (len(sources) - j)  # what is left, shared
        for i, size in enumerate(sizes):
            guess = 0.0  # this size's time if the kind stays linear, from the last size
            if result.points:
                last_bytes, last_s = result.points[-1]
                guess = last_s * size / last_bytes * (1 if last_s * size / last_bytes
                                                      > budget.single_s else 2)
            if wall() - now + guess >= share:
                result.skipped = list(sizes[i:])
                result.why_skipped = (f"this input's share ({share:.2f} s) of the tokenizer's "
                                      f"{budget.budget_s:g} s budget would be overrun")
                break
            text = make(size)
            times: list[float] = []
            while len(times) < budget.max_repeats and (len(times) < 2
                                                       or sum(times) < budget.min_time_s):
                t0 = cpu()
                encode(text)
                times.append(cpu() - t0)
                if times[-1] > budget.single_s:
                    break
            result.points.append((nbytes(text), statistics.median(times)))
            if max(times) > budget.call_cap_s and i + 1 < len(sizes):
                result.skipped = list(sizes[i + 1:])
                result.why_skipped = (f"one call at {nbytes(text)} bytes took {max(times):.2f} s "
                                      f"(over the {budget.call_cap_s:g} s cap)")
                break
        out.append(result)
    return out
