"""What a metric is: its name, family, direction, meaning, and its formula.

Each metric is defined in one place: the statistics it needs from the corpus and how its
value follows from those statistics once every shard's have been merged. Renderers and
``compare`` read the same definition, so adding a metric touches one module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

Direction = Literal["higher", "lower", "none"]

#: headline views a metric can belong to (``MetricInfo.summary``)
SUMMARY_RUN = "run"
SUMMARY_SWEEP = "sweep"
SUMMARY_VIEWS = (SUMMARY_RUN, SUMMARY_SWEEP)


@dataclass(frozen=True)
class MetricContext:
    """Facts about the tokenizer a formula may need besides the corpus statistics."""

    vocab_size: int
    has_unk: bool


#: A formula: merged sums of one (tokenizer, suite, subset) -> the value, or None when
#: the value is not defined (e.g. nothing to divide by).
Formula = Callable[["SumsView", MetricContext], "float | int | None"]


class StatisticNotCollected(KeyError):
    """A formula read a statistic that was not collected (it is missing from the metric's
    ``needs``)."""

    def __str__(self) -> str:
        return (f"statistic {self.args[0]!r} was not collected: name it in the metric's "
                "needs (see tokbench.metrics.stats.COLLECTORS)")


class SumsView(Mapping[str, int]):
    """Read-only view of a subset's summed statistics.

    Reading a statistic that was not collected raises ``StatisticNotCollected`` (never a
    silent 0): a formula reads only what its metric ``needs``. ``histogram`` is the
    token-id histogram as (ids, counts) arrays when collected.
    """

    def __init__(self, sums: Mapping[str, int], histogram: tuple[object, object] | None = None
                 ) -> None:
        self._sums = sums
        self.histogram = histogram

    def __getitem__(self, key: str) -> int:
        try:
            return int(self._sums[key])
        except KeyError:
            raise StatisticNotCollected(key) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._sums)

    def __len__(self) -> int:
        return len(self._sums)


@dataclass(frozen=True)
class MetricInfo:
    """One metric: metadata and (for corpus metrics) its formula.

    ``direction`` says which way is better; ``deterministic`` is False only for
    timings, whose changes are judged against their measured spread. ``needs`` names
    the statistics (see ``tokbench.metrics.stats.COLLECTORS``) the formula reads, so a
    run collects only what the chosen metrics need. Metrics without ``compute`` are
    produced by a dedicated step (premium, throughput, vocabulary facts). ``ratio``
    names the sums a corpus ratio divides (numerator, denominator; each a tuple of
    statistics added together): such a metric gets a confidence interval and paired
    comparisons (``tokbench.metrics.intervals``). ``tolerance``
    widens the relative change a noisy timing (a tail latency, a load time) must
    exceed before ``compare`` fails it.

    How it is shown and compared is declared here too, and read by every renderer and
    by ``compare``: ``percent`` marks a share in [0, 1] (printed as a percentage, its
    changes in percentage points); ``label`` is a short column header (default: the
    name); ``summary`` names the headline views it appears in (``SUMMARY_RUN``: the
    terminal summary of ``tokbench run``; ``SUMMARY_SWEEP``: a sweep's summary table);
    ``settings`` names the run settings (``tokbench.Settings`` fields) its value depends
    on, so ``compare`` refuses its rows across a change of one of them. Depending on
    ``fertility`` (the word-counting convention) also means depending on the languages'
    word segmenters.
    """

    name: str
    direction: Direction
    description: str
    formula: str = ""
    citation: str = ""
    unit: str = ""
    deterministic: bool = True
    decimals: int = 4
    tolerance: float | None = None  # timings: relative change that fails (None: compare's default)
    family: str = ""
    needs: tuple[str, ...] = ()
    ratio: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    compute: Formula | None = field(default=None, compare=False, repr=False)
    percent: bool = False
    label: str = ""
    summary: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()

    @property
    def header(self) -> str:
        """The short label with the direction arrow, for column headers."""
        return f"{self.label or self.name} {self.arrow}".strip()

    @property
    def arrow(self) -> str:
        return {"higher": "↑", "lower": "↓", "none": ""}[self.direction]
