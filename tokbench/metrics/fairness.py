"""Fairness over the languages of a parallel suite, from each tokenizer's premiums.

Per (tokenizer, suite), over every language with a premium (English, the pivot, counts
with 1.0), as glotscope summarizes parity:

* ``premium_gini``: Gini coefficient of the premiums, Σᵢ Σⱼ |pᵢ − pⱼ| / (2 n Σ p): 0 when
  every language costs the same, towards 1 when one language carries all the cost. Scale
  free, so it equals the Gini of tokens per aligned line;
* ``premium_macro``: the unweighted mean premium over the languages;
* ``premium_worst``: the largest premium; which language it is goes in the row's
  ``extra["lang"]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tokbench.constants import ALL
from tokbench.metrics.base import MetricInfo
from tokbench.results import Row

#: settings every premium-family value depends on
PREMIUM_SETTINGS = ("premium_join",)
_NEEDS = ("aligned_tokens",)

GINI = MetricInfo(
    "premium_gini", "lower", "Gini coefficient of the premiums over the suite's languages (0: "
    "every language costs the same)", "Σᵢ Σⱼ |pᵢ − pⱼ| / (2 n Σ p)", family="premium",
    needs=_NEEDS, settings=PREMIUM_SETTINGS)
MACRO = MetricInfo(
    "premium_macro", "lower", "mean premium over the suite's languages", "Σ p / n",
    family="premium", needs=_NEEDS, settings=PREMIUM_SETTINGS)
WORST = MetricInfo(
    "premium_worst", "lower", "largest premium of the suite's languages (the language is in "
    "the row)", "max p", family="premium", needs=_NEEDS, settings=PREMIUM_SETTINGS)
#: the fairness metrics, in the order they are listed
FAIRNESS_METRICS = (GINI, MACRO, WORST)


def gini(values: Iterable[float]) -> float | None:
    """Gini coefficient Σᵢ Σⱼ |xᵢ − xⱼ| / (2 n Σ x) of non-negative values."""
    xs = sorted(values)
    n, total = len(xs), sum(xs)
    if n == 0 or total <= 0:
        return None
    # Σᵢ Σⱼ |xᵢ − xⱼ| = 2 Σₖ (2k − n + 1) xₖ over the sorted values (k from 0)
    return sum((2 * k - n + 1) * x for k, x in enumerate(xs)) / (n * total)


def summarize(premiums: Mapping[str, float]) -> dict[str, tuple[float, str | None]]:
    """metric -> (value, worst language or None) for one tokenizer's premiums by language."""
    if len(premiums) < 2:
        return {}
    worst = max(premiums, key=lambda lang: (premiums[lang], lang))
    g = gini(premiums.values())
    out: dict[str, tuple[float, str | None]] = {
        MACRO.name: (sum(premiums.values()) / len(premiums), None),
        WORST.name: (premiums[worst], worst),
    }
    if g is not None:
        out[GINI.name] = (g, None)
    return out


def fairness_rows(premium_rows: Iterable[Row]) -> list[Row]:
    """The fairness rows (subset ``all``) of every (tokenizer, suite) with premiums."""
    by_unit: dict[tuple[str, str], dict[str, float]] = {}
    for r in premium_rows:
        if r.metric == "premium" and isinstance(r.value, (int, float)):
            by_unit.setdefault((r.tokenizer, r.suite), {})[r.subset] = float(r.value)
    rows = []
    for (tok, suite), premiums in by_unit.items():
        for metric, (value, lang) in summarize(premiums).items():
            extra = {"lang": lang} if lang else {}
            rows.append(Row(tok, suite, ALL, metric, value,
                            {**extra, "languages": len(premiums)}))
    return rows
