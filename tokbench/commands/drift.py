"""``tokbench drift SPEC --versions "tokenizers==0.19.1,tokenizers==0.23.3" -s SUITES``.

The parity report of one tokenizer between versions of the library that runs it; each
version in its own cached environment (built with pip on first use). Exit 1 when any
document's ids changed between the versions.
"""

from __future__ import annotations

import argparse

from tokbench.cli.parity import STATE, ParityProgress, add_common, check, finish, speed_parts

HELP = ("did ids change between library versions? the parity report of one tokenizer under "
        "each version (cached pip environments); exit 1 when any document differs")
DEFAULT_OUT = "reports/drift"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="the tokenizer (a name or spec, e.g. xlm-roberta or "
                                "file:tokenizer.json)")
    p.add_argument("--versions", required=True, metavar="PINS",
                   help="comma-separated NAME==VERSION pins; the first is the reference")
    add_common(p, DEFAULT_OUT)
    # timing through the pipe to another environment measures the pipe: no speed unless asked
    p.set_defaults(speed=["none"])


def main(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tokbench.parity.drift import drift

    check(args)
    out = Path(args.out)
    with ParityProgress() as event:
        results = drift(args.spec, args.versions, args.suites, jobs=args.jobs,
                        executor=args.executor, scheduler=args.scheduler, state=out / STATE,
                        time_limit=args.time_limit, examples=args.examples,
                        speed=speed_parts(args), speed_budget=args.speed_budget, event=event)
    return finish(results, args)
