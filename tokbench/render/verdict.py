"""The verdict (``tokbench.metrics.verdict``) as text cells, Markdown and HTML.

The numbers are the verdict's; this module only formats them, the same way for the
terminal (``tokbench.cli``), report.md and report.html.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from tokbench.metrics.verdict import PER_CHARS, Line, Verdict

TITLES = {"cost": f"Cheapest lossless tokenizer: tokens per {PER_CHARS:,} characters "
                  "(all documents of each suite; fewer is cheaper)",
          "speed": f"Fastest encode: median latency per {PER_CHARS:,} characters of a "
                   "request (wall clock)"}
HEADS = {"cost": ("suite", "cheapest lossless", f"tokens / {PER_CHARS // 1000}k chars",
                  "margin", "main caveat"),
         "speed": ("request", "fastest", f"µs / {PER_CHARS // 1000}k chars", "margin",
                   "main caveat")}


def _number(value: float) -> str:
    return f"{value:,.1f}"


def cells(line: Line) -> tuple[str, str, str, str, str]:
    """(subject, winner, value, margin, main caveat) of one verdict line, as text."""
    if line.winner is None:
        return line.subject, "–", "–", "", line.caveat
    return (line.subject, line.winner.tokenizer, _number(line.winner.value),
            line.margin_text(), line.caveat)


def sentence(line: Line) -> str:
    """One line in words: ``"cl100k_base: 1,048.7 tokens / 1,000 chars, 27.5% fewer
    tokens than gpt2"``."""
    _, winner, value, margin, _ = cells(line)
    if line.winner is None:
        return "no lossless tokenizer"
    return f"{winner}: {value} {line.unit}" + (f", {margin}" if margin else "")


def verdict_markdown(v: Verdict, md_text: Callable[[object], str]) -> list[str]:
    """The verdict as Markdown lines (a table per kind), or nothing; ``md_text`` escapes
    user text (``render.markdown.md_text``)."""
    out: list[str] = []
    for kind in ("cost", "speed"):
        lines = v.of(kind)
        if not lines:
            continue
        out += ["", f"**{TITLES[kind]}**", "", "| " + " | ".join(HEADS[kind]) + " |",
                "|---|---|---:|---|---|"]
        for line in lines:
            subject, winner, value, margin, caveat = map(md_text, cells(line))
            out.append(f"| {subject} | **{winner}** | {value} | {margin} | {caveat} |")
    return ["", "## Verdict", *out] if out else []


def verdict_html(v: Verdict) -> str:
    """The verdict as HTML tables (one per kind), or ""."""
    def esc(text: object) -> str:
        from tokbench.render.visible import shown

        return html.escape(shown(str(text)), quote=True)

    parts = []
    for kind in ("cost", "speed"):
        lines = v.of(kind)
        if not lines:
            continue
        heads = "".join(f'<th scope="col"{" class=num" if i == 2 else ""}>{esc(h)}</th>'
                        for i, h in enumerate(HEADS[kind]))
        rows = []
        for line in lines:
            subject, winner, value, margin, caveat = cells(line)
            rows.append(f'<tr><th scope="row">{esc(subject)}</th><td><b>{esc(winner)}</b></td>'
                        f'<td class="num">{esc(value)}</td><td>{esc(margin)}</td>'
                        f'<td class="small">{esc(caveat)}</td></tr>')
        parts.append(f"<h3>{esc(TITLES[kind])}</h3>"
                     f'<div class="tablewrap"><table class="fit verdict"><thead><tr>{heads}'
                     f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    return "".join(parts)
