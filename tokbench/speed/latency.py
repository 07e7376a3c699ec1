"""Latency of single calls: the distribution of per-call times, not one average.

Calls cycle over a list of request inputs (so the distribution covers varied content)
until the p99's confidence interval is narrower than a target, or a time budget or a
call cap is reached. Every call is timed on both clocks; the wall clock is primary
(a request's latency is what its caller waits), the thread CPU clock is kept beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tokbench.speed.clock import REAL, WALL, Clocks
from tokbench.speed.stats import Distribution, relative_width
from tokbench.timing import LatencyDetails


@dataclass(frozen=True)
class LatencyBudget:
    """When to stop timing one kind of call."""

    budget_s: float = 0.6  # wall time spent calling, at most (wins over min_calls)
    min_calls: int = 200
    max_calls: int = 5000
    target_rel_ci: float = 0.10  # stop once the p99 interval is this narrow (relative)
    warmup_passes: int = 1  # untimed passes over every input first (lazy set-up, caches)
    check_every: int = 100


@dataclass(frozen=True)
class Latency:
    """Per-call latency of one operation at one request size."""

    wall: Distribution
    cpu: Distribution
    stop: str  # why timing stopped: "ci" (target met), "budget" or "max_calls"
    inputs: int  # distinct inputs cycled over
    mean_bytes: float  # mean UTF-8 bytes per request

    def details(self, key: str, scale: float = 1.0) -> LatencyDetails:
        """The row details of the percentile ``key`` (p50, p90, p99, max), times in
        seconds times ``scale`` (1e6: µs)."""
        d = LatencyDetails(clock=WALL, calls=self.wall.n, stop=self.stop,
                           cpu_value=self.cpu.values[key] * scale, mean=self.wall.mean * scale,
                           outliers=self.wall.outliers, inputs=self.inputs,
                           request_bytes=self.mean_bytes)
        if key in self.wall.cis:
            d.ci = _scaled(self.wall.cis[key], scale)
            d.cpu_ci = _scaled(self.cpu.cis[key], scale)
        # how much of this percentile's wall time was the call's own CPU time: near 1 the
        # wall figure is the work, far below it the OS gave the time to other processes
        wall = self.wall.values[key]
        d.cpu_share = min(1.0, self.cpu.values[key] / wall) if wall > 0 else None
        return d


def _scaled(ci: tuple[float, float | None], scale: float) -> list[float | None]:
    return [None if v is None else v * scale for v in ci]


def measure_latency(call: Callable[[Any], object], inputs: Sequence[Any], mean_bytes: float,
                    budget: LatencyBudget = LatencyBudget(), clocks: Clocks = REAL) -> Latency:
    """Time ``call(x)`` once per call, cycling over ``inputs`` (see the module doc)."""
    if not inputs:
        raise ValueError("no inputs to time")
    wall, cpu = clocks.wall, clocks.cpu
    for _ in range(budget.warmup_passes):
        for x in inputs:
            call(x)
    walls: list[float] = []
    cpus: list[float] = []
    start = wall()
    stop = "max_calls"
    k = 0
    while k < budget.max_calls:
        x = inputs[k % len(inputs)]
        w0, c0 = wall(), cpu()
        call(x)
        c1, w1 = cpu(), wall()
        walls.append(w1 - w0)
        cpus.append(c1 - c0)
        k += 1
        if w1 - start >= budget.budget_s:
            stop = "budget"  # the budget wins over min_calls: a slow call stops early
            break
        if k % budget.check_every == 0 and k >= budget.min_calls:
            dist = Distribution.of(walls)
            if relative_width(dist.values["p99"], dist.cis["p99"]) <= budget.target_rel_ci:
                stop = "ci"
                break
    return Latency(Distribution.of(walls), Distribution.of(cpus), stop, len(inputs), mean_bytes)
