"""report.md: what was run, then a table per suite and metric, best value in bold."""

from __future__ import annotations

import re

from tokbench.metrics.fairness import WORST
from tokbench.metrics.trust import Trust
from tokbench.metrics.trust import legend as trust_legend
from tokbench.metrics.verdict import verdict
from tokbench.render.tables import (
    INTERVAL_LEGEND,
    Table,
    build_tables,
    left_out_text,
    summary_table,
    worst_languages,
)
from tokbench.render.verdict import verdict_markdown
from tokbench.render.visible import shown
from tokbench.results import Results

_MD_SPECIAL = re.compile(r"([\\`*\[\]|#!]|(?<!\w)_|_(?!\w))")


def _blank(value: object) -> object:
    """``value``, or "" for a missing (None) one."""
    return "" if value is None else value


def md_text(value: object) -> str:
    """User text (a tokenizer, suite or file name, an error) as literal Markdown: HTML
    characters as entities, Markdown syntax backslash-escaped, one line."""
    text = shown(" ".join(str(value).splitlines()))
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
            text = t.text(subset, tok, info) + t.symbol(subset, tok)
            cells.append(f"**{text}**" if tok in t.best.get(subset, set()) else text)
        name = f"{subset} {info.arrow}".strip() if t.metric.name == "summary" else subset
        lines.append(f"| {md_text(name)} | " + " | ".join(cells) + " |")
    legend = trust_legend(t.symbols())
    if legend:
        lines += ["", "; ".join(legend) + "."]
    return "\n".join(lines)


def render_markdown(results: Results, plots: list[str] | None = None) -> str:
    """The whole report as Markdown."""
    meta = results.meta
    out = ["# tokbench report", ""]
    out.append(f"tokbench {meta.tokbench_version or '?'}, created {meta.created or '?'}"
               f", commit `{meta.git_commit or 'n/a'}`"
               f", {meta.machine.get('cpus', '?')} CPUs.")
    out.append("")
    out.append("↑ higher is better, ↓ lower is better; the best value of each row is **bold** "
               "(never a value marked † or ‡).")
    trust = Trust.of(results)  # one reading of the caveats for every table
    out += verdict_markdown(verdict(results, trust), md_text)
    if any("ci_method" in r.extra for r in results.rows):
        out += ["", md_text(INTERVAL_LEGEND) + "."]
    out.append("")
    out += ["## Tokenizers", "", "| name | backend | version | vocab | source | sha256 |",
            "|---|---|---|---:|---|---|"]
    for name, d in meta.tokenizers.items():
        src = d.source
        sha = (src.sha256 or "")[:12]
        out.append(f"| {md_text(name)} | {md_text(d.backend or '')} | "
                   f"{md_text(d.backend_version or '')} | "
                   f"{md_text(_blank(d.vocab_size))} | {md_text(src.location or '')} | "
                   f"`{md_text(sha)}` |")
    out += ["", "## Suites", "",
            "| suite | version | documents | languages | sha256 | left out or changed |",
            "|---|---|---:|---:|---|---|"]
    for name, s in meta.suites.items():
        left_out = left_out_text(s.left_out or {}).removeprefix("documents: ")
        out.append(f"| {md_text(name)} | {md_text(s.version or '')} | "
                   f"{md_text(_blank(s.documents))} | {len(s.languages)} | "
                   f"`{md_text((s.sha256 or '')[:12])}` | {md_text(left_out)} |")
    for err in meta.errors:
        out.append(f"\n> {md_text(err.subject)} was not run: {md_text(err.error)}")
    if plots:
        out += ["", "## Plots", ""] + [f"![{p}]({p})" for p in plots]
    suites = list(meta.suites)
    if any(r.suite == "vocab" for r in results.rows):
        suites = ["vocab", *suites]
    for suite in suites:
        summary = summary_table(results, suite, trust=trust)
        if summary is None:
            continue
        out += ["", f"## {md_text(suite)}", "", "### summary (all documents)", "",
                table_markdown(summary, "metric")]
        worst = worst_languages(results, suite)
        if worst:
            out += ["", f"Worst-case language ({WORST.name}): {worst}."]
        for t in build_tables(results, suites=[suite], trust=trust):
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
            out.append(f"| {md_text(f.tokenizer)} | {md_text(f.suite)} | "
                       f"{md_text(f.doc_id)} | {md_text(f.kind)} | "
                       f"{md_text(_blank(f.offset))} | {_cell(f.expected)} | "
                       f"{_cell(f.got if f.got is not None else f.error)} |")
        if len(failures) > 200:
            out.append(f"\n… and {len(failures) - 200} more in results.json")
    return "\n".join(out) + "\n"


def _cell(text: object) -> str:
    if text is None:
        return ""
    s = repr(str(text))[1:-1]
    return "`" + s.replace("|", "\\|").replace("`", "'") + "`"
