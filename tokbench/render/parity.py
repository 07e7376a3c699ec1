"""Parity reports from results data: the one table (identical? × how fast?), the classes of
the differences with their minimal reproducers, and the speed-up-against-parity plot.

Everything is read from rows and failures ``tokbench.parity`` recorded; nothing is
recomputed and no tokenizer is touched.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from tokbench.constants import ALL
from tokbench.record import Failure
from tokbench.render.figures import Figures, safe_filename
from tokbench.results import Results

SPEED = "speed"
COLUMNS = ("implementation", "identical?", "differing docs", "failed docs", "identical tokens",
           "decode parity", "MB/s", "speed-up", "p99 ms", "load s")
#: the same columns, short enough for an 80-column terminal
SHORT = ("impl", "same?", "differ", "failed", "tokens", "decode", "MB/s", "×ref", "p99ms",
         "load")


def _value(results: Results, tok: str, suite: str, subset: str, metric: str) -> Any:
    try:
        return results.value(tok, suite, subset, metric)
    except KeyError:
        return None


def summary(results: Results) -> list[dict[str, Any]]:
    """One line per tokenizer (the reference first): parity summed over the suites' ``all``
    rows and the speed profile's headline figures."""
    meta = results.meta.parity or {}
    ref = str(meta.get("reference", ""))
    names = [ref, *meta.get("implementations", [])]
    suites = [s for s in results.meta.suites if s != SPEED]
    out = []
    for name in names:
        differing = documents = failed = 0
        num = {"identical_tokens": 0, "decode_parity": 0}
        den = {"identical_tokens": 0, "decode_parity": 0}
        for s in suites:
            for r in results.rows:
                if r.tokenizer != name or r.suite != s or r.subset != ALL:
                    continue
                if r.metric == "differing_docs":
                    differing += int(r.value or 0)
                    documents += int(r.extra.get("documents", 0))
                elif r.metric == "failed_docs":
                    failed += int(r.value or 0)
                elif r.metric in num:
                    num[r.metric] += int(r.extra.get("numerator", 0))
                    den[r.metric] += int(r.extra.get("denominator", 0))
        reference = name == ref
        p99 = _value(results, name, SPEED, "paragraph", "encode_p99_us")
        # in-process load of the vocabulary by that library (imports not counted); the
        # fresh-process figure (import + load) is the speed profile's load_s row
        info = results.meta.tokenizers.get(name)
        load = info.extra.get("load_s") if info is not None else None
        if load is None:
            load = _value(results, name, SPEED, ALL, "load_s")
        out.append({
            "implementation": name, "reference": reference,
            "identical": None if reference else (differing == 0 and failed == 0),
            "differing": None if reference else differing, "failed": failed,
            "documents": documents,
            "identical_tokens": num["identical_tokens"] / den["identical_tokens"]
            if den["identical_tokens"] else None,
            "decode_parity": num["decode_parity"] / den["decode_parity"]
            if den["decode_parity"] else None,
            "mb_s": _value(results, name, SPEED, ALL, "encode_mb_s"),
            "speedup": _value(results, name, SPEED, ALL, "speedup"),
            "p99_us": p99, "load_s": load,
            "backend": (results.meta.tokenizers[name].backend
                        if name in results.meta.tokenizers else None),
        })
    return out


def _fmt(x: Any, spec: str) -> str:
    return "–" if x is None else format(x, spec)


def _pct(x: float | None) -> str:
    """A share as a percentage; exactly 1 as "100%" (not a rounded 99.999...)."""
    if x is None:
        return "–"
    return "100%" if x == 1 else f"{x * 100:.1f}%" if x < 0.99 else f"{x * 100:.2f}%"


def short_name(name: str, reference: str) -> str:
    """An implementation's name without the reference's ``NAME@`` (the table's title has it)."""
    base = reference.partition("@")[0] + "@"
    return name[len(base):] if name.startswith(base) else name


def table_cells(line: dict[str, Any], reference: str = "") -> list[str]:
    """The table's cells for one summary line (plain text); with ``reference``, names are
    shortened (``splintr`` for ``cl100k_base@splintr``)."""
    name = line["implementation"]
    if reference:
        name = (str(line["backend"]) if line["reference"] and line["backend"]
                and "@" not in name else short_name(name, reference))
    if line["reference"]:
        ident, diff, failed = "ref", "–", f"{line['failed']:,}"
    else:
        ident = "yes" if line["identical"] else "no"
        diff = f"{line['differing']:,}" + ("" if reference else f"/{line['documents']:,}")
        failed = f"{line['failed']:,}"
    p99 = line["p99_us"] / 1e3 if line["p99_us"] is not None else None
    return [name, ident, diff, failed, _pct(line["identical_tokens"]),
            _pct(line["decode_parity"]), _fmt(line["mb_s"], ".1f"),
            _fmt(line["speedup"], ".2f") + ("×" if line["speedup"] is not None else ""),
            _fmt(p99, ".1f"), _fmt(line["load_s"], ".2f")]


def reproducers(results: Results) -> list[Failure]:
    """The differing documents kept (those with a class, not load/encode errors)."""
    return [f for f in results.failures if f.reference is not None and f.kind
            not in ("error", "timeout")]


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _show(text: str | None) -> str:
    """A string as a Python literal with non-printing characters escaped (``"\\u0bbf "``)."""
    if text is None:
        return "–"
    out = []
    for ch in text:
        if ch.isprintable() and ch not in "\"\\" and not _combining(ch):
            out.append(ch)
        elif ch in "\"\\":
            out.append("\\" + ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return '"' + "".join(out) + '"'


def _combining(ch: str) -> bool:
    """Marks that join the previous character, format characters and spaces other than
    " ": shown as escapes so the reproducer's code points are visible."""
    import unicodedata

    return unicodedata.category(ch) in ("Mn", "Mc", "Me", "Cf", "Zs") and ch != " "


def render_parity_markdown(results: Results, pngs: list[str] | None = None) -> str:
    """report.md of a parity or drift run."""
    meta = results.meta.parity or {}
    lines = [f"# Parity against {meta.get('reference', '?')}", ""]
    suites = [s for s in results.meta.suites if s != SPEED]
    lines.append(f"Suites: {', '.join(suites)}. Speed: single-thread MB/s (thread CPU clock), "
                 "speed-up over the reference, encode p99 (paragraph requests, wall clock), "
                 "load: seconds the library takes to load the vocabulary in this process.")
    lines += ["", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for line in summary(results):
        lines.append("| " + " | ".join(_md_cell(c) for c in table_cells(line)) + " |")
    for err in results.meta.errors:
        lines.append(f"\nNot run: {_md_cell(err.tokenizer or '')}: {_md_cell(err.error)}")
    classes = meta.get("classes") or {}
    if any(classes.values()):
        lines += ["", "## Classes of the differences", ""]
        for suite, per in classes.items():
            for impl, counts in per.items():
                parts = ", ".join(f"{k}: {v:,}" for k, v in sorted(counts.items(),
                                                                    key=lambda kv: -kv[1]))
                lines.append(f"- {_md_cell(impl)} on {_md_cell(suite)}: {parts}")
    reps = reproducers(results)
    if reps:
        lines += ["", "## Minimal reproducers", "",
                  "| implementation | document | class | offset | reproducer | reference ids | "
                  "implementation ids |", "|---|---|---|---|---|---|---|"]
        for f in reps:
            lines.append("| " + " | ".join(_md_cell(x) for x in (
                f.tokenizer, str(f.doc_id), f.kind, str(f.offset), f"`{_show(f.reproducer)}`",
                str(f.reproducer_reference_ids), str(f.reproducer_ids))) + " |")
    errors = [f for f in results.failures if f.kind in ("error", "timeout")]
    if errors:
        lines += ["", "## Documents an implementation failed on", ""]
        lines += [f"- {_md_cell(f.tokenizer)} {_md_cell(str(f.doc_id))}: {f.kind}: "
                  f"{_md_cell(f.error or '')}" for f in errors]
    for png in pngs or []:
        lines += ["", f"![{png}]({png})"]
    return "\n".join(lines) + "\n"


def render_parity_html(results: Results, pngs: list[str] | None = None) -> str:
    """report.html of a parity or drift run (self-contained, user text escaped)."""
    e = html.escape
    meta = results.meta.parity or {}
    out = ["<!doctype html><meta charset='utf-8'><title>tokbench parity</title>",
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:3px 8px}td.n{text-align:right}"
           "code{background:#f4f4f4}</style>",
           f"<h1>Parity against {e(str(meta.get('reference', '?')))}</h1><table><tr>"
           + "".join(f"<th>{e(c)}</th>" for c in COLUMNS) + "</tr>"]
    for line in summary(results):
        cells = table_cells(line)
        out.append("<tr>" + "".join(f"<td{' class=n' if k > 1 else ''}>{e(c)}</td>"
                                    for k, c in enumerate(cells)) + "</tr>")
    out.append("</table>")
    for err in results.meta.errors:
        out.append(f"<p>Not run: {e(err.tokenizer or '')}: {e(err.error)}</p>")
    reps = reproducers(results)
    if reps:
        out.append("<h2>Minimal reproducers</h2><table><tr><th>implementation</th>"
                   "<th>document</th><th>class</th><th>reproducer</th><th>reference ids</th>"
                   "<th>implementation ids</th><th>around the first difference</th></tr>")
        for f in reps:
            around = f.around or {}
            ctx = " / ".join(" ".join(f"{i}:{p}" for i, p in around.get(k, []))
                             for k in ("reference", "implementation"))
            out.append("<tr>" + "".join(f"<td>{e(str(x))}</td>" for x in (
                f.tokenizer, f.doc_id, f.kind)) + f"<td><code>{e(_show(f.reproducer))}</code>"
                       f"</td><td>{e(str(f.reproducer_reference_ids))}</td>"
                       f"<td>{e(str(f.reproducer_ids))}</td><td>{e(ctx)}</td></tr>")
        out.append("</table>")
    for png in pngs or []:
        out.append(f"<p><img src='{e(png)}' alt='{e(png)}'></p>")
    return "\n".join(out) + "\n"


def render_parity_plot(results: Results, out_dir: str | Path) -> list[Path]:
    """Speed-up over the reference against the share of identical documents, one point
    per implementation, one figure per reference vocabulary."""
    lines = [x for x in summary(results) if x["speedup"] is not None]
    if len(lines) < 2:
        return []
    meta = results.meta.parity or {}
    ref = str(meta.get("reference", "reference"))
    fig, ax = Figures.subplots(figsize=(6.5, 4.2), dpi=110)
    for x in lines:
        share = 1.0 if x["reference"] else (
            1 - (x["differing"] + x["failed"]) / x["documents"] if x["documents"] else 0.0)
        ax.scatter([share * 100], [x["speedup"]], s=40,
                   marker="*" if x["reference"] else "o")
        ax.annotate(x["implementation"], (share * 100, x["speedup"]), fontsize=7,
                    xytext=(4, 3), textcoords="offset points")
    ax.axhline(1.0, color="#999", lw=0.8, ls="--")
    ax.set_xlim(right=100.5)
    ax.set_xlabel("identical documents (%)")
    ax.set_ylabel(f"speed-up over {ref} (single thread)")
    ax.set_title(f"Which implementation? {ref}")
    fig.tight_layout()
    path = Path(out_dir) / f"parity_{safe_filename(ref)}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    Figures.close(fig)
    return [path]
