"""``tokbench verify RUN_DIR``: recompute a run from what it records, row by row."""

from __future__ import annotations

import argparse

HELP = ("recompute a run from what its results.json records (tokenizer files and suites by "
        "hash, settings) and say row by row whether the numbers reproduce; exit 1 if not")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run directory or its results.json")
    p.add_argument("--all", action="store_true",
                   help="list every row, not only those that do not reproduce")


def main(args: argparse.Namespace) -> int:
    from rich.table import Table

    from tokbench.ci.verify import verify
    from tokbench.cli.console import console, escape
    from tokbench.errors import InputError
    from tokbench.metrics import metric_info
    from tokbench.results import Results

    results = Results.load(args.run_dir)
    if not any(metric_info(r.metric).deterministic for r in results.rows):
        raise InputError(f"{args.run_dir}: no row to verify ({len(results.rows)} rows, none "
                         "deterministic); give the results.json of a run with its rows")
    outcome = verify(results)
    out = console()
    for problem in outcome.problems:
        out.print(f"[red]✗[/] {escape(problem)}")
    if outcome.problems:
        out.print("[red]not verified:[/] the recorded inputs are not available as they were")
        return 1
    table = Table("tokenizer", "suite", "subset", "metric", "recorded", "recomputed", "",
                  title="rows", title_justify="left")
    for c in outcome.checks:
        if c.ok and not args.all:
            continue
        got = "missing" if c.missing else str(c.recomputed)
        table.add_row(*(escape(str(k)) for k in c.key), escape(str(c.recorded)),
                      escape(got), "[green]✓[/]" if c.ok else "[red]✗[/]")
    if table.row_count:
        out.print(table)
    bad = sum(not c.ok for c in outcome.checks)
    note = f" ({outcome.skipped} timing rows not checked)" if outcome.skipped else ""
    if bad:
        out.print(f"[red]{bad} of {len(outcome.checks)} rows do not reproduce[/]{note}")
        return 1
    out.print(f"[green]all {len(outcome.checks)} rows reproduce[/]{note}")
    return 0
