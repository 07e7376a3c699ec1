"""The speed sections of a report: latency CDFs, threads and length-scaling plots, tables.

Drawn from ``speed`` family rows only (tokbench.speed.rows documents their layout);
nothing here touches a tokenizer. Plots use matplotlib's object API (``Figure``), so no
backend is chosen here: that is the CLI's business.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from tokbench.record import Record
from tokbench.render.tables import tokenizer_order
from tokbench.results import Results, Row
from tokbench.timing import (
    BatchDetails,
    LatencyDetails,
    LengthDetails,
    LoadDetails,
    RateDetails,
    TimingDetails,
)

LATENCY_SIZES = ("chat", "paragraph", "document")
SPEED_PLOTS = ("speed_latency_cdf.png", "speed_threads.png", "speed_scaling.png")


def speed_rows_of(results: Results, metric: str) -> list[Row]:
    return [r for r in results.rows if r.metric == metric]


def has_speed(results: Results) -> bool:
    return any(r.metric in ("encode_p50_us", "batch_mb_s", "scaling_exponent", "load_s")
               for r in results.rows)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# -- plots ----------------------------------------------------------------------------------

#: the widest a plot is drawn, in inches (990 px at 110 dpi: the report's page width)
PAGE_WIDTH = 9.0


def _figure(ncols: int, width: float = 3.0, height: float = 3.4) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(min(max(width * ncols, 6.0), PAGE_WIDTH), height))
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, axes


def _colours(results: Results) -> dict[str, str]:
    """One colour per tokenizer, the same in every panel of every speed plot."""
    return {tok: f"C{k % 10}" for k, tok in enumerate(tokenizer_order(results))}


def latency_cdf_plot(results: Results, path: Path) -> Path | None:
    """One panel per request size: each tokenizer's encode latency CDF (log x)."""
    rows = {(r.tokenizer, r.subset): cdf for r in speed_rows_of(results, "encode_p50_us")
            for cdf in [LatencyDetails.of(r).cdf] if cdf is not None}
    sizes = [s for s in LATENCY_SIZES if any(k[1] == s for k in rows)]
    if not sizes:
        return None
    fig, axes = _figure(len(sizes))
    colours = _colours(results)
    qs = None
    for ax, size in zip(axes, sizes, strict=True):
        for tok in tokenizer_order(results):
            points = rows.get((tok, size))
            if points is None:
                continue
            cdf = [v for v in points if _number(v)]
            qs = [i / (len(cdf) - 1) for i in range(len(cdf))]
            ax.plot(cdf, qs, label=tok, linewidth=1.2, color=colours[tok])
        ax.set_xscale("log")
        ax.axhline(0.99, color="grey", linewidth=0.6, linestyle=":")
        ax.set_title(f"encode latency · {size}", fontsize=9)
        ax.set_xlabel("µs per call (wall clock)", fontsize=8)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of calls ≤ x")
    axes[0].legend(fontsize=7)
    if qs is None:
        return None
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def threads_plot(results: Results, path: Path) -> Path | None:
    """Batch MB/s against threads asked, native batch solid, process pool dashed."""
    rows = [r for r in speed_rows_of(results, "batch_mb_s") if _number(r.value)]
    if not rows:
        return None
    fig, axes = _figure(1, width=6.5, height=4.2)
    ax = axes[0]
    colours = _colours(results)
    for tok in tokenizer_order(results):
        for via, style in (("native", "-"), ("process", "--")):
            pts = sorted((BatchDetails.of(r).threads_asked, float(r.value or 0)) for r in rows
                         if r.tokenizer == tok and r.subset.startswith(via + ":"))
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o",
                    label=f"{tok} ({via})", color=colours[tok])
    ax.set_xlabel("threads (native) / worker processes asked")
    ax.set_ylabel("MB/s (wall clock)")
    ax.set_title("Batch encode throughput against threads")
    ax.set_xticks(sorted({BatchDetails.of(r).threads_asked for r in rows}))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def length_plot(results: Results, path: Path) -> Path | None:
    """Seconds per call against bytes (log-log), one panel per kind of input."""
    rows = [(r, points) for r in speed_rows_of(results, "scaling_exponent")
            for points in [LengthDetails.of(r).points] if points]
    kinds = list(dict.fromkeys(r.subset for r, _ in rows))
    if not kinds:
        return None
    ncols = min(3, len(kinds))
    nrows = (len(kinds) + ncols - 1) // ncols
    from matplotlib.figure import Figure

    fig = Figure(figsize=(PAGE_WIDTH if ncols > 1 else 4.5, 3.0 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    colours = _colours(results)
    for ax, kind in zip(axes, kinds, strict=False):
        for tok in tokenizer_order(results):
            r, points = next(((x, p) for x, p in rows
                              if x.tokenizer == tok and x.subset == kind), (None, []))
            if r is None:
                continue
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            slope = f"{r.value:.2f}" if _number(r.value) else "?"
            ax.plot(xs, ys, marker=".", label=f"{tok} ({slope})", color=colours[tok])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(kind, fontsize=9)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=6)
        ax.set_xlabel("bytes", fontsize=8)
        ax.set_ylabel("s per call (thread CPU)", fontsize=8)
    for ax in axes[len(kinds):]:
        ax.set_visible(False)
    fig.suptitle("Encode time against input length (fitted exponent in brackets)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def render_speed_plots(results: Results, out_dir: str | Path) -> list[Path]:
    """The speed plots that the rows allow; returns the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [latency_cdf_plot(results, out / SPEED_PLOTS[0]),
               threads_plot(results, out / SPEED_PLOTS[1]),
               length_plot(results, out / SPEED_PLOTS[2])]
    return [p for p in written if p is not None]


# -- tables -----------------------------------------------------------------------------------

def _fmt(v: Any, digits: int = 1) -> str:
    if not _number(v):
        return "–"
    return f"{v:,.{digits}f}"


def _ci(r: Row, digits: int = 1) -> str:
    ci = TimingDetails.of(r).ci
    if ci is None or len(ci) != 2:
        return ""
    hi = _fmt(ci[1], digits) if ci[1] is not None else "open"
    return f"[{_fmt(ci[0], digits)}, {hi}]"


def _text(details: Record, key: str) -> str:
    """A count or word of the row's details as the table shows it ("" when the row has
    none)."""
    return str(getattr(details, key)) if details.has(key) else ""


def speed_tables(results: Results) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """(title, note, header, rows) of every speed table, for Markdown and HTML alike."""
    toks = tokenizer_order(results)
    by = {r.key: r for r in results.rows}
    suite = next((r.suite for r in results.rows if r.metric == "encode_p50_us"
                  or r.metric == "load_s" or r.metric == "batch_mb_s"), "speed")
    out = []
    lat_rows = []
    for tok in toks:
        for size in LATENCY_SIZES:
            for op in ("encode", "decode"):
                p50 = by.get((tok, suite, size, f"{op}_p50_us"))
                if p50 is None:
                    continue
                cells = [tok, size, op]
                for key in ("p50", "p90", "p99", "max"):
                    r = by.get((tok, suite, size, f"{op}_{key}_us"))
                    cells.append(_fmt(r.value) + (f" {_ci(r)}" if r and key == "p99" else "")
                                 if r else "–")
                p99 = by.get((tok, suite, size, f"{op}_p99_us"))
                p50_details = LatencyDetails.of(p50)
                cells += [_text(p50_details, "calls"), _fmt(p50_details.cpu_value),
                          _fmt(LatencyDetails.of(p99).cpu_value if p99 else None),
                          _text(p50_details, "stop")]
                lat_rows.append(cells)
    if lat_rows:
        out.append(("Latency of single calls (µs)",
                    "Wall clock per call; p99 with its 95% order-statistic interval (open: too "
                    "few calls above it to bound it); p50 and p99 (CPU) are the same calls on the "
                    "thread CPU clock: a wall p99 far above the CPU p99 is time the OS gave to "
                    "other processes.",
                    ["tokenizer", "request", "op", "p50", "p90", "p99 [95% CI]", "max", "calls",
                     "p50 (CPU)", "p99 (CPU)", "stopped by"], lat_rows))
    rate_rows = []
    for tok in toks:
        r = by.get((tok, suite, "all", "encode_mb_s"))
        if r is not None:
            rate = RateDetails.of(r)
            rate_rows.append([tok, _fmt(r.value, 2), _ci(r, 2), _fmt(rate.wall_value, 2),
                              _text(rate, "repeats"), _text(rate, "outliers"),
                              _text(rate, "stop")])
    if rate_rows:
        out.append(("Single-thread encode rate (MB/s)",
                    "Thread CPU clock (median of repeats, 95% bootstrap interval); the wall-clock "
                    "median beside it; repeats stop at a ±1% interval or the time budget.",
                    ["tokenizer", "MB/s (CPU)", "95% CI", "MB/s (wall)", "repeats",
                     "outliers", "stopped by"], rate_rows))
    thr_rows = []
    for tok in toks:
        for r in sorted((x for x in results.rows if x.tokenizer == tok
                         and x.metric == "batch_mb_s"), key=lambda x: x.subset):
            via, _, n = r.subset.partition(":")
            batch = BatchDetails.of(r)
            thr_rows.append([tok, via, n, _fmt(batch.threads_used, 2),
                             _fmt(r.value, 2), batch.ignored or ""])
    if thr_rows:
        out.append(("Batch throughput against threads",
                    "Wall-clock MB/s of a batch; threads used = process CPU time / wall time "
                    "(workers' CPU summed for the process pool).",
                    ["tokenizer", "via", "threads asked", "threads used", "MB/s (wall)",
                     "setting ignored"], thr_rows))
    sc_rows = []
    for tok in toks:
        for r in (x for x in results.rows if x.tokenizer == tok
                  and x.metric == "scaling_exponent"):
            sc = LengthDetails.of(r)
            flag = "**superlinear**" if sc.superlinear else ""
            sc_rows.append([tok, r.subset, _fmt(r.value, 2), _ci(r, 2),
                            _fmt(sc.largest_mb_s, 2), flag, sc.skipped_why or ""])
    if sc_rows:
        out.append(("Length scaling (1 KB .. 1 MB)",
                    "Fitted slope of log(seconds per call) on log(bytes), thread CPU clock, "
                    "sizes from 4 KB; above 1.2 is flagged superlinear.",
                    ["tokenizer", "input", "exponent", "95% CI", "MB/s at largest", "flag",
                     "skipped"], sc_rows))
    fp_rows = []
    for tok in toks:
        load = by.get((tok, suite, "all", "load_s"))
        if load is None:
            continue
        imp = by.get((tok, suite, "all", "import_s"))
        first = by.get((tok, suite, "all", "first_call_ms"))
        rss = by.get((tok, suite, "all", "rss_mb"))
        fp_rows.append([tok, _fmt(imp.value if imp else None, 3), _fmt(load.value, 3),
                        _fmt(first.value if first else None, 3),
                        _fmt(LoadDetails.of(first).warm_call_ms if first else None, 3),
                        _fmt(rss.value if rss else None, 1),
                        _fmt(LoadDetails.of(rss).peak_rss_mb if rss else None, 1)])
    if fp_rows:
        out.append(("Load cost and footprint (fresh process)",
                    "Wall clock; RSS added = resident memory after loading minus before.",
                    ["tokenizer", "import s", "load s", "first call ms", "warm call ms",
                     "RSS added MB", "peak RSS MB"], fp_rows))
    return out


def speed_markdown(results: Results) -> list[str]:
    """Markdown lines of the speed section (empty without speed rows)."""
    if not has_speed(results):
        return []
    lines = ["", "## Speed", ""]
    note = results.meta.speed or {}
    if note.get("load_average_start") is not None:
        lines += [f"Machine load average (1 min) at start {note['load_average_start']:.2f}, "
                  f"at end {note.get('load_average_end') or 0:.2f}; timings on a busy machine "
                  "are slower on the wall clock than on the CPU clock.", ""]
    for title, text, header, rows in speed_tables(results):
        lines += [f"### {title}", "", text, "", "| " + " | ".join(header) + " |",
                  "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        lines.append("")
    return lines


def speed_html(results: Results) -> str:
    """The speed section's HTML body (empty without speed rows)."""
    if not has_speed(results):
        return ""
    parts = []
    for title, text, header, rows in speed_tables(results):
        head = "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
        body = "".join("<tr>" + "".join(f"<td>{escape(c.replace('**', ''))}</td>" for c in row)
                       + "</tr>" for row in rows)
        parts.append(f"<h3>{escape(title)}</h3><p class=\"muted\">{escape(text)}</p>"
                     f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
                     f"<tbody>{body}</tbody></table></div>")
    return "".join(parts)


__all__: Sequence[str] = ("SPEED_PLOTS", "has_speed", "render_speed_plots", "speed_html",
                          "speed_markdown", "speed_tables")
