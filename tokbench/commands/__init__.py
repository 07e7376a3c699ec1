"""CLI subcommands, one module each (see tokbench.cli)."""
