"""``tokbench bench``: speed profiles (tail latency, thread and length scaling, load cost)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import tokbench.events as ev
from tokbench.engine.presets import BENCH_TOKENIZERS
from tokbench.errors import InputError

HELP = ("speed profiles: latency percentiles, throughput vs threads, length scaling, "
        "load cost and memory; writes results.json, report.md/html and plots")

DEFAULT_OUT = "reports/bench"


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tokbench.speed.rows import PARTS

    p.add_argument("--tokenizers", "-t", type=_csv, help="comma-separated names or specs "
                   f"(default: {', '.join(BENCH_TOKENIZERS)})")
    p.add_argument("--suites", "-s", type=_csv,
                   help="suites the requests and inputs are drawn from (default: every built-in)")
    p.add_argument("--out", "-o", default=DEFAULT_OUT, help=f"output directory ({DEFAULT_OUT})")
    p.add_argument("--parts", type=_csv, default=list(PARTS),
                   help=f"what to measure, comma-separated (default: {','.join(PARTS)})")
    p.add_argument("--max-threads", type=int, help="largest thread count (default: usable cores)")
    p.add_argument("--budget", type=float, default=1.0, metavar="X",
                   help="scale every time budget by X (default 1; 0.3 for a quick look)")
    p.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    p.add_argument("--no-html", action="store_true", help="do not write report.html")
    p.add_argument("--no-fetch", action="store_true",
                   help="use only cached tokenizer files; never call pip")


def settings_from(args: argparse.Namespace) -> Any:
    """``SpeedSettings`` from the flags, checked."""
    from dataclasses import replace

    from tokbench.speed.rows import PARTS, SpeedSettings

    unknown = [x for x in args.parts if x not in PARTS]
    if unknown:
        raise InputError(f"--parts: unknown part(s) {', '.join(unknown)}; "
                         f"choose from {', '.join(PARTS)}")
    if not args.budget > 0:
        raise InputError("--budget must be a number above 0, e.g. 0.5")
    if args.max_threads is not None and args.max_threads < 1:
        raise InputError("--max-threads must be at least 1")
    d = SpeedSettings()
    x = args.budget
    return SpeedSettings(
        parts=tuple(args.parts),
        latency=replace(d.latency, budget_s=d.latency.budget_s * x),
        decode_latency=replace(d.decode_latency, budget_s=d.decode_latency.budget_s * x),
        rate=replace(d.rate, budget_s=d.rate.budget_s * x),
        length=replace(d.length, budget_s=d.length.budget_s * x,
                       call_cap_s=d.length.call_cap_s * min(x, 1.0)),
        max_threads=args.max_threads, thread_budget_s=d.thread_budget_s * x,
        extra={"speed_budget_scale": x})


def main(args: argparse.Namespace) -> int:

    from tokbench.cli.console import console, err_console, escape, progress
    from tokbench.cli.output import write_results_atomic
    from tokbench.render.markdown import render_markdown
    from tokbench.speed.bench import DEFAULT_SUITES, run_bench

    settings = settings_from(args)
    specs = args.tokenizers or list(BENCH_TOKENIZERS)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: not a directory; give --out a directory")

    with progress() as prog:
        task = prog.add_task("starting", total=len(specs))

        def event(event: ev.Event) -> None:
            match event:
                case ev.SpeedPart():
                    prog.update(task, description=f"{event.tokenizer} · {event.part}")
                case ev.TokenizerDone():
                    prog.advance(task)
                case ev.TokenizerFailed():
                    prog.advance(task)
                    prog.console.print(f"[yellow]{escape(event.tokenizer)}: "
                                       f"{escape(event.error)}[/]", highlight=False)

        results = run_bench(specs, args.suites or DEFAULT_SUITES, settings, event)
    files = [write_results_atomic(results, out)]
    pngs: list[Path] = []
    if not args.no_plots:
        import matplotlib

        matplotlib.use("Agg")  # the CLI chooses the backend; the renderers draw on Figures
        from tokbench.render.speed import render_speed_plots

        pngs = render_speed_plots(results, out)
        files += pngs
    md = out / "report.md"
    md.write_text(render_markdown(results, [p.name for p in pngs]), encoding="utf-8")
    files.append(md)
    if not args.no_html:
        from tokbench.render.html import write_html

        files.append(write_html(results, out, [p.name for p in pngs]))
    for err in results.meta.errors:
        err_console().print(f"[yellow]skipped {escape(err.tokenizer)}:[/] {escape(err.error)}",
                            highlight=False)
    _print_summary(console(), results)
    wall = (results.meta.timings or {}).get("wall", 0.0)
    console().print(f"bench took {wall:.1f} s; wrote {', '.join(str(f) for f in files)}",
                    highlight=False)
    return 0


def _print_summary(con: Any, results: Any) -> None:
    """The verdict (fastest per request size), then one line per tokenizer: the headline
    figures, each with its clock; split into several tables when too wide."""
    from tokbench.cli.console import escape, print_fitted
    from tokbench.cli.verdict import print_verdict
    from tokbench.metrics.verdict import verdict
    from tokbench.timing import BatchDetails, LengthDetails

    print_verdict(con, verdict(results))
    by = {r.key: r for r in results.rows}

    def val(tok: str, subset: str, metric: str, fmt: str = "{:.1f}") -> str:
        r = by.get((tok, "speed", subset, metric))
        return fmt.format(r.value) if r is not None and isinstance(r.value, (int, float)) \
            else "–"

    toks = list(results.meta.tokenizers)
    batches = [(r, BatchDetails.of(r)) for r in results.rows if r.metric == "batch_mb_s"]
    counts = sorted({d.threads_asked for _, d in batches})
    top = counts[-1] if counts else 0
    ignored = {r.tokenizer for r, d in batches if d.ignored}
    columns: list[tuple[str, list[str]]] = [
        ("paragraph p50 µs", [val(t, "paragraph", "encode_p50_us") for t in toks]),
        ("p99 µs", [val(t, "paragraph", "encode_p99_us") for t in toks]),
        ("MB/s 1 thread (CPU)", [val(t, "all", "encode_mb_s", "{:.2f}") for t in toks])]
    if counts:
        columns += [
            (f"batch MB/s native @{top}",
             [val(t, f"native:{top}", "batch_mb_s") + ("*" if t in ignored else "")
              for t in toks]),
            (f"batch MB/s process @{top}", [val(t, f"process:{top}", "batch_mb_s")
                                             for t in toks])]
    columns += [
        ("superlinear", [escape(", ".join(r.subset for r in results.rows if r.tokenizer == t
                                          and r.metric == "scaling_exponent"
                                          and LengthDetails.of(r).superlinear) or "none")
                         for t in toks]),
        ("load s", [val(t, "all", "load_s", "{:.3f}") for t in toks]),
        ("RSS MB", [val(t, "all", "rss_mb") for t in toks])]
    print_fitted(con, "speed (wall clock unless marked CPU)", "tokenizer", toks, columns)
    if ignored:
        con.print(f"* its native batch ignored the thread setting at {top} threads (it used "
                  "about one core)", highlight=False)
