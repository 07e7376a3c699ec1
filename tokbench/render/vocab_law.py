"""The compute-optimal vocabulary size (Tao et al. 2024) as text, tables and plots.

Drawn from the ``scaling`` section that ``tokbench.training.law.analyze`` (sweep) or
``tokbench.training.law.placement`` (recommend) stored in the results; nothing is recomputed.
Plots use ``matplotlib.figure.Figure`` directly: no pyplot state, no backend switch.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

APPROACHES = (("approach1", "approach 1: IsoFLOPs power laws"),
              ("approach2", "approach 2: derivative (paper's f(V), gamma 0.8354)"),
              ("approach3", "approach 3: parametric loss fit"))
HIGHLIGHT = ("eng_Latn", "jpn_Jpan", "zho_Hans", "hin_Deva")
LOOSE_FIT_PCT = 1.0


def fmt_v(v: float | None) -> str:
    """A vocabulary size: ``62,281`` (``round_size``, the one rounding); None is ``–``."""
    from tokbench.training.sweep import round_size

    return "–" if v is None else f"{round_size(v):,}"


def fmt_k(v: float) -> str:
    return f"{v / 1024:.0f}k" if v >= 1024 else f"{v:.0f}"


def model_line(section: dict[str, Any]) -> str:
    """N_nv, d and C with where each came from."""
    s = section["settings"]
    return (f"Model: N_nv = {s['model_params']:.3g} non-vocabulary parameters, d = "
            f"{s['d_model']:,} ({s['d_model_source']}), C = {s['flops']:.3g} FLOPs "
            f"({s['flops_source']}).")


def derivative_text(opt: dict[str, Any], valid: Sequence[int], factor: float) -> str:
    """The derivative optimum of an f(V), with its standing against the swept sizes."""
    lo, hi = valid
    if opt["status"] == "above":
        return (f"> {fmt_v(opt['bound'])} (beyond {factor:g}x the largest swept size "
                f"{fmt_k(hi)}; not extrapolated)")
    if opt["status"] == "below":
        return f"< {fmt_v(opt['bound'])} (below the smallest swept size / {factor:g})"
    if opt["status"] == "extrapolated":
        return (f"{fmt_v(opt['v'])} (extrapolated: outside the swept {fmt_k(lo)}–{fmt_k(hi)}, "
                f"within {factor:g}x)")
    return fmt_v(opt["v"])


def headline_rows(section: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(method, optimal V, note) for the paper's approaches and the corpus's own f(V)."""
    rows = [(label, fmt_v(section["paper"][key]), "paper's coefficients, its corpus")
            for key, label in APPROACHES]
    g = section["groups"].get(section["overall"])
    if g is None:
        return rows
    lo, hi = g["fit"]["valid_range"]
    if g["gamma"] is not None:
        note = (f"gamma {g['gamma']:.4f} from {len(g['gamma_points'])} of the paper's model "
                "sizes (33M..2.87B) whose optimum lies in the swept sizes; the paper's anchor")
        if g["approach2"] > hi:
            note += f"; larger than the largest swept size {fmt_k(hi)}"
        rows.append(("approach 2 with your f(V)", fmt_v(g["approach2"]), note))
    else:
        rows.append(("approach 2 with your f(V)", "–", g["gamma_reason"]))
    rows.append(("derivative optimum of your f(V) at this N_nv",
                 derivative_text(g["derivative"], (lo, hi), section["extrapolation_factor"]),
                 "the paper's approach-2 step before its calibration"))
    return rows


def summary_text(section: dict[str, Any]) -> str:
    """One paragraph: the size for this model on this corpus, next to the paper's."""
    g = section["groups"].get(section["overall"])
    paper = section["paper"]
    text = (f"Compute-optimal size for N_nv = {section['settings']['model_params']:.3g} "
            "(Tao et al. 2024): ")
    if g is not None and g["approach2"] is not None:
        text += f"**{fmt_v(g['approach2'])}** with this corpus's f(V) (approach 2)"
        lo, hi = g["fit"]["valid_range"]
        near = section.get("nearest_size")
        if g["approach2"] > hi:
            text += f", beyond the largest swept size {fmt_k(hi)}"
        elif g["approach2"] < lo:
            text += f", below the smallest swept size {fmt_k(lo)}"
        elif near:
            text += f", nearest swept size {fmt_k(near['size'])}"
        text += "; "
    text += ("the paper's own three approaches give " +
             " / ".join(fmt_v(paper[k]) for k, _ in APPROACHES) + ".")
    return text


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    return out + ["| " + " | ".join(r) + " |" for r in rows]


def fit_rows(fit: dict[str, Any]) -> list[list[str]]:
    return [[fmt_k(s), f"{m:.5f}", f"{f:.5f}", f"{r:+.3f}%"]
            for s, m, f, r in zip(fit["sizes"], fit["measured"], fit["fitted"],
                                  fit["residuals_pct"], strict=True)]


def language_rows(section: dict[str, Any]) -> list[list[str]]:
    """Per group: the fit, its worst residual, and approach 2 with its own f(V)."""
    rows = []
    items = sorted(section["groups"].items(),
                   key=lambda kv: (kv[0] != section["overall"], -(kv[1]["approach2"] or 0)))
    for name, g in items:
        fit = g["fit"]
        rows.append([name, fit.get("form", "quadratic"), f"{fit['a']:.5f}", f"{fit['b']:.4f}",
                     f"{fit['c']:.4f}",
                     f"{fit['max_abs_residual_pct']:.2f}%",
                     f"{fit['measured'][0]:.3f} → {fit['measured'][-1]:.3f}",
                     "–" if g["gamma"] is None else f"{g['gamma']:.3f}",
                     fmt_v(g["approach2"]),
                     derivative_text(g["derivative"], fit["valid_range"],
                                     section["extrapolation_factor"])])
    return rows


def vocab_law_markdown(section: dict[str, Any], plots: Sequence[str] = ()) -> list[str]:
    """The "Compute-optimal size" section of a report."""
    g = section["groups"].get(section["overall"])
    lines = ["## Compute-optimal size (Tao et al. 2024)", "", summary_text(section), "",
             model_line(section), ""]
    lines += _table(["method", "optimal V", "note"],
                    [list(r) for r in headline_rows(section)])
    for p in plots:
        lines += ["", f"![{p}]({p})"]
    if g is not None:
        fit = g["fit"]
        lo, hi = fit["valid_range"]
        alt = ", ".join(f"{k} {v:.3f}%" for k, v in fit.get("alternatives", {}).items())
        paper_f = section["paper_f"]
        lines += ["", f"f(V), tokens per character of all evaluation text, fitted as "
                  f"{fit['formula']} over {len(fit['sizes'])} sizes "
                  f"({fit['degrees_of_freedom']} degrees of freedom); largest residual "
                  f"{fit['max_abs_residual_pct']:.3f}% (largest residual of each form: {alt}; "
                  "the paper's form is quadratic). It is valid for "
                  f"{fmt_k(lo)}–{fmt_k(hi)}; optima up to {section['extrapolation_factor']:g}x "
                  "outside are flagged, further ones are not computed. The paper's f(V) on its "
                  f"corpus: {paper_f['a']} ln(V)^2 {paper_f['b']:+} ln(V) {paper_f['c']:+}.", ""]
        lines += _table(["size", "measured", "fitted", "residual"], fit_rows(fit))
    if len(section["groups"]) > 1:
        lines += ["", "### Per language", "",
                  "Each language's own f(V) (its tokens per character at every size) and the "
                  "size approach 2 gives with it for this model.", ""]
        loose = [n for n, g in section["groups"].items()
                 if g["fit"]["max_abs_residual_pct"] > LOOSE_FIT_PCT]
        if loose:
            lines[-1:] = [f"{len(loose)} of {len(section['groups'])} fits miss a measured "
                          f"value by more than {LOOSE_FIT_PCT:g}% (max residual column): "
                          "their optima are rough.", ""]
        lines += _table(["language", "form", "a", "b", "c", "max residual",
                         "f at smallest → largest", "gamma", "approach 2", "derivative optimum"],
                        language_rows(section))
    for name, reason in section.get("skipped", {}).items():
        lines += ["", f"- {name}: not fitted ({reason})"]
    lines += ["", "Assumptions:", ""]
    lines += [f"- {k.replace('_', ' ')}: {v}" for k, v in section["assumptions"].items()]
    lines += ["", f"Source: {section['source']}."]
    return lines


# -- plots --------------------------------------------------------------------------------------


def _figure(width: float, height: float, cols: int = 1, rows: int = 1,
            height_ratios: Sequence[float] | None = None) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    axes = fig.subplots(rows, cols, height_ratios=height_ratios)
    return fig, axes


def optimal_plot(ax: Any, section: dict[str, Any], own: bool = True) -> None:
    """Optimal V against N_nv, log-log: the paper's three approaches, the corpus's own
    f(V) (approach 2 and the raw derivative optimum), published models and the target."""
    curve = section["curve"]
    xs = curve["n_nv"]
    for (key, label), style in zip(APPROACHES, ("-", "--", "-."), strict=True):
        ax.plot(xs, curve[key], style, color="tab:gray", linewidth=1.4,
                label=label.replace("approach ", "paper ").split(":")[0] + ":"
                + label.split(":")[1])
    g = section["groups"].get(section["overall"]) if own else None
    if g is not None:
        if any(v is not None for v in g["curve"]["approach2"]):
            ax.plot(xs, [v if v is not None else float("nan") for v in g["curve"]["approach2"]],
                    color="tab:red", linewidth=2.2, label="approach 2 with your f(V)")
        der = [v if v is not None else float("nan") for v in g["curve"]["derivative"]]
        ax.plot(xs, der, ":", color="tab:red", linewidth=1.6,
                label="derivative optimum of your f(V) (swept range only)")
        lo, hi = g["fit"]["valid_range"]
        ax.axhspan(lo, hi, color="tab:red", alpha=0.07, label=f"swept {fmt_k(lo)}–{fmt_k(hi)}")
    for m in section["published"]:  # labelled once the layout is final (label_models)
        ax.scatter([m["n_nv"]], [m["vocab"]], marker="o", color="tab:blue", zorder=4, s=22)
    for name, v in section.get("vocab_only", {}).items():
        ax.axhline(v, color="tab:blue", linewidth=0.8, linestyle=(0, (1, 3)))
        ax.annotate(f"{name} (model size unpublished)", (xs[0], v), textcoords="offset points",
                    xytext=(2, 3), fontsize=7, color="tab:blue")
    n = section["settings"]["model_params"]
    ax.axvline(n, color="black", linewidth=0.8, linestyle="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("non-vocabulary parameters N_nv")
    ax.set_ylabel("vocabulary size V")
    ax.set_title(f"Compute-optimal vocabulary size (Tao et al. 2024); N_nv = {n:.3g} dashed")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper left")


def label_models(ax: Any, section: dict[str, Any]) -> list[Any]:
    """The published models' names beside their points, none over another (after the
    figure's layout is final); returns the labels' boxes."""
    from tokbench.render.figures import place_labels

    return place_labels(ax, [(m["n_nv"], m["vocab"], m["name"])
                             for m in section["published"]], fontsize=7, color="tab:blue")


def _fv_plot(ax: Any, section: dict[str, Any]) -> None:
    overall = section["overall"]
    for name, g in section["groups"].items():
        fit, curve = g["fit"], g["f_curve"]
        if name == overall:
            style = {"color": "black", "linewidth": 2.4, "zorder": 4}
        elif name in HIGHLIGHT:
            style = {"linewidth": 1.8, "zorder": 3}
        else:
            style = {"color": "0.75", "linewidth": 0.7, "zorder": 1}
        line = ax.plot(curve["v"], curve["f"], label=name if "color" not in style
                       or name == overall else None, **style)[0]
        ax.scatter(fit["sizes"], fit["measured"], s=8, color=line.get_color(),
                   zorder=style["zorder"])
    ax.set_xscale("log", base=2)
    ax.set_xlabel("vocabulary size V")
    ax.set_ylabel("tokens per character f(V)")
    ax.set_title("f(V): measured (dots) and fitted (lines)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


def _language_bars(ax: Any, section: dict[str, Any]) -> None:
    items = [(n, g["approach2"]) for n, g in section["groups"].items()
             if g["approach2"] is not None]
    items.sort(key=lambda kv: kv[1])
    names = [n for n, _ in items]
    ax.barh(range(len(items)), [v for _, v in items],
            color=["black" if n == section["overall"] else "tab:red" if n in HIGHLIGHT
                   else "tab:gray" for n in names])
    ax.set_yticks(range(len(items)))
    ax.set_yticklabels(names, fontsize=6 if len(items) > 25 else 8)
    ax.axvline(section["paper"]["approach2"], color="tab:blue", linestyle="--", linewidth=1,
               label="paper's approach 2")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("optimal V (approach 2 with the language's own f(V))")
    ax.set_title(f"Optimum by language at N_nv = {section['settings']['model_params']:.3g}")
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=7)


def render_vocab_law_plots(section: dict[str, Any], out_dir: str | Path,
                         prefix: str = "sweep") -> list[Path]:
    """``PREFIX_scaling.png`` (optimal V against N_nv) and, with more than one group,
    ``PREFIX_scaling_languages.png`` (f(V) and the optimum per language)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fig, ax = _figure(10, 6.5)
    optimal_plot(ax, section)
    fig.tight_layout()
    label_models(ax, section)
    written = [_save(fig, out / f"{prefix}_scaling.png")]
    if len(section["groups"]) > 1:
        rows = len(section["groups"])
        fig, (a1, a2) = _figure(9.5, 5.5 + max(4.0, 0.17 * rows + 1.5), rows=2,
                                height_ratios=(5.5, max(4.0, 0.17 * rows + 1.5)))
        _fv_plot(a1, section)
        _language_bars(a2, section)
        fig.tight_layout()
        written.append(_save(fig, out / f"{prefix}_scaling_languages.png"))
    return written


def _save(fig: Any, path: Path) -> Path:
    fig.savefig(path, dpi=110)
    return path


# -- tokbench recommend -------------------------------------------------------------------------


def placement_rows(section: dict[str, Any]) -> list[list[str]]:
    """Per tokenizer: V, tokens per character, FLOPs per character against the best, and
    V against the paper's three optimal sizes."""
    return [[_marked(r), f"{r['vocab']:,}", f"{r['tokens_per_char']:.4f}",
             f"{r['flops_per_char']:.3g}", f"{r['flops_vs_best_pct']:+.1f}%",
             *(f"{r['v_over_' + k]:.2f}x" for k, _ in APPROACHES)]
            for r in section["tokenizers"]]


PLACEMENT_HEADER = ["tokenizer", "V", "tokens/char", "FLOPs/char", "vs best", "V/A1", "V/A2",
                    "V/A3"]
PLACEMENT_NOTE = ("FLOPs/char: training FLOPs per character, 6 (N_nv + V d) x tokens per "
                  "character; vs best: against the lossless tokenizer with the fewest; "
                  "V/A1..A3: V over "
                  "the paper's approach 1..3 optimum for this model.")


def best_line(section: dict[str, Any]) -> tuple[str, str] | None:
    """(headline, caveat) of the recommendation: the tokenizer with the fewest training
    FLOPs per character among those without a caveat, and what a flagged tokenizer ranked
    above it would have saved."""
    rows = section.get("tokenizers") or []
    clean = [r for r in rows if not r.get("caveat")]
    if not clean:
        return ("No lossless tokenizer was measured.", "") if rows else None
    best = clean[0]
    above = [r for r in rows[:rows.index(best)]]
    note = " ".join(f"{_marked(r)} needs "
                    f"{1 - r['flops_per_char'] / best['flops_per_char']:.1%} fewer FLOPs per "
                    f"character but is not counted: {r['caveat']}." for r in above)
    return (f"Fewest training FLOPs per character among lossless tokenizers: "
            f"{best['tokenizer']}.", note)


def caveat_notes(section: dict[str, Any]) -> list[str]:
    """Legend lines for the symbols in the placement table."""
    from tokbench.metrics.trust import legend

    symbols = [r.get("caveat_symbols") or "" for r in section.get("tokenizers") or []]
    return [f"{line}." for line in legend(symbols)]


def recommend_markdown(section: dict[str, Any], suites: Sequence[str],
                       plots: Sequence[str] = ()) -> str:
    """The ``tokbench recommend`` report."""
    lines = ["# Which vocabulary for this model? (Tao et al. 2024)", "",
             "Tokenizers measured on " + ", ".join(f"`{s}`" for s in suites) + ".", "",
             model_line(section), ""]
    best = best_line(section)
    if best:
        lines += [f"**{best[0]}** {best[1]} Training FLOPs per character are 6 (N_nv + V d) "
                  "x tokens per character: the cost of training this model on the same text "
                  "(the quantity approach 2 minimizes).", ""]
    lines += [*_table(PLACEMENT_HEADER, placement_rows(section)), "", PLACEMENT_NOTE,
              *caveat_notes(section)]
    lines += ["", "The paper's optimal sizes for this model: " + ", ".join(
        f"{label.split(':')[0]} {fmt_v(section['paper'][k])}" for k, label in APPROACHES) + "."]
    g = section["groups"].get(section["overall"])
    if g is not None:
        lines += ["", "With the sweep's f(V): " + "; ".join(
            f"{m}: {v}" for m, v, _ in headline_rows(section)[3:]) + "."]
    for p in plots:
        lines += ["", f"![{p}]({p})"]
    if section.get("languages"):
        lines += ["", "## Per language: fewest training FLOPs per character", ""]
        rows = []
        for lang, ranked in section["languages"].items():
            if not ranked:
                continue
            clean = [r for r in ranked if not r.get("caveat")]
            if not clean:
                continue
            top = clean[0]
            second = (f"{clean[1]['tokenizer']} ({clean[1]['flops_vs_best_pct']:+.1f}%)"
                      if len(clean) > 1 else "–")
            worst = ranked[-1]
            flagged = ", ".join(_marked(r) for r in ranked if r.get("caveat")) or "–"
            rows.append([lang, top["tokenizer"], f"{top['tokens_per_char']:.4f}", second,
                         f"{_marked(worst)} ({worst['flops_vs_best_pct']:+.1f}%)", flagged])
        lines += _table(["language", "best lossless", "its tokens / char", "next", "last",
                         "not counted"], rows)
    lines += ["", "Assumptions:", ""]
    lines += [f"- {k.replace('_', ' ')}: {v}" for k, v in section["assumptions"].items()]
    lines += ["", f"Source: {section['source']}."]
    return "\n".join(lines) + "\n"


def render_recommend_plots(section: dict[str, Any], out_dir: str | Path) -> list[Path]:
    """``recommend.png``: the optimal-size curves with the measured tokenizers at the model
    size, and their training FLOPs per character against V (with the sweep's curve)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from tokbench.render.figures import place_labels

    fig, (a1, a2) = _figure(9.5, 12, rows=2)  # stacked: legible at page width
    optimal_plot(a1, section)
    n = section["settings"]["model_params"]
    for r in section["tokenizers"]:
        a1.scatter([n], [r["vocab"]], marker="s", color="tab:green", zorder=5, s=26)
    # against the best lossless tokenizer (mark_caveats), like the table
    clean = [r["flops_per_char"] for r in section["tokenizers"] if not r.get("caveat")]
    best = min(clean or [r["flops_per_char"] for r in section["tokenizers"]], default=None)
    xs = [r["vocab"] for r in section["tokenizers"]]
    ys = [(r["flops_per_char"] / best - 1) * 100 for r in section["tokenizers"]] if best else []
    if best:
        for r, x, y in zip(section["tokenizers"], xs, ys, strict=True):
            a2.scatter([x], [y], color="tab:red" if r.get("caveat") else "tab:green",
                       marker="x" if r.get("caveat") else "o", zorder=4)
        curve = section.get("flops_curve")
        if curve:
            a2.plot(curve["v"], [(c / best - 1) * 100 for c in curve["flops_per_char"]],
                    color="tab:red", label="your sweep's f(V), 6 (N_nv + V d) f(V)")
        for (key, label), style in zip(APPROACHES, ("-", "--", "-."), strict=True):
            a2.axvline(section["paper"][key], color="tab:gray", linestyle=style, linewidth=1,
                       label=f"paper's {label.split(':')[0]}")
        a2.set_xscale("log", base=2)
        a2.set_xlabel("vocabulary size V")
        a2.set_ylabel("training FLOPs per character vs the best lossless tokenizer (%)")
        a2.set_title(f"Cost of training N_nv = {n:.3g} on this text, by tokenizer")
        a2.grid(alpha=0.3)
        a2.legend(fontsize=7)
    fig.tight_layout()
    taken = label_models(a1, section)
    place_labels(a1, [(n, r["vocab"], _marked(r)) for r in section["tokenizers"]], taken,
                 fontsize=7, color="tab:green")
    if best:
        place_labels(a2, [(x, y, _marked(r)) for r, x, y in
                          zip(section["tokenizers"], xs, ys, strict=True)], fontsize=8)
    if any(r.get("caveat") for r in section["tokenizers"]):
        fig.text(0.01, 0.003, "x, † not lossless on this text (round-trip below 100%) or "
                 "over 1% of characters unknown: its tokens per character are not a saving",
                 fontsize=7, va="bottom")
    return [_save(fig, out / "recommend.png")]


def _marked(row: dict[str, Any]) -> str:
    """A tokenizer's name with the symbol of its caveat (``xlm-roberta†``)."""
    return str(row["tokenizer"]) + str(row.get("caveat_symbols") or "")
