"""``tokbench recommend``: place existing tokenizers on the compute-optimal vocabulary curve
of Tao et al. 2024 for one model size, measured on a suite."""

from __future__ import annotations

import argparse
from pathlib import Path

from tokbench.engine.presets import RECOMMEND_TOKENIZERS

HELP = ("which existing tokenizer suits a model of N non-vocabulary parameters on your text "
        "(Tao et al. 2024); writes recommend.json, recommend.md and recommend.png")

DEFAULT_SUITE = "multilingual"
DEFAULT_OUT = "reports/recommend"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tokbench.cli.vocab_law import add_vocab_law_options

    add_vocab_law_options(p, required=True)
    p.add_argument("--tokenizers", "-t",
                   help="comma-separated names or specs (default: " +
                        ", ".join(RECOMMEND_TOKENIZERS) + ")")
    p.add_argument("--suites", "-s", help=f"suites to measure tokens per character on "
                   f"(default: {DEFAULT_SUITE})")
    p.add_argument("--d-model", type=int, default=None,
                   help="model width (default: the paper's width for --model-params)")
    p.add_argument("--tied", action="store_true",
                   help="tied embeddings (recorded; the formulas count V x d once either way)")
    p.add_argument("--sweep", metavar="SWEEP_JSON",
                   help="a sweep.json (or its folder): adds approach 2 with that corpus's f(V)")
    p.add_argument("--out", "-o", default=DEFAULT_OUT,
                   help=f"output folder (default: {DEFAULT_OUT})")
    p.add_argument("--no-plots", action="store_true", help="do not write recommend.png")


def main(args: argparse.Namespace) -> int:
    from rich.markup import escape

    from tokbench.cli.console import console, err_console, print_fitted
    from tokbench.cli.vocab_law import print_vocab_law, vocab_law_settings
    from tokbench.engine.runner import run
    from tokbench.metrics.trust import Trust
    from tokbench.render.vocab_law import (
        PLACEMENT_HEADER,
        PLACEMENT_NOTE,
        best_line,
        caveat_notes,
        placement_rows,
        recommend_markdown,
        render_recommend_plots,
    )
    from tokbench.suites import split_suite_specs
    from tokbench.training.law import mark_caveats, pooled_tokens_per_char, recommend_section

    settings = vocab_law_settings(args)  # bad numbers fail before anything is loaded
    sweep_tpc = _sweep_f(args.sweep) if args.sweep else None
    tokenizers = [t.strip() for t in (args.tokenizers or ",".join(RECOMMEND_TOKENIZERS))
                  .split(",") if t.strip()]
    suites = split_suite_specs([args.suites]) if args.suites else [DEFAULT_SUITE]
    with err_console().status("measuring tokens per character and losslessness…"):
        results = run(tokenizers=tokenizers, suites=suites,
                      metrics=["compression", "roundtrip", "unknown"])
    err = err_console()
    for e in results.meta.errors:
        err.print(f"[yellow]warning: {escape(str(e.tokenizer))}: {escape(e.error)}[/]",
                  highlight=False)
    vocab = {name: info.vocab_size for name, info in results.meta.tokenizers.items()
             if info.vocab_size is not None}
    section = recommend_section(settings, vocab, pooled_tokens_per_char(results.rows),
                                sweep_tpc)
    mark_caveats(section, Trust.of(results), results.meta.suites)
    results.meta.recommend = section
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = [results.save(out / "recommend.json")]
    pngs = [] if args.no_plots else render_recommend_plots(section, out)
    md = out / "recommend.md"
    md.write_text(recommend_markdown(section, list(results.meta.suites),
                                     [p.name for p in pngs]), encoding="utf-8")
    files += [*pngs, md]

    con = console()
    rows = placement_rows(section)
    print_vocab_law(con, section)
    print_fitted(con, "tokenizers at this model size, fewest training FLOPs per character "
                 "first", PLACEMENT_HEADER[0], [r[0] for r in rows],
                 [(head, [escape(r[i]) for r in rows])
                  for i, head in enumerate(PLACEMENT_HEADER[1:], 1)])
    con.print(PLACEMENT_NOTE, highlight=False)
    for line in caveat_notes(section):
        con.print(f"[yellow]{escape(line)}[/]", highlight=False)
    best = best_line(section)
    if best:
        con.print(f"[bold green]{escape(best[0])}[/] {escape(best[1])}", highlight=False)
    con.print("wrote " + ", ".join(escape(str(f)) for f in files), highlight=False)
    return 0


def _sweep_f(path: str) -> dict[str, dict[int, float]]:
    """f(V) by group from a sweep's results (its sizes' tokens per character)."""
    from tokbench.errors import InputError
    from tokbench.results import Results
    from tokbench.training.sweep import RESULTS_FILE, tokens_per_char

    p = Path(path)
    results = Results.load(p / RESULTS_FILE if p.is_dir() else p)
    sw = results.meta.sweep
    if not sw:
        raise InputError(f"{path}: not a sweep's results (no meta.sweep); pass the sweep.json "
                         "that tokbench sweep wrote")
    return tokens_per_char(results, dict(zip(sw["names"], sw["sizes"], strict=True)))
