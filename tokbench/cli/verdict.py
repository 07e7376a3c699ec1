"""The verdict and caveat legends on the terminal (numbers from ``tokbench.metrics.verdict``,
cells from ``tokbench.render.verdict``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tokbench.metrics.verdict import Verdict


def print_verdict(con: Any, v: Verdict) -> None:
    """One block per kind: subject on the left, the answer and its caveat wrapped on the
    right, so it fits any width."""
    from rich.table import Table

    from tokbench.cli.console import escape
    from tokbench.render.verdict import TITLES, sentence

    for kind in ("cost", "speed"):
        lines = v.of(kind)
        if not lines:
            continue
        con.print(f"[bold]{escape(TITLES[kind])}[/]", highlight=False)
        grid = Table.grid(padding=(0, 2), pad_edge=True)
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1)
        for line in lines:
            text = f"[bold green]{escape(sentence(line))}[/]"
            if line.caveat:
                text += f"\n[yellow]! {escape(line.caveat)}[/]"
            grid.add_row(escape(line.subject), text)
        con.print(grid)
    if v:
        con.print()


def print_legend(con: Any, symbols: Iterable[str]) -> None:
    """The caveat symbols that occurred (``†``, ``‡``), one line each."""
    from tokbench.cli.console import escape
    from tokbench.metrics.trust import legend

    for text in legend(symbols):
        con.print(f"[yellow]{escape(text)}[/]", highlight=False)
