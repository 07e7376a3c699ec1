"""``python -m tokbench``: the command line."""

from tokbench.cli import entry

entry()
