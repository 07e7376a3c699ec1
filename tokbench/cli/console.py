"""Terminal output for the CLI: rich consoles and progress bars (library code never prints)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


@cache
def console() -> Console:
    from rich.console import Console

    return Console()


@cache
def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


def progress(transient: bool = False) -> Progress:
    """A progress bar on stderr with a description, bar, count and elapsed/remaining time."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=err_console(),
                    transient=transient)


def byte_progress(transient: bool = False) -> Progress:
    """A progress bar over bytes of text: done / total, speed and time remaining."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                    TransferSpeedColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                    console=err_console(), transient=transient)


def print_fitted(con: Console, title: str, label: str, names: Sequence[str],
                 columns: Sequence[tuple[str, Sequence[str]]]) -> None:
    """A table of ``names`` (rows, plain text) against ``columns`` ((header, rich-markup
    cells)), split into as many tables as it takes to fit the console's width: values are
    never cut and headers wrap at spaces. The first part carries ``title``."""
    from rich.markup import escape

    chunks: list[list[tuple[str, Sequence[str]]]] = [[]]
    for col in columns:
        if chunks[-1] and _min_width(con, label, names, [*chunks[-1], col]) > con.width:
            chunks.append([])
        chunks[-1].append(col)
    for k, chunk in enumerate(chunks):
        part = f" ({k + 1}/{len(chunks)})" if len(chunks) > 1 else ""
        con.print(_table(escape(title + part), label, names, chunk))


def _table(title: str, label: str, names: Sequence[str],
           columns: Sequence[tuple[str, Sequence[str]]]) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1),
                  pad_edge=False, collapse_padding=True)
    table.add_column(escape(label), no_wrap=True,
                     min_width=max([len(label), *(Text(n).cell_len for n in names)]))
    for header, cells in columns:
        width = max([*(Text.from_markup(c).cell_len for c in cells),
                     *(len(w) for w in header.split())])
        table.add_column(escape(header), justify="right", min_width=width)
    for i, name in enumerate(names):
        table.add_row(escape(name), *(cells[i] for _, cells in columns))
    return table


def _min_width(con: Console, label: str, names: Sequence[str],
               columns: Sequence[tuple[str, Sequence[str]]]) -> int:
    from rich.measure import Measurement

    return Measurement.get(con, con.options, _table("", label, names, columns)).minimum
