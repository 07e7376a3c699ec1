"""``tokbench compare BASE NEW``: what got better or worse between two runs; exit 1 on regression.

The comparison is computed by ``tokbench.ci.compare`` and rendered by
``tokbench.render.comparison``; the same options gate ``tokbench run --baseline``
(``tokbench.cli.gate``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:

    from tokbench.ci.compare import Comparison

HELP = ("compare two runs (results.json or run directories); exit 0 no regression, "
        "1 regression, 2 bad input or nothing compared")



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("base", metavar="BASE", help="the reference run: results.json or its folder")
    p.add_argument("new", metavar="NEW", help="the run to judge: results.json or its folder")
    from tokbench.cli.flags import JsonFlag, add_old_spelling
    from tokbench.cli.gate import add_compare_options

    add_compare_options(p)
    p.add_argument("--all", action="store_true", dest="all_rows",
                   help="show every row, not only the rows that changed")
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table",
                   help="what to print: a terminal table (default), Markdown, JSON")
    p.add_argument("--json", action=JsonFlag, dest="format",
                   help="print JSON (same as --format json; the old --json FILE still writes "
                        "FILE for one release: use --json-out)")
    p.add_argument("--markdown-out", metavar="FILE", help="also write the Markdown (a PR comment)")
    p.add_argument("--json-out", metavar="FILE", help="also write the JSON")
    add_old_spelling(p, "--markdown", "--markdown-out", dest="markdown_out")


def main(args: argparse.Namespace) -> int:
    from tokbench.ci.compare import compare, load_run
    from tokbench.cli.console import console
    from tokbench.render.comparison import print_comparison, render_markdown

    base, new = load_run(args.base), load_run(args.new)
    comp = compare(base, new, fail=args.fail, allow_change=args.allow_change,
                   allow_removed=args.allow_removed, allow_missing=args.allow_missing,
                   timings=args.judge_timings, base_label=str(args.base),
                   new_label=str(args.new))
    comp.require_compared()  # exit 2: a comparison of nothing is no pass
    _write_files(comp, args.markdown_out, args.json_out, args.all_rows)
    out = console()
    if args.format == "json":
        out.out(json.dumps(comp.to_dict(all_rows=args.all_rows), ensure_ascii=False,
                           indent=1), highlight=False)  # out(): never wrapped
    elif args.format == "markdown":
        out.out(render_markdown(comp, all_rows=args.all_rows), highlight=False)
    else:
        print_comparison(out, comp, all_rows=args.all_rows)
    return 1 if comp.regression else 0


def _write_files(comp: Comparison, markdown: str | None, json_file: str | None,
                 all_rows: bool) -> None:
    from tokbench.render.comparison import render_markdown

    if markdown:
        _write(Path(markdown), render_markdown(comp, all_rows=all_rows))
    if json_file:
        _write(Path(json_file), json.dumps(comp.to_dict(all_rows=all_rows), ensure_ascii=False,
                                           indent=1) + "\n")


def _write(path: Path, text: str) -> None:
    from tokbench.atomic import write_atomic

    write_atomic(path, text)


