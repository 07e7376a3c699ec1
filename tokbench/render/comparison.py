"""A comparison of two runs, rendered: terminal text for 80 columns, Markdown for a PR comment.

Both have one structure: the verdict first; the inputs that changed and were compared
anyway, said once; the changed rows grouped by tokenizer and metric (the failing groups
first, a few rows each); what could not be compared; then a count of the rest.
Renderers read the ``Comparison`` (``tokbench.ci.compare``); they compute nothing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from tokbench.render.visible import shown

if TYPE_CHECKING:
    from rich.console import Console

    from tokbench.ci.compare import Comparison, RowChange

MARKDOWN_MAX_ROWS = 100  # a PR comment holds at most 65536 characters
GROUP_ROWS = 6  # rows shown per group in the terminal (--all: every row) ...
TERMINAL_ROWS = 60  # ... until this many are shown: later groups get their title only
MARKDOWN_GROUP_ROWS = 10

_STYLE = {"worse": "yellow", "missing": "red", "removed": "blue", "not_comparable": "magenta",
          "better": "green", "changed": "cyan", "added": "blue", "not_significant": "dim",
          "not_judged": "dim", "unchanged": "dim"}
_ICON = {"worse": "⚠️", "missing": "❓", "removed": "➖", "not_comparable": "⛔", "better": "✅",
         "changed": "🔄", "added": "➕", "not_significant": "〰️", "not_judged": "", "unchanged": ""}
_REST = {"not_judged": "not judged (timings: --fail METRIC:TOL or --judge-timings judges them)"}


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


def row_note(r: RowChange, max_docs: int = 5, shared: str = "") -> str:
    """What is particular to the row: newly failing documents, its reason (unless it is the
    ``shared`` reason of its group), the noise bands of a timing."""
    parts = []
    if r.documents:
        docs = ", ".join(r.documents[:max_docs])
        more = f" and {len(r.documents) - max_docs} more" if len(r.documents) > max_docs else ""
        parts.append(f"new failing documents: {docs}{more}")
    if r.reason and r.reason != shared:
        parts.append(r.reason)
    if r.base_range and r.new_range and r.status in ("worse", "better", "not_significant"):
        parts.append(f"range {_range(r.base_range)} → {_range(r.new_range)}")
    return "; ".join(parts)


def _range(rng: tuple[float, float]) -> str:
    return f"[{rng[0]:.4g}, {rng[1]:.4g}]"


def _shared_reason(rows: list[RowChange]) -> str:
    """The reason every row of a group gives, if they all give the same one."""
    reasons = {r.reason for r in rows}
    return reasons.pop() if len(reasons) == 1 else ""


def _group_title(key: tuple[str, str], rows: list[RowChange]) -> str:
    """``tok · metric ↑: 3 worse, 1 better``."""
    from tokbench.metrics import metric_info

    tokenizer, metric = key
    counts: dict[str, int] = {}
    for r in rows:
        text = status_text(r)
        counts[text] = counts.get(text, 0) + 1
    what = ", ".join(f"{n} {s}" for s, n in counts.items())
    return f"{tokenizer} · {metric} {metric_info(metric).arrow}".rstrip() + f": {what}"


def rest_text(comp: Comparison) -> str:
    """``700 unchanged, 24 not judged (...)``: the rows not listed one by one."""
    return ", ".join(f"{n} {_REST.get(s, s.replace('_', ' '))}" for s, n in comp.rest().items())


def _where(r: RowChange) -> str:
    return f"{r.suite} · {r.subset}"


def print_comparison(con: Console, comp: Comparison, all_rows: bool = False) -> None:
    """The comparison as text that fits 80 columns: verdict, notes, groups, the rest."""
    from rich.markup import escape
    from rich.table import Table

    style = "bold red" if comp.regression else "bold green"
    con.print(f"[{style}]{escape(shown(comp.verdict()))}[/]", highlight=False)
    con.print(shown(f"{comp.base.short()}  →  {comp.new.short()}"), highlight=False,
              markup=False)
    for note in comp.notes:
        con.print(f"[cyan]note:[/] {escape(shown(note))}", highlight=False)
    for w in comp.warnings:
        con.print(f"[yellow]warning:[/] {escape(shown(w))}", highlight=False)
    limit = None if all_rows else GROUP_ROWS
    budget = None if all_rows else TERMINAL_ROWS
    titles_only: list[str] = []
    for key, rows in comp.changed_groups():
        shared = _shared_reason(rows)
        title = _group_title(key, rows) + (f" ({shared})" if shared else "")
        if budget is not None and budget <= 0:
            titles_only.append(title)
            continue
        if budget is not None:
            budget -= min(len(rows), GROUP_ROWS)
        con.print()
        con.print(f"[bold]{escape(shown(title))}[/]", highlight=False)
        table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 1))
        table.add_column("", no_wrap=True)
        table.add_column("suite · subset", overflow="fold", ratio=1)
        for col in ("base", "new", "change"):
            table.add_column(col, justify="right", no_wrap=True)
        for r in rows[:limit]:
            style = "bold red" if r.fails else _STYLE[r.status]
            mark = "✗ " if r.fails else "  "
            table.add_row(f"[{style}]{mark}{status_text(r)}[/]", escape(shown(_where(r))),
                          escape(format_cell(r.base, r.metric)),
                          escape(format_cell(r.new, r.metric)), format_change(r))
            note = row_note(r, shared=shared)
            if note:
                table.add_row("", f"[dim]↳ {escape(shown(note))}[/]", "", "", "")
        con.print(table)
        if limit is not None and len(rows) > limit:
            con.print(f"  [dim]… {len(rows) - limit} more rows (--all shows them)[/]",
                      highlight=False)
    if titles_only:
        con.print()
        con.print("[dim]more changes (--all shows their rows):[/]")
    for title in titles_only:
        con.print(f"  {escape(shown(title))}", highlight=False)
    groups = comp.not_comparable()
    if groups:
        con.print()
    for t, s, reason, n in groups:
        con.print(f"[magenta]not comparable:[/] {escape(shown(f'{t} · {s}'))}, {n} "
                  f"row{'s' * (n != 1)}: {escape(shown(reason))}", highlight=False)
    for f in comp.new_errors:
        con.print("[bold red]new error:[/] " + escape(shown(f"{f.tokenizer} · {f.suite} "
                                                            f"· {f.doc_id}: {f.error}")),
                  highlight=False)
    rest = rest_text(comp)
    if rest:
        con.print()
        con.print(f"[dim]the rest: {escape(rest)}[/]", highlight=False)
    if all_rows:
        listed = {id(r) for r in comp.changed_rows()}
        quiet = [r for r in comp.sorted_rows() if id(r) not in listed]
        if quiet:
            _print_quiet(con, quiet)


def _print_quiet(con: Console, rows: list[RowChange]) -> None:
    """Every row not listed in a group (``--all``), one line each."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 1))
    table.add_column("", no_wrap=True)
    table.add_column("tokenizer · suite · subset · metric", overflow="fold", ratio=1)
    for col in ("base", "new", "change"):
        table.add_column(col, justify="right", no_wrap=True)
    for r in rows:
        table.add_row(f"[{_STYLE[r.status]}]{status_text(r)}[/]",
                      escape(shown(f"{r.tokenizer} · {_where(r)} · {r.metric}")),
                      escape(format_cell(r.base, r.metric)),
                      escape(format_cell(r.new, r.metric)), format_change(r))
    con.print(table)


def _md(text: Any) -> str:
    """Text for a Markdown table cell or line: HTML characters as entities, one line."""
    out = shown(str(text)).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return out.replace("|", "\\|")


def _code(text: Any) -> str:
    """A code span (its content is shown literally, HTML included)."""
    return "`" + shown(str(text)).replace("`", "'").replace("|", "\\|") + "`"


def _md_row(r: RowChange, shared: str = "", lead: str | None = None, note: bool = True
            ) -> str:
    """One table row; ``lead`` replaces the status cell; ``note`` adds the note cell."""
    icon = "❌" if r.fails else _ICON[r.status]
    status = f"{icon} {status_text(r)}".strip()
    if r.fails:
        status = f"**{status}**"
    cells = [status if lead is None else lead, r.suite, r.subset, format_cell(r.base, r.metric),
             format_cell(r.new, r.metric), format_change(r)]
    if note:
        cells.append(row_note(r, shared=shared))
    return "| " + " | ".join(_md(c) for c in cells) + " |"


def _md_table(rows: list[RowChange], shared: str = "", first: str = "status",
              lead: bool = False) -> list[str]:
    """A table of rows; the note column only when a row has a note."""
    note = any(row_note(r, shared=shared) for r in rows)
    head = [first, "suite", "subset", "base", "new", "change"] + ["note"] * note
    align = ["---"] * 3 + ["---:"] * 3 + ["---"] * note
    return ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|",
            *(_md_row(r, shared, f"{r.tokenizer} · {r.metric}" if lead else None, note)
              for r in rows)]


def render_markdown(comp: Comparison, all_rows: bool = False) -> str:
    """A PR comment, structured as the terminal text; details in ``<details>``."""
    icon = "❌" if comp.regression else "✅"
    out = [f"**tokbench: {icon} {_md(comp.verdict())}**", ""]
    out += [f"{_code(comp.base.short())} → {_code(comp.new.short())}", ""]
    if comp.notes or comp.warnings:
        out += [f"- note: {_md(n)}" for n in comp.notes]
        out += [f"- ⚠️ warning: {_md(w)}" for w in comp.warnings]
        out.append("")
    budget = MARKDOWN_MAX_ROWS
    limit = None if all_rows else MARKDOWN_GROUP_ROWS
    titles_only = []
    for key, rows in comp.changed_groups():
        shared = _shared_reason(rows)
        title = _group_title(key, rows) + (f" ({shared})" if shared else "")
        if budget <= 0:
            titles_only.append(f"- {_md(title)}")
            continue
        shown = rows[:min(budget, limit or budget)]
        budget -= len(shown)
        out += [f"**{_md(title)}**", "", *_md_table(shown, shared)]
        if len(shown) < len(rows):
            out += ["", f"… and {len(rows) - len(shown)} more rows "
                        "(`tokbench compare --all` or `--format json` lists them)."]
        out.append("")
    if titles_only:
        out += ["More changes (`tokbench compare --all` lists their rows):", "",
                *titles_only, ""]
    nc = comp.not_comparable()
    if nc:
        out += ["⛔ Not comparable (an input of the measurement changed):", ""]
        out += [f"- {_md(t)} · {_md(s)}, {n} row{'s' * (n != 1)}: {_md(reason)}"
                for t, s, reason, n in nc[:50]]
        if len(nc) > 50:
            out.append(f"- … and {len(nc) - 50} more")
        out.append("")
    if comp.new_errors:
        out.append("Documents that no longer encode or decode:")
        out.append("")
        out += [f"- {_code(f.doc_id)} ({_md(f.tokenizer)} · "
                f"{_md(f.suite)}): {_md(f.error)}" for f in comp.new_errors[:50]]
        out.append("")
    rest = rest_text(comp)
    if rest:
        out += [f"The rest: {_md(rest)}.", ""]
    out += _details(comp, all_rows)
    return "\n".join(out).rstrip() + "\n"


def _details(comp: Comparison, all_rows: bool) -> list[str]:
    out = ["<details><summary>Details</summary>", ""]
    out.append(f"- base: {_md(comp.base.short())}, machine {_md(comp.base.machine or '?')}")
    out.append(f"- new: {_md(comp.new.short())}, machine {_md(comp.new.machine or '?')}")
    given = ", ".join(f"{k}: {v}" for k, v in comp.thresholds.items())
    out.append("- tolerances: " + (given + "; " if given else "")
               + "default: any real change of a deterministic metric; timings only when "
                 "asked for, 10% outside the noise of both runs for throughput")
    if comp.allowed:
        out.append(f"- compared despite changed inputs: {', '.join(sorted(comp.allowed))}")
    counts = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in comp.counts().items() if n)
    out.append(f"- rows: {counts}")
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
    if noise:
        out += ["Not significant (timings inside the noise or under the threshold):", "",
                *_md_table(noise[:MARKDOWN_MAX_ROWS], first="tokenizer · metric", lead=True),
                ""]
    out.append("</details>")
    return out
