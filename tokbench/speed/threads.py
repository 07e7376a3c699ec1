"""Batch encode throughput against the number of threads asked for.

Two ways to parallelize: the backend's own (``Tokenizer.encode_batch(texts, threads)``:
tiktoken's ``encode_ordinary_batch(num_threads=)``, HF tokenizers' Rayon pool, whose
size is fixed per process by ``RAYON_NUM_THREADS`` so each count needs its own
process, SentencePiece's ``num_threads``) and a pool of worker processes (fork, the
tokenizer inherited). Each point records the threads actually used, process CPU time
over wall time (for the pool: the workers' CPU time summed), next to the threads asked;
a backend whose native batch at N >= 2 threads stays near one busy thread while the
process pool does not is flagged as ignoring the setting.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from tokbench.speed.clock import PROCESS_CPU, WALL
from tokbench.timing import BatchDetails

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

NATIVE, PROCESS = "native", "process"
#: at N >= 2 threads asked, fewer busy threads than this means the setting is ignored
IGNORED_BELOW = 1.25


@dataclass(frozen=True)
class ThreadPoint:
    """Batch encode over the same texts at one thread count."""

    via: str  # NATIVE or PROCESS
    asked: int
    used: float  # CPU seconds / wall seconds over the timed repeats
    mb_s: float  # median over repeats, wall clock
    samples: tuple[float, ...]  # MB/s of each repeat, wall clock
    nbytes: int

    @property
    def subset(self) -> str:
        return f"{self.via}:{self.asked}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ThreadPoint:
        return cls(d["via"], int(d["asked"]), float(d["used"]), float(d["mb_s"]),
                   tuple(d["samples"]), int(d["nbytes"]))

    def details(self) -> BatchDetails:
        return BatchDetails(clock=WALL, threads_asked=self.asked, threads_used=self.used,
                            cpu_share=self.used / self.asked, samples=list(self.samples),
                            repeats=len(self.samples), bytes=self.nbytes, cpu_clock=PROCESS_CPU)


def _timed(run: Any, repeats: int, budget_s: float) -> tuple[list[float], float, float]:
    """Wall seconds of each repeat of ``run()`` (returning its CPU seconds), total CPU, wall."""
    run()  # warm-up
    walls: list[float] = []
    cpu_total = 0.0
    start = time.perf_counter()
    while len(walls) < repeats and (len(walls) < 2 or time.perf_counter() - start < budget_s):
        w0 = time.perf_counter()
        cpu_total += run()
        walls.append(time.perf_counter() - w0)
    return walls, cpu_total, sum(walls)


def _point(via: str, asked: int, nbytes: int, walls: list[float], cpu: float, wall: float
           ) -> ThreadPoint:
    samples = tuple(nbytes / 1e6 / max(w, 1e-12) for w in walls)
    return ThreadPoint(via, asked, cpu / wall if wall > 0 else 0.0,
                       statistics.median(samples), samples, nbytes)


def native_point(tok: Tokenizer, texts: Sequence[str], threads: int, repeats: int = 5,
                 budget_s: float = 1.0) -> ThreadPoint:
    """``tok.encode_batch(texts, threads)`` timed; CPU is the whole process's."""
    batch = list(texts)

    def run() -> float:
        c0 = time.process_time()
        tok.encode_batch(batch, threads=threads)
        return time.process_time() - c0

    walls, cpu, wall = _timed(run, repeats, budget_s)
    return _point(NATIVE, threads, sum(len(t.encode("utf-8")) for t in texts), walls, cpu, wall)


_WORKER_TOK: Tokenizer | None = None  # set in pool workers only


def _init_worker(tok: Tokenizer) -> None:
    global _WORKER_TOK
    _WORKER_TOK = tok


def _encode_chunk(chunk: list[str]) -> float:
    """In a pool worker: encode ``chunk``; returns the CPU seconds it took."""
    assert _WORKER_TOK is not None
    c0 = time.process_time()
    for t in chunk:
        _WORKER_TOK.encode(t)
    return time.process_time() - c0


def chunks(texts: Sequence[str], parts: int) -> list[list[str]]:
    """``texts`` cut into ``parts`` consecutive runs of about equal length."""
    total = sum(len(t) for t in texts)
    out: list[list[str]] = [[]]
    acc = 0
    for t in texts:
        if acc >= total * len(out) / parts and len(out) < parts:
            out.append([])
        out[-1].append(t)
        acc += len(t)
    return [c for c in out if c]


def process_point(tok: Tokenizer, texts: Sequence[str], workers: int, repeats: int = 5,
                  budget_s: float = 1.0) -> ThreadPoint | None:
    """Encode ``texts`` in a pool of ``workers`` forked processes; None where fork is not
    available (the tokenizer would have to be reloaded in each worker)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    parts = chunks(texts, workers * 4)
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(tok,)) as pool:
        def run() -> float:
            c0 = time.process_time()
            spent = sum(pool.map(_encode_chunk, parts))
            return spent + time.process_time() - c0

        walls, cpu, wall = _timed(run, repeats, budget_s)
    return _point(PROCESS, workers, sum(len(t.encode("utf-8")) for t in texts), walls, cpu, wall)


def ignored(points: Sequence[ThreadPoint]) -> dict[int, str]:
    """Thread counts at which the native batch ignored the setting, with why."""
    by = {(p.via, p.asked): p for p in points}
    out = {}
    for p in points:
        if p.via != NATIVE or p.asked < 2 or p.used >= IGNORED_BELOW:
            continue
        pool = by.get((PROCESS, p.asked))
        if pool is not None and pool.used < IGNORED_BELOW:
            continue  # the machine had no spare core for anyone: not the backend's fault
        out[p.asked] = (f"asked {p.asked} threads, used {p.used:.2f}"
                        + (f" (a process pool used {pool.used:.2f})" if pool else ""))
    return out
