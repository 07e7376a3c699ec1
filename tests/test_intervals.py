"""Confidence intervals of corpus ratios: hand-computed values, merging, paired
comparisons, and agreement with scipy's bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from tokbench.engine.runner import run
from tokbench.metrics.intervals import (
    MIN_UNITS,
    Design,
    Estimator,
    Moments,
    paired_interval,
    ratio_interval,
)
from tokbench.suites.model import Document, Suite

T975_9 = 2.2621571627409915  # Student t, 9 degrees of freedom, 97.5% (tables)


def _suite(texts: list[str], parallel: bool = False) -> Suite:
    docs = [Document(f"d{i}", "eng_Latn", "x", t) for i, t in enumerate(texts)]
    return Suite("tiny", "1", docs, parallel=parallel, subset_by="domain")


def _row(results, tok, metric, subset="all"):
    return next(r for r in results.rows if (r.tokenizer, r.subset, r.metric)
                == (tok, subset, metric))


def test_hand_computed_interval_of_a_tiny_suite() -> None:
    # "bytes" gives one token per byte: chars_per_token = Σ chars / Σ bytes. Five
    # documents "a" (1 char, 1 byte), five "é" (1 char, 2 bytes): R = 10/15 = 2/3,
    # d_i = 1 - 2/3 b_i = ±1/3, v = n Σd² / ((n-1) B²) = 10 (10/9) / (9 · 225) = 4/729,
    # se = 2/27; interval 2/3 ± t(9) · 2/27.
    res = run(["bytes"], [_suite(["a", "é"] * 5)], ["compression"])
    row = _row(res, "bytes", "chars_per_token")
    assert row.value == pytest.approx(2 / 3)
    assert row.extra["ci_units"] == 10
    assert row.extra["ci_level"] == 0.95
    assert row.extra["ci_low"] == pytest.approx(2 / 3 - T975_9 * 2 / 27, rel=1e-9)
    assert row.extra["ci_high"] == pytest.approx(2 / 3 + T975_9 * 2 / 27, rel=1e-9)
    assert row.extra["ci_method"] == "delta method; unit: a document"
    # a constant ratio has a zero-width interval: one byte per byte token
    same = _row(res, "bytes", "bytes_per_token")
    assert (same.extra["ci_low"], same.extra["ci_high"]) == (1.0, 1.0)
    # the token total is not a ratio: no interval
    assert "ci_low" not in _row(res, "bytes", "tokens").extra


def test_too_few_documents_say_so() -> None:
    res = run(["bytes"], [_suite(["a", "é", "ab"])], ["compression"])
    row = _row(res, "bytes", "chars_per_token")
    assert "ci_low" not in row.extra
    assert row.extra["ci_units"] == 3
    assert row.extra["ci_method"] == f"none: 3 units, fewer than {MIN_UNITS}"


def test_ci_none_turns_intervals_off() -> None:
    res = run(["bytes"], [_suite(["a", "é"] * 5)], ["compression"], ci=None)
    assert not any(k.startswith(("ci_", "vs")) for r in res.rows for k in r.extra)
    assert res.meta.settings["ci"] is None


def test_translations_of_one_text_are_one_unit() -> None:
    # a parallel suite: the units are the aligned texts, not the documents
    docs = []
    for k in range(12):
        docs += [Document(f"e{k}", "eng_Latn", "x", "a" * (k + 1), align=str(k)),
                 Document(f"f{k}", "fra_Latn", "x", "é" * (k + 1), align=str(k))]
    res = run(["bytes"], [Suite("par", "1", docs, parallel=True)], ["compression"])
    assert _row(res, "bytes", "chars_per_token").extra["ci_units"] == 12
    assert _row(res, "bytes", "chars_per_token", "fra_Latn").extra["ci_units"] == 12


def _cochran(a: np.ndarray, b: np.ndarray, level: float = 0.95, f: float = 0.0
             ) -> tuple[float, float]:
    """Cochran (1977) eq. 6.9, written out independently of tokbench."""
    n = a.size
    r = a.sum() / b.sum()
    d = a - r * b
    se = math.sqrt((1 - f) * (d ** 2).sum() / (n - 1) / n) / b.mean()
    half = stats.t.ppf(0.5 + level / 2, n - 1) * se
    return r - half, r + half


def _moments(columns: dict[str, np.ndarray], strata: list[str] | None = None) -> Moments:
    names = list(columns)
    rows = np.stack([columns[k] for k in names], axis=1).astype(np.int64)
    return Moments.of_units(names, rows, strata or [""] * rows.shape[0])


def test_ratio_interval_matches_cochran_and_merges_by_addition() -> None:
    rng = np.random.default_rng(7)
    b = rng.integers(5, 60, 300)
    a = b * 3 + rng.integers(-20, 20, 300)
    iv = ratio_interval(_moments({"a": a, "b": b}), ["a"], ["b"], Design())
    assert iv is not None
    lo, hi = _cochran(a.astype(float), b.astype(float))
    assert (iv.low, iv.high) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))
    # shard by shard, merged: the same moments, the same interval
    parts = [_moments({"a": a[i:i + 50], "b": b[i:i + 50]}) for i in range(0, 300, 50)]
    merged = parts[0]
    for p in parts[1:]:
        merged.merge(p)
    again = ratio_interval(merged, ["a"], ["b"], Design())
    assert again == iv
    # a sample of 300 units out of 3000: the finite-population correction
    sampled = ratio_interval(merged, ["a"], ["b"], Design({"": 0.1}))
    lo, hi = _cochran(a.astype(float), b.astype(float), f=0.1)
    assert sampled is not None and sampled.low == pytest.approx(lo, rel=1e-12)


def test_moments_of_many_units_are_exact_and_one_estimator_serves_every_row() -> None:
    # 70 variables x 500 units: Σ z zᵀ is summed over several blocks of rows
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 1000, (500, 70))
    names = [f"v{i}" for i in range(70)]
    m = Moments.of_units(names, rows, [""] * 500)
    exact = rows.astype(object).T.dot(rows.astype(object))
    assert m.strata[""].g.tolist() == exact.tolist()
    est = Estimator(m, Design())
    for i in range(0, 68, 7):
        one = ratio_interval(m, [names[i]], [names[i + 1]], Design())
        assert est.ratio([names[i]], [names[i + 1]]) == one
        assert one is not None and one.value == rows[:, i].sum() / rows[:, i + 1].sum()
        pair = paired_interval(m, [names[i]], [names[i + 1]], [names[i + 2]], [names[i + 1]],
                               Design())
        assert est.paired([names[i]], [names[i + 1]], [names[i + 2]], [names[i + 1]]) == pair
    assert est.ratio(["v0"], ["nope"]) is None


def test_stratified_interval_by_hand() -> None:
    # two strata, each a simple random sample: v = Σ_h n_h (1-f_h)/f_h² s²_dh / X̂²
    a1, b1 = np.array([2, 4, 6, 8]), np.array([1, 2, 2, 3])
    a2, b2 = np.array([10, 12, 9]), np.array([4, 5, 4])
    f = {"s1": 0.5, "s2": 0.25}
    m = _moments({"a": np.r_[a1, a2], "b": np.r_[b1, b2]}, ["s1"] * 4 + ["s2"] * 3)
    m_units = m.units
    assert m_units == 7
    # hand: totals Y = 20/0.5 + 31/0.25 = 164, X = 8/0.5 + 13/0.25 = 68
    r = 164 / 68
    var = 0.0
    for a, b, fh in ((a1, b1, 0.5), (a2, b2, 0.25)):
        d = a - r * b
        var += a.size * (1 - fh) / fh ** 2 * d.var(ddof=1)
    se = math.sqrt(var) / 68
    iv = ratio_interval(m, ["a"], ["b"], Design(f), level=0.9)
    assert iv is not None and iv.value == pytest.approx(r)
    assert iv.units == 7
    # too few units for an interval: the estimate stands alone
    assert iv.low is None and MIN_UNITS > 7
    from tokbench.metrics.intervals import linearized_variance

    v, units, df = linearized_variance(m, {"a": 1 / 68, "b": -r / 68}, Design(f))
    assert v == pytest.approx(se ** 2) and (units, df) == (7, 5)


def test_interval_agrees_with_scipy_bootstrap() -> None:
    rng = np.random.default_rng(3)
    b = rng.integers(10, 200, 2000)
    a = (b * rng.uniform(2.5, 4.5, 2000)).astype(np.int64)
    iv = ratio_interval(_moments({"a": a, "b": b}), ["a"], ["b"], Design())
    boot = stats.bootstrap((a, b), lambda x, y: x.sum() / y.sum(), paired=True,
                           vectorized=False, n_resamples=2000, method="percentile",
                           random_state=1)
    ci = boot.confidence_interval
    assert iv is not None and iv.high is not None and iv.low is not None
    assert (iv.high - iv.low) == pytest.approx(ci.high - ci.low, rel=0.1)


def test_paired_interval_is_narrower_than_the_two_apart() -> None:
    # two tokenizers on the same documents: their token counts move together
    rng = np.random.default_rng(5)
    chars = rng.integers(50, 400, 200)
    t1 = (chars / rng.uniform(3.5, 4.5, 200)).astype(np.int64) + 1
    t2 = t1 + rng.integers(0, 3, 200)
    m = _moments({"c": chars, "t1": t1, "t2": t2})
    pair = paired_interval(m, ["c"], ["t1"], ["c"], ["t2"], Design())
    one = ratio_interval(m, ["c"], ["t1"], Design())
    two = ratio_interval(m, ["c"], ["t2"], Design())
    assert pair is not None and one is not None and two is not None
    assert pair.value == pytest.approx(t2.sum() / t1.sum())
    assert pair.low is not None and pair.high is not None
    assert pair.low > 1.0  # t2 always has at least t1's tokens: distinguishable
    rel_pair = (pair.high - pair.low) / pair.value
    rel_apart = math.hypot((one.high - one.low) / one.value, (two.high - two.low) / two.value)
    assert rel_pair < rel_apart / 5


def test_runs_compare_each_tokenizer_with_the_best_on_the_same_documents() -> None:
    texts = ["ab", "é", "aé", "éé", "abc", "a", "é a", "b", "éa", "ba", "c", "éé é"]
    res = run(["bytes", "chars"], [_suite(texts)], ["compression"])
    row = _row(res, "bytes", "chars_per_token")
    best = _row(res, "chars", "chars_per_token")
    assert best.value == 1.0 and "vs" not in best.extra
    assert row.extra["vs"] == "chars"
    assert row.extra["vs_ratio"] == pytest.approx(row.value / best.value)
    assert row.extra["vs_distinct"] is True
    ref = run(["bytes", "chars"], [_suite(texts)], ["compression"], reference="bytes")
    assert _row(ref, "chars", "chars_per_token").extra["vs"] == "bytes"


def test_ratio_to_size_estimate_by_hand() -> None:
    # blocks of known bytes: stratum totals are size_h · Σz / Σbytes (Cochran's separate
    # ratio estimate); the variance uses residuals against the bytes of each block
    from tokbench.metrics.intervals import SIZE, linearized_variance

    a1, b1, s1 = np.array([40, 44, 39]), np.array([10, 11, 10]), np.array([100, 110, 98])
    a2, b2, s2 = np.array([9, 12, 10, 8]), np.array([9, 12, 11, 8]), np.array([50, 64, 58, 45])
    m = _moments({"a": np.r_[a1, a2], "b": np.r_[b1, b2], SIZE: np.r_[s1, s2]},
                 ["h1"] * 3 + ["h2"] * 4)
    design = Design({"h1": 3 / 10, "h2": 4 / 8}, size={"h1": 1000.0, "h2": 450.0})
    ya = 1000 * a1.sum() / s1.sum() + 450 * a2.sum() / s2.sum()
    yb = 1000 * b1.sum() / s1.sum() + 450 * b2.sum() / s2.sum()
    r = ya / yb
    var = 0.0
    for a, b, s, size, f in ((a1, b1, s1, 1000, 0.3), (a2, b2, s2, 450, 0.5)):
        w = size / s.sum()
        u = (a - a.sum() / s.sum() * s) / yb - r * (b - b.sum() / s.sum() * s) / yb
        var += a.size * (1 - f) * (w * u).var(ddof=1)
    v, units, df = linearized_variance(m, {"a": 1 / yb, "b": -r / yb}, design)
    assert v == pytest.approx(var, rel=1e-10)
    assert (units, df) == (7, 5)
    iv = ratio_interval(m, ["a"], ["b"], design)
    assert iv is not None and iv.value == pytest.approx(r)


def test_the_verdict_says_when_the_runner_up_cannot_be_told_apart() -> None:
    from tokbench.metrics.verdict import verdict
    from tokbench.record import RunMeta, SuiteInfo
    from tokbench.results import Results, Row

    def rows(distinct: bool) -> Results:
        return Results(meta=RunMeta(suites={"s": SuiteInfo(name="s")}), rows=[
            Row("a", "s", "all", "chars_per_token", 3.00),
            Row("b", "s", "all", "chars_per_token", 2.95,
                {"vs": "a", "vs_ratio": 2.95 / 3, "vs_low": 0.97 if distinct else 0.96,
                 "vs_high": 0.999 if distinct else 1.004, "vs_distinct": distinct,
                 "ci_level": 0.95}),
        ])

    (line,) = verdict(rows(False)).of("cost")
    assert line.winner is not None and line.winner.tokenizer == "a"
    assert any(c == "not distinguishable from b on these documents (paired 95% interval of "
               "the ratio 0.9600–1.0040)" for c in line.caveats), line.caveats
    (line,) = verdict(rows(True)).of("cost")
    assert not any("distinguishable" in c for c in line.caveats)


def test_cells_show_the_interval_and_the_paired_mark() -> None:
    from tokbench.metrics import metric_info
    from tokbench.render.tables import format_cell

    info = metric_info("chars_per_token")
    extra = {"ci_low": 1.2833, "ci_high": 1.3269, "vs_distinct": False, "vs_ratio": 0.98}
    assert format_cell(1.3051, info, extra) == "1.3051 ± 0.0218 ≈"
    assert format_cell(1.0, metric_info("roundtrip"),
                       {"ci_low": 1.0, "ci_high": 1.0, "vs_distinct": False,
                        "vs_ratio": 1.0}) == "100.00 ± 0.00%"
    assert format_cell(1.3051, info, {"ci_method": "none: 3 units, fewer than 10"}) \
        == "1.3051 °"
    assert format_cell(0.5, metric_info("roundtrip"), {"ci_low": 0.4, "ci_high": 0.6}, 3) \
        == "50.00 ± 10.00% (3 failed)"
