"""Writing a run's files: results.json (checkpointed), results.csv, report.md, plots, HTML."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.atomic import write_atomic
from tokbench.results import Results, as_saved

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.cli.render_worker import RenderWorker


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


def write_outputs(results: Results, out_dir: str | Path, plots: bool = True,
                  html: bool = True, worker: RenderWorker | None = None,
                  tokenizers: Mapping[str, Any] | None = None,
                  suites: Mapping[str, Any] | None = None,
                  saved: Results | None = None, plot_cache: bool = False) -> list[Path]:
    """Every file of a finished run; returns their paths (``saved``: ``as_saved(results)``
    when the caller has it already).

    ``results.csv`` and the plots are file jobs (``file_jobs``) shared with ``worker``
    when given (the command line starts it before the run, ``RenderWorker``): it is sent
    the results at once and starts on them while this process builds the token viewer
    (``viewer.json``, from ``tokenizers`` and ``suites``, the run's own loaded objects by
    name, or by loading the run's files again), then takes the jobs it has not taken.
    Without a worker (``--jobs 1``) everything is done in this process, in order, the
    plots taken from the plot cache and kept there with ``plot_cache`` (a worker keeps
    them if it was started with ``cache``).
    """
    from tokbench.cli.render_worker import file_jobs, job_file, made
    from tokbench.render.markdown import render_markdown

    out = Path(out_dir)
    if worker is not None and not worker.sent:  # first: it draws while the rest is written
        worker.send(results, out, plots)
    files = [atomic_write_text(out / "results.json", results.to_json())]
    # everything else renders from the values as saved (rounded), as `tokbench report`
    # does later from the file: both show the same digits
    results = saved if saved is not None else as_saved(results)
    viewer = _viewer(results, out, tokenizers, suites) if html else None
    jobs = file_jobs(results, out, plots)
    draft, expected = None, []
    if worker is not None:  # while the worker draws: what needs no plot drawn
        expected = [job_file(job).name for job in jobs[1:]]
        md = write_atomic(out / "report.md", render_markdown(results, expected))
        if html:
            from tokbench.render.html import html_draft

            draft = html_draft(results, viewer)
    done = worker.finish(jobs) if worker is not None else [
        made(job, plot_cache and k > 0) for k, job in enumerate(jobs)]
    csv, *pngs = done
    assert csv is not None
    names = [p.name for p in pngs if p is not None]
    if worker is None or names != expected:  # a plot with nothing to draw is not linked
        md = write_atomic(out / "report.md", render_markdown(results, names))
    files += [csv, *(p for p in pngs if p is not None), md]
    if html:
        from tokbench.render.html import write_html

        files.append(write_html(results, out, names, viewer, draft))
    return files


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
