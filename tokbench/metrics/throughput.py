"""Encode throughput on one thread: median of timed repeats after a warm-up."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer


@dataclass(frozen=True)
class Throughput:
    mb_s: float
    tokens_s: float
    spread: float  # (max - min) / median of the repeats' MB/s, a relative noise band
    repeats: int
    loops: int  # passes over the texts inside one timed repeat
    samples: tuple[float, ...]  # MB/s of each repeat
    nbytes: int  # UTF-8 bytes encoded per pass
    cpu_share: float | None = None  # CPU time / wall time of the repeats: under ~0.5 the
    # machine was too busy for even the CPU clock to be trusted (compare does not judge it)


#: The calling thread's CPU time: encoding runs on this one thread, and unlike the wall
#: clock it does not count the time other processes of a busy machine take from it.
CLOCK = "thread_cpu"


def measure_throughput(tok: Tokenizer, texts: Sequence[str], repeats: int = 5,
                       min_repeat_s: float = 0.02, clock: Callable[[], float] = time.thread_time
                       ) -> Throughput | None:
    """Time ``tok.encode`` over ``texts``; each repeat runs at least ``min_repeat_s``."""
    texts = [t for t in texts if t]
    if not texts:
        return None
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    encode = tok.encode
    t0 = clock()
    ntok = sum(len(encode(t)) for t in texts)  # warm-up, and the token count
    once = max(clock() - t0, 1e-9)
    loops = max(1, int(min_repeat_s / once) + 1) if once < min_repeat_s else 1
    samples = []
    cpu_total, w0 = 0.0, time.perf_counter()
    for _ in range(max(repeats, 1)):
        t0 = clock()
        for _ in range(loops):
            for t in texts:
                encode(t)
        cpu = clock() - t0
        cpu_total += cpu
        samples.append(nbytes / 1e6 / (max(cpu, 1e-9) / loops))
    wall = time.perf_counter() - w0
    med = statistics.median(samples)
    return Throughput(mb_s=med, tokens_s=med * 1e6 / nbytes * ntok,
                      spread=(max(samples) - min(samples)) / med if med else 0.0,
                      repeats=len(samples), loops=loops, samples=tuple(samples), nbytes=nbytes,
                      cpu_share=min(1.0, cpu_total / wall)
                      if wall > 0 and clock is time.thread_time else None)
