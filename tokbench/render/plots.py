"""PNG plots drawn from results rows (matplotlib figures, no display or backend needed).

File names made from suite names go through ``safe_filename``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokbench.constants import PIVOT
from tokbench.metrics.trust import Caveat, Trust
from tokbench.metrics.trust import legend as trust_legend
from tokbench.render.figures import safe_filename
from tokbench.render.tables import tokenizer_order
from tokbench.results import Results, order_subsets


def _pyplot() -> Any:
    from tokbench.render.figures import Figures

    return Figures


def _values(results: Results, suite: str | None, metric: str) -> dict[tuple[str, str], float]:
    return {(r.tokenizer, r.subset): float(r.value) for r in results.rows
            if r.metric == metric and (suite is None or r.suite == suite)
            and isinstance(r.value, (int, float))}


def _flags(trust: Trust, suite: str, metric: str, keys: Iterable[tuple[str, str]]
           ) -> dict[tuple[str, str], Caveat]:
    """(tokenizer, subset) -> caveat, for the values of ``metric`` that have one."""
    out = {}
    for tok, subset in keys:
        c = trust.caveat(tok, suite, subset, metric)
        if c is not None:
            out[(tok, subset)] = c
    return out


#: the width of every plot, in inches (at 110 dpi: 990 px, the report's page width)
PAGE_WIDTH = 9.0
DPI = 110
FLAGGED_HATCH = "////"
#: more bars than this (groups x tokenizers) and a bar chart becomes an annotated heatmap
MAX_BARS = 48


def _flag_note(fig: Any, symbols: Sequence[str], hatched: bool = False) -> None:
    """The caveat legend under a figure (the symbols that occur in it)."""
    lines = trust_legend(symbols)
    if lines:
        fig.text(0.01, 0.002, ("hatched: " if hatched else "") + "; ".join(lines),
                 fontsize=7, ha="left", va="bottom", wrap=True)


def _grouped_bars(plt: Any, values: dict[tuple[str, str], float], tokenizers: Sequence[str],
                  groups: Sequence[str], title: str, ylabel: str, path: Path,
                  hline: float | None = None,
                  flags: Mapping[tuple[str, str], Caveat] | None = None,
                  higher_better: bool = True) -> Path | None:
    """Small multiples at page width: one panel per group (a domain, a suite), each a
    horizontal bar per tokenizer with its value written at the bar's end, tokenizers in
    the same order and colour in every panel. However many groups and tokenizers, the
    figure grows downwards, never sideways. A value with a caveat (``flags``) is hatched
    and carries its symbol. ``ylabel`` names the value axis. Beyond ``MAX_BARS`` bars it is
    drawn as an annotated heatmap instead (``higher_better`` picks its green end)."""
    toks = [t for t in tokenizers if any((t, g) in values for g in groups)]
    groups = [g for g in groups if any((t, g) in values for t in toks)]
    if not toks or not groups:
        return None
    if len(groups) * len(toks) > MAX_BARS:  # too many bars to read: a table of colours
        return _heatmap(plt, values, toks, groups, title, ylabel, path, flags, ratio=False,
                        higher_better=higher_better)
    flags = flags or {}
    ncols = 1 if len(groups) == 1 else 2 if len(groups) <= 8 else 3
    nrows = -(-len(groups) // ncols)
    panel_h = 0.45 + 0.22 * len(toks)
    fig, axes = plt.subplots(nrows, ncols, figsize=(PAGE_WIDTH, 0.9 + panel_h * nrows),
                             squeeze=False)
    colours = [f"C{k % 10}" for k in range(len(toks))]
    finite = [v for v in values.values() if v == v]
    top = max(finite) if finite else 1.0
    symbols: list[str] = []
    for k, ax in enumerate(axes.flat):
        if k >= len(groups):
            ax.set_visible(False)
            continue
        g = groups[k]
        ys = list(range(len(toks)))[::-1]
        vals = [values.get((t, g), float("nan")) for t in toks]
        bars = ax.barh(ys, vals, color=colours, height=0.75)
        for bar, t, v in zip(bars, toks, vals, strict=True):
            c = flags.get((t, g))
            if c is not None:
                bar.set_hatch(FLAGGED_HATCH)
                bar.set_alpha(0.55)
                symbols.append(c.symbols)
            if v == v:
                # a label short of the panel's middle cannot reach its edge: left out of
                # the layout pass, which measures every text it is given
                ax.annotate(f"{v:,.3g}" + (c.symbols if c is not None else ""),
                            (v, bar.get_y() + bar.get_height() / 2), xytext=(2, 0),
                            textcoords="offset points", va="center", fontsize=7,
                            in_layout=v > top / 2)
        ax.set_yticks(ys, toks if k % ncols == 0 else [""] * len(toks), fontsize=7)
        ax.set_title(g, fontsize=9, loc="left")
        if hline is not None:
            ax.axvline(hline, color="black", linewidth=0.8, linestyle="--")
        ax.set_xlim(0, top * 1.18)  # one scale in every panel, room for the value labels
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=7)
    for k in range(max(0, len(groups) - ncols), len(groups)):  # the lowest panel of a column
        axes.flat[k].set_xlabel(ylabel, fontsize=8)
    fig.suptitle(title, fontsize=11)
    _flag_note(fig, symbols, hatched=True)
    fig.tight_layout(rect=(0, 0.03 if symbols else 0, 1, 1))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _heatmap(plt: Any, values: dict[tuple[str, str], float], tokenizers: Sequence[str],
             rows: Sequence[str], title: str, label: str, path: Path,
             flags: Mapping[tuple[str, str], Caveat] | None = None, ratio: bool = True,
             higher_better: bool = False) -> Path | None:
    """Rows (languages, domains) down, tokenizers across, each cell's value written in it:
    legible at page width however many rows there are (the figure grows downwards, not
    sideways). With few rows the colour bar lies under the grid, so it is never squashed.
    A value with a caveat carries its symbol. ``ratio``: values against 1 on a log scale
    (premiums); else a linear scale, green the better end."""
    from matplotlib.colors import LogNorm, Normalize

    toks = [t for t in tokenizers if any((t, r) in values for r in rows)]
    if not toks or not rows:
        return None
    flags = flags or {}
    grid = [[values.get((t, r), float("nan")) for t in toks] for r in rows]
    finite = [v for line in grid for v in line if v == v and (v > 0 or not ratio)]
    if not finite:
        return None
    if ratio:
        norm: Any = LogNorm(vmin=min(min(finite), 1.0), vmax=max(max(finite), 1.0 + 1e-9))
    else:
        norm = Normalize(vmin=min(finite), vmax=max(max(finite), min(finite) + 1e-9))
    few = len(rows) < 8
    width = min(PAGE_WIDTH, 2.8 + 0.95 * len(toks))
    fig, ax = plt.subplots(figsize=(width, (2.9 if few else 1.6) + 0.3 * len(rows)), dpi=DPI)
    image = ax.imshow(grid, cmap="RdYlGn" if higher_better else "RdYlGn_r", norm=norm,
                      aspect="auto")
    ax.set_xticks(range(len(toks)), toks, rotation=30, ha="left", fontsize=9)
    ax.set_yticks(range(len(rows)), rows, fontsize=9)
    ax.tick_params(top=True, bottom=False, labeltop=True, labelbottom=False)
    symbols = []
    for i, line in enumerate(grid):
        for j, v in enumerate(line):
            c = flags.get((toks[j], rows[i]))
            if c is not None:
                symbols.append(c.symbols)
            if v == v:
                ax.text(j, i, (f"{v:,.0f}" if abs(v) >= 100 else f"{v:.2f}")
                        + (c.symbols if c is not None else ""),
                        ha="center", va="center", fontsize=8, in_layout=False)
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    bar = fig.colorbar(image, ax=ax, label=label, orientation="horizontal" if few else
                       "vertical", shrink=0.8 if few else 0.6, pad=0.08 if few else 0.05,
                       aspect=30 if few else 20)
    plain = FuncFormatter(lambda x, _: f"{x:g}")
    axis = bar.ax.xaxis if few else bar.ax.yaxis
    if ratio:  # 1, 2, 5 times powers of ten: readable however many decades
        import math

        lo, hi = norm.vmin, norm.vmax
        ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)),
                                              math.ceil(math.log10(hi)) + 1)
                 for m in (1, 2, 5) if lo <= m * 10.0 ** e <= hi]
        axis.set_major_locator(FixedLocator(ticks))
        axis.set_minor_formatter(NullFormatter())
    axis.set_major_formatter(plain)
    ax.set_title(title, fontsize=10)
    _flag_note(fig, symbols)
    # the bounds of what is laid out (the cell values lie inside the grid), taken without
    # the full draw that bbox_inches="tight" makes first: one pass over the texts, not two
    fig.savefig(path, dpi=DPI, bbox_inches=fig.get_tightbbox().padded(0.15))
    plt.close(fig)
    return path


@dataclass(frozen=True)
class FairnessBar:
    """One tokenizer's fairness figures (the inputs of ``_fairness``): the Gini of its
    premiums, its mean and worst premium, the worst language and that value's caveat."""

    gini: float
    mean: float
    worst: float
    lang: str
    caveat: Caveat | None = None


def _fairness_bars(results: Results, suite: str, tokenizers: Sequence[str], trust: Trust
                   ) -> dict[str, FairnessBar]:
    """Per tokenizer with a Gini row on ``suite``: its ``FairnessBar``, in ``tokenizers``'
    order."""
    from tokbench.metrics.fairness import FAIRNESS_METRICS, GINI, MACRO, WORST

    rows = {(r.tokenizer, r.metric): r for r in results.rows
            if r.suite == suite and r.subset == "all"
            and r.metric in {m.name for m in FAIRNESS_METRICS}
            and isinstance(r.value, (int, float))}

    def value(t: str, metric: str) -> float:
        row = rows.get((t, metric))
        return float(row.value or 0.0) if row is not None else 0.0

    return {t: FairnessBar(value(t, GINI.name), value(t, MACRO.name), value(t, WORST.name),
                           str(rows[(t, WORST.name)].extra.get("lang", ""))
                           if (t, WORST.name) in rows else "",
                           trust.caveat(t, suite, "all", WORST.name))
            for t in tokenizers if (t, GINI.name) in rows}


def _fairness(plt: Any, bars: Mapping[str, FairnessBar], suite: str, path: Path
              ) -> Path | None:
    """Per tokenizer: Gini of the premiums (left); mean and worst premium, the worst
    language written on its bar (right)."""
    toks = list(bars)
    if not toks:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE_WIDTH, 4.4))
    xs = range(len(toks))
    left.bar(xs, [bars[t].gini for t in toks], color="#4c72b0")
    left.set_title("Gini of premiums (0 = equal cost)")
    width = 0.4
    macro = [bars[t].mean for t in toks]
    worst = [bars[t].worst for t in toks]
    right.bar([x - width / 2 for x in xs], macro, width, label="mean premium", color="#55a868")
    drawn = right.bar([x + width / 2 for x in xs], worst, width, label="worst premium",
                      color="#c44e52")
    for bar, t in zip(drawn, toks, strict=True):
        right.annotate(bars[t].lang, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                       ha="center", va="bottom", fontsize=7, rotation=90)
    right.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    right.set_ylim(0, max(worst) * 1.3)  # room for the language names
    right.set_title("Premium against English: mean and worst")
    right.legend(fontsize=8)
    caveats = {t: bars[t].caveat for t in toks}
    labels = [t + (c.symbols if c is not None else "") for t, c in caveats.items()]
    for ax in (left, right):
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"Fairness across languages ({suite})")
    symbols = [c.symbols for c in caveats.values() if c is not None]
    _flag_note(fig, symbols)
    fig.tight_layout(rect=(0, 0.04 if symbols else 0, 1, 1))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def draw_cost(job: Any) -> float:
    """About how long ``job`` (one of ``plot_jobs``) takes to draw, in seconds on the
    machine that measured it: only to order jobs shared by two processes costliest first,
    so that neither waits on a long last one. Text layout is most of it: a fixed part and
    a part per value written (default run: 40 bars 1.2 s, 8 bars 0.3 s, a heatmap of 272
    cells 1.1 s, of 88 cells 0.65 s)."""
    func = getattr(job, "func", None)
    args: tuple[Any, ...] = getattr(job, "args", ())
    values = args[1] if func in (_grouped_bars, _heatmap) and len(args) > 1 else None
    if not isinstance(values, Mapping):
        return 0.5
    if func is _grouped_bars and len(values) <= MAX_BARS:
        return 0.25 + 0.025 * len(values)
    return 0.4 + 0.003 * len(values)


#: the plot of the run's throughput rows (``plot_jobs``)
THROUGHPUT_PLOT = "throughput.png"


def timed(job: Any) -> bool:
    """Whether plot ``job`` (of ``plot_jobs``) draws timings, which differ on every run."""
    from tokbench.render.speed import SPEED_PLOTS

    path = getattr(job, "keywords", {}).get("path")
    return path is not None and Path(path).name in {THROUGHPUT_PLOT, *SPEED_PLOTS}


def render_plots(results: Results, out_dir: str | Path) -> list[Path]:
    """Write the standard plots into ``out_dir``; returns the files written, in report
    order."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [job() for job in plot_jobs(results, out)]
    return [p for p in written if p is not None]


#: families whose rows are drawn wherever they are measured (premium and fairness of a
#: parallel suite, fertility on Japanese, throughput, speed): a run without any of them
#: draws at most compression's bars of a suite by domain
PLOTTED_FAMILIES = frozenset({"premium", "fertility", "throughput", "speed"})


def plot_jobs(results: Results, out: Path) -> list[functools.partial[Path | None]]:
    """One call per plot the rows allow, each drawing one file independently of the rest."""
    from tokbench.render.speed import (
        SPEED_PLOTS,
        has_speed,
        latency_cdf_plot,
        length_plot,
        threads_plot,
    )

    plt = _pyplot()
    P = functools.partial
    toks = tokenizer_order(results)
    suites = results.meta.suites
    trust = Trust.of(results)
    jobs: list[functools.partial[Path | None]] = []

    for suite, d in suites.items():
        prem = _values(results, suite, "premium")
        if prem:
            langs = sorted({s for (_, s) in prem if s != PIVOT},
                           key=lambda s: sum(v for (t, x), v in prem.items() if x == s))
            jobs.append(P(
                _heatmap, plt, prem, toks, langs, f"Token premium against English ({suite})",
                "tokens / English tokens (log scale)",
                path=out / f"premium_{safe_filename(suite)}.png",
                flags=_flags(trust, suite, "premium", prem)))
            jobs.append(P(_fairness, plt, _fairness_bars(results, suite, toks, trust), suite,
                          path=out / f"fairness_{safe_filename(suite)}.png"))
        if d.subset_by == "domain":
            bpt = _values(results, suite, "bytes_per_token")
            groups = [g for g in order_subsets({s for (_, s) in bpt}) if g != "all"]
            jobs.append(P(
                _grouped_bars, plt, bpt, toks, groups, f"Bytes per token by domain ({suite}; "
                "higher: fewer tokens)", "UTF-8 bytes / token",
                path=out / f"bytes_per_token_{safe_filename(suite)}.png",
                flags=_flags(trust, suite, "bytes_per_token", bpt)))

    for suite in suites:
        fert = {k: v for k, v in _values(results, suite, "fertility").items()}
        jp = {(t, s): v for (t, s), v in fert.items()
              if (suite == "japanese") or s == "jpn_Jpan"}
        if jp:
            groups = order_subsets({s for (_, s) in jp})
            jobs.append(P(
                _grouped_bars, plt, jp, toks, groups, f"Fertility on Japanese ({suite}, MeCab "
                "words; lower: fewer tokens)", "tokens / word",
                path=out / f"fertility_japanese_{safe_filename(suite)}.png",
                flags=_flags(trust, suite, "fertility", jp), higher_better=False))

    tp = {(r.tokenizer, r.suite): float(r.value) for r in results.rows
          if r.metric == "throughput_mb_s" and r.subset == "all"
          and isinstance(r.value, (int, float))}
    if tp:
        jobs.append(P(
            _grouped_bars, plt, tp, toks, [s for s in suites if any(x == s for (_, x) in tp)],
            "Encode throughput, one thread (median)", "MB/s", path=out / THROUGHPUT_PLOT))
    if has_speed(results):
        for plot, name in zip((latency_cdf_plot, threads_plot, length_plot), SPEED_PLOTS,
                              strict=True):
            jobs.append(P(plot, results, path=out / name))
    return jobs
