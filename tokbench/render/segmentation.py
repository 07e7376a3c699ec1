"""Drawing the segmentation view (``tokbench.engine.segview`` data): token cuts against
morpheme cuts, as aligned text lines (terminal) and as HTML (report.html).

Lines put one separator column at every offset where any line cuts, so all lines align
in a monospace font: ``│`` where that line cuts, ``×`` on a tokenizer's line where a
token crosses a morpheme boundary (no token cut there), a space elsewhere.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

CUT = "│"
CROSS = "×"


def view_lines(text: str, view: Mapping[str, Any], order: Sequence[str] | None = None
               ) -> list[tuple[str, str, list[tuple[int, int]]]]:
    """``(label, line, crossed columns)`` per line: the analyzer's morphemes first, then
    each tokenizer; ``crossed`` are ``(start, end)`` character ranges of ``line`` to
    highlight (its ``×`` marks)."""
    n = len(text)
    rows = view["rows"]
    names = [k for k in (order or list(rows)) if k in rows and "cuts" in rows[k]]
    morph = {p for p in view["morph_cuts"] if 0 < p < n}
    cuts = {name: {p for p in rows[name]["cuts"] if 0 < p < n} for name in names}
    columns = sorted(morph.union(*cuts.values()))

    def line(have: set[int], cross: set[int]) -> tuple[str, list[tuple[int, int]]]:
        out: list[str] = []
        marks = []
        prev = 0
        for p in columns:
            out.append(text[prev:p].replace("\n", "⏎"))
            width = sum(len(s) for s in out)
            if p in have:
                out.append(CUT)
            elif p in cross:
                out.append(CROSS)
                marks.append((width, width + 1))
            else:
                out.append(" ")
            prev = p
        out.append(text[prev:].replace("\n", "⏎"))
        return "".join(out), marks

    label = view.get("analyzer", "morphemes").split(" (")[0]
    result = [(f"morphemes: {label}", *line(morph, set()))]
    for name in names:
        crossed = {p for p in rows[name].get("crossed", []) if 0 < p < n}
        result.append((name, *line(cuts[name], crossed)))
    return result


def view_html(text: str, view: Mapping[str, Any], order: Sequence[str] | None = None) -> str:
    """One sample's view as an HTML table: morphemes, then each tokenizer's tokens, a
    red mark inside a token where it crosses a morpheme boundary."""
    n = len(text)
    rows = view["rows"]
    names = [k for k in (order or list(rows)) if k in rows]

    def pieces(cuts: Sequence[int], crossed: Sequence[int], cls: str) -> str:
        bounds = sorted({0, n, *(p for p in cuts if 0 < p < n)})
        marks = sorted(p for p in crossed if 0 < p < n)
        out = []
        for a, b in itertools.pairwise(bounds):
            inner, prev = [], a
            for p in (m for m in marks if a < m < b):
                inner.append(escape(text[prev:p]))
                inner.append('<i class="x" title="crosses a morpheme boundary"></i>')
                prev = p
            inner.append(escape(text[prev:b]))
            out.append(f'<span class="{cls}">{"".join(inner)}</span>')
        return "".join(out)

    label = escape(view.get("analyzer", ""))
    body = [f'<tr><th scope="row">morphemes<br><span class="muted small">{label}</span></th>'
            f'<td class="segline">{pieces(view["morph_cuts"], [], "mo")}</td></tr>']
    for name in names:
        row = rows[name]
        if "cuts" not in row:
            body.append(f'<tr><th scope="row">{escape(name)}</th><td class="muted">'
                        f'{escape(str(row.get("error", "")))}</td></tr>')
            continue
        k = len(row["crossed"])
        note = f'<br><span class="muted small">{k} crossed</span>' if k else ""
        body.append(f'<tr><th scope="row">{escape(name)}{note}</th><td class="segline">'
                    f'{pieces(row["cuts"], row["crossed"], "tk")}</td></tr>')
    return f'<table class="segview">{"".join(body)}</table>'


def segmentation_section(viewer: Mapping[str, Any] | None) -> str | None:
    """The report's segmentation section body (None: no sample carries the view)."""
    if not viewer:
        return None
    order = viewer.get("tokenizers")
    parts = []
    suites = viewer.get("suites", [])
    # the example sentences first: they are chosen to show the differences
    for suite in sorted(suites, key=lambda s: s.get("name") != "examples"):
        samples = [s for s in suite.get("samples", []) if "morph" in s]
        if not samples:
            continue
        parts.append(f'<h3>{escape(suite["name"])}</h3>')
        for s in samples:
            parts.append(f'<p class="small muted">{escape(str(s.get("doc_id", "")))} · '
                         f'{escape(str(s.get("lang", "")))}</p>')
            parts.append(view_html(s["text"], s["morph"], order))
    return "".join(parts) or None
