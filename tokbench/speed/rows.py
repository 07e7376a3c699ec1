"""``speed_rows``: every speed measurement of one tokenizer as results rows.

Row layout (suite is the caller's, "speed" for ``tokbench bench``); each row's details
are a record of ``tokbench.timing``:

* latency: metric ``{encode,decode}_{p50,p90,p99,max}_us``, subset = request size
  (chat, paragraph, document); ``LatencyDetails`` (the p50 row also carries ``cdf``,
  quantiles at 0..100 %, µs, for the CDF plot);
* ``encode_mb_s``, subset all: single-thread rate with its interval and samples
  (``RateDetails``);
* ``batch_mb_s`` (``BatchDetails``; an ignored setting is flagged in ``ignored``) and
  ``threads_used`` (``ThreadsUsedDetails``), subset ``native:N`` / ``process:N``;
* ``scaling_exponent``, subset = kind of input (``LengthDetails``);
* ``load_s``, ``import_s``, ``first_call_ms``, ``rss_mb``, subset all (fresh process;
  ``LoadDetails``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tokbench.constants import ALL
from tokbench.results import Row
from tokbench.speed.clock import PROCESS_CPU, REAL, WALL, Clocks
from tokbench.speed.latency import Latency, LatencyBudget, measure_latency
from tokbench.speed.length import LengthBudget, measure_length_curves
from tokbench.speed.rate import RateBudget, measure_rate
from tokbench.speed.threads import NATIVE, ThreadPoint, ignored
from tokbench.speed.workload import draw_requests, length_sources, nbytes
from tokbench.timing import UNKNOWN, LoadDetails, ThreadsUsedDetails, TimingDetails

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

PARTS = ("latency", "rate", "threads", "scaling", "footprint")
SAMPLE_BYTES = 128 * 1024  # text for the rate and the batches

Progress = Callable[[str], None]


@dataclass(frozen=True)
class SpeedSettings:
    """What to measure and how long; ``to_dict`` goes into results meta."""

    parts: tuple[str, ...] = PARTS
    latency: LatencyBudget = field(default_factory=LatencyBudget)
    decode_latency: LatencyBudget = field(default_factory=lambda: LatencyBudget(budget_s=0.3))
    rate: RateBudget = field(default_factory=RateBudget)
    length: LengthBudget = field(default_factory=LengthBudget)
    max_threads: int | None = None  # None: the usable cores
    thread_repeats: int = 5
    thread_budget_s: float = 0.6
    sample_bytes: int = SAMPLE_BYTES
    extra: dict[str, Any] = field(default_factory=dict)

    def thread_counts(self) -> list[int]:
        return list(range(1, (self.max_threads or usable_cores()) + 1))

    def to_dict(self) -> dict[str, Any]:
        return {"speed_parts": list(self.parts),
                "speed_latency_budget_s": self.latency.budget_s,
                "speed_rate_budget_s": self.rate.budget_s,
                "speed_rate_target_ci": self.rate.target_rel_ci,
                "speed_scaling_budget_s": self.length.budget_s,
                "speed_threads": self.thread_counts(), **self.extra}


def usable_cores() -> int:
    """CPUs this process may run on (its affinity), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def sample_texts(texts: Sequence[str], limit: int, seed: int = 0) -> list[str]:
    """A seeded sample of non-empty texts of about ``limit`` UTF-8 bytes."""
    pool = [t for t in texts if t]
    random.Random(seed).shuffle(pool)
    out, size = [], 0
    for t in pool:
        if size >= limit:
            break
        out.append(t)
        size += nbytes(t)
    return out


def speed_rows(tok: Tokenizer, texts: Sequence[str], *, suite: str = "speed",
               spec: str | None = None, settings: SpeedSettings | None = None,
               progress: Progress | None = None, clocks: Clocks = REAL) -> list[Row]:
    """Every part of ``settings.parts`` measured for ``tok`` on ``texts`` (see module doc).

    ``spec`` is what loads ``tok`` again in a fresh process (thread scaling and
    footprint need one); without it those two parts are left out.
    """
    settings = settings or SpeedSettings()
    say = progress or (lambda _: None)
    rows: list[Row] = []

    def row(subset: str, metric: str, value: Any, details: TimingDetails) -> None:
        rows.append(Row(tok.name, suite, subset, metric, value, details.to_dict()))

    sample = sample_texts(texts, settings.sample_bytes)
    if "latency" in settings.parts:
        for req in draw_requests(texts):
            say(f"latency · {req.name}")
            enc = measure_latency(tok.encode, req.texts, req.mean_bytes, settings.latency, clocks)
            ids = [tok.encode(t) for t in req.texts]
            dec = measure_latency(tok.decode, ids, req.mean_bytes, settings.decode_latency, clocks)
            chars = sum(map(len, req.texts)) / len(req.texts)
            for op, lat in (("encode", enc), ("decode", dec)):
                _latency_rows(row, req.name, op, lat, chars)
    if "rate" in settings.parts:
        say("single-thread rate")
        rate = measure_rate(tok, sample, settings.rate, clocks)
        if rate is not None:
            row(ALL, "encode_mb_s", rate.mb_s, rate.details())
    if "scaling" in settings.parts:
        say("length scaling")
        for sc in measure_length_curves(tok.encode, length_sources(texts), settings.length,
                                        clocks=clocks):
            fit = sc.fit
            row(sc.kind, "scaling_exponent", fit[0] if fit else None, sc.details())
    if spec is not None and {"threads", "footprint"} & set(settings.parts):
        from tokbench.speed.worker import measure_in_subprocesses

        say("threads and footprint (fresh processes)")
        first = next((t for t in sample if 40 <= nbytes(t) <= 400), sample[0] if sample else "a")
        counts = settings.thread_counts() if "threads" in settings.parts else [1]
        sub = measure_in_subprocesses(spec, tok.backend, sample, first, counts,
                                      settings.thread_repeats, settings.thread_budget_s)
        if "threads" in settings.parts:
            _thread_rows(row, sub.points, sub.errors)
        if "footprint" in settings.parts and sub.footprint is not None:
            fp = sub.footprint
            row(ALL, "load_s", fp.load_s, LoadDetails(
                clock=WALL, cpu_value=fp.load_cpu_s,
                cpu_share=fp.load_cpu_s / fp.load_s if fp.load_s > 0 else UNKNOWN))
            row(ALL, "import_s", fp.import_s, LoadDetails(
                clock=WALL, rss_mb=fp.import_rss / 1e6 if fp.import_rss is not None else UNKNOWN))
            row(ALL, "first_call_ms", fp.first_call_s * 1e3,
                LoadDetails(clock=WALL, warm_call_ms=fp.warm_call_s * 1e3))
            row(ALL, "rss_mb", fp.rss_added / 1e6 if fp.rss_added is not None else None,
                LoadDetails(peak_rss_mb=fp.peak_rss / 1e6 if fp.peak_rss is not None
                            else UNKNOWN))
        for err in sub.errors if "threads" not in settings.parts else []:
            say(f"warning: {err}")
    return rows


def _latency_rows(row: Callable[[str, str, Any, TimingDetails], None], subset: str, op: str,
                  lat: Latency, request_chars: float | None = None) -> None:
    for key in ("p50", "p90", "p99", "max"):
        details = lat.details(key, scale=1e6)
        details.request_chars = request_chars
        if key == "p50":
            details.cdf = [v * 1e6 for v in lat.wall.cdf]
        row(subset, f"{op}_{key}_us", lat.wall.values[key] * 1e6, details)


def _thread_rows(row: Callable[[str, str, Any, TimingDetails], None],
                 points: Sequence[ThreadPoint], errors: Sequence[str]) -> None:
    flags = ignored(points)
    for p in points:
        details = p.details()
        if p.via == NATIVE and p.asked in flags:
            details.ignored = flags[p.asked]
        if errors:
            details.errors = list(errors)
        row(p.subset, "batch_mb_s", p.mb_s, details)
        row(p.subset, "threads_used", p.used,
            ThreadsUsedDetails(threads_asked=p.asked, clock=f"{PROCESS_CPU} / {WALL}"))
