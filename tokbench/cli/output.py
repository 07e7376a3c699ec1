"""Writing a run's files: results.json (checkpointed), results.csv, report.md, plots, HTML."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.atomic import write_atomic
from tokbench.results import Results, Row

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from tokbench.adapters.base import Tokenizer


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


#: plots (of any run but ``--jobs 1``) from which half are drawn by a worker process: it
#: costs about a second to start (tokbench, matplotlib and pandas imported again), which a
#: few small plots do not pay back (FLORES, four languages: 3 plots, 10% slower with it)
MIN_PLOTS_FOR_WORKER = 6


def write_outputs(results: Results, out_dir: str | Path, plots: bool = True,
                  html: bool = True, background: bool = False,
                  tokenizers: Mapping[str, Any] | None = None,
                  suites: Mapping[str, Any] | None = None) -> list[Path]:
    """Every file of a finished run; returns their paths.

    With ``background``, ``results.csv`` and half the plots are made in a worker process
    while this one builds the token viewer (``viewer.json``, from ``tokenizers`` and
    ``suites``, the run's own loaded objects by name, or by loading the run's files again)
    and draws the other half: two independent halves of similar cost. ``background`` is for
    the command line: a spawned worker imports ``__main__`` again, which a script without
    an ``if __name__ == "__main__"`` guard does not survive. Without it (``--jobs 1``), with
    fewer than ``MIN_PLOTS_FOR_WORKER`` plots, or when no worker can start, everything is
    done in this process.
    """
    from tokbench.render.markdown import render_markdown
    from tokbench.render.plots import draw_plots, plot_jobs, plot_order

    out = Path(out_dir)
    text = results.to_json()
    files = [atomic_write_text(out / "results.json", text)]
    # everything else renders from the values as saved (rounded), as `tokbench report`
    # does later from the file: both show the same digits
    results = as_saved(results)
    jobs = plot_jobs(results, out) if plots else []
    # a worker takes about a second to start: only many plots pay it
    background = background and len(jobs) >= MIN_PLOTS_FOR_WORKER
    parts = 2 if background else 1
    # the worker draws part 0 of 2 from its own jobs (they are not sent to it); without a
    # worker this process draws them all
    with _Call(_plots_and_csv, results, out, background, parts, background=background) as call:
        viewer = _viewer(results, out, tokenizers, suites) if html else None
        mine = draw_plots(jobs, part=parts - 1, parts=parts)
        csv, theirs = call.result()
        pngs = plot_order(jobs, [*theirs, *mine])
        md = write_atomic(out / "report.md", render_markdown(results, [p.name for p in pngs]))
        files += [csv, *pngs, md]
        if html:
            from tokbench.render.html import write_html

            files.append(write_html(results, out, [p.name for p in pngs], viewer))
    return files


def _plots_and_csv(results: Results, out: Path, plots: bool, parts: int
                   ) -> tuple[Path, list[Path]]:
    """``results.csv``, and the first of ``parts`` shares of the plots if ``plots``."""
    csv = write_atomic(out / "results.csv", _csv(results))
    if not plots:
        return csv, []
    from tokbench.render.plots import render_plots

    return csv, render_plots(results, out, part=0, parts=parts)


def _viewer(results: Results, out: Path, tokenizers: Mapping[str, Any] | None,
            suites: Mapping[str, Any] | None) -> dict[str, Any]:
    """``viewer.json``'s data, reusing the run's loaded ``tokenizers`` (and the parts of
    the data built by the other process of a split run, ``ViewerPart``) and ``suites``
    where given."""
    from tokbench.engine.viewer import ViewerPart, viewer_for

    if not tokenizers and not suites:
        return viewer_for(results, out)
    from tokbench.loading.loader import load_tokenizer

    given = tokenizers or {}
    parts = {n: v for n, v in given.items() if isinstance(v, ViewerPart)}
    have = {n: v for n, v in given.items() if n not in parts}

    def load(spec: str) -> Tokenizer:
        return have[spec] if spec in have else load_tokenizer(spec)

    return viewer_for(results, out, load_tokenizer=load, suites=suites, parts=parts)


class _Call:
    """``fn(*args)``, started now in a worker process when ``background``; ``result()``
    waits for it. Without a worker (not asked for, none can start, or it died) the call
    is made in this process when its result is asked for. The worker is spawned, so it
    inherits none of this process's state."""

    def __init__(self, fn: Callable[..., Any], *args: Any, background: bool) -> None:
        self._fn, self._args = fn, args
        self._pool: ProcessPoolExecutor | None = None
        self._future: Future[Any] | None = None
        if background:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            try:
                self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
                self._future = self._pool.submit(fn, *args)
            except (OSError, RuntimeError, NotImplementedError):  # no process can start here
                self.close()

    def result(self) -> Any:
        if self._future is not None:
            from concurrent.futures.process import BrokenProcessPool

            try:
                return self._future.result()
            except BrokenProcessPool:  # the worker was killed (out of memory?): redo it here
                self.close()
        return self._fn(*self._args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool, self._future = None, None

    def __enter__(self) -> _Call:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _csv(results: Results) -> str:
    """``results.csv``: one line per row; names a spreadsheet would run as formulas quoted."""
    import pandas as pd

    from tokbench.render.visible import spreadsheet_text

    frame = results.to_frame()
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].map(spreadsheet_text).astype(object)
    return str(frame.to_csv(index=False))
