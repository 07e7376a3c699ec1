"""``tokbench history METRIC -t TOKENIZER -s SUITE``: one metric over the recorded runs."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from tokbench.errors import InputError

HELP = "show (and plot) a metric's trend over the runs recorded in the history database"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("metric", metavar="METRIC", nargs="?",
                   help="a metric, e.g. bytes_per_token (optional with --add)")
    from tokbench.cli.flags import add_old_spelling

    p.add_argument("--tokenizers", "-t", dest="tokenizer", metavar="TOKENIZER",
                   help="the tokenizer, one name (optional when only one is recorded)")
    p.add_argument("--suites", "-s", dest="suite", metavar="SUITE",
                   help="the suite, one name (optional when only one is recorded)")
    add_old_spelling(p, "--tokenizer", "--tokenizers", dest="tokenizer")
    add_old_spelling(p, "--suite", "--suites", dest="suite")
    p.add_argument("--subset", help="subset, e.g. jpn_Jpan (default: all)")
    p.add_argument("--machine", help="only runs of this machine (hostname)")
    p.add_argument("--last", type=int, metavar="N", help="only the last N runs")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the trend as a PNG")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="what to print: a terminal table (default) or JSON")
    p.add_argument("--json", action="store_const", dest="format", const="json",
                   help="print JSON (same as --format json)")
    p.add_argument("--history", metavar="PATH",
                   help="the database (default $TOKBENCH_HISTORY or reports/history.sqlite)")
    p.add_argument("--add", action="append", default=[], metavar="RUN",
                   help="record an existing run (results.json or its folder) first; repeatable")


def main(args: argparse.Namespace) -> int:
    from tokbench.ci.history import History, history_path
    from tokbench.cli.console import console

    path = history_path(args.history)
    con = console()
    if args.last is not None and args.last < 1:
        raise InputError("--last must be at least 1")
    if args.add:
        from tokbench.results import Results

        runs = [(run, Results.load(run)) for run in args.add]  # all valid before any write
        with History(path) as h:
            for run, results in runs:
                added = h.record(results, source=str(run))
                con.print(f"{'recorded' if added else 'already recorded'}: {run} "
                          f"(commit {(results.meta.git_commit or '?')[:12]}) in {path}",
                          highlight=False, markup=False)
        if args.metric is None:
            return 0
    if args.metric is None:
        raise InputError("give a METRIC, e.g. tokbench history bytes_per_token -t gpt2 "
                         "-s multilingual")
    with History(path, create=False) as h:
        metric = h.resolve("metric", args.metric)
        tokenizer = h.resolve("tokenizer", args.tokenizer, metric=metric)
        suite = h.resolve("suite", args.suite, metric=metric, tokenizer=tokenizer)
        where = {"metric": metric, "tokenizer": tokenizer, "suite": suite}
        given = args.subset
        if given is None and "all" in h.values("subset", **where):
            given = "all"
        subset = h.resolve("subset", given, **where)
        points = h.trend(metric, tokenizer, suite, subset, machine=args.machine, last=args.last)
    if not points:
        raise InputError(f"{path}: no runs of {metric} for {tokenizer} · {suite} · {subset}"
                         + (f" on machine {args.machine}" if args.machine else ""))
    title = f"{metric} · {tokenizer} · {suite} · {subset}"
    if args.format == "json":
        con.out(json.dumps({"metric": metric, "tokenizer": tokenizer, "suite": suite,
                            "subset": subset, "points": [p.to_dict() for p in points]},
                           ensure_ascii=False, indent=1), highlight=False)
    else:
        _print_table(con, points, title, metric)
    if args.plot:
        from tokbench.metrics import metric_info
        from tokbench.render.history import plot_trend

        info = metric_info(metric)
        png = plot_trend(points, args.plot, title,
                         ylabel=f"{metric} {info.unit} {info.arrow}".replace("  ", " ").strip())
        con.print(f"wrote {png}", highlight=False, markup=False)
    return 0


def _print_table(con: Any, points: list[Any], title: str, metric: str) -> None:
    from rich.table import Table

    from tokbench.cli.console import escape
    from tokbench.metrics import metric_info
    from tokbench.render.tables import format_value

    info = metric_info(metric)
    machines = {p.machine for p in points}
    table = Table(title=escape(f"{title} {info.arrow}".strip()), title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("commit")
    table.add_column("time")
    if len(machines) > 1:
        table.add_column("machine")
    table.add_column("value", justify="right")
    table.add_column("change", justify="right")
    table.add_column("note")
    for k, p in enumerate(points, 1):
        cells = [str(k), (p.commit or "–")[:12], p.created or "–"]
        if len(machines) > 1:
            cells.append(p.machine or "–")
        cells += [format_value(p.value, info), _change(p.change, info.direction),
                  ", ".join(p.notes)]
        table.add_row(*map(escape, cells))
    con.print(table)


def _change(change: float | None, direction: str) -> str:
    if change is None:
        return ""
    if change == 0:
        return "="
    if math.isinf(change):
        text = "+∞" if change > 0 else "−∞"
    else:
        text = f"{'+' if change > 0 else '−'}{abs(change) * 100:.2f}%"
    if direction == "none":
        return text
    good = (change > 0) == (direction == "higher")
    return f"[{'green' if good else 'red'}]{text}[/]"
