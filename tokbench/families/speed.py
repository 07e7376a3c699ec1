"""The speed family: tail latency, threads, length scaling and load cost of each
tokenizer (``tokbench.speed``), once per tokenizer on samples of every suite, after all
other work so nothing competes for the CPU; its rows use the pseudo-suite ``speed``."""

from __future__ import annotations

import time
from collections.abc import Sequence

from tokbench.constants import ALL
from tokbench.events import UnitReached
from tokbench.families.base import Family, PlanView, RunContext
from tokbench.families.throughput import throughput_texts
from tokbench.record import SuiteInfo


class SpeedFamily(Family):
    """``tokbench bench``'s measurements as rows of a run."""

    #: its rows are per tokenizer, but thread scaling and latency need the machine to
    #: themselves: a run with them is never split over two processes
    per_tokenizer = False

    def after_all(self, ctx: RunContext, plans: Sequence[PlanView]) -> None:
        self._speed(ctx, plans)

    def _speed(self, ctx: RunContext, plans: Sequence[PlanView]) -> None:
        if not ctx.toks:
            return
        from tokbench.speed import speed_rows
        from tokbench.speed.bench import SUITE, suite_meta

        texts = [t for p in plans for t in throughput_texts(p.suite, False)[ALL]]
        ctx.results.meta.suites[SUITE] = SuiteInfo.from_dict(
            suite_meta([p.suite.name for p in plans], texts))
        for name, tok in ctx.toks.items():
            spec = ctx.specs[name]
            t0 = time.perf_counter()
            ctx.results.rows.extend(speed_rows(
                tok, texts, suite=SUITE, spec=spec if isinstance(spec, str) else None,
                progress=lambda what, n=name: ctx.notify(  # type: ignore[misc]
                    UnitReached(tokenizer=n, suite=f"speed: {what}"))))
            ctx.timings.throughput += time.perf_counter() - t0
            ctx.unit_finished(name, SUITE)
            ctx.checkpoint()
