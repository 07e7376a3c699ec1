"""Terminal output for the CLI: rich consoles and progress bars (library code never prints)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


def escape(text: object) -> str:
    """User text for rich markup: markup escaped, control and bidi characters spelled
    ``<U+XXXX>`` (a U+202E in a name must not reorder the terminal line)."""
    from rich.markup import escape as rich_escape

    from tokbench.render.visible import shown

    return rich_escape(shown(str(text)))


@cache
def console() -> Console:
    return _console_class()()


@cache
def err_console() -> Console:
    return _console_class()(stderr=True)


@cache
def _console_class() -> type[Console]:
    import os
    import sys

    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            """The reader went away (``tokbench list | head -1``): stdout goes to the
            null device and ``BrokenPipeError`` ends the command, which exits 0 as for
            any closed pipe (rich's own handler exits 1, which read as a failure)."""
            self.quiet = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise BrokenPipeError

    return _Console


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
    """A progress bar over bytes of text: done / total, speed and time remaining. A task
    added with ``count=True`` (a later phase counted in steps, such as timing) shows
    "done/total" and no speed instead."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )
    from rich.table import Column

    class _Either(ProgressColumn):
        def __init__(self, counted: ProgressColumn, sized: ProgressColumn) -> None:
            super().__init__()
            self.counted, self.sized = counted, sized

        def render(self, task: Task) -> Any:
            if task.fields.get("count"):
                return self.counted.render(task)
            return self.sized.render(task)

    # the description is cut, never wrapped: the line fits an 80-column terminal
    described = TextColumn("{task.description}", table_column=Column(
        max_width=22, no_wrap=True, overflow="ellipsis"))
    return Progress(described, BarColumn(bar_width=12),
                    _Either(MofNCompleteColumn(), DownloadColumn()),
                    _Either(TextColumn(""), TransferSpeedColumn()),
                    TimeElapsedColumn(), TimeRemainingColumn(),
                    console=err_console(), transient=transient)


def print_fitted(con: Console, title: str, label: str, names: Sequence[str],
                 columns: Sequence[tuple[str, Sequence[str]]]) -> None:
    """A table of ``names`` (rows, plain text) against ``columns`` ((header, rich-markup
    cells)), split into as many tables as it takes to fit the console's width: values are
    never cut and headers wrap at spaces (the shortest headers are kept whole first). The
    first part carries ``title``."""

    chunks: list[list[tuple[str, Sequence[str]]]] = [[]]
    for col in columns:
        tight = [_value_width(c) for c in [*chunks[-1], col]]
        if chunks[-1] and _width(label, names, [*chunks[-1], col], tight) > con.width:
            chunks.append([])
        chunks[-1].append(col)
    for k, chunk in enumerate(chunks):
        part = "" if len(chunks) == 1 else f" ({k + 1}/{len(chunks)})"
        heading = title + part if k == 0 else f"(continued, {k + 1}/{len(chunks)})"
        widths: list[int | None] | None = None
        if _width(label, names, chunk) > con.width:  # wrap headers, never values
            tight = [_value_width(c) for c in chunk]
            spare = con.width - _width(label, names, chunk, tight)
            widths = list(tight)
            for i in sorted(range(len(chunk)), key=lambda i: len(chunk[i][0]) - tight[i]):
                grow = len(chunk[i][0]) - tight[i]
                if 0 < grow <= spare:
                    widths[i], spare = len(chunk[i][0]), spare - grow
        con.print(_table(escape(heading), label, names, chunk, widths))


def _value_width(column: tuple[str, Sequence[str]]) -> int:
    """The narrowest a column can be: its widest value or the longest word of its header."""
    from rich.text import Text

    header, cells = column
    return max([*(Text.from_markup(c).cell_len for c in cells), *(len(w) for w in header.split())])


def _table(title: str, label: str, names: Sequence[str],
           columns: Sequence[tuple[str, Sequence[str]]],
           widths: Sequence[int | None] | None = None) -> Any:
    """The rich table; ``widths`` fixes the value columns' widths (None: rich chooses)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1),
                  pad_edge=False, collapse_padding=True)
    table.add_column(escape(label), no_wrap=True,
                     min_width=max([len(label), *(Text(n).cell_len for n in names)]))
    for k, column in enumerate(columns):
        table.add_column(escape(column[0]), justify="right", min_width=_value_width(column),
                         width=widths[k] if widths is not None else None)
    for i, name in enumerate(names):
        table.add_row(escape(name), *(cells[i] for _, cells in columns))
    return table


def _width(label: str, names: Sequence[str], columns: Sequence[tuple[str, Sequence[str]]],
           widths: Sequence[int | None] | None = None) -> int:
    """The width the table takes when nothing limits it: rich's own measure of it, the
    widest line it renders (the same on every table of the default run's summary at 60 to
    150 columns, without rendering each candidate table: 0.9 s of a 1.3 s summary)."""
    import io

    from rich.console import Console

    probe = Console(file=io.StringIO(), width=10_000, color_system=None)
    return int(probe.measure(_table("", label, names, columns, widths)).maximum)
