"""The premium family: tokens per language relative to English on the same parallel
documents (Petrov et al. 2023), and the fairness summaries of those premiums."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tokbench.constants import PIVOT
from tokbench.families.base import FormulaFamily, PlanView, RunContext
from tokbench.metrics.compute import ratio
from tokbench.metrics.fairness import fairness_rows
from tokbench.results import Row

if TYPE_CHECKING:
    from tokbench.metrics.stats import UnitStats
    from tokbench.suites.model import RunnableSuite


class PremiumFamily(FormulaFamily):
    """Premium rows per language and their fairness rows, from the aligned documents'
    token counts a parallel suite's shards collect."""

    def collectors(self, suite: RunnableSuite) -> set[str]:
        return super().collectors(suite) if suite.parallel else {"counts"}

    def warnings(self, suites: Sequence[RunnableSuite]) -> list[str]:
        out = []
        for suite in suites:
            if suite.parallel and PIVOT not in suite.languages():
                out.append(f"suite {suite.name!r} has no {PIVOT} documents, so premium is not "
                           f"computed; include English (e.g. ?languages={PIVOT},...) to get it")
        return out

    def suite_rows(self, ctx: RunContext, plan: PlanView, tokenizer: str, stats: UnitStats
                   ) -> list[Row]:
        if not plan.suite.parallel:
            return []
        premiums = self._premium_rows(ctx, tokenizer, plan.suite, stats)
        return [*premiums, *fairness_rows(premiums)]

    def _premium_rows(self, ctx: RunContext, name: str, suite: RunnableSuite,
                      stats: UnitStats) -> list[Row]:
        """Tokens per language over the aligned documents it shares with English."""
        pivot = stats.aligned.get(PIVOT)
        if not pivot:
            return []
        rows = []
        for lang, members in sorted(stats.aligned.items()):
            keys = [k for k in pivot if k in members]
            if not keys:
                continue
            if ctx.settings.premium_join:
                n_lang, n_eng = _joined_counts(ctx, name, suite, lang, keys)
            else:
                n_lang = sum(members[k] for k in keys)
                n_eng = sum(pivot[k] for k in keys)
            value = ratio(n_lang, n_eng)
            if value is not None:
                rows.append(Row(name, suite.name, lang, "premium", value))
        return rows


def _joined_counts(ctx: RunContext, name: str, suite: RunnableSuite, lang: str,
                   keys: list[str]) -> tuple[int, int]:
    """Premium as Petrov et al. count it: each language's documents joined by spaces,
    in corpus order, encoded at once."""
    texts = _aligned_texts(suite)
    order = [k for k in texts.get(PIVOT, {}) if k in set(keys)]
    tok = ctx.toks[name]
    t0 = time.perf_counter()
    n_lang = len(tok.encode(" ".join(texts[lang][k] for k in order)))
    n_eng = len(tok.encode(" ".join(texts[PIVOT][k] for k in order)))
    ctx.timings.encode += time.perf_counter() - t0
    return n_lang, n_eng


def _aligned_texts(suite: RunnableSuite) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for d in suite.documents:
        if d.align is not None:
            out.setdefault(d.lang, {})[d.align] = d.text
    return out
