"""Pivot tables from results rows: the one place table logic lives.

Markdown, terminal and HTML renderers all draw the same ``Table`` objects: rows
are subsets, columns are tokenizers, the best value per row is marked according
to the metric's direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tokbench.constants import ALL
from tokbench.metrics import metric_info
from tokbench.metrics.base import MetricInfo
from tokbench.metrics.trust import Caveat, Trust
from tokbench.metrics.trust import mark_best as mark_best  # where it used to live
from tokbench.results import Results, Row, order_subsets


@dataclass
class Table:
    """``cells[subset][tokenizer]`` for one (suite, metric); ``best[subset]`` = winners;
    ``flags[subset][tokenizer]`` = the caveat of a value that may not win
    (``tokbench.metrics.trust``: not lossless, or mostly unknown tokens)."""

    suite: str
    metric: MetricInfo
    tokenizers: list[str]
    subsets: list[str]
    cells: dict[str, dict[str, Any]] = field(default_factory=dict)
    best: dict[str, set[str]] = field(default_factory=dict)
    flags: dict[str, dict[str, Caveat]] = field(default_factory=dict)
    #: ``failed[subset][tokenizer]``: documents left out of that value (they failed)
    failed: dict[str, dict[str, int]] = field(default_factory=dict)
    #: ``extra[subset][tokenizer]``: the row's detail (interval, paired comparison)
    extra: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def text(self, subset: str, tokenizer: str, info: MetricInfo | None = None) -> str:
        """A cell as shown: the value, documents that failed, its interval and paired
        marks (``format_cell``)."""
        return format_cell(self.cells.get(subset, {}).get(tokenizer), info or self.metric,
                           self.extra.get(subset, {}).get(tokenizer, {}),
                           self.failed.get(subset, {}).get(tokenizer, 0))

    def symbol(self, subset: str, tokenizer: str) -> str:
        """The caveat symbols of one cell (``"†"``, ``"‡"``), or ""."""
        c = self.flags.get(subset, {}).get(tokenizer)
        return c.symbols if c is not None else ""

    def symbols(self) -> list[str]:
        """Every caveat symbol the table shows (for its legend)."""
        return [c.symbols for f in self.flags.values() for c in f.values()]

    @property
    def title(self) -> str:
        arrow = f" {self.metric.arrow}" if self.metric.arrow else ""
        return f"{self.suite} · {self.metric.name}{arrow}"


def tokenizer_order(results: Results) -> list[str]:
    """Tokenizers in the order they were run."""
    names = dict.fromkeys(results.meta.tokenizers)
    names.update(dict.fromkeys(r.tokenizer for r in results.rows))  # new ones at the end
    return list(names)


def build_tables(results: Results, suites: Sequence[str] | None = None,
                 metrics: Sequence[str] | None = None,
                 subsets: Sequence[str] | None = None,
                 trust: Trust | None = None) -> list[Table]:
    """One table per (suite, metric) present in the results, in a stable order; the best
    value of a row is chosen among the values without a caveat (``trust``:
    ``Trust.of(results)`` when the caller has it already)."""
    toks = tokenizer_order(results)
    trust = trust or Trust.of(results)
    grouped: dict[tuple[str, str], list[Row]] = {}
    for r in results.rows:
        if suites and r.suite not in suites:
            continue
        if metrics and r.metric not in metrics:
            continue
        if subsets and r.subset not in subsets:
            continue
        grouped.setdefault((r.suite, r.metric), []).append(r)
    suite_order = list(results.meta.suites)
    metric_names = _metric_order()

    def sort_key(key: tuple[str, str]) -> tuple[int, str, int, str]:
        s, m = key
        si = suite_order.index(s) if s in suite_order else len(suite_order)
        mi = metric_names.index(m) if m in metric_names else len(metric_names)
        return (si, s, mi, m)

    tables = []
    for suite, metric in sorted(grouped, key=sort_key):
        rows = grouped[(suite, metric)]
        info = metric_info(metric)
        t = Table(suite, info, [x for x in toks if any(r.tokenizer == x for r in rows)],
                  order_subsets({r.subset for r in rows}))
        for r in rows:
            t.cells.setdefault(r.subset, {})[r.tokenizer] = r.value
            if r.extra.get("failed_docs"):
                t.failed.setdefault(r.subset, {})[r.tokenizer] = int(r.extra["failed_docs"])
            if r.extra:
                t.extra.setdefault(r.subset, {})[r.tokenizer] = r.extra
        for subset in t.subsets:
            cells = t.cells.get(subset, {})
            failed = t.failed.get(subset, {})
            # a value over fewer documents (some failed) is not comparable: never best
            t.best[subset] = trust.best({k: v for k, v in cells.items() if not failed.get(k)},
                                        suite, subset, metric)
            flags = trust.flags(suite, subset, metric, cells)
            if flags:
                t.flags[subset] = flags
        tables.append(t)
    return tables


def summary_table(results: Results, suite: str, subset: str = ALL,
                  trust: Trust | None = None) -> Table | None:
    """Every metric of one subset of a suite: rows are metrics (a transposed view)."""
    tables = build_tables(results, suites=[suite], subsets=[subset], trust=trust)
    if not tables:
        return None
    toks = tokenizer_order(results)
    t = Table(suite, MetricInfo("summary", "none", "summary"), toks, [])
    for tab in tables:
        name = tab.metric.name
        t.subsets.append(name)
        t.cells[name] = tab.cells.get(subset, {})
        t.best[name] = tab.best.get(subset, set())
        t.failed[name] = tab.failed.get(subset, {})
        if subset in tab.flags:
            t.flags[name] = tab.flags[subset]
        t.extra[name] = tab.extra.get(subset, {})
    t.tokenizers = [x for x in toks if any(x in c for c in t.cells.values())]
    return t


#: what a suite's loading left out or changed (``Suite.left_out()``), in words
LEFT_OUT = {"skipped_invalid": "{n} left out for invalid UTF-8 (errors=skip)",
            "replaced_invalid": "{n} with invalid UTF-8 replaced by U+FFFD (errors=replace)",
            "skipped_empty": "{n} empty left out"}


def left_out_text(counts: dict[str, Any]) -> str:
    """``{"skipped_invalid": 2}`` -> ``"documents: 2 left out for invalid UTF-8 ..."``."""
    parts = [LEFT_OUT.get(k, "{n} " + k.replace("_", " ")).format(n=v)
             for k, v in counts.items() if v]
    return "documents: " + "; ".join(parts) if parts else ""


def worst_languages(results: Results, suite: str) -> str:
    """``"gpt2 mya_Mymr (15.27), ..."``: each tokenizer's worst-case language of ``suite``
    (the fairness metric ``premium_worst`` names it in its row), or ``""``."""
    from tokbench.metrics.fairness import WORST

    return ", ".join(f"{r.tokenizer} {r.extra['lang']} ({r.value:.2f})" for r in results.rows
                     if r.suite == suite and r.metric == WORST.name and r.extra.get("lang"))


def format_value(value: Any, info: MetricInfo) -> str:
    """A value as shown in tables (the JSON keeps full precision)."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value)
    if info.percent:
        return f"{100 * value:.2f}%"
    if isinstance(value, int) or info.decimals == 0 or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{info.decimals}f}"


def cell_text(value: Any, info: MetricInfo, failed: int = 0) -> str:
    """``format_value``, plus ``(N failed)`` when N documents failed and are left out of
    the value (a rate over the rest must not pass for one over every document)."""
    text = format_value(value, info)
    return f"{text} ({failed:,} failed)" if failed and value is not None else text


#: marks of ``format_cell``, explained under every table that uses them
SAME_MARK = "≈"
FEW_MARK = "°"
INTERVAL_LEGEND = (f"± is the half-width of the 95% confidence interval (level in results.json); "
                   f"{SAME_MARK}: not distinguishable from the best (paired interval of the ratio "
                   f"holds 1); {FEW_MARK}: too few documents for an interval")


def format_cell(value: Any, info: MetricInfo, extra: dict[str, Any] | None = None,
                failed: int = 0) -> str:
    """A value with its interval half-width (``1.3051 ± 0.0040``), ``≈`` when a paired
    comparison cannot tell it from the best, ``°`` when there were too few documents
    (after ``cell_text``'s count of ``failed`` documents)."""
    extra = extra or {}
    plain = text = format_value(value, info)
    low, high = extra.get("ci_low"), extra.get("ci_high")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and value is not None:
        half = (high - low) / 2
        if info.percent:
            text = f"{text[:-1]} ± {100 * half:.2f}%"
        else:
            text = f"{text} ± {_half(half, info)}"
    elif str(extra.get("ci_method", "")).startswith("none"):
        text += f" {FEW_MARK}"
    text = cell_text(value, info, failed).replace(plain, text, 1)
    if extra.get("vs_distinct") is False and extra.get("vs_ratio") != 1:
        text += f" {SAME_MARK}"  # (an equal value is no difference to tell apart)
    return text


def _half(half: float, info: MetricInfo) -> str:
    """A half-width to the value's decimals, or two significant digits when smaller."""
    if half >= 10 ** -info.decimals or half == 0:
        return f"{half:.{info.decimals}f}"
    return f"{half:.2g}"


def _metric_order() -> list[str]:
    from tokbench.metrics import FAMILIES

    return [m for ms in FAMILIES.values() for m in ms]
