"""``tokbench baseline update|show``: the committed run that ``run --baseline`` gates against."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tokbench.atomic import write_atomic
from tokbench.errors import InputError, TokbenchError

if TYPE_CHECKING:
    from tokbench.results import Results

HELP = "write a run as the regression baseline (tokbench-baseline.json) or show the baseline"

DEFAULT_FROM = "reports/latest"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tokbench.cli.gate import DEFAULT_BASELINE

    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    up = sub.add_parser("update", help="write a run as the new baseline",
                        description="Write a run's results.json as the baseline. Commit the "
                                    "file: pull requests are then gated against it.")
    up.add_argument("--from", dest="source", default=DEFAULT_FROM, metavar="RUN",
                    help=f"the run: results.json or its folder (default: {DEFAULT_FROM})")
    up.add_argument("--to", dest="target", default=DEFAULT_BASELINE, metavar="FILE",
                    help=f"the baseline file (default: {DEFAULT_BASELINE} in this folder)")
    up.add_argument("--force", action="store_true",
                    help="accept an incomplete (interrupted) run")
    show = sub.add_parser("show", help="say what the baseline is")
    show.add_argument("file", nargs="?", default=DEFAULT_BASELINE, metavar="FILE",
                      help=f"the baseline file (default: {DEFAULT_BASELINE})")


def main(args: argparse.Namespace) -> int:
    from tokbench.cli.console import console
    from tokbench.results import Results

    con = console()
    if args.action == "show":
        path = Path(args.file)
        if not path.exists():
            raise InputError(f"{path}: no baseline yet; write one with `tokbench baseline "
                             "update --from RUN_DIR`")
        con.print(_describe(path, Results.load(path)), highlight=False, markup=False)
        return 0

    from tokbench.ci.compare import compare, load_run

    results = load_run(args.source)
    if not (results.meta.has("complete") and results.meta.complete) and not args.force:
        raise InputError(f"{args.source}: the run is incomplete (interrupted); finish it with "
                         "`tokbench run --resume` or pass --force")
    target = Path(args.target)
    old = None
    if target.exists():
        try:
            old = Results.load(target)
        except TokbenchError:
            old = None  # replaced anyway; it was not a usable baseline
    write_atomic(target, results.to_json(), what="the baseline")
    con.print(f"baseline {target} ← {_describe(Path(args.source), results)}", highlight=False,
              markup=False)
    if old is not None and old.rows:
        verdict = compare(old, results, allow_change=["all"], allow_removed=True).verdict()
        con.print(f"against the previous baseline: {verdict}", highlight=False)
    con.print("commit it so pull requests are gated against it", highlight=False)
    return 0


def _describe(path: Path, results: Results) -> str:
    meta = results.meta
    commit = (meta.git_commit or "no commit")[:12]
    return (f"{path}: commit {commit}, created {meta.created or '?'}, "
            f"{len(meta.tokenizers)} tokenizers, "
            f"{len(meta.suites)} suites, {len(results.rows)} rows")

