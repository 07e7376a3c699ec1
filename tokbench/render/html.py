"""report.html: the whole report as one self-contained page.

Everything is inline: the style sheet and script (``render/assets``), the PNG plots
(data: URIs) and the token viewer's data (JSON). The page requests nothing (its
Content-Security-Policy forbids it), so it works offline and from an archive. Tables
come from ``render.tables`` like every other renderer; the viewer's segments come
from ``tokbench.engine.viewer``.
"""

from __future__ import annotations

import base64
import difflib
import html
import re
import struct
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tokbench.atomic import write_atomic
from tokbench.metrics import metric_info
from tokbench.metrics.base import MetricInfo
from tokbench.metrics.fairness import WORST
from tokbench.metrics.trust import LEGEND as TRUST_LEGEND
from tokbench.metrics.trust import Caveat, Trust
from tokbench.metrics.verdict import verdict
from tokbench.render.tables import (
    ALL,
    Table,
    build_tables,
    format_cell,
    left_out_text,
    summary_table,
    tokenizer_order,
    worst_languages,
)
from tokbench.render.verdict import verdict_html
from tokbench.render.visible import shown
from tokbench.results import Results

ASSETS = Path(__file__).parent / "assets"
MAX_FAILURES = 300
#: classify_roundtrip keeps this many characters either side of the first difference
EXCERPT_CONTEXT = 20

CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")


def esc(text: object) -> str:
    """Text as HTML, invisible and bidi control characters spelled ``<U+XXXX>``."""
    return html.escape(shown(str(text)), quote=True)


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def _style() -> str:
    dark = _asset("theme-dark.css").strip()
    return _asset("report.css").replace("/*DARK*/", dark)


# -- text helpers ------------------------------------------------------------------------------

_MARKS = {" ": "·", "\n": "⏎", "\t": "→", "\r": "␍", "\u00a0": "⍽"}


def visible(text: str) -> str:
    """HTML for ``text`` with whitespace and invisible characters made visible.

    Space ``·``, newline ``⏎`` (then a line break), tab ``→``, CR ``␍``, no-break
    space ``⍽``; other control, format and separator characters as ``⟨U+XXXX⟩``.
    """
    out: list[str] = []
    for ch in text:
        mark = _MARKS.get(ch)
        if mark is not None:
            out.append(f'<span class="ws">{mark}</span>' + ("<br>" if ch == "\n" else ""))
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp", "Zs"):
            out.append(f'<span class="ctl">⟨U+{ord(ch):04X}⟩</span>')
        else:
            out.append(esc(ch))
    return "".join(out)


Ranges = list[tuple[int, int]]


def diff_ranges(expected: str, got: str, offset: int | None = None) -> tuple[Ranges, Ranges]:
    """Character ranges that differ between two excerpts (in each excerpt's own offsets).

    The first range starts exactly where the excerpts first differ (their common
    prefix); the rest is aligned with difflib. ``offset`` is the failure's offset in
    the document: when both excerpts are cut at the full window after it, a last
    difference that only reaches their ends is the cut, not a change, and is dropped.
    An empty range ``(k, k)`` marks where the other side has text this one lacks.
    """
    p = 0
    while p < len(expected) and p < len(got) and expected[p] == got[p]:
        p += 1
    if p == len(expected) == len(got):
        return [], []
    sm = difflib.SequenceMatcher(None, expected[p:], got[p:], autojunk=False)
    ops = [(i1 + p, i2 + p, j1 + p, j2 + p)
           for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]
    if len(ops) > 1 and offset is not None:
        window = offset - max(0, offset - EXCERPT_CONTEXT) + EXCERPT_CONTEXT
        i1, i2, j1, j2 = ops[-1]
        pure = (i1 == i2) != (j1 == j2)
        if pure and i2 == len(expected) and j2 == len(got) \
                and window in (len(expected), len(got)):
            ops.pop()
    return [(i1, i2) for i1, i2, _, _ in ops], [(j1, j2) for _, _, j1, j2 in ops]


def marked(text: str, ranges: Ranges, cls: str) -> str:
    """``text`` as visible HTML with ``ranges`` wrapped in ``<mark class=cls data-at=k>``."""
    out: list[str] = []
    pos = 0
    for start, end in ranges:
        out.append(visible(text[pos:start]))
        if end > start:
            out.append(f'<mark class="{cls}" data-at="{start}">{visible(text[start:end])}</mark>')
        else:
            out.append(f'<mark class="{cls} gap" data-at="{start}" title="the other side has '
                       'text here"></mark>')
        pos = max(pos, end)
    out.append(visible(text[pos:]))
    return "".join(out)


def _slug(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-") or "x"
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    taken.add(slug)
    return slug


def _png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return int(w), int(h)
    return None


# -- tables ------------------------------------------------------------------------------------


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _value_cell(value: Any, info: MetricInfo, best: bool, caveat: Caveat | None = None,
                extra: dict[str, Any] | None = None, failed: int = 0) -> str:
    text = esc(format_cell(value, info, extra, failed))
    if not _is_number(value):
        return f'<td class="num missing" data-v="">{text}</td>'
    if caveat is not None:
        return (f'<td class="num flagged" data-v="{value!r}" title="{esc(caveat.reason)}: '
                f'never marked best">{text}<span class="flag" aria-label="'
                f'{esc(caveat.reason)}">{esc(caveat.symbols)}</span></td>')
    if best:
        return (f'<td class="num best" data-v="{value!r}" title="best in this row">'
                f'<span class="sr">best: </span>{text}</td>')
    return f'<td class="num" data-v="{value!r}">{text}</td>'


def _sort_head(label: str, *, direction: str = "none", numeric: bool = True,
               title: str = "", scope: str = "col") -> str:
    cls = ' class="num"' if numeric else ""
    tip = f' title="{esc(title)}"' if title else ""
    return (f'<th scope="{scope}"{cls} data-dir="{direction}"{tip}>'
            f'<button type="button" class="sort">{label}</button></th>')


def _metric_label(info: MetricInfo) -> str:
    arrow = f' <span class="arrow" aria-label="{info.direction} is better">{info.arrow}</span>' \
        if info.arrow else ""
    return esc(info.name) + arrow


def leaderboard(t: Table, caption: str) -> str:
    """A ``summary_table`` turned around: tokenizers as rows, metrics as sortable columns."""
    heads = [_sort_head("tokenizer", numeric=False, direction="text")]
    infos = [metric_info(m) for m in t.subsets]
    for info in infos:
        heads.append(_sort_head(_metric_label(info), direction=info.direction,
                                title=f"{info.description}"
                                      + (f" — {info.formula}" if info.formula else "")))
    rows = []
    for tok in t.tokenizers:
        cells = [f'<th scope="row">{esc(tok)}</th>']
        for info in infos:
            cells.append(_value_cell(t.cells.get(info.name, {}).get(tok), info,
                                     tok in t.best.get(info.name, set()),
                                     t.flags.get(info.name, {}).get(tok),
                                     t.extra.get(info.name, {}).get(tok),
                                     t.failed.get(info.name, {}).get(tok, 0)))
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="tablewrap"><table class="sortable leaderboard">'
            f'<caption class="sr">{esc(caption)}</caption>'
            f'<thead><tr>{"".join(heads)}</tr></thead>'
            f'<tbody class="rows">{"".join(rows)}</tbody></table></div>')


def metric_table(t: Table, label: str) -> str:
    """Subsets as rows, tokenizers as sortable columns; the ``all`` row stays on top."""
    info = t.metric
    heads = [_sort_head(esc(label), numeric=False, direction="text")]
    heads += [_sort_head(esc(tok), direction=info.direction) for tok in t.tokenizers]
    pinned: list[str] = []
    rows: list[str] = []
    for subset in t.subsets:
        cells = [f'<th scope="row">{esc(subset)}</th>']
        values = t.cells.get(subset, {})
        best = t.best.get(subset, set())
        flags = t.flags.get(subset, {})
        extras = t.extra.get(subset, {})
        failed = t.failed.get(subset, {})
        cells += [_value_cell(values.get(tok), info, tok in best, flags.get(tok), extras.get(tok),
                              failed.get(tok, 0))
                  for tok in t.tokenizers]
        (pinned if subset == ALL else rows).append("<tr>" + "".join(cells) + "</tr>")
    top = f'<tbody class="pinned">{"".join(pinned)}</tbody>' if pinned else ""
    return (f'<div class="tablewrap"><table class="sortable">'
            f'<caption class="sr">{esc(t.title)}</caption>'
            f'<thead><tr>{"".join(heads)}</tr></thead>{top}'
            f'<tbody class="rows">{"".join(rows)}</tbody></table></div>')


def _plain_table(heads: Sequence[tuple[str, bool]], rows: Iterable[Sequence[str]],
                 caption: str) -> str:
    """A sortable table of ready-made cells, as wide as the page (long cells wrap);
    ``heads`` are (label, numeric)."""
    th = "".join(_sort_head(esc(h), numeric=num, direction="text" if not num else "none")
                 for h, num in heads)
    body = "".join("<tr>" + "".join(r) + "</tr>" for r in rows)
    return (f'<div class="tablewrap"><table class="sortable fit"><caption class="sr">'
            f'{esc(caption)}</caption><thead><tr>{th}</tr></thead>'
            f'<tbody class="rows">{body}</tbody></table></div>')


def _text_cell(text: object, cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return f"<td{c}>{esc('' if text is None else text)}</td>"


def _num_cell(value: object) -> str:
    if not _is_number(value):
        return '<td class="num missing" data-v="">–</td>'
    return f'<td class="num" data-v="{value!r}">{value:,}</td>'


def _sha_cell(sha: object) -> str:
    if not sha:
        return '<td class="sha missing">–</td>'
    return f'<td class="sha" title="{esc(sha)}">{esc(str(sha)[:12])}</td>'


# -- sections ----------------------------------------------------------------------------------


class _Page:
    def __init__(self) -> None:
        self.toc: list[tuple[str, str, list[tuple[str, str]]]] = []
        self.ids: set[str] = set()
        self.parts: list[str] = []

    def section(self, title: str, body: str, children: list[tuple[str, str]] | None = None,
                slug: str | None = None, lead: str = "") -> None:
        sid = slug or _slug(title, self.ids)
        self.toc.append((sid, title, children or []))
        lead_html = f'<p class="lead">{lead}</p>' if lead else ""
        self.parts.append(f'<section class="card" id="{sid}" aria-labelledby="{sid}-h">'
                          f'<h2 id="{sid}-h">{esc(title)}</h2>{lead_html}{body}</section>')

    def toc_html(self) -> str:
        items = []
        for sid, title, children in self.toc:
            sub = "".join(f'<li><a href="#{c}">{esc(t)}</a></li>' for c, t in children)
            items.append(f'<li><a href="#{sid}">{esc(title)}</a>'
                         + (f"<ol>{sub}</ol>" if sub else "") + "</li>")
        return (f'<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>{"".join(items)}'
                "</ol></nav>")


LEGEND = ('<div class="legend" role="note"><span><b class="arrow">↑</b> higher is better</span>'
          '<span><b class="arrow">↓</b> lower is better</span>'
          '<span>no arrow: no better direction (shown for information)</span>'
          '<span><span class="swatch" style="background:var(--best-bg);color:var(--best-fg)">'
          '★ 1.23</span> best value of its row</span>'
          + "".join(f'<span><span class="flag">{esc(sym)}</span> {esc(text)}</span>'
                    for sym, text in TRUST_LEGEND.items())
          + '<span>click a column header to sort</span></div>')


def _run_section(results: Results, page: _Page) -> None:
    meta = results.meta
    machine = meta.machine
    settings = meta.settings
    timings = meta.timings or {}
    facts = [
        ("created", meta.created or "?"),
        ("tokbench", meta.tokbench_version or "?"),
        ("git commit", meta.git_commit or "n/a"),
        ("machine", ", ".join(str(x) for x in (machine.get("platform"),
                                               f"Python {machine.get('python', '?')}",
                                               f"{machine.get('cpus', '?')} CPUs") if x)),
        ("settings", ", ".join(f"{k}={v}" for k, v in settings.items()) or "defaults"),
    ]
    if meta.metric_families:
        facts.append(("metric families", ", ".join(meta.metric_families)))
    if isinstance(timings.get("wall"), (int, float)):
        facts.append(("wall time", f"{timings['wall']:.1f} s"))
    body = '<dl class="facts">' + "".join(
        f"<dt>{esc(k)}</dt><dd>{esc(v) if k != 'git commit' else f'<code>{esc(v)}</code>'}</dd>"
        for k, v in facts) + "</dl>"
    if not meta.complete:
        body += ('<p class="note">This run did not finish: the tables show the units that '
                 "were done.</p>")
    for err in meta.errors:
        body += (f'<p class="note">Tokenizer <b>{esc(err.tokenizer)}</b> was not run: '
                 f'{esc(err.error)}</p>')
    page.section("Run", body + LEGEND, slug="run")


def _tokenizers_section(results: Results, page: _Page, trust: Trust) -> None:
    rows = []
    for name, d in results.meta.tokenizers.items():
        src = d.source
        rows.append([f'<th scope="row">{esc(name)}</th>', _text_cell(d.backend),
                     _text_cell(d.backend_version), _num_cell(d.vocab_size),
                     _text_cell(src.kind), _text_cell(src.location, "small"),
                     _sha_cell(src.sha256)])
    body = _plain_table([("name", False), ("backend", False), ("version", False),
                         ("vocab", True), ("source", False), ("location", False),
                         ("sha256", False)], rows, "tokenizers")
    vocab = summary_table(results, "vocab", trust=trust) \
        if any(r.suite == "vocab" for r in results.rows) else None
    if vocab is not None:
        body += "<h3>Vocabulary</h3>" + leaderboard(vocab, "vocabulary facts")
    page.section("Tokenizers", body, slug="tokenizers",
                 lead="What was compared, with the exact file each tokenizer was loaded from.")


def _suites_section(results: Results, page: _Page) -> None:
    rows = []
    for name, d in results.meta.suites.items():
        rows.append([f'<th scope="row">{esc(name)}</th>', _text_cell(d.version),
                     _num_cell(d.documents), _num_cell(len(d.languages)),
                     _num_cell(d.bytes), _text_cell(d.subset_by),
                     _text_cell(d.source, "small"), _sha_cell(d.sha256),
                     _text_cell(left_out_text(d.left_out or {})
                                .removeprefix("documents: "), "small")])
    body = _plain_table([("suite", False), ("version", False), ("documents", True),
                         ("languages", True), ("bytes", True), ("subsets by", False),
                         ("source", False), ("sha256", False), ("left out or changed", False)],
                        rows, "suites")
    page.section("Suites", body, slug="suites", lead="The text each tokenizer was run on.")


def _suite_sections(results: Results, page: _Page, trust: Trust) -> None:
    for suite, d in results.meta.suites.items():
        summary = summary_table(results, suite, trust=trust)
        if summary is None:
            continue
        sid = _slug(f"suite-{suite}", page.ids)
        label = {"lang": "language", "domain": "domain"}.get(d.subset_by or "", "subset")
        body = ["<h3>All documents</h3>", leaderboard(summary, f"{suite}: every metric")]
        worst = worst_languages(results, suite)
        if worst:
            body.append(f'<p class="note">Worst-case language ({WORST.name}): '
                        f'{esc(worst)}.</p>')
        children: list[tuple[str, str]] = []
        tables = [t for t in build_tables(results, suites=[suite], trust=trust)
                  if len(t.subsets) > 1]
        if tables:
            body.append(f"<h3>By {label}</h3>")
        for k, t in enumerate(tables):
            mid = _slug(f"{suite}-{t.metric.name}", page.ids)
            children.append((mid, t.metric.name))
            formula = f'<span class="formula">{esc(t.metric.formula)}</span>' \
                if t.metric.formula else ""
            body.append(
                f'<details class="metric" id="{mid}"{" open" if k == 0 else ""}><summary>'
                f'<span>{_metric_label(t.metric)}</span>'
                f'<span class="desc">{esc(t.metric.description)}</span>{formula}</summary>'
                f'<div class="body">{metric_table(t, label)}</div></details>')
        page.section(suite, "".join(body), children, slug=sid,
                     lead=f"{'?' if d.documents is None else d.documents} documents, "
                          f"{len(d.languages)} languages; "
                          "the summary covers every document.")


def _speed_section(results: Results, page: _Page) -> None:
    from tokbench.render.speed import speed_html

    body = speed_html(results)
    if body:
        page.section("Speed", body, slug="speed",
                     lead="Tail latency, thread and length scaling, load cost; every figure "
                          "names its clock.")


def _plot_title(name: str) -> str:
    stem = Path(name).stem
    for prefix, title in (("premium_", "Token premium against English"),
                          ("bytes_per_token_", "Bytes per token by domain"),
                          ("fertility_japanese_", "Fertility on Japanese"),
                          ("fairness_", "Fairness across languages")):
        if stem.startswith(prefix):
            return f"{title} ({stem[len(prefix):]})"
    return {"throughput": "Encode throughput", "speed_latency_cdf": "Encode latency CDF",
            "speed_threads": "Throughput against threads",
            "speed_scaling": "Encode time against input length"}.get(stem, stem.replace("_", " "))


def _plots_section(images: Sequence[tuple[str, bytes]], notes: Sequence[str],
                   page: _Page) -> None:
    figs = []
    for name, data in images:
        size = _png_size(data)
        dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
        title = _plot_title(name)
        uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
        figs.append(f'<figure class="plot"><img src="{uri}" alt="{esc(title)}"{dims}>'
                    f"<figcaption>{esc(title)} · {esc(name)}</figcaption></figure>")
    body = "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
    body += f'<div class="plots">{"".join(figs)}</div>' if figs else \
        '<p class="muted">No plots for this run.</p>'
    page.section("Plots", body, slug="plots")


VIEWER_LEGEND = (
    '<div class="legend" role="note">'
    '<span>each coloured box is one token; hover or focus it (Tab, then ← → ↑ ↓) '
    "for its id, bytes and piece</span>"
    '<span><b>·</b> space <b>⏎</b> newline <b>→</b> tab</span>'
    '<span><span class="tok c0"><span class="hex">c3</span></span> a byte of a character split '
    "across tokens; the character is shown above the group</span>"
    '<span><span class="tok empty">▁</span> a token that stands for no text</span>'
    '<span><span class="tok unknown">?</span> unknown token</span></div>')


def _viewer_section(viewer: Mapping[str, Any] | None, page: _Page) -> str:
    """The viewer section; returns the JSON script element that carries its data."""
    if not viewer:
        page.section("Token viewer", '<p class="muted">No viewer data: the tokenizers were not '
                     "loaded for this report.</p>", slug="viewer")
        return ""
    body = ["".join(f'<p class="note">{esc(n)}</p>' for n in viewer.get("notes", [])),
            VIEWER_LEGEND,
            '<noscript><p class="note">The token viewer needs JavaScript.</p></noscript>']
    children = []
    for k, suite in enumerate(viewer.get("suites", [])):
        if not suite.get("samples"):
            continue
        vid = _slug(f"viewer-{suite['name']}", page.ids)
        children.append((vid, suite["name"]))
        n = len(suite["samples"])
        body.append(
            f'<h3 id="{vid}">{esc(suite["name"])} <span class="muted small">{n} sample'
            f'{"s" if n != 1 else ""}</span></h3>'
            f'<div class="viewer" data-suite="{k}"><div class="vbar">'
            f'<label>sample <select aria-label="{esc(suite["name"])} sample"></select></label>'
            '<button type="button" class="prev" aria-label="previous sample">←</button>'
            '<button type="button" class="next" aria-label="next sample">→</button>'
            '<span class="vmeta"></span></div><div class="vrows"></div></div>')
    page.section("Token viewer", "".join(body), children, slug="viewer",
                 lead="Sample texts from each suite as every tokenizer cuts them, one row per "
                      "tokenizer.")
    from tokbench.results import dumps_json

    data = dumps_json(viewer, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" id="viewer-data">{data}</script>'


def _segmentation_section(viewer: Mapping[str, Any] | None, page: _Page) -> None:
    """Token cuts against the analyzer's morphemes (when the morph family ran)."""
    from tokbench.render.segmentation import segmentation_section

    body = segmentation_section(viewer)
    if body is not None:
        page.section("Segmentation against morphemes", body, slug="segmentation",
                     lead="Each tokenizer's tokens under the analyzer's morphemes (the gold "
                          "of the morph metrics); a red mark is a morpheme boundary a token "
                          "crosses.")


def _failures_section(results: Results, page: _Page) -> None:
    failures = results.failures
    if not failures:
        page.section("Round-trip failures", '<p class="muted">None: every document decoded back '
                     "to exactly its text.</p>", slug="failures")
        return
    counts = Counter((f.tokenizer or "?", f.kind or "?") for f in failures)
    per_tok: dict[str, list[str]] = {}
    for (tok, kind), n in sorted(counts.items()):
        per_tok.setdefault(tok, []).append(f"{n} {kind}")
    summary = "; ".join(f"<b>{esc(t)}</b>: {esc(', '.join(v))}" for t, v in per_tok.items())
    rows = []
    for f in failures[:MAX_FAILURES]:
        cells = [f'<th scope="row">{esc(f.tokenizer)}</th>',
                 _text_cell(f.suite), _text_cell(f.doc_id, "small"),
                 f'<td><span class="kind">{esc(f.kind)}</span></td>']
        if f.expected is not None or f.got is not None:
            expected, got, offset = f.expected or "", f.got or "", f.offset
            ra, rb = diff_ranges(expected, got, offset)
            cells += [_num_cell(offset),
                      f'<td class="excerpt expected">{marked(expected, ra, "del")}</td>',
                      f'<td class="excerpt got">{marked(got, rb, "ins")}</td>']
        else:
            cells += [_num_cell(f.offset), '<td class="missing">–</td>',
                      _text_cell(f.error, "small")]
        rows.append(cells)
    table = _plain_table([("tokenizer", False), ("suite", False), ("document", False),
                          ("kind", False), ("offset", True), ("expected", False),
                          ("got", False)], rows, "round-trip failures")
    more = (f'<p class="muted">… and {len(failures) - MAX_FAILURES} more in results.json.</p>'
            if len(failures) > MAX_FAILURES else "")
    legend = ('<div class="legend" role="note"><span><mark class="del">abc</mark> in the text, '
              'lost or changed by decoding</span><span><mark class="ins">abc</mark> what '
              "decoding gave instead</span><span>offset: first differing character in the "
              "document</span></div>")
    page.section("Round-trip failures", f"<p>{summary}</p>{table}{more}{legend}",
                 slug="failures", lead="Documents where decode(encode(text)) ≠ text, with the "
                 "first difference marked, and documents a tokenizer raised on.")


def _verdict_section(results: Results, page: _Page, trust: Trust) -> None:
    body = verdict_html(verdict(results, trust))
    if body:
        page.section("Verdict", body, slug="verdict",
                     lead="The answer in one screen; the tables below hold every figure.")


def render_html(results: Results, images: Sequence[tuple[str, bytes]] = (),
                viewer: Mapping[str, Any] | None = None, notes: Sequence[str] = ()) -> str:
    """The report page as a string. ``images`` are ``(file name, PNG bytes)``."""
    return html_draft(results, viewer)(images, notes)


#: completes a page drafted without its plots: ``(images, notes) -> the page``
HtmlFinish = Callable[[Sequence[tuple[str, bytes]], Sequence[str]], str]


def html_draft(results: Results, viewer: Mapping[str, Any] | None = None) -> HtmlFinish:
    """The report page but its plots, built now (a run builds it while its plots are
    drawn); the function returned completes it with the plots' ``images`` and ``notes``."""
    meta = results.meta
    page = _Page()
    trust = Trust.of(results)  # one reading of the caveats for every table
    _verdict_section(results, page, trust)
    _run_section(results, page)
    _tokenizers_section(results, page, trust)
    _suites_section(results, page)
    _suite_sections(results, page, trust)
    _speed_section(results, page)
    slot = len(page.parts)
    _plots_section((), (), page)  # its place and its entry in the contents
    viewer_json = _viewer_section(viewer, page)
    _segmentation_section(viewer, page)
    _failures_section(results, page)
    toks = tokenizer_order(results)
    suites = list(meta.suites)
    commit = (meta.git_commit or "")[:12] or "n/a"
    version = esc(meta.tokbench_version or "?")
    sub = (f"{len(toks)} tokenizer{'s' if len(toks) != 1 else ''} × {len(suites)} "
           f"suite{'s' if len(suites) != 1 else ''} · created {esc(meta.created or '?')} · "
           f"tokbench {version} · commit <code>{esc(commit)}</code>")
    head = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>tokbench report · {esc(', '.join(toks[:4]))}"
        f"{' …' if len(toks) > 4 else ''}</title>"
        f"<style>{_style()}</style></head><body>"
        '<a class="skip" href="#main">skip to content</a>'
        '<div class="layout"><header class="top"><div><h1><span class="brand">tokbench</span> '
        f'report</h1><div class="sub">{sub}</div></div>'
        '<button type="button" class="theme" id="theme">Theme: auto</button></header>'
        f"{page.toc_html()}"
        f'<main id="main">{"".join(page.parts[:slot])}')
    tail = (
        f'{"".join(page.parts[slot + 1:])}'
        f"<footer>tokbench {version} · results schema v{esc(_schema_version())} · "
        "a single file that works offline</footer></main></div>"
        '<div id="tok-tip" role="tooltip" hidden></div>'
        f"{viewer_json}<script>{_asset('report.js')}</script></body></html>\n")

    def finish(images: Sequence[tuple[str, bytes]], notes: Sequence[str]) -> str:
        plots = _Page()
        _plots_section(images, notes, plots)
        return head + plots.parts[0] + tail

    return finish


def _schema_version() -> int:
    from tokbench.results import SCHEMA_VERSION

    return SCHEMA_VERSION


def write_html(results: Results, out_dir: str | Path, png_names: Sequence[str],
               viewer: Mapping[str, Any] | None = None, draft: HtmlFinish | None = None
               ) -> Path:
    """Write ``out_dir/report.html``; returns the page's path.

    ``png_names`` are plot files in ``out_dir`` to embed. ``viewer`` is the token
    viewer's data, computed beforehand (``tokbench.engine.viewer.viewer_for``): this
    renderer never loads a tokenizer. Without it the page says the viewer was left out.
    ``draft``: the page already drafted (``html_draft`` of the same results and viewer).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    images, notes = [], []
    for name in png_names:
        path = out / name
        try:
            images.append((name, path.read_bytes()))
        except OSError:
            notes.append(f"plot {name} is missing from {out}")
    text = (draft or html_draft(results, viewer))(images, notes)
    return write_atomic(out / "report.html", text)
