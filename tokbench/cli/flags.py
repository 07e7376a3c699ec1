"""Command-line conventions shared by every command, and the old spellings kept for a release.

The conventions (the README's "Command-line conventions" lists them for users):

- ``--tokenizers/-t``, ``--suites/-s``, ``--metrics/-m``: plural names, comma-separated lists
  (a command that takes a single one, like ``history``, still spells them this way);
- ``--out/-o``: the output folder (or file, for ``train``);
- ``--jobs/-j``: worker processes; ``--threads``: threads inside one process;
- ``--json``: print JSON on stdout; ``--json-out FILE`` (``--markdown-out FILE``): write a file;
- ``--no-fetch``, ``--no-plots``, ``--no-html``: the same meaning wherever they appear.

A renamed option keeps its old spelling for one release through :func:`add_old_spelling`:
accepted, hidden from ``--help``, and noted on stderr when used.
"""

from __future__ import annotations

import argparse
from typing import Any


def note_renamed(old: str, new: str) -> None:
    """Tell the user (stderr) that ``old`` is now ``new``; the old spelling still works."""
    from tokbench.cli.console import err_console

    err_console().print(f"tokbench: note: {old} is now {new}; the old spelling goes in the "
                        "next release", markup=False, highlight=False, soft_wrap=True)


def add_old_spelling(parser: argparse.ArgumentParser, old: str, new: str, *, dest: str,
                     action: str = "store", **kwargs: Any) -> None:
    """Accept ``old``, renamed to ``new``, as a hidden alias storing into ``dest`` like ``new``.

    ``action`` and ``kwargs`` (``const``, ``type``, ``default``...) are those of ``new``, so
    both spellings fill the namespace the same way; the old one prints a note on stderr.
    """
    base: type[argparse.Action] = parser._registry_get("action", action, action)

    class Renamed(base):  # type: ignore[valid-type,misc]
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: Any, option_string: str | None = None) -> None:
            note_renamed(option_string or old, new)
            super().__call__(parser, namespace, values, option_string)

    kwargs.setdefault("default", argparse.SUPPRESS)  # the default is the new spelling's
    parser.add_argument(old, action=Renamed, dest=dest, help=argparse.SUPPRESS, **kwargs)


class JsonFlag(argparse.Action):
    """``--json``: print JSON on stdout (``--format json``).

    For one release ``--json FILE`` also still writes FILE (the old spelling of
    ``--json-out FILE`` in ``compare``), with a note on stderr.
    """

    def __init__(self, option_strings: list[str], dest: str, file_dest: str = "json_out",
                 **kwargs: Any) -> None:
        self.file_dest = file_dest
        super().__init__(option_strings, dest, nargs="?", metavar="FILE", **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if values is None:
            setattr(namespace, self.dest, "json")
        else:
            note_renamed(f"{option_string} FILE", "--json-out FILE (--json alone prints JSON)")
            setattr(namespace, self.file_dest, values)
