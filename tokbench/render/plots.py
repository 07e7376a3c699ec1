"""PNG plots drawn from results rows (matplotlib figures, no display or backend needed).

File names made from suite names go through ``safe_filename``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokbench.constants import PIVOT
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


def _grouped_bars(plt: Any, values: dict[tuple[str, str], float], tokenizers: Sequence[str],
                  groups: Sequence[str], title: str, ylabel: str, path: Path,
                  hline: float | None = None, log: bool = False) -> Path | None:
    toks = [t for t in tokenizers if any((t, g) in values for g in groups)]
    if not toks or not groups:
        return None
    width = 0.8 / len(toks)
    fig, ax = plt.subplots(figsize=(max(8.0, 0.32 * len(groups) * max(len(toks), 2)), 4.8))
    for k, tok in enumerate(toks):
        xs = [i + (k - (len(toks) - 1) / 2) * width for i in range(len(groups))]
        ys = [values.get((tok, g), float("nan")) for g in groups]
        ax.bar(xs, ys, width=width, label=tok)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=60 if len(groups) > 6 else 0, ha="right" if
                       len(groups) > 6 else "center", fontsize=8)
    if hline is not None:
        ax.axhline(hline, color="black", linewidth=0.8, linestyle="--")
    if log:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8, ncol=min(len(toks), 4))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _heatmap(plt: Any, values: dict[tuple[str, str], float], tokenizers: Sequence[str],
             rows: Sequence[str], title: str, label: str, path: Path) -> Path | None:
    """Languages down, tokenizers across, each cell's value written in it: legible at page
    width however many languages there are (the figure grows downwards, not sideways)."""
    from matplotlib.colors import LogNorm

    toks = [t for t in tokenizers if any((t, r) in values for r in rows)]
    if not toks or not rows:
        return None
    grid = [[values.get((t, r), float("nan")) for t in toks] for r in rows]
    finite = [v for line in grid for v in line if v == v and v > 0]
    if not finite:
        return None
    lo, hi = min(min(finite), 1.0), max(max(finite), 1.0 + 1e-9)
    fig, ax = plt.subplots(figsize=(2.6 + 0.95 * len(toks), 1.6 + 0.3 * len(rows)))
    image = ax.imshow(grid, cmap="RdYlGn_r", norm=LogNorm(vmin=lo, vmax=hi), aspect="auto")
    ax.set_xticks(range(len(toks)), toks, rotation=30, ha="right", fontsize=9)
    ax.set_yticks(range(len(rows)), rows, fontsize=9)
    ax.tick_params(top=True, bottom=False, labeltop=True, labelbottom=False)
    for i, line in enumerate(grid):
        for j, v in enumerate(line):
            if v == v:
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
    from matplotlib.ticker import FuncFormatter

    bar = fig.colorbar(image, ax=ax, label=label, shrink=0.6)
    plain = FuncFormatter(lambda x, _: f"{x:g}")
    bar.ax.yaxis.set_major_formatter(plain)
    bar.ax.yaxis.set_minor_formatter(plain)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _fairness(plt: Any, results: Results, suite: str, tokenizers: Sequence[str],
              path: Path) -> Path | None:
    """Per tokenizer: Gini of the premiums (left); mean and worst premium, the worst
    language written on its bar (right)."""
    from tokbench.metrics.fairness import FAIRNESS_METRICS, GINI, MACRO, WORST

    rows = {(r.tokenizer, r.metric): r for r in results.rows
            if r.suite == suite and r.subset == "all"
            and r.metric in {m.name for m in FAIRNESS_METRICS}
            and isinstance(r.value, (int, float))}
    toks = [t for t in tokenizers if (t, GINI.name) in rows]
    if not toks:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(max(8.0, 1.4 * len(toks) + 4), 4.2))
    xs = range(len(toks))
    def value(t: str, metric: str) -> float:
        return float(rows[(t, metric)].value or 0.0)

    left.bar(xs, [value(t, GINI.name) for t in toks], color="#4c72b0")
    left.set_title("Gini of premiums (0 = equal cost)")
    width = 0.4
    macro = [value(t, MACRO.name) for t in toks]
    worst = [value(t, WORST.name) for t in toks]
    right.bar([x - width / 2 for x in xs], macro, width, label="mean premium", color="#55a868")
    bars = right.bar([x + width / 2 for x in xs], worst, width, label="worst premium",
                     color="#c44e52")
    for bar, t in zip(bars, toks, strict=True):
        lang = rows[(t, WORST.name)].extra.get("lang", "")
        right.annotate(str(lang), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                       ha="center", va="bottom", fontsize=7, rotation=90)
    right.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    right.set_ylim(0, max(worst) * 1.3)  # room for the language names
    right.set_title("Premium against English: mean and worst language")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.set_xticks(list(xs))
        ax.set_xticklabels(toks, rotation=45, ha="right", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"Fairness across languages ({suite})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def render_plots(results: Results, out_dir: str | Path) -> list[Path]:
    """Write the standard plots into ``out_dir``; returns the files written."""
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    toks = tokenizer_order(results)
    suites = results.meta.suites
    written: list[Path | None] = []

    for suite, d in suites.items():
        prem = _values(results, suite, "premium")
        if prem:
            langs = sorted({s for (_, s) in prem if s != PIVOT},
                           key=lambda s: sum(v for (t, x), v in prem.items() if x == s))
            written.append(_heatmap(
                plt, prem, toks, langs, f"Token premium against English ({suite})",
                "tokens / English tokens (log scale)",
                out / f"premium_{safe_filename(suite)}.png"))
            written.append(_fairness(plt, results, suite, toks,
                                     out / f"fairness_{safe_filename(suite)}.png"))
        if d.subset_by == "domain":
            bpt = _values(results, suite, "bytes_per_token")
            groups = [g for g in order_subsets({s for (_, s) in bpt}) if g != "all"]
            written.append(_grouped_bars(
                plt, bpt, toks, groups, f"Bytes per token by domain ({suite})",
                "UTF-8 bytes / token", out / f"bytes_per_token_{safe_filename(suite)}.png"))

    for suite in suites:
        fert = {k: v for k, v in _values(results, suite, "fertility").items()}
        jp = {(t, s): v for (t, s), v in fert.items()
              if (suite == "japanese") or s == "jpn_Jpan"}
        if jp:
            groups = order_subsets({s for (_, s) in jp})
            written.append(_grouped_bars(
                plt, jp, toks, groups, f"Fertility on Japanese ({suite}, MeCab words)",
                "tokens / word", out / f"fertility_japanese_{safe_filename(suite)}.png"))

    tp = {(r.tokenizer, r.suite): float(r.value) for r in results.rows
          if r.metric == "throughput_mb_s" and r.subset == "all"
          and isinstance(r.value, (int, float))}
    if tp:
        written.append(_grouped_bars(
            plt, tp, toks, [s for s in suites if any(x == s for (_, x) in tp)],
            "Encode throughput, one thread (median)", "MB/s", out / "throughput.png", log=True))
    from tokbench.render.speed import render_speed_plots

    written += render_speed_plots(results, out)
    return [p for p in written if p is not None]
