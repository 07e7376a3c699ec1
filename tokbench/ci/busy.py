"""Timings taken on a busy machine: when the wall clock (or, under ``TOO_BUSY_SHARE``, any
clock) of two timing rows cannot be trusted, and their CPU-clock figures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard

from tokbench.results import Row
from tokbench.timing import TimingDetails

#: a wall-clock timing taken while the process got less than this share of a CPU per
#: thread (CPU time / wall time, ``cpu_share`` in the row) was taken on a busy machine;
#: under ``TOO_BUSY_SHARE`` even the CPU clock is off (shared caches and cores, a
#: hypervisor's stolen time counted as the guest's) and the row is not judged
BUSY_SHARE = 0.8


TOO_BUSY_SHARE = 0.5


TOO_BUSY = "machine too busy"


@dataclass(frozen=True)
class BusyMachine:
    """Why the clocks of two timing rows are not to be trusted: the CPU share per thread
    of the runs under ``BUSY_SHARE``; ``too_busy`` when one is under ``TOO_BUSY_SHARE``."""

    too_busy: bool
    shares: tuple[str, ...]  # "base 40%", "new 70%": the runs that were busy

    def __str__(self) -> str:
        what = TOO_BUSY if self.too_busy else "machine busy"
        return f"{what}: the process had {', '.join(self.shares)} of a CPU per thread"


def busy_machine(b: Row, n: Row) -> BusyMachine | None:
    """Why the clocks of these rows are not to be trusted, or None. Rows timed on a CPU
    clock are only "too busy" (under ``TOO_BUSY_SHARE``): above it their tolerance covers
    what a busy machine does to them."""
    details = [TimingDetails.of(b), TimingDetails.of(n)]
    shares = [(label, d.cpu_share) for label, d in zip(("base", "new"), details, strict=True)
              if d.cpu_share is not None]
    if not shares:
        return None
    low = min(s for _, s in shares)
    on_cpu = all(d.on_cpu_clock for d in details)
    if low >= BUSY_SHARE or (on_cpu and low >= TOO_BUSY_SHARE):
        return None
    busy = tuple(f"{label} {s:.0%}" for label, s in shares if s < BUSY_SHARE)
    return BusyMachine(low < TOO_BUSY_SHARE, busy)


def cpu_rows(b: Row, n: Row) -> tuple[Row, Row] | None:
    """The rows' CPU-clock figures (``cpu_value``, ``cpu_ci``) as rows of their own."""
    out = []
    for r in (b, n):
        details = TimingDetails.of(r)
        if details.cpu_value is None:
            return None
        out.append(Row(r.tokenizer, r.suite, r.subset, r.metric, details.cpu_value,
                       TimingDetails(ci=details.cpu_ci).to_dict()))
    return out[0], out[1]


def is_number(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)
