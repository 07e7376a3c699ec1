"""What a metric family is to a run: the hooks the runner calls, in one order, for each.

A run asks every family the same questions (``Family``): which suites it is measured on,
which shard statistics it needs, what it measures before the shards (per-tokenizer
units tied to no suite), which rows it adds to a suite's formula rows, what it times
after the shard work and after every suite. Most families need none of that: their
metrics are formulas over the merged shard statistics (``FormulaFamily``, the default).
A family with work of its own is a subclass registered under its name
(``tokbench.families``); the runner never tells families apart by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from tokbench.metrics import metrics_of
from tokbench.metrics.stats import collectors_for

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.events import Progress
    from tokbench.metrics.stats import UnitStats
    from tokbench.results import Results, Row
    from tokbench.suites.model import RunnableSuite


class RunSettings(Protocol):
    """The run settings (``tokbench.Settings``) families read."""

    premium_join: bool
    throughput_repeats: int
    throughput_subsets: bool
    morph_gold: str


class RunTimings(Protocol):
    """Where a family's time is counted (``meta.timings``, seconds)."""

    encode: float
    throughput: float
    vocab: float


class RunContext(Protocol):
    """What a family may use of the run: its tokenizers, settings and results so far."""

    @property
    def settings(self) -> RunSettings: ...

    @property
    def toks(self) -> Mapping[str, Tokenizer]: ...

    @property
    def specs(self) -> Mapping[str, object]:
        """How each tokenizer was named (a spec string, or the object it was given as)."""
        ...

    @property
    def results(self) -> Results: ...

    @property
    def timings(self) -> RunTimings:
        """Where the time went (``meta.timings``); a family adds its own."""
        ...

    @property
    def notify(self) -> Progress:
        """Sends a progress event (``tokbench.events``) to the CLI."""
        ...

    def reused(self, tokenizer: str, suite: str) -> list[Row] | None:
        """The rows of this unit from the run resumed, when nothing it depends on changed."""
        ...

    def unit_finished(self, tokenizer: str, suite: str) -> None:
        """Record a (tokenizer, suite) unit as finished (``--resume`` reuses it)."""
        ...

    def checkpoint(self) -> None:
        """Hand the results so far to ``on_unit`` (the CLI writes them)."""
        ...


class PlanView(Protocol):
    """One suite's work as a family sees it."""

    @property
    def suite(self) -> RunnableSuite: ...

    @property
    def families(self) -> list[str]:
        """The families measured on this suite."""
        ...

    @property
    def tokenizers(self) -> list[str]:
        """The tokenizers measured on it in this run (not reused from a resumed one)."""
        ...


class Family:
    """A metric family; the default hooks do nothing beyond the formula metrics.

    The runner calls, per run: ``wanted`` (whether the family's hooks run at all),
    ``warnings``, ``prepare`` (before any work: refuse bad input), ``applies_to`` and
    ``collectors`` for each suite, ``units`` and ``before_shards`` (units tied to no
    suite), ``suite_rows`` for each finished (tokenizer, suite), then after the shard
    work ``phase_units`` and ``after_shards`` for each suite, and ``after_all``. A family
    whose ``finishes_units`` is True marks its suites' units finished itself (in
    ``after_shards``), because it adds their rows after the shard work. Instances are
    made once per run, so a family may keep state between its hooks.
    """

    finishes_units: bool = False
    #: every row it adds is one tokenizer's, from that tokenizer alone (no comparison),
    #: so a run may measure groups of tokenizers in separate processes and merge their
    #: rows (``tokbench.engine.split``); a family that compares tokenizers leaves it False
    per_tokenizer: bool = False

    def __init__(self, name: str) -> None:
        self.name = name

    def wanted(self, chosen: Sequence[str], settings: RunSettings) -> bool:
        """Whether this family's hooks run: it was chosen (or a setting asks for it)."""
        return self.name in chosen

    def applies_to(self, suite: RunnableSuite, explicit: bool) -> bool:
        """Whether ``suite`` is measured with this family (``explicit``: the metrics were
        chosen by name)."""
        return True

    def collectors(self, suite: RunnableSuite) -> set[str]:
        """The shard collectors (``tokbench.metrics.stats.COLLECTORS``) its metrics need
        on ``suite``."""
        return collectors_for(n for m in metrics_of([self.name]) for n in m.needs)

    def warnings(self, suites: Sequence[RunnableSuite]) -> list[str]:
        """What cannot be measured as asked, said once (the rest is still measured)."""
        return []

    def prepare(self, ctx: RunContext) -> None:
        """Check this family's input before any work (raise ``InputError``)."""

    def units(self, ctx: RunContext) -> int:
        """The progress units ``before_shards`` advances."""
        return 0

    def before_shards(self, ctx: RunContext) -> None:
        """Measure what is tied to no suite (rows of a pseudo-suite), once per tokenizer."""

    def suite_rows(self, ctx: RunContext, plan: PlanView, tokenizer: str, stats: UnitStats
                   ) -> list[Row]:
        """Rows beyond the formula metrics, from a (tokenizer, suite)'s merged statistics."""
        return []

    def phase_units(self, plans: Sequence[PlanView]) -> int:
        """Units ``after_shards`` works through (a progress phase of its own if any)."""
        return 0

    def after_shards(self, ctx: RunContext, plan: PlanView) -> None:
        """Work on a suite once every shard is done (nothing competes for the CPU)."""

    def after_all(self, ctx: RunContext, plans: Sequence[PlanView]) -> None:
        """Work once every suite is done (rows of a pseudo-suite)."""


class FormulaFamily(Family):
    """A family whose rows are all formulas over the merged shard statistics (of one
    tokenizer each; a subclass whose own rows compare tokenizers says so)."""

    per_tokenizer = True


class AskedFamily(FormulaFamily):
    """A formula family measured on the suites that list it (``Suite.families``), or on
    every suite when chosen by name (the digit metrics: a number is rare in prose)."""

    def applies_to(self, suite: RunnableSuite, explicit: bool) -> bool:
        return explicit or self.name in suite.families

