"""PNG plots drawn from results rows (matplotlib figures, no display or backend needed).

File names made from suite names go through ``safe_filename``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokbench.render.figures import safe_filename
from tokbench.render.tables import order_subsets, tokenizer_order
from tokbench.results import Results


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


def render_plots(results: Results, out_dir: str | Path) -> list[Path]:
    """Write the standard plots into ``out_dir``; returns the files written."""
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    toks = tokenizer_order(results)
    suites = results.meta.get("suites", {})
    written: list[Path | None] = []

    for suite, d in suites.items():
        prem = _values(results, suite, "premium")
        if prem:
            langs = sorted({s for (_, s) in prem if s != "eng_Latn"},
                           key=lambda s: sum(v for (t, x), v in prem.items() if x == s))
            written.append(_grouped_bars(
                plt, prem, toks, langs, f"Token premium against English ({suite})",
                "tokens / English tokens", out / f"premium_{safe_filename(suite)}.png", hline=1.0))
        if d.get("subset_by") == "domain":
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
    return [p for p in written if p is not None]
