"""Writing a run's files: results.json (checkpointed), results.csv, report.md, plots, HTML."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tokbench.atomic import write_atomic
from tokbench.results import Results, Row


def atomic_write_text(target: str | Path, text: str) -> Path:
    """Write ``text`` atomically (``tokbench.atomic.write_atomic``: 0644, no temporary file
    left behind on failure)."""
    return write_atomic(target, text)


def write_results_atomic(results: Results, out_dir: str | Path) -> Path:
    """Write ``results.json`` atomically (see ``atomic_write_text``)."""
    return atomic_write_text(Path(out_dir) / "results.json", results.to_json())


class Checkpoint:
    """Keeps ``results.json`` of a run in progress on disk without rewriting it per unit.

    Called after every finished unit; writes at most every ``interval`` seconds, and
    never sooner than the last write's duration over ``share`` (so a long run whose
    results take a while to serialize spends at most that share of its time on them).
    ``flush()`` writes the latest state now (on an interruption).
    """

    def __init__(self, out_dir: str | Path, interval: float = 2.0, share: float = 0.05,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.out_dir = Path(out_dir)
        self.interval = interval
        self.share = share
        self.clock = clock
        self._latest: Results | None = None
        self._next = float("-inf")

    def __call__(self, results: Results) -> None:
        self._latest = results
        if self.clock() >= self._next:
            self.flush()

    def flush(self) -> None:
        if self._latest is not None:
            t0 = self.clock()
            write_results_atomic(self._latest, self.out_dir)
            took = self.clock() - t0
            self._next = t0 + max(self.interval, took / self.share)


def as_saved(results: Results) -> Results:
    """``results`` with every row as ``results.json`` holds it (rounded): what every view
    renders, so the run's reports, its terminal summary and `tokbench report` agree."""
    return Results(rows=[Row.from_dict(r.to_dict()) for r in results.rows],
                   meta=results.meta, failures=results.failures)


def write_outputs(results: Results, out_dir: str | Path, plots: bool = True,
                  html: bool = True) -> list[Path]:
    """Every file of a finished run; returns their paths."""
    from tokbench.render.markdown import render_markdown

    out = Path(out_dir)
    text = results.to_json()
    files = [atomic_write_text(out / "results.json", text)]
    # everything else renders from the values as saved (rounded), as `tokbench report`
    # does later from the file: both show the same digits
    results = as_saved(results)
    files.append(write_atomic(out / "results.csv", _csv(results)))
    pngs: list[Path] = []
    if plots:
        from tokbench.render.plots import render_plots

        pngs = render_plots(results, out)
        files += pngs
    files.append(write_atomic(out / "report.md", render_markdown(results, [p.name for p in pngs])))
    if html:
        from tokbench.engine.viewer import viewer_for
        from tokbench.render.html import write_html

        viewer = viewer_for(results, out)
        files.append(write_html(results, out, [p.name for p in pngs], viewer))
    return files


def _csv(results: Results) -> str:
    """``results.csv``: one line per row; names a spreadsheet would run as formulas quoted."""
    import pandas as pd

    from tokbench.render.visible import spreadsheet_text

    frame = results.to_frame()
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].map(spreadsheet_text).astype(object)
    return str(frame.to_csv(index=False))
