"""What ``tokbench parity`` and ``tokbench drift`` share on the command line: options, the
checks of their values, the progress bar, and writing and printing the report (exit 1
when any document differs)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import tokbench.events as ev
from tokbench.errors import InputError

STATE = "parity-state.json"


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def add_common(p: argparse.ArgumentParser, default_out: str) -> None:
    """The options ``parity`` and ``drift`` share."""
    from tokbench.parity.run import SPEED_PARTS

    p.add_argument("--suites", "-s", type=_csv, required=True,
                   help="comma-separated suite specs, e.g. 'flores200:DIR?split=devtest'")
    p.add_argument("--out", "-o", default=default_out, help=f"output directory ({default_out})")
    p.add_argument("--jobs", "-j", type=int, default=None,
                   help="worker processes (default: every usable core; 1: this process)")
    p.add_argument("--executor", choices=("local", "dask"), default="local")
    p.add_argument("--scheduler", help="Dask scheduler address (with --executor dask)")
    p.add_argument("--time-limit", type=float, default=10.0, metavar="S",
                   help="seconds one implementation may take on one document (0: no limit)")
    p.add_argument("--examples", type=int, default=20,
                   help="differing documents kept and minimized per implementation (20)")
    p.add_argument("--speed", type=_csv, default=list(SPEED_PARTS), metavar="PARTS",
                   help=f"speed parts to measure ({','.join(SPEED_PARTS)}; also threads, "
                        "scaling; 'none' for no speed)")
    p.add_argument("--speed-budget", type=float, default=1.0, metavar="X",
                   help="scale the speed time budgets by X")
    p.add_argument("--no-plots", action="store_true", help="do not write the PNG plot")
    p.add_argument("--no-html", action="store_true", help="do not write report.html")


def check(args: argparse.Namespace) -> None:
    """Refuse bad option values with one line each."""
    if args.time_limit < 0:
        raise InputError("--time-limit must be 0 (no limit) or more seconds")
    if args.examples < 0:
        raise InputError("--examples must be 0 or more")
    if not args.speed_budget > 0:
        raise InputError("--speed-budget must be above 0, e.g. 0.5")
    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: not a directory; give --out a directory")


def speed_parts(args: argparse.Namespace) -> tuple[str, ...]:
    return () if args.speed == ["none"] else tuple(args.speed)


class ParityProgress:
    """A progress bar fed by the run's events."""

    def __enter__(self) -> ev.Progress:
        from tokbench.cli.console import progress

        self.prog = progress(transient=True)
        self.prog.__enter__()
        self.task = self.prog.add_task("loading", total=None)

        def event(event: ev.Event) -> None:
            from rich.markup import escape

            match event:
                case ev.ParityStarted():
                    self.prog.update(self.task, total=event.shards, description="comparing")
                case ev.ShardDone():
                    self.prog.advance(self.task)
                case ev.SpeedTiming() | ev.Minimizing():
                    self.prog.update(self.task,
                                     description=f"{event.kind} · {escape(event.tokenizer)}")
                case ev.TokenizerFailed():
                    self.prog.console.print(f"[yellow]not run: {escape(event.tokenizer)}: "
                                            f"{escape(event.error)}[/]", highlight=False,
                                            soft_wrap=True)
        return event

    def __exit__(self, *exc: Any) -> None:
        self.prog.__exit__(*exc)


def finish(results: Any, args: argparse.Namespace) -> int:
    """Write the files, print the table, and give the exit code (1: anything differs)."""
    from rich.markup import escape
    from rich.table import Table

    from tokbench.atomic import write_atomic
    from tokbench.cli.console import console
    from tokbench.render.parity import (
        SHORT,
        render_parity_html,
        render_parity_markdown,
        render_parity_plot,
        summary,
        table_cells,
    )

    out = Path(args.out)
    files = [results.save(out)]
    pngs = [] if args.no_plots else render_parity_plot(results, out)
    files += pngs
    files.append(write_atomic(out / "report.md", render_parity_markdown(
        results, [p.name for p in pngs])))
    if not args.no_html:
        files.append(write_atomic(out / "report.html", render_parity_html(
            results, [p.name for p in pngs])))
    ref = str((results.meta.parity or {}).get("reference", ""))
    lines = summary(results)
    docs = max((x["documents"] for x in lines), default=0)
    table = Table(box=None, pad_edge=False, padding=(0, 0, 0, 1), header_style="bold",
                  title=escape(f"{ref} on {docs:,} documents: identical? × how fast"),
                  title_justify="left")
    for c in SHORT:
        table.add_column(c, justify="left" if c in ("impl", "same?") else "right",
                         no_wrap=True, overflow="ellipsis", min_width=len(c),
                         max_width=20 if c == "impl" else None)
    for line in lines:
        table.add_row(*(escape(c) for c in table_cells(line, ref)))
    con = console()
    con.print(table)
    for err in results.meta.errors:
        con.print(f"[yellow]not run: {escape(err.tokenizer or '')}: {escape(err.error)}[/]",
                  highlight=False, soft_wrap=True)
    wrote = ", ".join(str(f) for f in files)
    con.print(f"wrote {escape(wrote)}", highlight=False)
    differs = any(x["identical"] is False for x in lines) or bool(results.meta.errors)
    return 1 if differs else 0
