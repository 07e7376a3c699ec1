"""The morph_gold family: MorphScore and boundary precision/recall/F1 of every tokenizer
on a gold segmentation file (``--morph-gold``, ``tokbench.suites.morph_gold``), rows of
the pseudo-suite ``morph-gold``; scored whenever the file is given, and never on a
suite (choosing the family without the file used to fail on the first suite)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tokbench.constants import ALL
from tokbench.events import UnitReached
from tokbench.families.base import FormulaFamily, RunContext, RunSettings
from tokbench.metrics import metrics_of
from tokbench.metrics.base import MetricContext
from tokbench.metrics.compute import metric_rows
from tokbench.metrics.stats import SubsetStats
from tokbench.record import SuiteInfo

if TYPE_CHECKING:
    from tokbench.suites.model import RunnableSuite
    from tokbench.suites.morph_gold import GoldFile


class GoldFamily(FormulaFamily):
    """Scores the ``morph_gold`` setting's file once per tokenizer, before the shards."""

    gold: GoldFile | None = None
    #: chosen by name without a file: nothing to score, said once as a warning
    missing_file: bool = False

    def wanted(self, chosen: Sequence[str], settings: RunSettings) -> bool:
        return bool(settings.morph_gold) or self.name in chosen

    def applies_to(self, suite: RunnableSuite, explicit: bool) -> bool:
        """Never a suite's: its statistics come from the gold words, not from shards."""
        return False

    def prepare(self, ctx: RunContext) -> None:
        self.missing_file = not ctx.settings.morph_gold
        if ctx.settings.morph_gold:  # a bad gold file stops the run before any work
            from tokbench.suites.morph_gold import read_gold

            self.gold = read_gold(ctx.settings.morph_gold)

    def warnings(self, suites: Sequence[RunnableSuite]) -> list[str]:
        if not self.missing_file:
            return []
        return [f"{self.name} scores a gold segmentation file and none was given, so it is "
                f"left empty; add --morph-gold FILE (MorphScore items, un+believ+able CSV "
                f"or JSONL)"]

    def before_shards(self, ctx: RunContext) -> None:
        if self.gold is not None:
            self._gold_unit(ctx, self.gold)

    def _gold_unit(self, ctx: RunContext, gold: GoldFile) -> None:
        """MorphScore and boundary P/R/F1 of every tokenizer on the --morph-gold file."""
        from tokbench.metrics.morph_score import score_gold
        from tokbench.suites.morph_gold import GOLD_SUITE

        langs = sorted({w.lang for w in gold.words if w.lang})
        ctx.results.meta.suites[GOLD_SUITE] = SuiteInfo(
            name=GOLD_SUITE, sha256=gold.sha256, source=gold.path,
            documents=len(gold.words), languages=langs)
        groups = {ALL: np.arange(len(gold.words))}
        for lang in langs:
            groups[lang] = np.asarray([i for i, w in enumerate(gold.words) if w.lang == lang])
        metrics = metrics_of([self.name])
        for name, tok in ctx.toks.items():
            per_word = score_gold(tok, [w.word for w in gold.words],
                                  [w.boundaries for w in gold.words])
            mctx = MetricContext(tok.vocab_size, tok.unk_id is not None)
            for subset, idx in groups.items():
                sums = {k: int(v[idx].sum()) for k, v in per_word.items()}
                sums["ok"] = sums["docs"] = int(idx.size)
                ctx.results.rows.extend(metric_rows(name, GOLD_SUITE, subset,
                                                    SubsetStats(sums), metrics, mctx))
            ctx.notify(UnitReached(tokenizer=name, suite=GOLD_SUITE))
        ctx.checkpoint()
