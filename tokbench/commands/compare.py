"""``tokbench compare BASE NEW``: what got better or worse between two runs; exit 1 on regression.

Also the regression gate of ``tokbench run --baseline FILE`` (``add_gate_arguments``) and
the renderers of a comparison: a rich terminal table, Markdown for a PR comment, JSON.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.errors import TokbenchError

if TYPE_CHECKING:
    from rich.console import Console

    from tokbench.compare import Comparison, RowChange
    from tokbench.results import Results

HELP = "compare two runs (results.json or run directories); exit 1 on a regression"

DEFAULT_BASELINE = "tokbench-baseline.json"
MARKDOWN_MAX_ROWS = 150  # a PR comment holds at most 65536 characters


def add_compare_options(p: argparse.ArgumentParser | Any, validate: bool = False) -> None:
    """``--fail``, ``--allow-change``, ``--allow-removed`` (shared with ``run --baseline``).

    ``validate`` checks the values while parsing (``run`` must not find a typo only
    after a long run).
    """
    p.add_argument("--fail", action="append", default=[], metavar="METRIC:TOL",
                   type=_fail_spec if validate else str,
                   help="tolerance of a metric or family before a worse change fails, "
                        "e.g. bytes_per_token:0.5%% (relative), roundtrip:0 (absolute), "
                        "throughput:10%%; repeatable. Defaults: any real change of a "
                        "deterministic metric, 10%% outside the noise for throughput")
    p.add_argument("--allow-change", action="append", default=[], metavar="KIND",
                   type=_allow_kinds if validate else str,
                   help="inputs that may differ and are compared anyway: tokenizer (the "
                        "tokenizer file is what changed), backend, suite, settings, machine, "
                        "all; comma-separated or repeated")
    p.add_argument("--allow-removed", action="store_true",
                   help="rows missing in the new run are not a regression")
    p.add_argument("--allow-missing", action="store_true",
                   help="a value that is null or NaN in either run is not a regression "
                        "(by default it fails: nothing can be judged)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("base", metavar="BASE", help="the reference run: results.json or its folder")
    p.add_argument("new", metavar="NEW", help="the run to judge: results.json or its folder")
    add_compare_options(p)
    p.add_argument("--all", action="store_true", dest="all_rows",
                   help="show every row, not only the rows that changed")
    p.add_argument("--format", choices=("table", "markdown", "json"), default="table",
                   help="what to print: a terminal table (default), Markdown, JSON")
    p.add_argument("--markdown", metavar="FILE", help="also write the Markdown (a PR comment)")
    p.add_argument("--json", metavar="FILE", dest="json_file", help="also write the JSON")


def main(args: argparse.Namespace) -> int:
    from tokbench.compare import compare, load_run
    from tokbench.console import console

    base, new = load_run(args.base), load_run(args.new)
    comp = compare(base, new, fail=args.fail, allow_change=args.allow_change,
                   allow_removed=args.allow_removed,
                   allow_missing=getattr(args, "allow_missing", False))
    comp.base.label, comp.new.label = str(args.base), str(args.new)
    _write_files(comp, args.markdown, args.json_file, args.all_rows)
    out = console()
    if args.format == "json":
        out.out(json.dumps(comp.to_dict(all_rows=args.all_rows), ensure_ascii=False,
                           indent=1), highlight=False)  # out(): never wrapped
    elif args.format == "markdown":
        out.out(render_markdown(comp, all_rows=args.all_rows), highlight=False)
    else:
        print_comparison(out, comp, all_rows=args.all_rows)
    return 1 if comp.regression else 0


def _write_files(comp: Comparison, markdown: str | None, json_file: str | None,
                 all_rows: bool) -> None:
    if markdown:
        _write(Path(markdown), render_markdown(comp, all_rows=all_rows))
    if json_file:
        _write(Path(json_file), json.dumps(comp.to_dict(all_rows=all_rows), ensure_ascii=False,
                                           indent=1) + "\n")


def _write(path: Path, text: str) -> None:
    from tokbench.atomic import write_atomic

    write_atomic(path, text)


# -- the regression gate of ``tokbench run`` --------------------------------------------------

class _Baseline:
    """A baseline loaded while the command line is parsed (before the run overwrites files)."""

    def __init__(self, path: Path, results: Results) -> None:
        self.path, self.results = path, results

    def __repr__(self) -> str:
        return str(self.path)


class _LoadBaseline(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        from tokbench.compare import load_run

        path = Path(values if isinstance(values, str) else self.const)
        if not path.exists() and values is None:
            raise argparse.ArgumentError(self, f"{path}: no baseline here yet; write one with "
                                               "`tokbench baseline update` or pass FILE")
        try:
            setattr(namespace, self.dest, _Baseline(path, load_run(path)))
        except TokbenchError as e:
            raise argparse.ArgumentError(self, str(e)) from None


def _fail_spec(spec: str) -> str:
    from tokbench.compare import Thresholds

    try:
        Thresholds([spec])
    except TokbenchError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return spec


def _allow_kinds(value: str) -> str:
    from tokbench.compare import parse_allow_change

    try:
        parse_allow_change([value])
    except TokbenchError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return value


def add_gate_arguments(p: argparse.ArgumentParser) -> None:
    """The options ``tokbench run`` takes for the gate and history; installs the hook."""
    g = p.add_argument_group("regression gate and history")
    g.add_argument("--baseline", nargs="?", const=DEFAULT_BASELINE, action=_LoadBaseline,
                   metavar="FILE",
                   help=f"compare this run with FILE (default {DEFAULT_BASELINE}); print the "
                        "changes, write OUT/compare.md and exit 1 on a regression")
    add_compare_options(g, validate=True)
    g.add_argument("--history", metavar="PATH",
                   help="SQLite history to record the run in (default $TOKBENCH_HISTORY, "
                        "else history.sqlite beside the output folder: "
                        "reports/history.sqlite for --out reports/latest)")
    g.add_argument("--no-history", action="store_true", help="do not record the run")
    p.set_defaults(_gate=gate)


def gate(args: argparse.Namespace, results: Results) -> int:
    """After ``tokbench run``: record the history, compare with ``--baseline``; the exit code."""
    from rich.markup import escape

    from tokbench.console import console, err_console

    out = Path(args._out)  # the run's output folder, set by ``tokbench run``
    if not getattr(args, "no_history", False):
        from tokbench.history import History, history_path

        path = history_path(getattr(args, "history", None), out)
        try:
            with History(path) as h:
                h.record(results, source="tokbench run")
        except TokbenchError as e:  # the run's files are written; history is a bonus
            err_console().print(f"[yellow]history not recorded:[/] {escape(str(e))}",
                                highlight=False)
        else:
            console().print(f"recorded in history {path}", highlight=False, markup=False)
    baseline: _Baseline | None = getattr(args, "baseline", None)
    if baseline is None:
        return 0
    from tokbench.compare import compare

    comp = compare(baseline.results, results, fail=args.fail, allow_change=args.allow_change,
                   allow_removed=args.allow_removed,
                   allow_missing=getattr(args, "allow_missing", False),
                   base_label=str(baseline.path),
                   new_label="this run")
    md = out / "compare.md"
    _write(md, render_markdown(comp))
    print_comparison(console(), comp)
    console().print(f"wrote {md}", highlight=False, markup=False)
    return 1 if comp.regression else 0


# -- rendering --------------------------------------------------------------------------------

_STYLE = {"worse": "yellow", "missing": "red", "removed": "blue", "not_comparable": "magenta",
          "better": "green", "changed": "cyan", "added": "blue", "not_significant": "dim",
          "unchanged": "dim"}
_ICON = {"worse": "⚠️", "missing": "❓", "removed": "➖", "not_comparable": "⛔", "better": "✅",
         "changed": "🔄", "added": "➕", "not_significant": "〰️", "unchanged": ""}


def status_text(r: RowChange) -> str:
    """``worse``, ``worse (tolerated)``, ``removed``..."""
    text = r.status.replace("_", " ")
    if r.status == "worse" and not r.fails:
        text += " (tolerated)"
    if r.status in ("removed", "missing") and not r.fails:
        text += " (allowed)"
    return text


def format_change(r: RowChange) -> str:
    """Relative change with sign (absolute when the base is zero)."""
    from tokbench.metrics import metric_info
    from tokbench.render.tables import PERCENT_METRICS, format_value

    rel, delta = r.relative, r.delta
    if rel is None or delta is None:
        return ""
    if delta == 0:
        return "="
    sign = "+" if delta > 0 else "−"
    if r.metric in PERCENT_METRICS:  # shares: percentage points
        return f"{sign}{abs(delta) * 100:.2f} pp"
    if math.isinf(rel):
        return f"{sign}{format_value(abs(delta), metric_info(r.metric))}"
    return f"{sign}{abs(rel) * 100:.2f}%"


def format_cell(value: Any, metric: str) -> str:
    from tokbench.metrics import metric_info
    from tokbench.render.tables import format_value

    return "" if value is None else format_value(value, metric_info(metric))


def row_note(r: RowChange, max_docs: int = 5) -> str:
    parts = []
    if r.documents:
        docs = ", ".join(r.documents[:max_docs])
        more = f" and {len(r.documents) - max_docs} more" if len(r.documents) > max_docs else ""
        parts.append(f"new failing documents: {docs}{more}")
    if r.reason:
        parts.append(r.reason)
    if r.base_range and r.new_range and r.status in ("worse", "better", "not_significant"):
        parts.append(f"range {_range(r.base_range)} → {_range(r.new_range)}")
    parts += r.notes
    return "; ".join(parts)


def _range(rng: tuple[float, float]) -> str:
    return f"[{rng[0]:.4g}, {rng[1]:.4g}]"


def print_comparison(con: Console, comp: Comparison, all_rows: bool = False) -> None:
    """The comparison as a rich table (changed rows, or every row), then the verdict.

    On a narrow terminal (a CI log) the notes go under the table instead of a column.
    """
    from rich.markup import escape
    from rich.table import Table

    from tokbench.metrics import metric_info

    con.print(f"{comp.base.short()}  →  {comp.new.short()}", highlight=False, markup=False)
    rows = comp.sorted_rows() if all_rows else comp.changed_rows()
    wide = con.width >= 120
    notes: list[str] = []
    if rows:
        table = Table(show_edge=False, pad_edge=False)
        table.add_column("status", no_wrap=True)
        for col in ("tokenizer", "suite", "subset", "metric") if wide else ("row",):
            table.add_column(col, overflow="fold")
        for col in ("base", "new", "change"):
            table.add_column(col, justify="right", no_wrap=True)
        if wide:
            table.add_column("note", overflow="fold", ratio=1)
        for r in rows:
            style = "bold red" if r.fails else _STYLE[r.status]
            metric = f"{r.metric} {metric_info(r.metric).arrow}".strip()
            where = [r.tokenizer, r.suite, r.subset, metric] if wide \
                else [f"{r.tokenizer} · {r.suite} · {r.subset} · {metric}"]
            note = row_note(r)
            cells = [f"[{style}]{status_text(r)}[/]", *map(escape, where),
                     escape(format_cell(r.base, r.metric)), escape(format_cell(r.new, r.metric)),
                     format_change(r)]
            if wide:
                cells.append(escape(note))
            elif note:
                notes.append(f"{where[0]}: {note}")
            table.add_row(*cells)
        con.print(table)
    for note in notes:
        con.print(f"  {note}", highlight=False, markup=False)
    if not all_rows:
        for t, s, reason, n in comp.not_comparable():
            con.print(f"[magenta]not comparable[/] {escape(f'{t} · {s}')}, {n} "
                      f"row{'s' * (n != 1)}: {escape(reason)}",
                      highlight=False)
    for f in comp.new_errors:
        con.print("[bold red]new error[/] " + escape(f"{f.get('tokenizer')} · {f.get('suite')} "
                                                     f"· {f.get('doc_id')}: {f.get('error')}"),
                  highlight=False)
    for w in comp.warnings:
        con.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)
    style = "bold red" if comp.regression else "bold green"
    con.print(f"[{style}]{comp.verdict()}[/]", highlight=False)
    if not all_rows and len(rows) < len(comp.rows):
        con.print(f"[dim]{len(comp.rows) - len(rows)} unchanged or not significant rows "
                  "hidden; --all shows them[/]")


def _md(text: Any) -> str:
    """Text for a Markdown table cell or line: HTML characters as entities, one line."""
    text = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: Any) -> str:
    """A code span (its content is shown literally, HTML included)."""
    return "`" + str(text).replace("`", "'").replace("|", "\\|").replace("\n", " ") + "`"


def _md_row(r: RowChange) -> str:
    from tokbench.metrics import metric_info

    icon = "❌" if r.fails else _ICON[r.status]
    status = f"{icon} {status_text(r)}".strip()
    if r.fails:
        status = f"**{status}**"
    metric = f"{r.metric} {metric_info(r.metric).arrow}".strip()
    cells = [status, r.tokenizer, r.suite, r.subset, metric, format_cell(r.base, r.metric),
             format_cell(r.new, r.metric), format_change(r), row_note(r)]
    return "| " + " | ".join(_md(c) for c in cells) + " |"


_MD_HEADER = ["| status | tokenizer | suite | subset | metric | base | new | change | note |",
              "|---|---|---|---|---|---:|---:|---:|---|"]


def render_markdown(comp: Comparison, all_rows: bool = False) -> str:
    """A PR comment: the verdict, the rows that changed, and details in ``<details>``."""
    icon = "❌" if comp.regression else "✅"
    out = [f"**tokbench: {icon} {comp.verdict()}**", ""]
    shown = comp.sorted_rows() if all_rows else comp.changed_rows()
    if shown:
        out += _MD_HEADER
        out += [_md_row(r) for r in shown[:MARKDOWN_MAX_ROWS]]
        if len(shown) > MARKDOWN_MAX_ROWS:
            out.append("")
            out.append(f"… and {len(shown) - MARKDOWN_MAX_ROWS} more rows "
                       "(`tokbench compare --format json` lists them all).")
        out.append("")
    groups = comp.not_comparable()
    if groups:
        out += ["⛔ Not comparable (an input of the measurement changed):", ""]
        out += [f"- {_md(t)} · {_md(s)}, {n} row{'s' * (n != 1)}: {_md(reason)}"
                for t, s, reason, n in groups[:50]]
        if len(groups) > 50:
            out.append(f"- … and {len(groups) - 50} more")
        out.append("")
    if comp.new_errors:
        out.append("Documents that no longer encode or decode:")
        out.append("")
        out += [f"- {_code(f.get('doc_id'))} ({_md(f.get('tokenizer'))} · "
                f"{_md(f.get('suite'))}): {_md(f.get('error'))}" for f in comp.new_errors[:50]]
        out.append("")
    out += _details(comp, all_rows)
    return "\n".join(out).rstrip() + "\n"


def _details(comp: Comparison, all_rows: bool) -> list[str]:
    out = ["<details><summary>Details</summary>", ""]
    out.append(f"- base: {_md(comp.base.short())}, machine {_md(comp.base.machine or '?')}")
    out.append(f"- new: {_md(comp.new.short())}, machine {_md(comp.new.machine or '?')}")
    given = ", ".join(f"{k}: {v}" for k, v in comp.thresholds.items())
    out.append("- tolerances: " + (given + "; " if given else "")
               + "default: any real change of a deterministic metric, 10% outside the noise "
                 "of both runs for throughput")
    if comp.allowed:
        out.append(f"- compared despite changed inputs: {', '.join(sorted(comp.allowed))}")
    counts = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in comp.counts().items() if n)
    out.append(f"- rows: {counts}")
    for w in comp.warnings:
        out.append(f"- warning: {_md(w)}")
    out.append("")
    if comp.new_roundtrip_failures:
        out += ["New round-trip failures:", "", "| tokenizer | suite | document | kind | "
                "expected | got |", "|---|---|---|---|---|---|"]
        for f in comp.new_roundtrip_failures[:100]:
            out.append("| " + " | ".join([*(_md(x) for x in (
                f.get("tokenizer"), f.get("suite"), f.get("doc_id"), f.get("kind", ""))),
                _code(f.get("expected", "")), _code(f.get("got", ""))]) + " |")
        out.append("")
    if comp.fixed_failures:
        docs = ", ".join(_code(f.get("doc_id")) for f in comp.fixed_failures[:50])
        out += [f"Documents that no longer fail: {docs}", ""]
    noise = [r for r in comp.rows if r.status == "not_significant"]
    if noise and not all_rows:
        out += ["Not significant (timings inside the noise or under the threshold):", ""]
        out += _MD_HEADER + [_md_row(r) for r in noise[:MARKDOWN_MAX_ROWS]]
        out.append("")
    out.append("</details>")
    return out
