"""``tokbench parity REF IMPL... -s SUITES``: id-for-id parity and speed of implementations.

Exit code 0 when every implementation gives the reference's ids on every document, 1
when any document differs (or an implementation failed on one, or could not be loaded):
a CI gate. Writes results.json, report.md, report.html and the speed-up/parity plot.
"""

from __future__ import annotations

import argparse

from tokbench.cli.parity import STATE, ParityProgress, add_common, check, finish, speed_parts

HELP = ("is each implementation (NAME@IMPL, e.g. cl100k_base@splintr) id-for-id identical "
        "to the reference, and how much faster? exit 1 when any document differs")
DEFAULT_OUT = "reports/parity"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reference", help="the reference tokenizer (a name or spec)")
    p.add_argument("implementations", nargs="+", metavar="IMPL",
                   help="tokenizers to compare with it, e.g. cl100k_base@bpe-openai")
    add_common(p, DEFAULT_OUT)


def main(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tokbench.parity.run import parity

    check(args)
    out = Path(args.out)
    with ParityProgress() as event:
        results = parity(args.reference, args.implementations, args.suites, jobs=args.jobs,
                         executor=args.executor, scheduler=args.scheduler,
                         state=out / STATE, time_limit=args.time_limit, examples=args.examples,
                         speed=speed_parts(args), speed_budget=args.speed_budget, event=event)
    return finish(results, args)


