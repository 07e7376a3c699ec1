"""Front ends: the ``tokbench`` command line (the only part of tokbench that talks to the
terminal) and the pytest plugin.

Each subcommand lives in ``tokbench/commands/<name>.py`` and defines ``HELP``,
``add_arguments(parser)`` and ``main(args) -> int``. Exit codes mean one thing each:
0 success (no regression), 1 a regression found by a comparison, 2 bad input or any
failure. User errors (``TokbenchError``) are printed as one line; an unexpected
exception too (with where it happened; ``TOKBENCH_TRACEBACK=1`` prints the traceback),
and it exits 2, never 1: a crash is not a regression.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

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
    "parity": "tokbench.commands.parity",
    "drift": "tokbench.commands.drift",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every subcommand, or ``only`` that one (the command
    being run: the others' modules, some of which import a lot, are not imported)."""
    parser = argparse.ArgumentParser(
        prog="tokbench", description="Evaluate and benchmark tokenizers.")
    parser.add_argument("--version", action="version", version=f"tokbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(module_name)  # a broken command fails loudly
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_main=module.main)
    return parser


#: exit code of bad input and of any failure (a crash included); 1 is only a regression
FAILURE = 2
TRACEBACK_ENV = "TOKBENCH_TRACEBACK"


def main(argv: Sequence[str] | None = None) -> int:
    from tokbench.engine.cores import mark

    mark()  # the window a run's free cores are measured over starts with the command
    words = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser(words[0] if words and words[0] in COMMANDS else None)
        args = parser.parse_args(words)
    except (SystemExit, KeyboardInterrupt):  # argparse: --help (0) or a bad option (2)
        raise
    except BaseException as e:  # never exit 1 for a crash
        return _crashed(e)
    if not getattr(args, "_main", None):
        parser.print_help()
        return FAILURE
    from tokbench.cli.console import err_console
    from tokbench.loading.sources import OFFLINE_ENV

    # the command line draws PNGs only, never windows: it (not the library) picks the backend
    os.environ.setdefault("MPLBACKEND", "Agg")

    offline = os.environ.get(OFFLINE_ENV)
    if getattr(args, "no_fetch", False):  # for the command's duration only (restored below)
        os.environ[OFFLINE_ENV] = "1"
    try:
        code = int(args._main(args) or 0)
        return code if code in (0, 1) else FAILURE
    except TokbenchError as e:
        from tokbench.cli.console import escape
        from tokbench.render.visible import shown

        err_console().print(f"[bold red]tokbench: error:[/] {escape(shown(str(e)))}",
                            highlight=False, soft_wrap=True)
        return e.exit_code
    except KeyboardInterrupt:
        err_console().print("[yellow]tokbench: interrupted[/]")
        return 130
    except BrokenPipeError:
        return 0
    except SystemExit as e:  # a library's sys.exit(1) is no regression: commands return 1
        return 0 if e.code in (0, None) else FAILURE
    except BaseException as e:  # a Rust panic is a BaseException
        return _crashed(e)
    finally:
        if offline is None:
            os.environ.pop(OFFLINE_ENV, None)
        else:
            os.environ[OFFLINE_ENV] = offline


def entry() -> NoReturn:
    """The ``tokbench`` command (its console script and ``python -m tokbench``): ``main``,
    then ``exit_now``."""
    exit_now(main())


def exit_now(code: int) -> NoReturn:
    """End the process with ``code``, skipping the interpreter's teardown: freeing a
    finished run's objects one by one (eight vocabularies, the results) took 1.8 s of a
    25 s default run. Nothing is lost: by then every file is closed, every helper process
    ended and every temporary folder removed (each by its own ``with``); the standard
    streams are flushed here. Under a profiler or a coverage tracer, which write their
    data at exit, the process ends the usual way."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream
            stream.flush()
    os._exit(code)


def _crashed(e: BaseException) -> int:
    """Say in one line that tokbench failed (not the input, not a regression): exit 2."""
    import traceback

    frames = traceback.extract_tb(e.__traceback__)
    where = f" in {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    from tokbench.render.visible import shown

    text = shown(" ".join(str(e).split())[:300])
    if os.environ.get(TRACEBACK_ENV):
        traceback.print_exception(e, file=sys.stderr)
    print(f"tokbench: error: internal error{where}: {type(e).__name__}: {text}; a bug in "
          f"tokbench, not a regression (set {TRACEBACK_ENV}=1 for the traceback and please "
          "report it)", file=sys.stderr)
    return FAILURE


if __name__ == "__main__":
    entry()
