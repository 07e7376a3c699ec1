"""The details a timing row carries (``Row.extra``), as records.

Timing rows (``tokbench bench``, the ``speed`` and ``throughput`` families) state their
clock, interval, samples and how the timing stopped beside the value. The producers build
one of these records and write ``to_dict()`` into the row; the readers (the speed report,
``compare``'s noise bands and busy-machine rules, the verdict) read the same record back
with ``of(row)``. A field renamed on one side only is then a type error, not a silent "–".

The JSON keys are the field names and are frozen (results files keep their bytes; the row
sorts them). Rules as for every ``tokbench.record.Record``: unknown keys are kept, a wrongly
typed known key is a one-line ``InputError``; fields in ``NULLABLE`` are always written
(``null`` when ``None``), the others are left out when ``None``. A field that is written
but could not be computed, where ``None`` would leave it out, is ``UNKNOWN`` (NaN, which
the row rounds to ``null``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Self

from tokbench.record import Record
from tokbench.results import Row


@dataclass
class TimingDetails(Record):
    """What every timing row may carry and ``compare`` reads: the clock of the value, its
    95% interval (``ci``; the high end ``None`` when open), the samples it is the median of,
    the same figure on the CPU clock and the share of a CPU the process had."""

    clock: str | None = None  # tokbench.constants.WALL, THREAD_CPU, ...
    ci: list[float | None] | None = None
    samples: list[float] | None = None
    spread: float | None = None  # (max - min) / median of the samples
    cpu_value: float | None = None
    cpu_ci: list[float | None] | None = None
    cpu_share: float | None = None  # CPU time / wall time per thread

    @classmethod
    def of(cls, row: Row) -> Self:
        """The details of ``row`` (a malformed one is an ``InputError`` naming the row)."""
        return cls.from_dict(row.extra, "/".join(row.key))

    @property
    def on_cpu_clock(self) -> bool:
        """Whether the value is CPU time (thread or process), not elapsed time."""
        return (self.clock or "").endswith("cpu")


@dataclass
class LatencyDetails(TimingDetails):
    """A latency percentile row (``{encode,decode}_{p50,p90,p99,max}_us``), in µs; the p50
    row also carries ``cdf``, the quantiles at 0..100 %."""

    calls: int = 0
    stop: str = ""  # "ci", "budget" or "max_calls"
    mean: float | None = None
    outliers: int = 0
    inputs: int = 0  # distinct inputs cycled over
    request_bytes: float | None = None  # mean UTF-8 bytes per request
    request_chars: float | None = None  # mean characters per request
    cdf: list[float] | None = None
    NULLABLE: ClassVar[frozenset[str]] = frozenset({"cpu_share"})


@dataclass
class RateDetails(TimingDetails):
    """A single-thread rate row (``encode_mb_s``; in a run ``throughput_mb_s`` and
    ``throughput_tokens_s``, which keep ``spread`` and ``threads`` instead of ``ci``)."""

    precision: float | None = None  # half the interval's width, relative (0.02: ±2%)
    repeats: int = 0
    loops: int = 0  # passes over the texts per sample
    bytes: int = 0
    wall_value: float | None = None
    outliers: int = 0
    stop: str = ""  # "ci", "budget", "reach" (out of reach) or "max_samples"
    threads: int | None = None
    NULLABLE: ClassVar[frozenset[str]] = frozenset({"precision", "cpu_share"})


@dataclass
class BatchDetails(TimingDetails):
    """A batch throughput row (``batch_mb_s``, subset ``native:N`` or ``process:N``)."""

    threads_asked: int = 0
    threads_used: float | None = None  # process CPU time / wall time
    repeats: int = 0
    bytes: int = 0
    cpu_clock: str | None = None  # the clock ``threads_used`` divides by wall time
    ignored: str | None = None  # why the backend is taken to ignore the thread setting
    errors: list[str] | None = None


@dataclass
class ThreadsUsedDetails(TimingDetails):
    """A ``threads_used`` row."""

    threads_asked: int = 0


@dataclass
class LengthDetails(TimingDetails):
    """A length-scaling row (``scaling_exponent``, subset the kind of input)."""

    points: list[list[float]] = field(default_factory=list)  # [bytes, seconds per call]
    superlinear: bool = False
    threshold: float | None = None
    fit_from_bytes: int | None = None
    stderr: float | None = None
    skipped_bytes: list[int] | None = None
    skipped_why: str | None = None
    largest_mb_s: float | None = None


@dataclass
class LoadDetails(TimingDetails):
    """A fresh process's load rows: ``load_s`` (with ``cpu_value``, ``cpu_share``),
    ``import_s`` (``rss_mb``), ``first_call_ms`` (``warm_call_ms``) and ``rss_mb``
    (``peak_rss_mb``); each carries the fields of its own kind, the others left out."""

    process: str = "fresh"
    rss_mb: float | None = None  # import_s: memory the import added
    warm_call_ms: float | None = None  # first_call_ms: a later call
    peak_rss_mb: float | None = None  # rss_mb: the peak resident memory


#: a figure that is written but unknown (a rate over no time); the row rounds it to null
UNKNOWN = float("nan")
