"""The two clocks every speed figure is stated in, injectable for tests.

``wall`` is elapsed time (what a caller waits; it includes time the OS gave other
processes of a busy machine, and sleeps). ``cpu`` is the calling thread's CPU time
(the work itself; it misses sleeps and waits). Each figure names its clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from tokbench.constants import PROCESS_CPU, THREAD_CPU, WALL

__all__ = ["PROCESS_CPU", "REAL", "THREAD_CPU", "WALL", "Clocks"]


@dataclass(frozen=True)
class Clocks:
    """A pair of clocks in seconds: elapsed time and the calling thread's CPU time."""

    wall: Callable[[], float] = time.perf_counter
    cpu: Callable[[], float] = time.thread_time


REAL = Clocks()
