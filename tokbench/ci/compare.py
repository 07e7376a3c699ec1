"""Compare two runs row by row and decide what got better, worse or did not really change.

Rows are joined on ``(tokenizer, suite, subset, metric)``. Each joined row gets one status:

* ``unchanged``: equal within the rounding of the results schema (6 significant digits);
* ``better`` / ``worse``: a real change, judged by the metric's direction; a worse row
  *fails* (is a regression) when the change is beyond the metric's tolerance;
* ``changed``: a real change of a metric without a direction (never fails);
* ``not_judged``: a timing (any metric that is not deterministic) when timings were not
  asked for (``--fail`` naming the metric or its family, or ``timings=True``), or when a
  run had under ``TOO_BUSY_SHARE`` of a CPU per thread (the comparison warns): the machine
  was too busy to judge, which is no regression;
* ``not_significant``: a corpus ratio measured on other text (the suite's content changed,
  or another sample of it was drawn) whose change is inside the interval of the
  difference, √(h_base² + h_new²) from the two rows' confidence intervals (on the same
  content a corpus metric is deterministic: any change is real); or a judged timing
  whose change is under its threshold or inside the
  noise of the two runs (the [min, max] ranges of their samples, or their 95% intervals,
  overlap). Timings are judged on the CPU clock (``cpu_value``, ``cpu_ci`` where the row
  has them); a wall-clock timing of a busy machine (``cpu_share`` under ``BUSY_SHARE``)
  without a CPU-clock figure is noise;
* ``not_comparable``: an input of the measurement differs between the runs (the suite's
  content, settings, a metric's formula or word segmenter, or the machine for timings);
  the reason is given. ``allow_change`` compares them anyway. A tokenizer is a slot
  compared by name: a changed tokenizer file or backend version is what a gate is for, so
  those rows are compared, and the change is said once (``Comparison.notes``);
* ``added`` / ``removed``: present in one run only. A removed row fails unless
  ``allow_removed`` (something that was measured no longer is);
* ``missing``: the row is in both runs but a value is null, NaN or infinite: nothing
  can be judged, so it fails unless ``allow_missing``.

Documents that newly fail to round-trip are named on the round-trip rows, and documents
the new run could not encode or decode at all are regressions of their own.

The thresholds live in ``tokbench.ci.thresholds``, the busy-machine rules in
``tokbench.ci.busy`` and the input checks in ``tokbench.ci.inputs``; their public names
are importable from here too.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokbench.ci.busy import (
    BUSY_SHARE,
    TOO_BUSY,
    TOO_BUSY_SHARE,
    BusyMachine,
    busy_machine,
    cpu_rows,
    is_number,
)
from tokbench.ci.inputs import (
    CHANGE_KINDS,
    COMPARED_BY_DEFAULT,
    NEUTRAL_SETTINGS,
    InputCheck,
    parse_allow_change,
    suite_info,
)
from tokbench.ci.thresholds import (
    DEFAULT_TIMING_THRESHOLD,
    Threshold,
    Thresholds,
    parse_thresholds,
)
from tokbench.constants import ALL, VOCAB_SUITE
from tokbench.errors import InputError
from tokbench.metrics import METRICS, MetricInfo, metric_info
from tokbench.record import Failure, RunMeta
from tokbench.results import SIGNIFICANT_DIGITS, Results, Row, round_value
from tokbench.timing import TimingDetails

SCHEMA = "tokbench.ci.compare"
SCHEMA_VERSION = 1

BETTER, WORSE, UNCHANGED, CHANGED = "better", "worse", "unchanged", "changed"
NOT_SIGNIFICANT, NOT_COMPARABLE = "not_significant", "not_comparable"
ADDED, REMOVED, MISSING, NOT_JUDGED = "added", "removed", "missing", "not_judged"
STATUSES = (WORSE, MISSING, REMOVED, NOT_COMPARABLE, BETTER, CHANGED, ADDED, NOT_SIGNIFICANT,
            NOT_JUDGED, UNCHANGED)
#: statuses of rows whose values were set side by side and judged
COMPARED = frozenset({WORSE, MISSING, BETTER, CHANGED, NOT_SIGNIFICANT, UNCHANGED})


# -- the comparison ----------------------------------------------------------------------

@dataclass
class RowChange:
    """One joined row: both values, the status and why."""

    tokenizer: str
    suite: str
    subset: str
    metric: str
    status: str
    base: Any = None
    new: Any = None
    fails: bool = False
    reason: str = ""  # why not comparable / not significant / not judged / tolerated
    documents: list[str] = field(default_factory=list)  # newly failing round-trip documents
    base_range: tuple[float, float] | None = None  # timings: [min, max] of the samples
    new_range: tuple[float, float] | None = None
    side: str = "both"  # which runs have the row: both, base (removed...) or new (added...)
    too_busy: bool = False  # a timing not judged: the machine was too busy for either clock

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.tokenizer, self.suite, self.subset, self.metric)

    @property
    def delta(self) -> float | None:
        if is_number(self.base) and is_number(self.new):
            return float(self.new) - float(self.base)
        return None

    @property
    def relative(self) -> float | None:
        """(new - base) / |base|, or None."""
        d = self.delta
        if d is None:
            return None
        if self.base == 0:
            return 0.0 if d == 0 else math.copysign(math.inf, d)
        return d / abs(float(self.base))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"tokenizer": self.tokenizer, "suite": self.suite,
                             "subset": self.subset, "metric": self.metric,
                             "status": self.status, "fails": self.fails,
                             "base": round_value(self.base), "new": round_value(self.new),
                             "delta": round_value(self.delta),
                             "relative": round_value(self.relative)}
        if self.reason:
            d["reason"] = self.reason
        if self.documents:
            d["documents"] = list(self.documents)
        if self.base_range:
            d["base_range"] = round_value(list(self.base_range))
        if self.new_range:
            d["new_range"] = round_value(list(self.new_range))
        return d


@dataclass
class RunInfo:
    """Which run a side of the comparison is: a label, commit, time, machine."""

    label: str
    commit: str | None = None
    created: str | None = None
    machine: str | None = None
    complete: bool = True

    @classmethod
    def of(cls, results: Results, label: str) -> RunInfo:
        meta = results.meta
        return cls(label, meta.git_commit, meta.created, meta.machine.get("hostname"),
                   meta.complete)

    def short(self) -> str:
        commit = (self.commit or "")[:12] or "no commit"
        return f"{self.label} ({commit}, {self.created or 'unknown time'})"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Comparison:
    """The result of ``compare``: every joined row plus the documents that newly fail."""

    base: RunInfo
    new: RunInfo
    rows: list[RowChange]
    thresholds: dict[str, str] = field(default_factory=dict)
    allowed: frozenset[str] = frozenset()
    new_errors: list[Failure] = field(default_factory=list)  # docs that now raise
    new_roundtrip_failures: list[Failure] = field(default_factory=list)
    fixed_failures: list[Failure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # inputs that changed and were compared

    @property
    def failing(self) -> list[RowChange]:
        return [r for r in self.rows if r.fails]

    @property
    def regression(self) -> bool:
        return bool(self.failing or self.new_errors)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for r in self.rows:
            out[r.status] += 1
        return out

    def changed_rows(self) -> list[RowChange]:
        """Rows worth a line each: what changed, worst first (not comparable rows are
        summarized by ``not_comparable``)."""
        quiet = (UNCHANGED, NOT_SIGNIFICANT, NOT_COMPARABLE, NOT_JUDGED)
        return [r for r in self.sorted_rows() if r.status not in quiet]

    def changed_groups(self) -> list[tuple[tuple[str, str], list[RowChange]]]:
        """The changed rows grouped by (tokenizer, metric): groups with a failing row first,
        then in the metrics' order; in a group, failing rows first, then each suite's
        ``all``, then the largest changes."""
        groups: dict[tuple[str, str], list[RowChange]] = {}
        for r in self.changed_rows():
            groups.setdefault((r.tokenizer, r.metric), []).append(r)
        order = {m: i for i, m in enumerate(METRICS.names())}

        def size(r: RowChange) -> float:
            rel = r.relative
            return -abs(rel) if rel is not None and not math.isnan(rel) else 0.0

        for rows in groups.values():
            rows.sort(key=lambda r: (not r.fails, r.subset != ALL, size(r), r.suite, r.subset))
        return sorted(groups.items(), key=lambda g: (not any(r.fails for r in g[1]), g[0][0],
                                                     order.get(g[0][1], len(order)), g[0][1]))

    def rest(self) -> dict[str, int]:
        """How many rows of each quiet status (not shown row by row)."""
        c = self.counts()
        return {s: c[s] for s in (UNCHANGED, NOT_SIGNIFICANT, NOT_JUDGED, NOT_COMPARABLE)
                if c[s]}

    def nothing_compared(self) -> str | None:
        """Why no row was compared (a gate that judged nothing must not pass), or None."""
        common = [r for r in self.rows if r.side == "both"]
        if any(r.status in COMPARED for r in common):
            return None
        if not common:
            def what(side: str) -> str:
                toks = sorted({r.tokenizer for r in self.rows if r.side == side})
                suites = sorted({r.suite for r in self.rows if r.side == side})
                return f"tokenizers {', '.join(toks) or '-'}; suites {', '.join(suites) or '-'}"
            return (f"{self.base.label} and {self.new.label} have no row in common "
                    f"({self.base.label}: {what('base')}; {self.new.label}: {what('new')}); "
                    "compare runs of the same tokenizers and suites")
        reasons = list(dict.fromkeys(r.reason for r in common if r.status == NOT_COMPARABLE))
        if reasons:
            more = f" and {len(reasons) - 1} other changed input(s)" if len(reasons) > 1 else ""
            which = f"none of the {len(common)} rows can" if len(common) > 1 \
                else "the one row cannot"
            return (f"{which} be compared: "
                    f"{reasons[0]}{more}; rerun both sides on the same inputs, or "
                    "--allow-change KIND compares them anyway")
        if any(r.too_busy for r in common):
            return (f"the rows in common ({len(common)}) are timings, and a run had under half "
                    "a CPU per thread: the machine was too busy to judge them; rerun on a "
                    "quieter machine")
        return (f"the rows in common ({len(common)}) are timings, and timings are judged only "
                "when asked for: pass --fail throughput:15% (a metric or family) or "
                "--judge-timings")

    def require_compared(self) -> None:
        """Raise ``InputError`` (exit 2) when no row was compared."""
        why = self.nothing_compared()
        if why is not None:
            raise InputError(f"nothing was compared: {why}")

    def not_comparable(self) -> list[tuple[str, str, str, int]]:
        """(tokenizer, suite, reason, number of rows) of the rows that are not comparable."""
        groups: dict[tuple[str, str, str], int] = {}
        for r in self.rows:
            if r.status == NOT_COMPARABLE:
                key = (r.tokenizer, r.suite, r.reason)
                groups[key] = groups.get(key, 0) + 1
        return [(*k, n) for k, n in sorted(groups.items())]

    def sorted_rows(self) -> list[RowChange]:
        order = {s: i for i, s in enumerate(STATUSES)}
        return sorted(self.rows, key=lambda r: (not r.fails, order[r.status], r.key))

    def verdict(self) -> str:
        """One line: regression or not, and what changed."""
        c = self.counts()
        parts = []
        failing_worse = sum(1 for r in self.rows if r.fails and r.status == WORSE)
        failing_removed = sum(1 for r in self.rows if r.fails and r.status == REMOVED)
        failing_missing = sum(1 for r in self.rows if r.fails and r.status == MISSING)
        tolerated = c[WORSE] - failing_worse
        if failing_worse:
            parts.append(f"{failing_worse} worse")
        if failing_removed:
            parts.append(f"{failing_removed} removed")
        if failing_missing:
            parts.append(f"{failing_missing} without a value (null or NaN)")
        if self.new_errors:
            n = len(self.new_errors)
            parts.append(f"{n} document{'s' * (n != 1)} newly failing to encode/decode")
        rest = []
        if tolerated:
            rest.append(f"{tolerated} worse within tolerance")
        for status in (BETTER, CHANGED, ADDED, NOT_COMPARABLE, NOT_SIGNIFICANT, NOT_JUDGED):
            if c[status]:
                rest.append(f"{c[status]} {status.replace('_', ' ')}")
        if c[MISSING] - failing_missing:
            rest.append(f"{c[MISSING] - failing_missing} without a value (allowed)")
        if c[REMOVED] - failing_removed:
            rest.append(f"{c[REMOVED] - failing_removed} removed (allowed)")
        if parts:
            tail = f" ({', '.join(rest)})" if rest else ""
            return f"regression: {', '.join(parts)}{tail}; {c[UNCHANGED]} unchanged"
        if not rest:
            return f"no change ({len(self.rows)} rows)"
        return f"no regression: {', '.join(rest)}; {c[UNCHANGED]} unchanged"

    def to_dict(self, all_rows: bool = True) -> dict[str, Any]:
        rows = self.sorted_rows() if all_rows else self.changed_rows()
        return {
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
            "verdict": self.verdict(), "regression": self.regression,
            "counts": self.counts(),
            "base": self.base.to_dict(), "new": self.new.to_dict(),
            "thresholds": dict(self.thresholds), "allowed_changes": sorted(self.allowed),
            "not_comparable": [{"tokenizer": t, "suite": s, "reason": r, "rows": n}
                               for t, s, r, n in self.not_comparable()],
            "new_errors": _failure_dicts(self.new_errors),
            "new_roundtrip_failures": _failure_dicts(self.new_roundtrip_failures),
            "fixed_failures": _failure_dicts(self.fixed_failures),
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "rows": [r.to_dict() for r in rows],
        }


def load_run(path: str | Path) -> Results:
    """A run's results (a results.json or a run directory) fit to be compared.

    Refused, as one line naming the file: a run without rows, without the ``meta`` that
    says what was measured (tokenizers, suites, settings; needed to tell whether two runs
    measured the same inputs), with a row whose suite or tokenizer ``meta`` does not
    describe, or with one row twice with different values.
    """
    p = Path(path)
    results = Results.load(p)
    if not results.rows:
        errors = results.meta.errors
        why = f" (every tokenizer or suite failed, e.g. {errors[0].subject}: " \
              f"{errors[0].error})" if errors else ""
        raise InputError(f"{p}: the run has no rows{why}; there is nothing to compare")
    meta = results.meta
    lacking = [k for k in ("tokenizers", "suites", "settings") if not meta.has(k)]
    fix = "use the results.json tokbench wrote, or rerun"
    if lacking:
        raise InputError(f"{p}: 'meta' has no {'/'.join(lacking)} (was it edited?); without "
                         f"it no one can tell whether two runs measured the same inputs; {fix}")
    for r in results.rows:
        if r.tokenizer not in meta.tokenizers:
            raise InputError(f"{p}: row {_name(r.key)}: tokenizer {r.tokenizer!r} is not "
                             f"described in 'meta.tokenizers'; {fix}")
        if r.suite != VOCAB_SUITE and not suite_info(meta, r.suite).sha256:
            raise InputError(f"{p}: row {_name(r.key)}: suite {r.suite!r} has no content "
                             f"hash in 'meta.suites'; {fix}")
    index_rows(results, str(p))
    return results


def _name(key: tuple[str, ...]) -> str:
    return " · ".join(map(str, key))


def index_rows(results: Results, label: str) -> dict[tuple[str, str, str, str], Row]:
    """The rows by (tokenizer, suite, subset, metric); a key given twice with different
    values is an ``InputError`` (which one counts cannot be guessed)."""
    out: dict[tuple[str, str, str, str], Row] = {}
    for r in results.rows:
        old = out.get(r.key)
        if old is not None and _json(old) != _json(r):
            raise InputError(f"{label}: row {_name(r.key)} appears twice with different "
                             f"values ({old.value!r} and {r.value!r}); a run has one row per "
                             "tokenizer, suite, subset and metric: remove one or rerun")
        out[r.key] = r
    return out


def _json(row: Row) -> str:
    return json.dumps(row.to_dict(), sort_keys=True, default=str)


def compare(base: Results, new: Results, *, fail: Iterable[str] | Thresholds | None = None,
            allow_change: Iterable[str] = (), allow_removed: bool = False,
            allow_missing: bool = False, timings: bool = False, base_label: str = "base",
            new_label: str = "new") -> Comparison:
    """Compare ``new`` against ``base`` (see the module doc for the decision rules).

    ``fail``: ``--fail`` specs or ``Thresholds``; ``timings``: judge every timing (else
    only those ``fail`` names); ``allow_change``: input kinds (``CHANGE_KINDS``) that may
    differ and are compared anyway (a changed tokenizer file or backend version always
    is). The ``Comparison`` says whether anything got worse (``.regression``), row by
    row (``.rows``), whether anything was compared at all (``.nothing_compared()``), and
    gives ``.to_dict()`` (what ``tokbench compare --json`` prints). Runs come from
    ``tokbench.run`` or ``tokbench.Results.load(path)``.

    >>> base = Results([Row("gpt2", "code", "all", "bytes_per_token", 4.0)])
    >>> new = Results([Row("gpt2", "code", "all", "bytes_per_token", 3.5)])
    >>> comparison = compare(base, new)
    >>> comparison.regression, comparison.rows[0].status, comparison.rows[0].relative
    (True, 'worse', -0.125)
    >>> compare(base, new, fail=["bytes_per_token:20%"]).regression  # within tolerance
    False
    """
    thresholds = parse_thresholds(fail, timings)
    allowed = parse_allow_change(allow_change)
    base_rows = index_rows(base, base_label)
    new_rows = index_rows(new, new_label)
    inputs = InputCheck(base, new, allowed | COMPARED_BY_DEFAULT)
    failures = _FailureDiff(base, new)

    judged: dict[str, tuple[MetricInfo, Threshold, bool]] = {}  # per metric, looked up once
    out: list[RowChange] = []
    for key in sorted(base_rows.keys() | new_rows.keys()):
        tokenizer, suite, subset, metric = key
        b, n = base_rows.get(key), new_rows.get(key)
        change = RowChange(*key, status=UNCHANGED, base=b.value if b else None,
                           new=n.value if n else None,
                           side="new" if b is None else "base" if n is None else "both")
        if metric not in judged:
            judged[metric] = (metric_info(metric), thresholds.for_metric(metric),
                              thresholds.judges(metric))
        info, threshold, judges = judged[metric]
        if not judges:
            change.status = NOT_JUDGED
            change.reason = "a timing, judged only when asked for (--fail METRIC:TOL)"
            out.append(change)
            continue
        reasons = inputs.check(tokenizer, suite, metric, subset)
        band = None
        if reasons and b is not None and n is not None \
                and inputs.only_content(tokenizer, suite, metric):
            band = interval_band(b, n)  # other text: the intervals decide
            if band is not None:
                reasons = []
        if reasons:  # also of a row in one run only: what changed explains it
            change.status, change.reason = NOT_COMPARABLE, "; ".join(reasons)
        elif b is None:
            change.status, change.reason = ADDED, f"only in {new_label}"
        elif n is None:
            change.status, change.fails = REMOVED, not allow_removed
            change.reason = f"missing in {new_label}"
        else:
            _judge(change, b, n, info, threshold, allow_missing=allow_missing, band=band)
            if metric == "roundtrip":
                change.documents = failures.new_roundtrip_docs(tokenizer, suite, subset,
                                                              new.meta)
        out.append(change)

    comparable = [pair for pair in failures.pairs() if not inputs.pair_reasons(*pair)]
    comp = Comparison(RunInfo.of(base, base_label), RunInfo.of(new, new_label), out,
                      thresholds=thresholds.describe(), allowed=allowed,
                      new_errors=failures.appeared(comparable, errors=True),
                      new_roundtrip_failures=failures.appeared(comparable, errors=False),
                      fixed_failures=failures.fixed(comparable), notes=inputs.notes())
    too_busy = sum(1 for r in out if r.too_busy)
    if too_busy:
        comp.warnings.append(f"{too_busy} timing row{'s' * (too_busy != 1)} not judged: a run "
                             "had under half a CPU per thread (see the rows' reasons)")
    if base_rows and new_rows and not base_rows.keys() & new_rows.keys():
        comp.warnings.append("the runs have no row in common: are they runs of the same "
                             "tokenizers and suites?")
    for side, results in ((comp.base, base), (comp.new, new)):
        if not side.complete:
            comp.warnings.append(f"{side.label} is an incomplete (interrupted) run")
        for err in results.meta.errors:
            comp.warnings.append(f"{side.label}: {err.subject} was not run ({err.error})")
    return comp


# -- decisions --------------------------------------------------------------------------------


def same_within_rounding(a: Any, b: Any) -> bool:
    """Equal, or floats within one unit of the schema's 6th significant digit."""
    if a == b:
        return True
    if not (is_number(a) and is_number(b)):
        return False
    if isinstance(a, int) and isinstance(b, int):
        return False  # counts are exact
    if abs(a - b) > 1e-4 * max(abs(a), abs(b)):
        return False  # far beyond a unit of the 6th digit (at most 1e-5 relative)
    ra, rb = round_value(float(a)), round_value(float(b))
    if ra is None or rb is None:
        return False
    scale = max(abs(ra), abs(rb))
    if scale == 0 or ra == rb:
        return True
    last_digit = 10.0 ** (math.floor(math.log10(scale)) - (SIGNIFICANT_DIGITS - 1))
    return bool(abs(ra - rb) <= last_digit * (1 + 1e-9))


def timing_range(row: Row) -> tuple[float, float] | None:
    """The noise band of a timing row, in the row's unit.

    A row with ``ci`` ([low, high], the value's 95% interval; high None when open, as
    for a tail percentile of too few calls) gives that interval. Otherwise ``samples``
    are MB/s of each repeat; they are scaled by value / median so the range
    fits any throughput unit. Without samples, ``spread`` (max - min) / median is used
    as a band around the value.
    """
    v = row.value
    if not is_number(v):
        return None
    details = TimingDetails.of(row)
    ci, samples, spread = details.ci, details.samples, details.spread
    if ci is not None and len(ci) == 2 and ci[0] is not None:
        return (float(ci[0]), math.inf if ci[1] is None else float(ci[1]))
    if samples:
        med = statistics.median(samples)
        if med > 0:
            scale = float(v) / med
            return (min(samples) * scale, max(samples) * scale)
    if spread is not None:
        half = abs(float(v)) * float(spread) / 2
        return (float(v) - half, float(v) + half)
    return None


def _absent(v: Any) -> bool:
    """No usable value: null, NaN or infinite."""
    return v is None or (isinstance(v, float) and not math.isfinite(v))


def interval_band(b: Row, n: Row) -> float | None:
    """Half-width of the interval of the difference of two rows measured on different
    text (another corpus, another sample): √(h_base² + h_new²) from their confidence
    intervals (``ci_low``/``ci_high``, independent estimates at the same level), or None
    when either lacks one."""
    halves = []
    for r in (b, n):
        lo, hi = r.extra.get("ci_low"), r.extra.get("ci_high")
        if not (is_number(lo) and is_number(hi)):
            return None
        halves.append((float(hi) - float(lo)) / 2)
    if b.extra.get("ci_level") != n.extra.get("ci_level"):
        return None
    return math.hypot(*halves)


def _judge(change: RowChange, b: Row, n: Row, info: MetricInfo, threshold: Threshold,
           allow_missing: bool = False, band: float | None = None) -> None:
    """Set status, fails and reason of a comparable row; ``band``: rows of different
    text, judged on their intervals (a change inside it is not significant)."""
    bv, nv = b.value, n.value
    if _absent(bv) or _absent(nv):
        where = " and ".join(w for w, v in (("base", bv), ("new", nv)) if _absent(v))
        change.status, change.fails = MISSING, not allow_missing
        change.reason = f"no value (null or NaN) in {where}" + (
            "" if allow_missing else "; --allow-missing accepts it")
        return
    if bv is None or nv is None:
        if bv is None and nv is None:
            return
        if info.direction == "none":
            change.status = CHANGED
        else:  # a value that could not be computed any more is a regression
            change.status = WORSE if nv is None else BETTER
            change.fails = nv is None
        change.reason = f"no value in {'base' if bv is None else 'new'}"
        return
    if not (is_number(bv) and is_number(nv)):
        if bv != nv:
            change.status = CHANGED
        return
    if info.deterministic:
        if same_within_rounding(bv, nv):
            return
    elif bv == nv:
        return
    if band is not None and abs(float(nv) - float(bv)) <= band:
        change.status = NOT_SIGNIFICANT
        change.reason = (f"inside the intervals: other text (a changed corpus or another "
                         f"sample), the change is within ±{band:.4g}")
        return
    if info.direction == "none":
        change.status = CHANGED
        return
    busy = None if info.deterministic else busy_machine(b, n)
    if busy is not None and busy.too_busy:
        change.status, change.too_busy = NOT_JUDGED, True
        change.reason = f"{busy}: neither clock can be trusted then; rerun on a quieter machine"
        return
    on_cpu = ""
    if not info.deterministic:
        # the CPU clock does not count the time other processes take from the calls
        cpu = cpu_rows(b, n)
        if cpu is not None:
            b, n = cpu
            bv, nv = float(b.value or 0), float(n.value or 0)
            on_cpu = f" ({f'{busy}; ' if busy else ''}judged on the CPU clock)"
        elif busy is not None:
            change.status = NOT_SIGNIFICANT
            change.reason = f"{busy}; the wall clock cannot tell (no CPU-clock figure)"
            return
    improved = (nv > bv) == (info.direction == "higher")
    if not info.deterministic:
        change.base_range, change.new_range = timing_range(b), timing_range(n)
        if not threshold.exceeded(bv, nv):
            change.status = NOT_SIGNIFICANT
            change.reason = f"under the {threshold.describe()} threshold{on_cpu}"
            return
        if change.base_range and change.new_range \
                and _overlap(change.base_range, change.new_range):
            change.status = NOT_SIGNIFICANT
            change.reason = ("inside the noise: the 95% intervals overlap"
                             if TimingDetails.of(n).ci is not None
                             else "inside the noise: the ranges of the repeats overlap") + on_cpu
            return
        if on_cpu:
            change.reason = on_cpu.strip(" ()")
    change.status = BETTER if improved else WORSE
    if change.status == WORSE:
        change.fails = threshold.exceeded(bv, nv)
        if not change.fails:
            change.reason = f"within the {threshold.describe()} tolerance ({threshold.spec})"


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _failure_dicts(failures: Sequence[Failure]) -> list[dict[str, Any]]:
    """Failures as JSON objects, keys sorted as in results.json."""
    return [dict(sorted(f.to_dict().items())) for f in failures]


class _FailureDiff:
    """Documents that fail in one run and not the other, per (tokenizer, suite)."""

    def __init__(self, base: Results, new: Results) -> None:
        self.before = self._index(base.failures)
        self.after = self._index(new.failures)
        self._new_roundtrip: dict[tuple[str, str], list[tuple[str, str | None]]] | None = None

    @staticmethod
    def _index(failures: Sequence[Failure]) -> dict[tuple[str, str, str, bool], Failure]:
        return {(f.tokenizer, f.suite, str(f.doc_id), f.kind == "error"): f for f in failures}

    def pairs(self) -> set[tuple[str, str]]:
        return {(k[0], k[1]) for k in self.before.keys() | self.after.keys()}

    def appeared(self, pairs: Iterable[tuple[str, str]], errors: bool) -> list[Failure]:
        keep = set(pairs)
        return [f for k, f in sorted(self.after.items())
                if k[3] == errors and (k[0], k[1]) in keep and k not in self.before]

    def fixed(self, pairs: Iterable[tuple[str, str]]) -> list[Failure]:
        keep = set(pairs)
        return [f for k, f in sorted(self.before.items())
                if (k[0], k[1]) in keep and k not in self.after]

    def new_roundtrip_docs(self, tokenizer: str, suite: str, subset: str,
                           new_meta: RunMeta) -> list[str]:
        """Ids of documents of this row that newly fail to round-trip."""
        by_lang = (suite_info(new_meta, suite).subset_by or "lang") == "lang"
        if subset != ALL and not by_lang:
            return []  # failures record a document's language, not its domain
        if self._new_roundtrip is None:
            self._new_roundtrip = {}
            for k, f in sorted(self.after.items()):
                if not k[3] and k not in self.before:
                    self._new_roundtrip.setdefault((k[0], k[1]), []).append((k[2], f.lang))
        return [doc for doc, lang in self._new_roundtrip.get((tokenizer, suite), [])
                if subset == ALL or lang in (None, subset)]


__all__ = [
    "ADDED",
    "BETTER",
    "BUSY_SHARE",
    "CHANGED",
    "CHANGE_KINDS",
    "COMPARED_BY_DEFAULT",
    "DEFAULT_TIMING_THRESHOLD",
    "NEUTRAL_SETTINGS",
    "NOT_COMPARABLE",
    "NOT_SIGNIFICANT",
    "REMOVED",
    "TOO_BUSY",
    "TOO_BUSY_SHARE",
    "UNCHANGED",
    "WORSE",
    "BusyMachine",
    "Comparison",
    "RowChange",
    "RunInfo",
    "Threshold",
    "Thresholds",
    "compare",
    "load_run",
    "parse_allow_change",
    "parse_thresholds",
    "same_within_rounding",
    "timing_range",
]
