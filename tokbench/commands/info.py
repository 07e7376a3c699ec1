"""``tokbench info NAME``: what a tokenizer is, where its file came from, and its hash."""

from __future__ import annotations

import argparse

HELP = ("show a tokenizer's vocabulary facts (size, special and unknown tokens, UTF-8 "
        "fragments, single bytes, unreachable tokens), source and file hash")

SHOW_SPECIALS = 8


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", metavar="NAME",
                   help="catalog name or spec (tiktoken:NAME, hf:ORG/NAME[@REV], file:PATH)")


def main(args: argparse.Namespace) -> int:
    from rich.table import Table

    from tokbench.cli.console import console, err_console, escape
    from tokbench.loading.catalog import get_entry, new_session
    from tokbench.loading.loader import load_tokenizer, parse_spec
    from tokbench.metrics.vocab import vocabulary_facts

    spec = parse_spec(args.name)
    entry = get_entry(spec.value) if spec.kind == "catalog" else None
    status = err_console()
    with new_session(on_status=lambda m: status.print(f"[dim]{escape(m)}…[/]",
                                                       highlight=False)) as session:
        tok = load_tokenizer(args.name, session=session)
    status.print("[dim]testing every token (fragments, unreachable)…[/]", highlight=False)
    facts = vocabulary_facts(tok)

    specials = sorted(tok.special_tokens.items(), key=lambda kv: kv[1])
    shown = ", ".join(f"{escape(t)}={i}" for t, i in specials[:SHOW_SPECIALS])
    if len(specials) > SHOW_SPECIALS:
        shown += f", … (+{len(specials) - SHOW_SPECIALS})"
    unk = tok.unk_id
    if unk is None:
        unk_text = "none"
    else:
        names = [t for t, i in specials if i == unk]
        unk_text = f"{escape(names[0] if names else tok.token_str(unk))} (id {unk})"
    vocab = f"{tok.vocab_size:,}"
    if entry is not None and entry.vocab_size != tok.vocab_size:
        vocab += f" [yellow](the catalog declares {entry.vocab_size:,})[/]"

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")  # hashes and paths are never cut
    rows: list[tuple[str, str]] = [("name", escape(tok.name))]
    if entry is not None:
        rows.append(("is", escape(f"{entry.description} — {entry.algorithm}")))
        if entry.aliases:
            rows.append(("aliases", escape(", ".join(entry.aliases))))
        if entry.note:
            rows.append(("note", escape(entry.note)))
    rows += [
        ("backend", f"{tok.backend} {escape(tok.backend_version())}"),
        ("vocab size", vocab),
        ("special tokens", f"{len(specials)}" + (f": {shown}" if specials else "")),
        ("unknown token", unk_text),
        ("byte fallback", "yes" if tok.byte_fallback else "no"),
        ("UTF-8 fragments", f"{facts['utf8_fragment_tokens']:,} [dim](tokens of 2+ bytes that "
                            "are part of a character)[/]"),
        ("single bytes", f"{facts['single_byte_tokens']:,} [dim](one byte 0x80–0xFF)[/]"),
        ("unreachable", f"{facts['unreachable_tokens']:,} [dim](no text encodes to them; "
                        "see tokbench list metrics)[/]"),
        ("source", f"{tok.source.kind}: {escape(tok.source.location)}"),
        ("sha256", tok.source.sha256 or "[dim]n/a[/]"),
        ("file", escape(tok.source.path) if tok.source.path else "[dim]n/a[/]"),
    ]
    if entry is not None:
        rows.append(("catalog sources", escape("; ".join(f"[{i}] {r.source.describe()}"
                                                         for i, r in enumerate(entry.recipes, 1)))))
    for key, value in rows:
        grid.add_row(key, value)
    console().print(grid)
    return 0
