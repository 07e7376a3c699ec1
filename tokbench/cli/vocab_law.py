"""Options and terminal view of the compute-optimal size, shared by ``sweep`` and
``recommend`` (a helper of the command layer, not a command)."""

from __future__ import annotations

import argparse
from typing import Any


def add_vocab_law_options(p: argparse.ArgumentParser, required: bool = False) -> None:
    """--model-params and --flops (Tao et al. 2024's compute-optimal vocabulary size)."""
    p.add_argument("--model-params", metavar="N_NV", required=required,
                   help="non-vocabulary parameters of the model you will train (e.g. 7e9 or "
                        "7B): adds the compute-optimal size after Tao et al. 2024")
    p.add_argument("--flops", metavar="C",
                   help="training FLOPs, 6 (N_nv + V d) tokens (default: compute-optimal "
                        "for --model-params)")


def vocab_law_settings(args: argparse.Namespace) -> Any:
    """``VocabLawSettings`` from --model-params/--flops/--d-model/--tied, or None."""
    from tokbench.errors import InputError
    from tokbench.training.law import VocabLawSettings, parse_number

    if args.model_params is None:
        if args.flops is not None:
            raise InputError("--flops needs --model-params (the model's non-vocabulary "
                             "parameters)")
        return None
    settings = VocabLawSettings(
        model_params=parse_number(args.model_params, "--model-params"),
        d_model=args.d_model,
        flops=None if args.flops is None else parse_number(args.flops, "--flops"),
        tied=bool(getattr(args, "tied", False)))
    settings.check()
    return settings


def print_vocab_law(con: Any, section: dict[str, Any]) -> None:
    """The paper's three sizes and the corpus's own, as a table, then the one-line answer."""
    from rich.markup import escape
    from rich.table import Table

    from tokbench.render.vocab_law import headline_rows, model_line, summary_text

    table = Table(title="compute-optimal size (Tao et al. 2024)", title_justify="left")
    table.add_column("method")
    table.add_column("optimal V", justify="right")
    table.add_column("note")
    for method, v, note in headline_rows(section):
        table.add_row(escape(method), v, escape(note))
    con.print(escape(model_line(section)), highlight=False)
    con.print(table)
    con.print(escape(summary_text(section).replace("**", "")), highlight=False)
