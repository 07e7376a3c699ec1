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
