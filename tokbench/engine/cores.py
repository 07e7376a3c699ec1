"""How many cores other processes leave free, measured over the last moments.

A run picks its shape from this (split by tokenizer, a pool, threads). The 1-minute load
average, which it read before, still counts a run that ended seconds ago: right after
one run on an idle 2-core machine it read 1.5, and the next default run kept to one
process (21 s became 27 s). Where the kernel's CPU counters can be read (Linux
``/proc/stat``), the free cores are measured instead, over the window since an earlier
reading (``mark``: the command line takes one as it starts; importing this module, and
each measure, take one too): every CPU's idle time, plus time given to processes of
lower priority (the render worker among them: they yield), plus this process's own time
(the run is what would use the cores). Elsewhere, or over a window too short to read,
the load average still answers.
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

#: the shortest window a measure stands on (at 100 ticks a second, 40 ticks on 2 CPUs)
MIN_WINDOW_S = 0.2
#: readings kept: the newest one at least ``MIN_WINDOW_S`` old starts the window
KEPT = 8


def usable_cores() -> int:
    """CPUs this process may run on (affinity-aware)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class Reading(NamedTuple):
    at: float  # time.monotonic()
    #: CPU seconds at normal priority or above (not nice, not idle) on the CPUs this
    #: process may run on (its affinity), else on every CPU
    busy: float
    own: float  # CPU seconds of this process (every thread) and its waited-for children


_readings: list[Reading] = []


def _read() -> Reading | None:
    try:
        with open("/proc/stat", "rb") as f:
            lines = [line.split() for line in f if line.startswith(b"cpu")]
    except OSError:
        return None
    try:  # the CPUs this process may run on: others' work elsewhere leaves them free
        mine = {f"cpu{k}".encode() for k in os.sched_getaffinity(0)}
    except (AttributeError, OSError):
        mine = set()
    counted = [f for f in lines if f[0] in mine] or [f for f in lines if f[0] == b"cpu"]
    if not counted or any(len(f) < 9 for f in counted):
        return None
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    # user, nice, system, idle, iowait, irq, softirq, steal: busy is all but nice and idle
    busy = sum(int(f[1]) + int(f[3]) + int(f[6]) + int(f[7]) + int(f[8]) for f in counted)
    t = os.times()
    return Reading(time.monotonic(), busy / tick,
                   t.user + t.system + t.children_user + t.children_system)


def mark() -> Reading | None:
    """Take a reading now (kept: a later ``free_cores`` measures from here on)."""
    got = _read()
    if got is not None:
        _readings.append(got)
        del _readings[:-KEPT]
    return got


def measured_free(usable: int) -> float | None:
    """The cores of ``usable`` that other processes left free since the newest reading at
    least ``MIN_WINDOW_S`` old (this process counts as free: it is what would use them);
    None where the counters cannot be read or no reading is old enough."""
    earlier = list(_readings)
    now = mark()
    if now is None:
        return None
    start = next((r for r in reversed(earlier) if now.at - r.at >= MIN_WINDOW_S), None)
    if start is None:
        return None
    others = max(0.0, (now.busy - start.busy) - (now.own - start.own))
    return max(0.0, min(float(usable), usable - others / (now.at - start.at)))


mark()
