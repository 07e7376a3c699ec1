"""Figures without pyplot: no backend is chosen and no global figure list is touched.

Library code must not switch a notebook user's matplotlib backend (``matplotlib.use``)
or leave figures in pyplot's registry; a ``matplotlib.figure.Figure`` renders to PNG on
its own. The CLI is what chooses a backend (``MPLBACKEND=Agg`` in ``tokbench.cli``).
"""

from __future__ import annotations

import re
from typing import Any


class Figures:
    """The two pyplot calls the renderers use, on standalone figures."""

    @staticmethod
    def subplots(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None,
                 dpi: float | None = None, **kwargs: Any) -> tuple[Any, Any]:
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize, dpi=dpi)
        return fig, fig.subplots(nrows, ncols, **kwargs)

    @staticmethod
    def close(fig: Any) -> None:
        """Nothing to release: the figure is not registered anywhere."""


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_filename(text: str) -> str:
    """A file name part made from user text (a suite or tokenizer name).

    Only ``A-Z a-z 0-9 . _ -`` are kept, so ``/``, ``:``, ``\\`` and friends can neither
    make a path nor break on Windows; when anything was replaced, a short hash of the
    original keeps two different names apart (``a/b`` and ``a:b``).
    """
    import hashlib

    cleaned = _UNSAFE.sub("_", text).strip("._") or "_"
    if cleaned == text:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned[:80]}-{digest}"


#: where a point's label may go, tried in order: (dx, dy) in points, alignment
_OFFSETS = ((4, 3, "left", "bottom"), (4, -3, "left", "top"), (-4, 3, "right", "bottom"),
            (-4, -3, "right", "top"), (4, 11, "left", "bottom"), (4, -11, "left", "top"),
            (-4, 11, "right", "bottom"), (-4, -11, "right", "top"))


def place_labels(ax: Any, points: list[tuple[float, float, str]], taken: list[Any] | None = None,
                 **style: Any) -> list[Any]:
    """Label each (x, y, text) point beside it where the label overlaps no label placed
    before it (nor leaves the axes), trying a few offsets; call after the layout is final.
    ``taken``: boxes of labels placed by an earlier call, to avoid too (returned, grown).
    The figure gets an Agg canvas to measure text (nothing global changes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = ax.figure
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    taken = [] if taken is None else taken
    for x, y, text in sorted(points, key=lambda p: (p[0], p[1])):
        chosen = None
        for dx, dy, ha, va in _OFFSETS:
            ann = ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy),
                              ha=ha, va=va, **style)
            box = ann.get_window_extent(renderer)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 \
                and box.y1 <= frame.y1
            if inside and not any(box.overlaps(b) for b in taken):
                chosen = box
                break
            ann.remove()
        if chosen is None:  # nowhere free: the first place, overlapping
            dx, dy, ha, va = _OFFSETS[0]
            chosen = ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy),
                                 ha=ha, va=va, **style).get_window_extent(renderer)
        taken.append(chosen)
    return taken
