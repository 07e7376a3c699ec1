"""A metric's history across runs, as a PNG trend line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokbench.ci.history import Point


def plot_trend(points: Sequence[Point], path: str | Path, title: str, ylabel: str = "") -> Path:
    """A line of the series by run (x labelled with short commits) saved as PNG."""
    from tokbench.render.figures import Figures as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    xs = list(range(len(points)))
    ys = [p.value if isinstance(p.value, (int, float)) else float("nan") for p in points]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.45 * len(points) + 3), 4), dpi=110)
    try:
        ax.plot(xs, ys, marker="o", linewidth=1.5)
        for x, p in zip(xs, points, strict=True):
            if p.notes:  # an input changed: values before and after are not the same quantity
                ax.axvline(x - 0.5, color="grey", linestyle=":", linewidth=1)
                ax.annotate(", ".join(p.notes), (x - 0.5, 1.0), xycoords=("data", "axes fraction"),
                            rotation=90, va="top", ha="right", fontsize=7, color="grey")
        ax.set_xticks(xs)
        ax.set_xticklabels([(p.commit or "?")[:8] for p in points], rotation=45, ha="right",
                           fontsize=8)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.set_xlabel("commit (oldest first)")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path
