"""Terminal output for the CLI: rich consoles and progress bars (library code never prints)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


def escape(text: object) -> str:
    """User text for rich markup: markup escaped, control and bidi characters spelled
    ``<U+XXXX>`` (a U+202E in a name must not reorder the terminal line)."""
    from rich.markup import escape as rich_escape

    from tokbench.render.printable import printable

    return rich_escape(printable(str(text)))


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
