"""``tokbench run``: compare tokenizers on suites and write results, tables and plots."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tokbench.events as ev
from tokbench.cli.console import escape
from tokbench.engine.presets import PRESETS, get_preset
from tokbench.errors import TokbenchError

HELP = "compare tokenizers on suites; writes results.json, results.csv, report.md and plots"

DEFAULT_OUT = "reports/latest"

def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tokenizers", "-t", type=_csv, help="comma-separated names or specs "
                   "(default: gpt2, cl100k_base, o200k_base, llama-2, llama-3, xlm-roberta, "
                   "mistral-v1, qwen3)")
    p.add_argument("--suites", "-s", help="comma-separated suite names or specs; commas inside "
                   "a spec's ?options stay in it (default: every built-in suite)")
    p.add_argument("--metrics", "-m", type=_csv, help="comma-separated metrics or families "
                   "(default: all)")
    p.add_argument("--out", "-o", help=f"output directory (default: {DEFAULT_OUT})")
    p.add_argument("--config", "-c", help="TOML file with the same keys as the flags")
    p.add_argument("--preset", choices=sorted(PRESETS), help="a ready comparison, e.g. japanese")
    p.add_argument("--premium-join", action="store_true", default=None,
                   help="join each language's documents with spaces before counting premium "
                        "(as Petrov et al. 2023 do)")
    p.add_argument("--fertility", metavar="CONVENTION",
                   help="how fertility, continued_words and strr count: ENCODING/WORDS with "
                        "ENCODING context (default), alone or alone_space (each word encoded "
                        "by itself, without or after a space) and WORDS words (default: the "
                        "language's segmenter, punctuation no word), words+punct or "
                        "whitespace (str.split pieces, punctuation attached)")
    p.add_argument("--morph-gold", metavar="FILE",
                   help="also score each tokenizer on gold morpheme segmentations: MorphScore "
                        "and boundary precision/recall/F1 (CSV/TSV word,segmentation like "
                        "un+believ+able, MorphScore's full_word,pt1,rest, or JSONL)")
    p.add_argument("--ci", metavar="LEVEL", help="confidence level of the intervals of corpus "
                   "ratios (default 95%%; none: no intervals)")
    p.add_argument("--reference", metavar="TOKENIZER", help="compare every tokenizer with "
                   "this one on the same documents (default: each subset's best)")
    p.add_argument("--precision", metavar="FRACTION", help="with sampled suites (?sample=): "
                   "read until every ratio's relative interval half-width on all documents "
                   "is at most this, e.g. 0.1%%")
    p.add_argument("--repeats", type=int, help="timed throughput repeats (default 5, min 1)")
    p.add_argument("--threads", type=int,
                   help="threads for the bulk encode (default 1; with the default --jobs, "
                        "a run that stays in one process gives its free cores to "
                        "libraries that encode a batch outside the GIL)")
    p.add_argument("--jobs", "-j", type=int, help="worker processes (default: every usable "
                   "core; 1 runs in this process)")
    p.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="where shards run: local processes, or a Dask cluster")
    p.add_argument("--scheduler", help="address of a running Dask scheduler "
                   "(tcp://HOST:8786); without it --executor dask starts a local cluster")
    p.add_argument("--resume", action="store_true",
                   help="reuse finished units and shards of the last run into OUT (the "
                        "folder an interrupted run left beside OUT, OUT.partial, else OUT)")
    p.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    p.add_argument("--no-html", action="store_true", help="do not write report.html")
    p.add_argument("--no-fetch", action="store_true",
                   help="use only cached tokenizer files; never call pip")
    from tokbench.cli.gate import add_gate_arguments

    add_gate_arguments(p)  # --baseline, --fail, --history


def resolve_config(args: argparse.Namespace) -> dict[str, Any]:
    """Flags over config file over preset over defaults, each value checked."""
    from tokbench.cli.config import CHECKS, check_flags, read_config

    conf: dict[str, Any] = {}
    if args.preset:
        conf.update(get_preset(args.preset))
    if args.config:
        conf.update(read_config(args.config))
    conf.update(check_flags({key: getattr(args, key, None) for key in CHECKS}))
    return conf


def main(args: argparse.Namespace) -> int:
    from tokbench.cli.console import console, err_console
    from tokbench.cli.outdir import OutputFolder
    from tokbench.engine.runner import DEFAULT_SUITES, Settings
    from tokbench.results import Results
    from tokbench.suites import load_suites

    conf = resolve_config(args)
    from tokbench.metrics import resolve_families

    resolve_families(conf.get("metrics"))  # an unknown metric fails before any fetching
    out = Path(conf.get("out") or DEFAULT_OUT)
    settings = Settings(premium_join=bool(conf.get("premium_join", False)),
                        throughput_repeats=int(conf.get("repeats", 5)),
                        threads=int(conf.get("threads", 1)),
                        fertility=str(conf.get("fertility", "context/words")),
                        morph_gold=str(conf.get("morph_gold") or ""),
                        ci=None if conf.get("ci") == "none" else float(conf.get("ci", 0.95)),
                        reference=conf.get("reference"), precision=conf.get("precision"))
    if settings.morph_gold:  # a bad gold file is said before any progress is drawn
        from tokbench.suites.morph_gold import read_gold

        read_gold(settings.morph_gold)
    with OutputFolder(out) as folder, _render_worker(args, conf) as worker:
        # a second run into OUT stops at the folder, naming this one
        source = folder.resume_source() if args.resume else None
        # an empty Results still resumes the finished shards of a run killed before its
        # first finished unit
        try:
            resume = Results.load(source) if source is not None else (
                Results() if args.resume else None)
        except TokbenchError as e:  # e.g. cut short by a full disk
            raise TokbenchError(f"--resume: {e}; run without --resume to start afresh "
                                "(that unfinished run is then replaced)") from None

        tokenizers = conf.get("tokenizers")
        if tokenizers is not None:
            _prefetch(tokenizers)
        else:
            from tokbench.engine.runner import DEFAULT_TOKENIZERS

            _prefetch(list(DEFAULT_TOKENIZERS))
        # started before the suites are read: its interpreter and imports overlap it
        with _second_process(tokenizers, conf, args, resume) as second:
            suites, suite_errors = load_suites(conf.get("suites") or DEFAULT_SUITES)
            if settings.precision is not None and suites:
                from tokbench.engine.runner import check_precision

                check_precision(suites)
            if not suites:
                more = f" and {len(suite_errors) - 1} more" if len(suite_errors) > 1 else ""
                raise TokbenchError(f"no suite could be loaded ({suite_errors[0].suite}: "
                                    f"{suite_errors[0].error}{more}); {out} is unchanged")
            for err in suite_errors:
                err_console().print(f"[yellow]suite {escape(str(err.suite))} not run:[/] "
                                    f"{escape(err.error)}", highlight=False)
            loaded: dict[str, Any] = {}  # the token viewer reuses the run's tokenizers
            results = _run(folder, tokenizers, suites, suite_errors, conf, settings, resume,
                           args, loaded, second)
        errors = results.meta.errors
        if not results.rows:
            folder.discard()
            why = f" ({errors[0].subject}: {errors[0].error})" if errors else ""
            raise TokbenchError(f"nothing was measured{why}; {out} is unchanged")
        if worker is not None:  # it starts drawing while this process writes the rest
            worker.send(results, folder.staging, not args.no_plots)
        # the viewer reuses the suites read whole (a streamed corpus is read again from
        # the start of its files)
        from tokbench.results import as_saved
        from tokbench.suites.model import Suite

        saved = as_saved(results)  # what every view renders (the values rounded)
        files = _write(folder, results, saved, args, worker, loaded,
                       {s.name: s for s in suites if isinstance(s, Suite)})
        if worker is not None and worker.failure:
            err_console().print(f"[yellow]warning:[/] {escape(worker.failure)}; its files "
                                "were written by the run's own process", highlight=False)
    for warning in results.meta.warnings or []:
        err_console().print(f"[yellow]warning:[/] {escape(str(warning))}", highlight=False)
    for err in errors:
        err_console().print(f"[yellow]skipped {escape(err.subject)}:[/] "
                            f"{escape(err.error)}", highlight=False)
    _print_summary(console(), saved, conf.get("focus"))
    console().print(escape(f"wrote {', '.join(str(f) for f in files)}"), highlight=False)
    from tokbench.cli.gate import gate

    baseline_exit = gate(args, results, out)
    if errors:
        failed = ", ".join(e.subject for e in errors)
        err_console().print(f"[bold red]tokbench: error:[/] {len(errors)} requested "
                            f"tokenizer(s) or suite(s) failed: {escape(failed)} (why: above); "
                            "the results of the rest are written", highlight=False,
                            soft_wrap=True)
        return 2
    return baseline_exit


def _run(folder: Any, tokenizers: list[str] | None, suites: list[Any],
         suite_errors: list[Any], conf: dict[str, Any], settings: Any,
         resume: Any, args: argparse.Namespace, loaded: dict[str, Any],
         second: Any = None) -> Any:
    """Run into the staging folder; an interruption keeps the finished units in OUT."""
    from tokbench.cli.output import Checkpoint
    from tokbench.engine.runner import run
    from tokbench.engine.state import STATE_FILE

    # finished shards of a killed or interrupted run carry over into this one on --resume
    # the earlier unfinished run's results too: an interruption before this run's first
    # checkpoint must not lose them
    staging = folder.start(carry=(STATE_FILE, "results.json") if args.resume else ())
    checkpoint = Checkpoint(staging)

    def on_unit(results: Any) -> None:
        _add_suite_errors(results, suite_errors)
        checkpoint(results)

    try:
        with _Progress() as prog:
            results = run(tokenizers, suites, conf.get("metrics"), settings=settings,
                          on_unit=on_unit, progress=prog.event, resume=resume,
                          jobs=conf.get("jobs"), executor=args.executor,
                          scheduler=args.scheduler, state=staging / STATE_FILE,
                          on_loaded=None if args.no_html else loaded.update,
                          second=second)
    except KeyboardInterrupt:
        checkpoint.flush()  # every finished unit is kept for --resume; OUT stays as it was
        from tokbench.cli.console import err_console

        err_console().print(escape(f"stopped: finished work is kept in {staging}; add "
                                   f"--resume to continue it ({folder.out} is unchanged)"),
                            highlight=False, soft_wrap=True)
        raise
    _add_suite_errors(results, suite_errors)
    return results


def _add_suite_errors(results: Any, suite_errors: list[Any]) -> None:
    errors = results.meta.errors
    errors.extend(e for e in suite_errors if e not in errors)


@contextlib.contextmanager
def _second_process(tokenizers: list[str] | None, conf: dict[str, Any],
                    args: argparse.Namespace, resume: Any) -> Iterator[Any]:
    """The run's second process (``tokbench.engine.runner.start_second_process``), ended
    on the way out whatever happened (the run ends it too once it is done with it)."""
    from tokbench.engine.runner import DEFAULT_TOKENIZERS, start_second_process

    second = None if resume is not None else start_second_process(
        tokenizers or list(DEFAULT_TOKENIZERS), jobs=conf.get("jobs"),
        executor=args.executor, metrics=conf.get("metrics"))
    try:
        yield second
    finally:
        if second is not None:
            second.close()


def _render_worker(args: argparse.Namespace, conf: dict[str, Any]) -> Any:
    """The process that draws the plots beside this one (``RenderWorker``), started now
    so that it imports matplotlib while the run works; none with ``--jobs 1`` (all in
    this process), ``--no-plots`` (results.csv alone does not pay a process) or metrics
    that draw no plot but compression's bars by domain (``PLOTTED_FAMILIES``). It keeps
    the plots between runs (``tokbench.render.plotcache``)."""
    from tokbench.metrics import resolve_families
    from tokbench.render.plots import PLOTTED_FAMILIES

    if (conf.get("jobs") == 1 or args.no_plots
            or PLOTTED_FAMILIES.isdisjoint(resolve_families(conf.get("metrics")))):
        return contextlib.nullcontext(None)
    from tokbench.cli.render_worker import RenderWorker

    return RenderWorker.start(cache=True) or contextlib.nullcontext(None)


def _write(folder: Any, results: Any, saved: Any, args: argparse.Namespace, worker: Any,
           loaded: dict[str, Any], suites: dict[str, Any]) -> list[Path]:
    """Every output file into the staging folder, then the folder swapped in for OUT
    (``worker``: the plots are shared with it; None, with ``--jobs 1``: all here)."""
    from tokbench.cli.output import write_outputs

    files = write_outputs(results, folder.staging, saved=saved, plots=not args.no_plots,
                          html=not args.no_html, worker=worker, tokenizers=loaded,
                          suites=suites, plot_cache=True)
    folder.publish(files)
    return [folder.out / f.name for f in files]


def _prefetch(specs: list[str]) -> None:
    """Fetch missing catalog files first, with a progress bar (tokbench fetch)."""
    from tokbench.cli.fetching import fetch_with_progress

    fetch_with_progress(specs, quiet_cached=True)


class _Progress:
    """Maps runner events onto rich progress: text bytes done / total, MB/s and ETA; then
    a bar of its own for the timing phase (the measuring bar keeps what a split run's
    other process still measures)."""

    def __enter__(self) -> _Progress:
        from tokbench.cli.console import byte_progress

        self._p = byte_progress()
        self._p.__enter__()
        self._bytes = self._p.add_task("starting", total=None)
        self._task = self._bytes  # what unit and timing events describe
        return self

    def event(self, event: ev.Event) -> None:
        match event:
            case ev.RunStarted():
                self._p.update(self._bytes, total=event.bytes or None, description="measuring")
            case ev.ShardDone():
                self._p.update(self._bytes, advance=event.bytes, description=escape(
                    event.suite) if self._task == self._bytes else None)  # None: kept
            case ev.UnitReached():
                self._p.update(self._task, description=escape(
                    f"{event.tokenizer} · {event.suite}"))
            case ev.PhaseStarted():  # timing throughput: a bar of its own, counted in units
                self._p.update(self._bytes, description="measured")
                self._task = self._p.add_task("timing throughput", total=event.units,
                                              count=True)
            case ev.TimingStarted():
                self._p.update(self._task, description=escape(
                    f"timing {event.tokenizer} · {event.suite}"))
            case ev.TimingDone():
                self._p.advance(self._task)
            case ev.TokenizerFailed():  # why is said once, after the run
                self._p.console.print(f"[yellow]{escape(event.tokenizer)}: not loaded; "
                                      "the rest runs (why: at the end)[/]", highlight=False)

    def __exit__(self, *exc: object) -> None:
        self._p.__exit__(None, None, None)


def _print_summary(con: Any, results: Any, focus: dict[str, str] | None) -> None:
    """The verdict, then one table per suite: tokenizers as rows, headline metrics of the
    focus subset; a table too wide for the terminal is split into several (values are
    never cut)."""
    from tokbench.cli.console import escape, print_fitted
    from tokbench.cli.verdict import print_legend, print_verdict
    from tokbench.metrics import SUMMARY_RUN, summary_metrics
    from tokbench.metrics.trust import Trust
    from tokbench.metrics.verdict import verdict
    from tokbench.render.tables import format_cell, left_out_text, tokenizer_order

    trust = Trust.of(results)
    print_verdict(con, verdict(results, trust))
    toks = tokenizer_order(results)
    headline = {m.name: m for m in summary_metrics(SUMMARY_RUN)}
    symbols: list[str] = []
    for suite, info in results.meta.suites.items():
        left_out = left_out_text(info.left_out or {})
        if left_out:
            con.print(f"[yellow]suite {escape(suite)}:[/] {escape(left_out)}", highlight=False)
        subset = (focus or {}).get(suite, "all")
        values: dict[str, dict[str, Any]] = {}
        extras: dict[str, dict[str, Any]] = {}
        failed: dict[str, int] = {}  # documents left out of a tokenizer's values
        for r in results.rows:
            if r.suite == suite and r.subset == subset and r.metric in headline:
                values.setdefault(r.metric, {})[r.tokenizer] = r.value
                extras.setdefault(r.metric, {})[r.tokenizer] = r.extra
                failed[r.tokenizer] = int(r.extra.get("failed_docs") or 0)
        if not values:
            continue
        metrics = [m for m in headline if m in values]
        # a value over fewer documents (some failed) is not comparable: never best
        best = {m: trust.best({t: v for t, v in values[m].items() if not failed.get(t)},
                              suite, subset, m) for m in metrics}
        texts: dict[str, dict[str, str]] = {}
        for m in metrics:
            flags = trust.flags(suite, subset, m, values[m])
            symbols += [c.symbols for c in flags.values()]
            # the symbol before the value, so the digits of a column stay aligned
            texts[m] = {tok: (flags[tok].symbols if tok in flags else "")
                        + format_cell(values[m].get(tok), headline[m], extras[m].get(tok))
                        for tok in toks}
        columns = []
        for m in metrics:
            header = headline[m].header
            cells = [f"[bold green]{escape(texts[m][tok])}[/]" if tok in best[m]
                     else escape(texts[m][tok]) for tok in toks]
            columns.append((header, cells))
        # every value of a row leaves out that tokenizer's failed documents: said once
        names = [f"{tok} ({failed[tok]:,} failed)" if failed.get(tok) else tok for tok in toks]
        print_fitted(con, f"{suite} · {subset}", "tokenizer", names, columns)
    print_legend(con, symbols)
