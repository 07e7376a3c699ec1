"""The tokenizer family: facts about each tokenizer's vocabulary, read from the tokenizer
alone (rows of the pseudo-suite ``vocab``), counted while a pool's workers load."""

from __future__ import annotations

import time

from tokbench.constants import ALL, VOCAB_SUITE
from tokbench.events import Advanced, UnitReached
from tokbench.families.base import Family, RunContext
from tokbench.results import Row


class VocabularyFamily(Family):
    """One unit per tokenizer: ``tokbench.metrics.tokenizer_facts``."""

    per_tokenizer = True

    def units(self, ctx: RunContext) -> int:
        return len(ctx.toks)

    def before_shards(self, ctx: RunContext) -> None:
        for name in ctx.toks:
            self._vocab_unit(ctx, name)

    def _vocab_unit(self, ctx: RunContext, name: str) -> None:
        tok = ctx.toks[name]
        ctx.notify(UnitReached(tokenizer=name, suite=VOCAB_SUITE))
        reused = ctx.reused(name, VOCAB_SUITE)
        if reused is not None:
            rows = reused
        else:
            from tokbench.metrics.tokenizer_facts import cached_vocabulary_facts

            t0 = time.perf_counter()
            facts = cached_vocabulary_facts(tok)
            ctx.timings.vocab += time.perf_counter() - t0
            rows = [Row(name, VOCAB_SUITE, ALL, k, v) for k, v in facts.items()]
        ctx.results.rows.extend(rows)
        ctx.unit_finished(name, VOCAB_SUITE)
        ctx.notify(Advanced(steps=1))
        ctx.checkpoint()
