"""report.md: what was run, then a table per suite and metric, best value in bold."""

from __future__ import annotations

import re

from tokbench.render.tables import (
    Table,
    build_tables,
    format_value,
    left_out_text,
    summary_table,
)
from tokbench.results import Results, error_subject

_MD_SPECIAL = re.compile(r"([\\`*\[\]|#!]|(?<!\w)_|_(?!\w))")


def md_text(value: object) -> str:
    """User text (a tokenizer, suite or file name, an error) as literal Markdown: HTML
    characters as entities, Markdown syntax backslash-escaped, one line."""
    text = " ".join(str(value).splitlines())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def table_markdown(t: Table, label: str = "subset") -> str:
    lines = ["| " + label + " | " + " | ".join(map(md_text, t.tokenizers)) + " |",
             "|---|" + "---:|" * len(t.tokenizers)]
    from tokbench.metrics import metric_info

    for subset in t.subsets:
        info = t.metric if t.metric.name != "summary" else metric_info(subset)
        cells = []
        for tok in t.tokenizers:
            text = format_value(t.cells.get(subset, {}).get(tok), info)
            cells.append(f"**{text}**" if tok in t.best.get(subset, set()) else text)
        name = f"{subset} {info.arrow}".strip() if t.metric.name == "summary" else subset
        lines.append(f"| {md_text(name)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_markdown(results: Results, plots: list[str] | None = None) -> str:
    """The whole report as Markdown."""
    meta = results.meta
    out = ["# tokbench report", ""]
    out.append(f"tokbench {meta.get('tokbench_version', '?')}, created {meta.get('created', '?')}"
               f", commit `{meta.get('git_commit') or 'n/a'}`"
               f", {meta.get('machine', {}).get('cpus', '?')} CPUs.")
    out.append("")
    out.append("↑ higher is better, ↓ lower is better; the best value of each row is **bold**.")
    out.append("")
    out += ["## Tokenizers", "", "| name | backend | version | vocab | source | sha256 |",
            "|---|---|---|---:|---|---|"]
    for name, d in meta.get("tokenizers", {}).items():
        src = d.get("source", {})
        sha = (src.get("sha256") or "")[:12]
        out.append(f"| {md_text(name)} | {md_text(d.get('backend', ''))} | "
                   f"{md_text(d.get('backend_version', ''))} | "
                   f"{md_text(d.get('vocab_size', ''))} | {md_text(src.get('location', ''))} | "
                   f"`{md_text(sha)}` |")
    out += ["", "## Suites", "",
            "| suite | version | documents | languages | sha256 | left out or changed |",
            "|---|---|---:|---:|---|---|"]
    for name, d in meta.get("suites", {}).items():
        left_out = left_out_text(d.get("left_out") or {}).removeprefix("documents: ")
        out.append(f"| {md_text(name)} | {md_text(d.get('version', ''))} | "
                   f"{md_text(d.get('documents', ''))} | {len(d.get('languages', []))} | "
                   f"`{md_text((d.get('sha256') or '')[:12])}` | {md_text(left_out)} |")
    for err in meta.get("errors", []):
        out.append(f"\n> {md_text(error_subject(err))} was not run: {md_text(err.get('error'))}")
    if plots:
        out += ["", "## Plots", ""] + [f"![{p}]({p})" for p in plots]
    suites = list(meta.get("suites", {}))
    if any(r.suite == "vocab" for r in results.rows):
        suites = ["vocab", *suites]
    for suite in suites:
        summary = summary_table(results, suite)
        if summary is None:
            continue
        out += ["", f"## {md_text(suite)}", "", "### summary (all documents)", "",
                table_markdown(summary, "metric")]
        worst = [f"{r.tokenizer} {r.extra['lang']} ({r.value:.2f})" for r in results.rows
                 if r.suite == suite and r.metric == "premium_worst" and r.extra.get("lang")]
        if worst:
            out += ["", "Worst-case language (premium_worst): " + ", ".join(worst) + "."]
        for t in build_tables(results, suites=[suite]):
            if len(t.subsets) <= 1:
                continue
            out += ["", f"### {md_text(t.title)}", "", f"{t.metric.description}"
                    + (f" — {t.metric.formula}" if t.metric.formula else ""), "",
                    table_markdown(t)]
    from tokbench.render.speed import speed_markdown

    out += speed_markdown(results)
    failures = results.failures
    if failures:
        out += ["", "## Round-trip failures and errors", "",
                "| tokenizer | suite | document | kind | offset | expected | got |",
                "|---|---|---|---|---:|---|---|"]
        for f in failures[:200]:
            out.append(f"| {md_text(f.get('tokenizer'))} | {md_text(f.get('suite'))} | "
                       f"{md_text(f.get('doc_id'))} | {md_text(f.get('kind'))} | "
                       f"{md_text(f.get('offset', ''))} | {_cell(f.get('expected'))} | "
                       f"{_cell(f.get('got', f.get('error')))} |")
        if len(failures) > 200:
            out.append(f"\n… and {len(failures) - 200} more in results.json")
    return "\n".join(out) + "\n"


def _cell(text: object) -> str:
    if text is None:
        return ""
    s = repr(str(text))[1:-1]
    return "`" + s.replace("|", "\\|").replace("`", "'") + "`"
