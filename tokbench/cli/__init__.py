"""Front ends: the ``tokbench`` command line (the only part of tokbench that talks to the
terminal) and the pytest plugin.

Each subcommand lives in ``tokbench/commands/<name>.py`` and defines ``HELP``,
``add_arguments(parser)`` and ``main(args) -> int``. User errors
(``TokbenchError``) are printed as one line and exit with code 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tokbench.errors import TokbenchError
from tokbench.version import __version__

#: subcommand -> module; imported when the parser is built (modules import nothing heavy)
COMMANDS = {
    "list": "tokbench.commands.list_cmd",
    "fetch": "tokbench.commands.fetch",
    "info": "tokbench.commands.info",
    "run": "tokbench.commands.run",
    "report": "tokbench.commands.report",
    "show": "tokbench.commands.show",
    "compare": "tokbench.commands.compare",
    "baseline": "tokbench.commands.baseline",
    "history": "tokbench.commands.history",
    "train": "tokbench.commands.train",
    "sweep": "tokbench.commands.sweep",
    "recommend": "tokbench.commands.recommend",
    "verify": "tokbench.commands.verify",
    "bench": "tokbench.commands.bench",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tokbench", description="Evaluate and benchmark tokenizers.")
    parser.add_argument("--version", action="version", version=f"tokbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)  # a broken command fails loudly
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_main=module.main)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_main", None):
        parser.print_help()
        return 2
    from tokbench.cli.console import err_console
    from tokbench.loading.sources import OFFLINE_ENV

    # the command line draws PNGs only, never windows: it (not the library) picks the backend
    os.environ.setdefault("MPLBACKEND", "Agg")

    offline = os.environ.get(OFFLINE_ENV)
    if getattr(args, "no_fetch", False):  # for the command's duration only (restored below)
        os.environ[OFFLINE_ENV] = "1"
    try:
        return int(args._main(args) or 0)
    except TokbenchError as e:
        from rich.markup import escape

        err_console().print(f"[bold red]tokbench: error:[/] {escape(str(e))}", highlight=False,
                            soft_wrap=True)
        return e.exit_code
    except KeyboardInterrupt:
        err_console().print("[yellow]tokbench: interrupted[/]")
        return 130
    except BrokenPipeError:
        return 0
    finally:
        if offline is None:
            os.environ.pop(OFFLINE_ENV, None)
        else:
            os.environ[OFFLINE_ENV] = offline


if __name__ == "__main__":
    sys.exit(main())
