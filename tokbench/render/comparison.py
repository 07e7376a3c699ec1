"""A comparison of two runs, rendered: a rich terminal table, Markdown for a PR comment.

Renderers read the ``Comparison`` (``tokbench.ci.compare``); they compute nothing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from tokbench.ci.compare import Comparison, RowChange

MARKDOWN_MAX_ROWS = 150  # a PR comment holds at most 65536 characters

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
    from tokbench.render.tables import format_value

    rel, delta = r.relative, r.delta
    if rel is None or delta is None:
        return ""
    if delta == 0:
        return "="
    sign = "+" if delta > 0 else "−"
    info = metric_info(r.metric)
    if info.percent:  # shares: percentage points
        return f"{sign}{abs(delta) * 100:.2f} pp"
    if math.isinf(rel):
        return f"{sign}{format_value(abs(delta), info)}"
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
        con.print("[bold red]new error[/] " + escape(f"{f.tokenizer} · {f.suite} "
                                                     f"· {f.doc_id}: {f.error}"),
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
    out = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return out.replace("|", "\\|").replace("\n", " ")


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
        out += [f"- {_code(f.doc_id)} ({_md(f.tokenizer)} · "
                f"{_md(f.suite)}): {_md(f.error)}" for f in comp.new_errors[:50]]
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
                f.tokenizer, f.suite, f.doc_id, f.kind)),
                _code(f.expected or ""), _code(f.got or "")]) + " |")
        out.append("")
    if comp.fixed_failures:
        docs = ", ".join(_code(f.doc_id) for f in comp.fixed_failures[:50])
        out += [f"Documents that no longer fail: {docs}", ""]
    noise = [r for r in comp.rows if r.status == "not_significant"]
    if noise and not all_rows:
        out += ["Not significant (timings inside the noise or under the threshold):", ""]
        out += _MD_HEADER + [_md_row(r) for r in noise[:MARKDOWN_MAX_ROWS]]
        out.append("")
    out.append("</details>")
    return out
