"""``tokbench sweep``: train a tokenizer at several vocabulary sizes, evaluate, recommend one."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import tokbench.events as ev

HELP = ("train at several vocabulary sizes, evaluate each on held-out suites and recommend a "
        "size; writes sweep.json, sweep.md and plots")

DEFAULT_OUT = "reports/sweep"
DEFAULT_EVAL = "multilingual"


def _percent(text: str) -> float:
    """``"2%"`` or ``"2"`` -> 0.02; argparse turns the error into its one-line usage error."""
    import math

    raw = text.strip().rstrip("%")
    try:
        value = float(raw) / 100.0
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage like 2%")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tokbench.cli.training import add_training_options
    from tokbench.cli.vocab_law import add_vocab_law_options

    p.add_argument("--sizes", default="1k,2k,4k,8k,16k,32k,64k",
                   help="increasing vocabulary sizes (k = 1024; default 1k,...,64k)")
    from tokbench.cli.flags import add_old_spelling

    p.add_argument("--suites", "-s", action="append", metavar="SUITES",
                   help=f"held-out suites, comma-separated or repeated (default: {DEFAULT_EVAL})")
    add_old_spelling(p, "--eval", "--suites", dest="suites", action="append")
    p.add_argument("--out", "-o", default=DEFAULT_OUT,
                   help=f"output folder; finished sizes in it are reused (default: {DEFAULT_OUT})")
    p.add_argument("--within", type=_percent, default=0.02, metavar="X%",
                   help="recommend the smallest size within X%% of the best bytes per token "
                        "for every language (default: 2%%)")
    p.add_argument("--d-model", type=int, default=None,
                   help="model width for the parameter cost and the compute-optimal size "
                        "(default 4096, or the paper's width for --model-params)")
    p.add_argument("--tied", action="store_true",
                   help="input and output embeddings are tied (one vocab x d_model matrix)")
    add_vocab_law_options(p)
    p.add_argument("--metrics", "-m",
                   help="metric families (default: compression, fertility, premium, roundtrip, "
                        "unknown, vocab_use)")
    p.add_argument("--jobs", "-j", type=int, default=2,
                   help="processes training sizes in parallel (not byte-level BPE; default 2)")
    add_old_spelling(p, "--workers", "--jobs", dest="jobs", type=int)
    p.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    add_training_options(p, algos=("bpe", "unigram"))


def _csv(values: list[str] | None) -> list[str]:
    return [v.strip() for item in values or [] for v in item.split(",") if v.strip()]


def main(args: argparse.Namespace) -> int:
    from rich.markup import escape

    from tokbench.cli.console import console, err_console
    from tokbench.cli.training import config_from_args, use_threads
    from tokbench.cli.vocab_law import vocab_law_settings
    from tokbench.render.sweep import recommendation_text, write_sweep_outputs
    from tokbench.suites import load_suite, split_suite_specs
    from tokbench.training.sweep import (
        DEFAULT_D_MODEL,
        SWEEP_METRICS,
        SweepConfig,
        check_sizes,
        check_vocab_law,
        parse_sizes,
        sweep,
    )
    from tokbench.training.train import load_corpus, minimum_vocab

    sizes = parse_sizes(args.sizes)
    train_config = config_from_args(args, sizes[-1])
    use_threads(train_config.threads)
    check_sizes(sizes, minimum_vocab(train_config))  # the corpus's alphabet is checked later
    metrics = tuple(_csv([args.metrics])) if args.metrics else SWEEP_METRICS
    from tokbench.metrics import resolve_families

    resolve_families(metrics)  # an unknown name fails before any training
    vocab_law = vocab_law_settings(args)
    if args.d_model is not None:
        d_model, d_source = args.d_model, "given"
    elif vocab_law is not None:
        d_model, d_source = vocab_law.resolved()["d_model"], "from --model-params (paper's table)"
    else:
        d_model, d_source = DEFAULT_D_MODEL, "default"
    config = SweepConfig(sizes=tuple(sizes), train=train_config, within=args.within,
                         d_model=d_model, tied=args.tied, metrics=metrics,
                         workers=max(1, args.jobs), vocab_law=vocab_law,
                         d_model_source=d_source)
    check_vocab_law(config)  # before loading and training: a bad number costs nothing
    out = Path(args.out)
    err = err_console()
    with err.status("loading the corpus and evaluation suites…"):
        corpus = load_corpus(args.corpus)
        suites = [load_suite(s) for s in split_suite_specs(args.suites) or [DEFAULT_EVAL]]
    with _Progress(len(sizes)) as prog:
        run = sweep(corpus, suites, config, out, progress=prog.event)
    files = [run.path, *write_sweep_outputs(run.results, out, plots=not args.no_plots)]
    con = console()
    _print_tables(con, run.results)
    several = len(run.results.meta.suites) > 1
    sw = run.results.meta.sweep or {}
    con.print(recommendation_text(sw, several).replace("**", ""),
              highlight=False, markup=False)
    if "scaling" in sw:
        from tokbench.cli.vocab_law import print_vocab_law

        print_vocab_law(con, sw["scaling"])
    from tokbench.render.sweep import answer_lines

    con.print()  # the one answer last, where the eye lands
    for line in answer_lines(sw):
        con.print(line.replace("**", ""), highlight=False, markup=False)
    con.print("wrote " + ", ".join(escape(str(f)) for f in files), highlight=False)
    return 0


class _Progress:
    """Training and evaluation progress on stderr; overlap warnings as they are found."""

    def __init__(self, sizes: int) -> None:
        self.sizes = sizes

    def __enter__(self) -> _Progress:
        from tokbench.cli.console import progress

        self._p = progress()
        self._p.__enter__()
        self._train = self._p.add_task("training", total=self.sizes)
        self._eval: Any = None
        return self

    def event(self, event: ev.Event) -> None:
        from rich.markup import escape

        p = self._p
        match event:
            case ev.Overlap():
                p.console.print(f"[yellow]warning: {event.overlapping:,} of "
                                f"{event.documents:,} documents of {escape(event.suite)} also "
                                "occur in the training corpus (same normalized text); they are "
                                "not held-out[/]", highlight=False)
            case ev.SizeStarted():
                p.update(self._train, description=f"training {escape(event.name)}")
            case ev.SizeDone():
                p.advance(self._train)
                seconds = f" in {event.seconds:.1f} s" if event.seconds else ""
                p.console.print(f"{escape(event.name)}: {event.how}{seconds}", highlight=False)
            case ev.SizeFailed():
                p.advance(self._train)
                p.console.print(f"[yellow]{escape(event.name)}: {escape(event.error)}[/]",
                                highlight=False)
            case ev.RunStarted():
                p.update(self._train, description="trained")
                self._eval = p.add_task("evaluating", total=event.units)
            case ev.UnitReached() if self._eval is not None:
                p.update(self._eval, description=escape(f"{event.tokenizer} · {event.suite}"))
            case ev.Advanced() if self._eval is not None:
                p.advance(self._eval, event.steps)

    def __exit__(self, *exc: object) -> None:
        self._p.__exit__(None, None, None)


def _print_tables(con: Any, results: Any) -> None:
    """Bytes per token of every size on each suite's "all" and its worst languages, then cost."""
    from rich.table import Table

    from tokbench.cli.console import print_fitted
    from tokbench.render.sweep import sweep_tables
    from tokbench.training.sweep import size_label

    t = sweep_tables(results)
    rec = int(t.sweep["recommendation"]["size"])
    shown = list(t.bytes_per_token.items())
    if len(shown) > 16:  # "all" rows and the languages that gain most from the largest size
        heads = [kv for kv in shown if kv[0].endswith("all")]
        rest = sorted((kv for kv in shown if not kv[0].endswith("all")),
                      key=lambda kv: -(max(kv[1].values()) / min(kv[1].values())))
        shown = heads + rest[:12]
    columns = []
    for s in t.sizes:
        cells = []
        for g, values in shown:
            v = values.get(s)
            gain = t.gains.get(g, {}).get(s)
            cells.append("–" if v is None else f"{v:.2f}" + (f" ({gain:+.0f}%)"
                                                             if gain is not None else ""))
        columns.append((("* " if s == rec else "") + size_label(s), cells))
    print_fitted(con, "bytes per token (higher is better); gain of each doubling; * the "
                 "sweep's pick", "language", [g for g, _ in shown], columns)
    cost = Table(title="cost", title_justify="left")
    for col in ("size", "params (M)", "tokens / 1M bytes", "saved vs smallest", "this step"):
        cost.add_column(col, justify="right")
    for c in t.sweep.get("cost", []):
        cost.add_row(("* " if c["size"] == rec else "") + size_label(c["size"]),
                     f"{c['params'] / 1e6:,.1f}", f"{c['tokens_per_mb']:,.0f}",
                     f"{c['saved_vs_smallest_pct']:.1f}%" if c["saved_vs_smallest_pct"]
                     is not None else "–",
                     f"{c['saved_vs_previous_pct']:.1f}%" if c["saved_vs_previous_pct"]
                     is not None else "–")
    con.print(cost)
