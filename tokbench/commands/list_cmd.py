"""``tokbench list KIND``: the tokenizers, suites or metrics tokbench knows."""

from __future__ import annotations

import argparse
from typing import Any

from tokbench.errors import UnknownNameError

HELP = ("list the known tokenizers (with vocab size, sources, cache state), suites, metrics "
        "or implementations (the libraries that can load each tokenizer)")

KINDS = {"tokenizers": "tokenizers", "tokenizer": "tokenizers", "suites": "suites",
         "suite": "suites", "metrics": "metrics", "metric": "metrics",
         "implementations": "implementations", "implementation": "implementations"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", nargs="?", default="tokenizers", metavar="KIND",
                   help="tokenizers (default), suites, metrics or implementations")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="with implementations: one tokenizer (default: every one)")


def main(args: argparse.Namespace) -> int:
    kind = KINDS.get(args.kind.lower())
    if kind is None:
        raise UnknownNameError("kind", args.kind,
                               ["tokenizers", "suites", "metrics", "implementations"])
    if kind == "implementations":
        return _implementations(args.name)
    if getattr(args, "name", None):
        raise UnknownNameError("option", args.name, [], hint="a NAME goes with "
                               "'tokbench list implementations NAME' only")
    if kind == "tokenizers":
        return _tokenizers()
    if kind == "metrics":
        return _registry("metrics")
    return _registry("suites")


def _source_label(source: Any) -> str:
    from tokbench.loading.catalog import ARCHIVE_MB
    from tokbench.loading.derived import DerivedFile
    from tokbench.loading.sources import FolderSource, HubSource, PypiFile, TiktokenSource

    if isinstance(source, PypiFile):
        mb = ARCHIVE_MB.get(source.dist)
        return f"pypi {source.dist}=={source.version}" + (f" ({mb:g} MB)" if mb else "")
    if isinstance(source, DerivedFile):
        dists = list(dict.fromkeys(f.dist for f in source.inputs))
        mb = sum(ARCHIVE_MB.get(d, 0) for d in dists)
        first = source.inputs[0]
        more = f" +{len(dists) - 1}" if len(dists) > 1 else ""
        return (f"pypi {first.dist}=={first.version}{more}"
                + (f" ({mb:g} MB)" if mb else "") + f", {source.recipe}")
    if isinstance(source, HubSource):
        return f"hub {source.repo_id}"
    if isinstance(source, TiktokenSource):
        return f"tiktoken {source.encoding}"
    if isinstance(source, FolderSource):
        return source.describe()
    return str(source.describe())


def _size(n: int | None) -> str:
    if n is None:
        return "[dim]-[/]"
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.0f} kB"


_STATE = {"cached": "[green]cached[/]", "builtin": "[dim]built in[/]",
          "pypi": "[cyan]PyPI[/]", "hub": "[yellow]hub only[/]"}


def _tokenizers() -> int:
    from rich.markup import escape
    from rich.table import Table

    from tokbench.cli.console import console
    from tokbench.loading.catalog import availability, entries
    from tokbench.paths import cache_dir

    cache = cache_dir()
    table = Table(title="tokenizers", title_justify="left", show_lines=False)
    table.add_column("name", min_width=12, max_width=24)
    table.add_column("adapter", min_width=13, max_width=18)
    table.add_column("vocab", justify="right", no_wrap=True)
    table.add_column("size", justify="right", no_wrap=True)
    table.add_column("sources, tried in order", overflow="fold")
    table.add_column("state", no_wrap=True)
    for entry in entries():
        aliases = f"\n[dim]{escape(', '.join(entry.aliases))}[/]" if entry.aliases else ""
        state, hit = availability(entry, cache)
        label = _STATE[state]
        if state == "cached" and hit is not None:
            label += f" ({hit.kind})"
        if entry.large and state != "cached":
            label += "\n[dim]by name only[/]"
        algorithm = f"\n[dim]{escape(entry.algorithm)}[/]" if entry.algorithm else ""
        table.add_row(f"[bold]{escape(entry.name)}[/]{aliases}", entry.adapter + algorithm,
                      f"{entry.vocab_size:,}", _size(entry.size),
                      escape("\n".join(_source_label(r.source) for r in entry.recipes)), label)
    out = console()
    out.print(table)
    out.print(f"[dim]cache: {escape(str(cache))}  (set TOKBENCH_CACHE to move it); "
              "fetch with: tokbench fetch NAME...; state: cached, PyPI (fetchable from PyPI), "
              "hub only (the Hugging Face hub or a local folder)[/]", highlight=False)
    return 0


def _registry(kind: str) -> int:
    from rich.markup import escape
    from rich.table import Table

    from tokbench.cli.console import console

    if kind == "metrics":
        from tokbench.metrics import list_metrics

        rows: list[dict[str, Any]] = list_metrics()
    else:
        from tokbench.suites import list_suites

        rows = list(list_suites())
    table = Table(title=kind, title_justify="left")
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("description")
    extra = kind == "metrics"
    if extra:
        from tokbench.metrics import metric_info

        table.add_column("better", justify="center")
        table.add_column("formula")
    for item in rows:
        row = [item["name"], item["description"]]
        if extra:
            row += [metric_info(item["name"]).arrow, item["formula"]]
        table.add_row(*map(escape, row))
    console().print(table)
    return 0


def _implementations(name: str | None) -> int:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from tokbench.cli.console import console
    from tokbench.loading.catalog import entries, get_entry
    from tokbench.loading.implementations import entry_kind, implementations_table

    chosen = [get_entry(name)] if name else [e for e in entries() if e.recipes[0].adapter
                                             not in ("bytes", "chars")]
    out = console()
    for entry in chosen:
        kind = entry_kind(entry)
        table = Table(title=escape(f"{entry.name} ({kind} file, {entry.algorithm})"),
                      title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("implementation", "reads it", "installed", "pip package", "note"):
            table.add_column(col, no_wrap=col != "note")
        for row in implementations_table(kind, entry.algorithm):
            reads = ("[green]yes[/]" + ("" if row["native"] else " [dim](conv.)[/]")
                     if row["reads"] else "[dim]no[/]")
            inst = "[green]yes[/]" if row["installed"] else "[yellow]no[/]"
            table.add_row(escape(row["implementation"]), reads, inst,
                          escape(row["package"]), escape(row["note"]))
        out.print(table)
    out.print("[dim]load one with NAME@IMPL; parity and speed: tokbench parity NAME "
              "NAME@IMPL... -s SUITES; the re-implementations: pip install "
              + escape("'tokbench[fast]'") + "[/]", highlight=False)
    return 0
