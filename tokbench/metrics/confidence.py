"""Confidence intervals and paired comparisons on a suite's metric rows.

The run gives every corpus-ratio row (a metric with ``MetricInfo.ratio``) its interval:
``ci_low``, ``ci_high`` at ``ci_level``, ``ci_method``, and ``ci_units`` (the sampled units
it rests on). In a stratified sample the value itself is the weighted estimate
Σ_h Σa / f_h over Σ_h Σb / f_h. Per subset, each tokenizer is compared with a reference on
the same units (the subset's best tokenizer for that metric, or the one the user names):
``vs``, ``vs_ratio`` (this tokenizer's value over the reference's), ``vs_low``/``vs_high``
(its paired interval) and ``vs_distinct`` (whether that interval excludes 1). Metrics that
are not corpus ratios (token totals, vocabulary facts, premium, Rényi efficiency, timings,
which carry their own spread) get neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tokbench.metrics.base import MetricInfo
from tokbench.metrics.intervals import (
    MIN_UNITS,
    Design,
    Estimator,
    Interval,
    Moments,
    var_name,
)
from tokbench.metrics.stats import COLLECTORS, STAT_COLLECTOR
from tokbench.results import Row


def moment_stats(metrics: Iterable[MetricInfo], collectors: Iterable[str]) -> tuple[str, ...]:
    """The statistics whose moments the ratio ``metrics`` need, among those collected."""
    have = set(collectors)
    out: dict[str, None] = {}
    for m in metrics:
        if m.ratio is None:
            continue
        stats = (*m.ratio[0], *m.ratio[1])
        if all(STAT_COLLECTOR.get(s, "counts") in have for s in stats):
            out.update(dict.fromkeys(stats))
    return tuple(s for s in out if s in STAT_COLLECTOR or s in COLLECTORS["counts"])


def _vars(tokenizer: str, stats: Sequence[str]) -> list[str]:
    return [var_name(tokenizer, s) for s in stats]


def add_confidence(rows: Sequence[Row], moments: Mapping[str, Moments],
                   metrics: Mapping[str, MetricInfo], design: Design, level: float,
                   reference: str | None = None) -> None:
    """``add_intervals`` then ``add_paired``, on one estimator per subset (what the
    intervals of a subset share is worked out once for both)."""
    estimators = _estimators(moments, design)
    _add_intervals(rows, estimators, metrics, design, level)
    _add_paired(rows, estimators, metrics, level, reference)


def add_intervals(rows: Sequence[Row], moments: Mapping[str, Moments],
                  metrics: Mapping[str, MetricInfo], design: Design, level: float) -> None:
    """Give each ratio row of ``rows`` its interval (in place); ``moments`` by subset."""
    _add_intervals(rows, _estimators(moments, design), metrics, design, level)


def _add_intervals(rows: Sequence[Row], estimators: Mapping[str, Estimator],
                   metrics: Mapping[str, MetricInfo], design: Design, level: float) -> None:
    for row in rows:
        info = metrics.get(row.metric)
        est = estimators.get(row.subset)
        if info is None or info.ratio is None or est is None or row.value is None:
            continue
        iv = est.ratio(_vars(row.tokenizer, info.ratio[0]), _vars(row.tokenizer, info.ratio[1]),
                       level)
        if iv is None:
            continue
        if design.stratified:
            # strata read in different shares: each stratum's sums weigh 1 / f_h
            row.value = iv.value
        row.extra.update(interval_extra(iv, float(row.value), design))


def _estimators(moments: Mapping[str, Moments], design: Design) -> dict[str, Estimator]:
    """One estimator per subset: what its rows' intervals share is worked out once."""
    return {subset: Estimator(m, design) for subset, m in moments.items()}


def interval_extra(iv: Interval, value: float, design: Design) -> dict[str, object]:
    """The row keys of an interval, centred on the row's own value."""
    out: dict[str, object] = {"ci_units": iv.units, "ci_method": design.method}
    if iv.half_width is None:
        out["ci_method"] = f"none: {iv.units} units, fewer than {MIN_UNITS}"
        return out
    out.update(ci_level=iv.level, ci_low=value - iv.half_width, ci_high=value + iv.half_width)
    return out


def add_paired(rows: Sequence[Row], moments: Mapping[str, Moments],
               metrics: Mapping[str, MetricInfo], design: Design, level: float,
               reference: str | None = None) -> None:
    """Compare every tokenizer with the reference on the same units (in place): the
    subset's best for the metric, or ``reference`` where it has the row."""
    _add_paired(rows, _estimators(moments, design), metrics, level, reference)


def _add_paired(rows: Sequence[Row], estimators: Mapping[str, Estimator],
                metrics: Mapping[str, MetricInfo], level: float, reference: str | None
                ) -> None:
    groups: dict[tuple[str, str], dict[str, Row]] = {}
    for row in rows:
        info = metrics.get(row.metric)
        if info is None or info.ratio is None or row.value is None:
            continue
        groups.setdefault((row.subset, row.metric), {})[row.tokenizer] = row
    for (subset, metric), by_tok in groups.items():
        info = metrics[metric]
        est = estimators.get(subset)
        assert info.ratio is not None
        ref = _reference(by_tok, info, reference)
        if est is None or ref is None or len(by_tok) < 2:
            continue
        num, den = info.ratio
        for tok, row in by_tok.items():
            if tok == ref:
                continue
            iv = est.paired(_vars(tok, num), _vars(tok, den), _vars(ref, num), _vars(ref, den),
                            level)
            if iv is None:
                continue
            extra: dict[str, object] = {"vs": ref, "vs_ratio": iv.value}
            if iv.low is not None and iv.high is not None:
                extra.update(vs_low=iv.low, vs_high=iv.high,
                             vs_distinct=not iv.low <= 1.0 <= iv.high)
            row.extra.update(extra)


def _reference(by_tok: Mapping[str, Row], info: MetricInfo, reference: str | None
               ) -> str | None:
    if reference is not None:
        return reference if reference in by_tok else None
    if info.direction not in ("higher", "lower"):
        return None
    values = {t: float(r.value) for t, r in by_tok.items() if r.value is not None}
    if not values:
        return None
    pick = max if info.direction == "higher" else min
    return pick(values, key=values.__getitem__)


def widest_relative(moments: Moments, tokenizers: Sequence[str], metrics: Iterable[MetricInfo],
                    design: Design, level: float) -> float | None:
    """The largest relative half-width of the ratio ``metrics`` of ``tokenizers`` (each
    defined one; 0 for a ratio that is 0 with no spread); None if one has too few units."""
    worst = 0.0
    est = Estimator(moments, design)
    for info in metrics:
        if info.ratio is None:
            continue
        for tok in tokenizers:
            iv = est.ratio(_vars(tok, info.ratio[0]), _vars(tok, info.ratio[1]), level)
            if iv is None:
                continue  # not measured, or nothing to divide by
            if iv.half_width is None:
                return None
            if iv.half_width == 0:
                continue
            rel = iv.relative_half_width
            worst = max(worst, float("inf") if rel is None else rel)
    return worst
