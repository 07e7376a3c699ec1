"""The regression gate of ``tokbench run --baseline``, and the compare options it shares
with ``tokbench compare``: record the run in the history, compare it with the baseline,
print and write the comparison, and give the exit code."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.errors import TokbenchError

if TYPE_CHECKING:
    from tokbench.results import Results

DEFAULT_BASELINE = "tokbench-baseline.json"


def add_compare_options(p: argparse.ArgumentParser | Any, validate: bool = False) -> None:
    """``--fail``, ``--judge-timings``, ``--allow-change``, ``--allow-removed``,
    ``--allow-missing`` (shared with ``run --baseline``).

    ``validate`` checks the values while parsing (``run`` must not find a typo only
    after a long run).
    """
    p.add_argument("--fail", action="append", default=[], metavar="METRIC:TOL",
                   type=_fail_spec if validate else str,
                   help="tolerance of a metric or family before a worse change fails, "
                        "e.g. bytes_per_token:0.5%% (relative), roundtrip:0 (absolute), "
                        "throughput:15%% (naming a timing also judges it); repeatable. "
                        "Default: any real change of a deterministic metric; timings are "
                        "not judged")
    p.add_argument("--judge-timings", action="store_true",
                   help="judge every timing (throughput, speed) with its default tolerance "
                        "(10%% outside the noise of both runs for throughput), on the CPU "
                        "clock; a machine too busy to time is not a regression")
    p.add_argument("--allow-change", action="append", default=[], metavar="KIND",
                   type=_allow_kinds if validate else str,
                   help="inputs that may differ and are compared anyway: suite, settings, "
                        "machine (timings), segmenter, definition, all; comma-separated or "
                        "repeated (a changed tokenizer file or backend version is always "
                        "compared: the tokenizer is judged by name)")
    p.add_argument("--allow-removed", action="store_true",
                   help="rows missing in the new run are not a regression")
    p.add_argument("--allow-missing", action="store_true",
                   help="a value that is null or NaN in either run is not a regression "
                        "(by default it fails: nothing can be judged)")


class _Baseline:
    """A baseline loaded while the command line is parsed (before the run overwrites files)."""

    def __init__(self, path: Path, results: Results) -> None:
        self.path, self.results = path, results

    def __repr__(self) -> str:
        return str(self.path)


class _LoadBaseline(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        from tokbench.ci.compare import load_run

        path = Path(values if isinstance(values, str) else self.const)
        if not path.exists() and values is None:
            raise argparse.ArgumentError(self, f"{path}: no baseline here yet; write one with "
                                               "`tokbench baseline update` or pass FILE")
        try:
            setattr(namespace, self.dest, _Baseline(path, load_run(path)))
        except TokbenchError as e:
            raise argparse.ArgumentError(self, str(e)) from None


def _checked_by(check: str) -> Callable[[str], str]:
    """An argparse ``type`` that passes a value through ``tokbench.ci.compare.<check>``
    (as a one-item list), so a typo fails while parsing, before a long run."""
    def parse(value: str) -> str:
        from tokbench.ci import compare

        try:
            getattr(compare, check)([value])
        except TokbenchError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        return value
    return parse


_fail_spec = _checked_by("Thresholds")
_allow_kinds = _checked_by("parse_allow_change")


def add_gate_arguments(p: argparse.ArgumentParser) -> None:
    """The options ``tokbench run`` takes for the gate and history; installs the hook."""
    g = p.add_argument_group("regression gate and history")
    g.add_argument("--baseline", nargs="?", const=DEFAULT_BASELINE, action=_LoadBaseline,
                   metavar="FILE",
                   help=f"compare this run with FILE (default {DEFAULT_BASELINE}); print the "
                        "changes, write OUT/compare.md and exit 1 on a regression (2 when "
                        "nothing could be compared)")
    add_compare_options(g, validate=True)
    g.add_argument("--history", metavar="PATH",
                   help="SQLite history to record the run in (default $TOKBENCH_HISTORY, "
                        "else history.sqlite beside the output folder: "
                        "reports/history.sqlite for --out reports/latest)")
    g.add_argument("--no-history", action="store_true", help="do not record the run")


def _written_digest(out: Path) -> str | None:
    """The sha256 of the results.json this run wrote into ``out`` (``results.to_json()``
    as bytes), or None when it cannot be read."""
    import hashlib

    try:
        return hashlib.sha256((out / "results.json").read_bytes()).hexdigest()
    except OSError:
        return None


def gate(args: argparse.Namespace, results: Results, out: Path) -> int:
    """After ``tokbench run`` into ``out``: record the history, compare with
    ``--baseline``; the exit code (1 on a regression; ``InputError``, exit 2, when nothing
    could be compared)."""
    from rich.markup import escape

    from tokbench.atomic import write_atomic
    from tokbench.cli.console import console, err_console
    from tokbench.render.comparison import print_comparison, render_markdown

    if not getattr(args, "no_history", False):
        from tokbench.ci.history import History, history_path

        path = history_path(getattr(args, "history", None), out)
        try:
            with History(path) as h:
                h.record(results, source="tokbench run", digest=_written_digest(out))
        except TokbenchError as e:  # the run's files are written; history is a bonus
            err_console().print(f"[yellow]history not recorded:[/] {escape(str(e))}",
                                highlight=False)
        else:
            console().print(f"recorded in history {path}", highlight=False, markup=False)
    baseline: _Baseline | None = getattr(args, "baseline", None)
    if baseline is None:
        return 0
    from tokbench.ci.compare import compare

    comp = compare(baseline.results, results, fail=args.fail, allow_change=args.allow_change,
                   allow_removed=args.allow_removed,
                   allow_missing=getattr(args, "allow_missing", False),
                   timings=getattr(args, "judge_timings", False),
                   base_label=str(baseline.path), new_label="this run")
    comp.require_compared()  # a gate that judged nothing is no pass
    md = out / "compare.md"
    write_atomic(md, render_markdown(comp))
    print_comparison(console(), comp)
    console().print(f"wrote {md}", highlight=False, markup=False)
    return 1 if comp.regression else 0


