"""Tables and plots of a vocabulary-size sweep, drawn from ``sweep.json`` (never recomputed).

``sweep_tables`` gives the numbers (bytes per token and fertility per language against
size, the gain of each doubling, the cost view); ``render_sweep_markdown`` and
``render_sweep_plots`` draw them. Sizes go on a log-2 axis: each step is a doubling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokbench.constants import ALL
from tokbench.errors import InputError
from tokbench.metrics import SUMMARY_SWEEP, summary_metrics
from tokbench.render.tables import format_value
from tokbench.results import Results


@dataclass
class SweepTables:
    """Numbers of a sweep keyed by group label (``"subset"`` or ``"suite/subset"``)."""

    sizes: list[int]
    names: list[str]
    bytes_per_token: dict[str, dict[int, float]] = field(default_factory=dict)
    fertility: dict[str, dict[int, float]] = field(default_factory=dict)
    gains: dict[str, dict[int, float]] = field(default_factory=dict)
    summary: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    sweep: dict[str, Any] = field(default_factory=dict)


def sweep_tables(results: Results) -> SweepTables:
    """Pivot the rows of a sweep into per-group series over sizes."""
    from tokbench.training.sweep import gains

    meta = results.meta.sweep
    if meta is None:
        raise InputError("these results are not a sweep's (no meta.sweep); run tokbench sweep")
    sizes = [int(s) for s in meta["sizes"]]
    names = list(meta["names"])
    by_name = dict(zip(names, sizes, strict=True))
    suites = list(results.meta.suites)
    several = len(suites) > 1

    def label(suite: str, subset: str) -> str:
        return f"{suite}/{subset}" if several else subset

    t = SweepTables(sizes, names, sweep=meta)
    headline = {m.name for m in summary_metrics(SUMMARY_SWEEP)}
    for r in results.rows:
        if r.tokenizer not in by_name or not isinstance(r.value, (int, float)):
            continue
        size = by_name[r.tokenizer]
        if r.subset == ALL and r.metric in headline:
            t.summary.setdefault(r.suite, {}).setdefault(size, {})[r.metric] = r.value
        if r.metric == "bytes_per_token":
            t.bytes_per_token.setdefault(label(r.suite, r.subset), {})[size] = float(r.value)
        elif r.metric == "fertility":
            t.fertility.setdefault(label(r.suite, r.subset), {})[size] = float(r.value)
    t.bytes_per_token = _ordered(t.bytes_per_token)
    t.fertility = _ordered(t.fertility)
    t.gains = {g: gains(v, sizes) for g, v in t.bytes_per_token.items()}
    return t


def _ordered(d: dict[str, dict[int, float]]) -> dict[str, dict[int, float]]:
    """"all" rows first, then groups by name."""
    return {k: d[k] for k in sorted(d, key=lambda k: (not k.endswith(ALL), k))}


def _label(size: int) -> str:
    from tokbench.training.sweep import size_label

    return size_label(size)


def _fmt(v: float | None, digits: int = 3) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _series_table(series: dict[str, dict[int, float]], sizes: list[int], digits: int,
                  first: str) -> list[str]:
    rows = [[g] + [_fmt(v.get(s), digits) for s in sizes] for g, v in series.items()]
    return _table([first] + [_label(s) for s in sizes], rows)


def recommendation_text(sweep: dict[str, Any], several_suites: bool = False) -> str:
    """One paragraph: the recommended size, the rule, and what rules out the smaller one."""
    rec = sweep["recommendation"]
    size = int(rec["size"])
    text = (f"**Recommended: {rec['name']} ({size:,} tokens).** Rule: {sweep['rule']}.")
    if not rec.get("met", True):
        text += (" No size meets the rule for every language; this is the size whose worst "
                 "language is closest to its best.")
    binding = rec.get("binding") or []
    if binding:
        shown = ", ".join(
            f"{b['suite'] + '/' if several_suites else ''}{b['subset']} "
            f"({b['below_best_pct']:.1f}% below its best)" for b in binding[:5])
        more = f" and {len(binding) - 5} more" if len(binding) > 5 else ""
        text += f" At {_label(int(binding[0]['size']))}: {shown}{more}."
    elif list(sweep["sizes"]).index(size) == 0:
        text += " The smallest size already meets it."
    return text


def answer_lines(sweep: dict[str, Any]) -> list[str]:
    """The one reconciled answer (``meta.sweep["answer"]``): a headline, then its reasons
    as Markdown bullets; nothing for a sweep.json written before answers existed."""
    answer = sweep.get("answer")
    if not answer:
        return []
    size = int(answer["size"])
    how = ("compute-optimal for this model" if answer["source"] == "compute-optimal"
           else "the sweep's rule")
    head = f"**Answer: train at {size:,} tokens** ({how})."
    if answer.get("extend"):
        head += f" Add {','.join(answer['extend'])} to --sizes to confirm it."
    return [head, "", *(f"- {r[0].upper()}{r[1:]}." for r in answer["reasons"])]


def cost_lines(sweep: dict[str, Any]) -> list[str]:
    config = sweep["config"]
    tied = "tied input/output embeddings" if config.get("tied") else \
        "untied: input embedding + output layer"
    rows = []
    for c in sweep.get("cost", []):
        saved = c["saved_vs_smallest_pct"]
        step = c["saved_vs_previous_pct"]
        rows.append([c["name"], f"{c['params'] / 1e6:,.1f}", f"{c['extra_params'] / 1e6:+,.1f}",
                     f"{c['tokens_per_mb']:,.0f}", _fmt(saved, 1), _fmt(step, 1)])
    head = [f"Parameters for d_model = {config['d_model']:,} ({tied}) against the tokens "
            "needed for 1M bytes of all evaluation text.", ""]
    return head + _table(["size", "params (M)", "vs smallest (M)", "tokens / 1M bytes",
                          "saved vs smallest (%)", "saved by this step (%)"], rows)


def render_sweep_markdown(results: Results, plots: list[str] | None = None) -> str:
    """The sweep report: recommendation, cost, and the per-language tables."""
    t = sweep_tables(results)
    sw = t.sweep
    corpus = sw["corpus"]
    suites = results.meta.suites
    lines = [f"# Vocabulary-size sweep: {sw['algo']} ({sw['backend']})", ""]
    lines.append(f"Trained on `{' + '.join(corpus['specs'])}` ({corpus['documents']:,} documents, "
                 f"{corpus['bytes'] / 1e6:,.1f} MB, sha256 `{corpus['sha256'][:12]}`); evaluated "
                 "on " + ", ".join(f"`{n}` ({d.documents or 0:,} documents)"
                                   for n, d in suites.items()) + ".")
    how: dict[str, list[str]] = {}
    trained = sw.get("trained", {})
    for name in sw["names"]:
        if name in trained:
            how.setdefault(trained[name]["how"], []).append(name)
    lines.append("Sizes: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in how.items()) + ".")
    for item in sw.get("overlap", []):
        if item["overlapping"]:
            lines += ["", f"> **Warning:** {item['overlapping']:,} of {item['documents']:,} "
                      f"documents of `{item['suite']}` also occur in the training corpus; its "
                      "numbers are not held-out."]
    lines += ["", *answer_lines(sw), "", recommendation_text(sw, len(suites) > 1), ""]
    for p in plots or []:
        if "_scaling" not in p:
            lines.append(f"![{p}]({p})")
    if "scaling" in sw:
        from tokbench.render.vocab_law import vocab_law_markdown

        lines += ["", *vocab_law_markdown(sw["scaling"],
                                        [p for p in plots or [] if "_scaling" in p])]
    lines += ["", "## Cost", "", *cost_lines(sw)]
    lines += ["", "## Bytes per token (higher is better)", ""]
    lines += _series_table(t.bytes_per_token, t.sizes, 3, "language")
    lines += ["", "## Gain of each doubling (% change of bytes per token from the previous size)",
              ""]
    gain_rows = {g: v for g, v in t.gains.items()}
    lines += _table(["language"] + [_label(s) for s in t.sizes[1:]],
                    [[g] + [_fmt(v.get(s), 1) for s in t.sizes[1:]]
                     for g, v in gain_rows.items()])
    if t.fertility:
        lines += ["", "## Fertility (tokens per word, lower is better)", ""]
        lines += _series_table(t.fertility, t.sizes, 3, "language")
    for suite, per_size in t.summary.items():
        infos = [m for m in summary_metrics(SUMMARY_SWEEP)
                 if any(m.name in v for v in per_size.values())]
        lines += ["", f"## All metrics on `{suite}` (subset all)", ""]
        lines += _table(["size", *(m.name for m in infos)],
                        [[_label(s)] + [format_value(per_size.get(s, {}).get(m.name), m)
                                        for m in infos]
                         for s in t.sizes])
    return "\n".join(lines) + "\n"


# -- plots ----------------------------------------------------------------------------------


def _pyplot() -> Any:
    from tokbench.render.figures import Figures

    return Figures


#: languages drawn in colour (with a legend entry) on a sweep plot; the rest are grey
HIGHLIGHTED = 7


def highlighted(series: dict[str, dict[int, float]], sweep: dict[str, Any],
                k: int = HIGHLIGHTED) -> list[str]:
    """The groups worth a colour: the "all" rows, the languages that decide the
    recommendation (binding), then those gaining most and least from the largest size."""
    rec = sweep.get("recommendation", {})
    several = any("/" in g for g in series)
    binding = [f"{b['suite']}/{b['subset']}" if several else b["subset"]
               for b in rec.get("binding") or []]
    alls = [g for g in series if g.endswith(ALL)]
    rest = [g for g in series if not g.endswith(ALL) and len(series[g]) > 1]

    def growth(g: str) -> float:
        values = series[g]
        return max(values.values()) / min(values.values()) if min(values.values()) else 0.0

    by_growth = sorted(rest, key=lambda g: (-growth(g), g))
    order = [*binding, *by_growth[:k], *reversed(by_growth[-2:])]
    picked: list[str] = []
    for g in order:
        if g in series and g not in picked and g not in alls and len(picked) < k:
            picked.append(g)
    return alls + picked


def _series_plot(ax: Any, series: dict[str, dict[int, float]], sizes: list[int], ylabel: str,
                 title: str, recommended: int | None, sweep: dict[str, Any]) -> None:
    """"all" in black, a few languages in distinct colours, every other language as a thin
    grey line (one legend entry for them), the recommended size as a dashed line; the
    legend sits under the axes, so nothing is clipped however long the names."""
    shown = highlighted(series, sweep)
    others = [g for g in series if g not in shown]
    for g in others:
        xs = [s for s in sizes if s in series[g]]
        ax.plot(xs, [series[g][s] for s in xs], color="0.8", linewidth=0.7, zorder=1,
                label=f"{len(others)} other languages" if g == others[0] else None)
    k = 0
    for g in shown:
        xs = [s for s in sizes if s in series[g]]
        is_all = g.endswith(ALL)
        ax.plot(xs, [series[g][s] for s in xs], marker="o", markersize=4,
                linewidth=2.4 if is_all else 1.4, color="black" if is_all else f"C{k % 10}",
                label=g, zorder=3 if is_all else 2)
        k += 0 if is_all else 1
    if recommended is not None:
        ax.axvline(recommended, color="tab:red", linewidth=1, linestyle="--",
                   label=f"recommended {_label(recommended)}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([_label(s) for s in sizes])
    ax.minorticks_off()
    ax.set_xlabel("vocabulary size")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.16),
              frameon=False)


def _cost_plot(ax: Any, sweep: dict[str, Any]) -> None:
    cost = sweep.get("cost", [])
    if not cost:
        return
    rec = int(sweep["recommendation"]["size"])
    xs = [c["params"] / 1e6 for c in cost]
    ys = [c["tokens_per_mb"] / 1e3 for c in cost]
    ax.plot(xs, ys, marker="o", color="tab:blue")
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{x:,.0f}" if x >= 10 else f"{x:.1f}" for x in xs], fontsize=8)
    ax.minorticks_off()
    for c, x, y in zip(cost, xs, ys, strict=True):
        ax.annotate(_label(c["size"]), (x, y), textcoords="offset points", xytext=(4, 4),
                    fontsize=8, color="tab:red" if c["size"] == rec else "black")
    tied = "tied" if sweep["config"].get("tied") else "untied"
    ax.set_xlabel(f"embedding + output parameters (M, d_model={sweep['config']['d_model']}, "
                  f"{tied})")
    ax.set_ylabel("tokens per 1M bytes (thousands)")
    ax.set_title("Cost: parameters against sequence length")
    ax.grid(alpha=0.3)


def render_sweep_plots(results: Results, out_dir: str | Path) -> list[Path]:
    """Write ``sweep.png`` (summary), ``sweep_bytes_per_token.png``, ``sweep_fertility.png``
    and ``sweep_cost.png``; returns the files written."""
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t = sweep_tables(results)
    rec = int(t.sweep["recommendation"]["size"])
    written: list[Path] = []
    algo = t.sweep["algo"]

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.0, 5.2),
                                 gridspec_kw={"width_ratios": [3, 2.2]})
    _series_plot(a1, t.bytes_per_token, t.sizes, "UTF-8 bytes per token",
                 f"Bytes per token by language ({algo})", rec, t.sweep)
    _cost_plot(a2, t.sweep)
    written.append(_save(plt, fig, out / "sweep.png"))

    for name, series, ylabel, title in [
            ("sweep_bytes_per_token.png", t.bytes_per_token, "UTF-8 bytes per token",
             f"Bytes per token against vocabulary size ({algo})"),
            ("sweep_fertility.png", t.fertility, "tokens per word",
             f"Fertility against vocabulary size ({algo})")]:
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(9.0, 5.2))
        _series_plot(ax, series, t.sizes, ylabel, title, rec, t.sweep)
        written.append(_save(plt, fig, out / name))
    if t.sweep.get("cost"):
        fig, ax = plt.subplots(figsize=(7, 5))
        _cost_plot(ax, t.sweep)
        written.append(_save(plt, fig, out / "sweep_cost.png"))
    if "scaling" in t.sweep:
        from tokbench.render.vocab_law import render_vocab_law_plots

        written += render_vocab_law_plots(t.sweep["scaling"], out, "sweep")
    return written


def _save(plt: Any, fig: Any, path: Path) -> Path:
    """Saved with every label inside (bbox "tight": a long legend is never clipped)."""
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight", pad_inches=0.15)
    plt.close(fig)
    return path


def write_sweep_outputs(results: Results, out_dir: str | Path, plots: bool = True) -> list[Path]:
    """``sweep.md`` and the PNGs of a finished sweep (``sweep.json`` is already written)."""
    out = Path(out_dir)
    pngs = render_sweep_plots(results, out) if plots else []
    from tokbench.atomic import write_atomic

    md = write_atomic(out / "sweep.md", render_sweep_markdown(results, [p.name for p in pngs]))
    return [*pngs, md]
