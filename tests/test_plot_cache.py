"""Plots kept between runs (``tokbench.render.plotcache``): a picture comes back only for
the same inputs, code and drawing stack, byte for byte what drawing it again makes."""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path
from typing import Any

import matplotlib
import pytest

from tests._runs import wait_for
from tokbench.cli.output import write_outputs
from tokbench.cli.render_worker import RenderWorker, file_jobs, job_file
from tokbench.engine.runner import run
from tokbench.metrics.trust import Caveat
from tokbench.render import plotcache
from tokbench.render.plots import plot_jobs, timed
from tokbench.results import Results, as_saved


@pytest.fixture(scope="module")
def results() -> Results:
    return as_saved(run(["bytes", "chars"],
                        ["multilingual?languages=eng_Latn,jpn_Jpan,deu_Latn", "code"],
                        ["compression", "premium", "throughput"], ci=None,
                        throughput_repeats=1))


def _jobs(results: Results, out: Path) -> dict[str, Any]:
    if out.is_absolute():  # drawn there
        out.mkdir(parents=True, exist_ok=True)
    return {job_file(j).name: j for j in plot_jobs(results, out)}


def _entries(cache: Path) -> list[Path]:
    return sorted((cache / "plots").glob("*.png"))


def _changed(results: Results, metric: str, delta: float) -> Results:
    """``results`` with the first row of ``metric`` moved by ``delta``."""
    first = next(r for r in results.rows if r.metric == metric)
    return Results(rows=[dataclasses.replace(r, value=float(r.value) + delta) if r is first
                         else r for r in results.rows], meta=results.meta,
                   failures=results.failures)


def test_a_kept_plot_is_the_picture_drawn_again(results: Results, cache: Path,
                                                tmp_path: Path) -> None:
    name = "premium_multilingual.png"
    job = _jobs(results, tmp_path / "a")[name]
    assert plotcache.lookup(job) == (False, None)
    made = job()
    plotcache.keep(job, made)
    again = _jobs(results, tmp_path / "b")[name]  # the same inputs, another folder
    hit, data = plotcache.lookup(again)
    assert hit and data == made.read_bytes() == again().read_bytes()
    assert len(_entries(cache)) == 1


def test_the_key_follows_every_input_and_the_drawing_settings(results: Results,
                                                                cache: Path) -> None:
    jobs = _jobs(results, Path("a"))
    key = plotcache.plot_key(jobs["premium_multilingual.png"])
    assert key is not None
    assert plotcache.plot_key(_jobs(results, Path("b"))["premium_multilingual.png"]) == key
    moved = _jobs(_changed(results, "premium", 0.01), Path("a"))
    assert plotcache.plot_key(moved["premium_multilingual.png"]) != key
    # the fairness bars do not hold the premium of one language: their key stays
    assert plotcache.plot_key(moved["fairness_multilingual.png"]) == plotcache.plot_key(
        jobs["fairness_multilingual.png"])
    job = jobs["premium_multilingual.png"]
    flagged = functools.partial(job.func, *job.args, **{**job.keywords, "flags": {
        ("chars", "jpn_Jpan"): Caveat(roundtrip=0.5)}})
    assert plotcache.plot_key(flagged) != key
    with matplotlib.rc_context({"font.size": 11}):  # a style of the user's
        assert plotcache.plot_key(job) != key
    assert plotcache.plot_key(job) == key
    assert plotcache.plot_key(functools.partial(job.func, *job.args, lambda: 0,
                                                **job.keywords)) is None  # not picklable


def test_the_key_follows_the_code_that_draws(results: Results, cache: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    job = _jobs(results, Path("a"))["premium_multilingual.png"]
    key = plotcache.plot_key(job)
    plotcache._code.cache_clear()
    sha = plotcache.module_sha256
    monkeypatch.setattr(plotcache, "module_sha256", lambda m: "0" * 64
                        if m == "tokbench.metrics.trust" else sha(m))
    try:
        assert plotcache.plot_key(job) not in (key, None)
        monkeypatch.setattr(plotcache, "module_sha256", lambda m: None)
        plotcache._code.cache_clear()
        assert plotcache.plot_key(job) is None  # code without a source: never kept
    finally:
        plotcache._code.cache_clear()


@pytest.mark.parametrize("damage", [
    lambda b: b[: len(b) // 2],  # torn
    lambda b: b"not a png",
    lambda b: b"\x89PNG\r\n\x1a\n",  # a header alone
])
def test_a_damaged_entry_is_drawn_again_and_kept_whole(results: Results, cache: Path,
                                                       tmp_path: Path, damage: Any) -> None:
    job = _jobs(results, tmp_path)["bytes_per_token_code.png"]
    made = job()
    good = made.read_bytes()
    plotcache.keep(job, made)
    entry = _entries(cache)[0]
    entry.write_bytes(damage(good))
    assert plotcache.lookup(job) == (False, None)
    plotcache.keep(job, job())
    assert plotcache.lookup(job) == (True, good)


def test_a_plot_with_nothing_to_draw_is_kept_as_nothing(results: Results, cache: Path,
                                                        tmp_path: Path) -> None:
    job = _jobs(results, tmp_path)["premium_multilingual.png"]
    empty = functools.partial(job.func, job.args[0], {}, *job.args[2:], **job.keywords)
    assert empty() is None
    plotcache.keep(empty, None)
    assert plotcache.lookup(empty) == (True, None)


def test_timings_are_never_kept(results: Results, cache: Path, tmp_path: Path) -> None:
    job = _jobs(results, tmp_path)["throughput.png"]
    assert timed(job) and not timed(_jobs(results, tmp_path)["premium_multilingual.png"])
    assert plotcache.plot_key(job) is None
    plotcache.keep(job, job())
    assert _entries(cache) == []


def test_the_least_recently_used_entries_go_beyond_the_limit(
        results: Results, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    monkeypatch.setattr(plotcache, "MAX_ENTRIES", 2)
    jobs = [j for j in _jobs(results, tmp_path).values() if not timed(j)]
    assert len(jobs) == 3
    for age, job in enumerate(jobs[:2]):
        plotcache.keep(job, job())
        entry = cache / "plots" / f"{plotcache.plot_key(job)}.png"
        os.utime(entry, ns=(age * 10**9, age * 10**9))  # the first is the oldest
    assert plotcache.lookup(jobs[0])[0]  # used now: the second is the oldest
    plotcache.keep(jobs[2], jobs[2]())
    assert [plotcache.lookup(j)[0] for j in jobs] == [True, False, True]


def test_without_matplotlib_nothing_is_kept(results: Results, cache: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's process keeps what it drew; one that drew nothing does not import
    matplotlib to key it."""
    job = _jobs(results, tmp_path)["premium_multilingual.png"]
    made = job()
    import sys

    monkeypatch.delitem(sys.modules, "matplotlib")
    plotcache.keep(job, made)
    assert _entries(cache) == []


def test_a_worker_with_the_cache_draws_only_what_changed(results: Results, cache: Path,
                                                         tmp_path: Path) -> None:
    """The command line's worker keeps the plots; the next run with the same values takes
    them all but the timings' from the cache, the files byte for byte one process's."""
    alone = write_outputs(results, tmp_path / "alone", html=False)
    kept = ["bytes_per_token_code.png", "fairness_multilingual.png", "premium_multilingual.png"]
    runs = [(results, []), (results, kept),
            # one premium moved: its heatmap is drawn again, the fairness bars are not
            (_changed(results, "premium", 0.01), kept[:2])]
    for attempt, (values, expected) in enumerate(runs):
        out = tmp_path / f"run{attempt}"
        worker = RenderWorker.start(nice=0, cache=True)
        assert worker is not None
        with worker:
            worker.send(values, out, plots=True)
            # the worker takes the kept ones first, as soon as it reads the results (in a
            # run, this process builds the token viewer meanwhile)
            folder, n = worker.folder, len(expected)
            wait_for(lambda: len(list(folder.glob("job*"))) >= n)  # noqa: B023
            written = write_outputs(values, out, html=False, worker=worker)
            assert worker.failure is None
        jobs = file_jobs(values, out, True)
        assert sorted(job_file(jobs[k]).name for k in worker.adopted) == expected
        assert [p.name for p in written] == [p.name for p in alone]
        if attempt < 2:
            for p in written:
                if p.name not in ("results.json", "results.csv", "throughput.png"):
                    assert p.read_bytes() == (tmp_path / "alone" / p.name).read_bytes()
        assert len(_entries(cache)) == (3 if attempt < 2 else 4)  # never the throughput


def test_the_worker_keeps_nothing_unless_asked(results: Results, cache: Path,
                                               tmp_path: Path) -> None:
    worker = RenderWorker.start(nice=0)
    assert worker is not None and not worker.cache
    with worker:
        worker.send(results, tmp_path, plots=True)
        write_outputs(results, tmp_path, html=False, worker=worker)
    assert _entries(cache) == []


def test_one_process_takes_and_keeps_the_plots_too(results: Results, cache: Path,
                                                   tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``--jobs 1`` (no worker): the run's process uses the same cache."""
    first = write_outputs(results, tmp_path / "a", html=False, plot_cache=True)
    assert len(_entries(cache)) == 3
    drawn: list[str] = []
    write = plotcache._write  # called with each plot drawn (a kept one is copied)
    monkeypatch.setattr(plotcache, "_write", lambda entry, made: (
        drawn.append(made.name), write(entry, made)))
    second = write_outputs(results, tmp_path / "b", html=False, plot_cache=True)
    assert drawn == ["throughput.png"]  # the only one drawn again
    assert [p.name for p in first] == [p.name for p in second]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, second, strict=True))


def test_a_worker_looks_plots_up_before_its_drawing_stack_is_warm(
        results: Results, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's warm-up returns once a plot can be looked up; the drawing stack warms
    on a thread meanwhile, and what that raised is raised when the worker needs it."""
    import threading

    from tokbench.cli import render_worker

    name = "premium_multilingual.png"
    job = _jobs(results, tmp_path / "a")[name]
    plotcache.keep(job, job())
    release, warm = threading.Event(), threading.Event()

    def drawing() -> None:
        release.wait(5)
        warm.set()

    monkeypatch.setattr(render_worker, "_warm_drawing", drawing)
    warming = render_worker._warm(cache=True)
    hit, data = plotcache.lookup(_jobs(results, tmp_path / "b")[name])
    assert hit and data == (tmp_path / "a" / name).read_bytes()
    assert not warm.is_set()  # looked up while the drawing stack was still warming
    release.set()
    warming.join()
    assert warm.is_set()

    def broken() -> None:
        raise OSError("no fonts")

    monkeypatch.setattr(render_worker, "_warm_drawing", broken)
    with pytest.raises(OSError, match="no fonts"):
        render_worker._warm(cache=False).join()


def test_the_runs_process_takes_kept_plots_on_the_workers_stack(
        results: Results, cache: Path, tmp_path: Path) -> None:
    """Told the worker's drawing stack, the run's process takes each kept plot itself,
    claimed (never one the worker took), written byte for byte; a picture kept under
    another drawing stack is not taken."""
    from tokbench.cli.render_worker import Claims, _take_kept

    out = tmp_path / "out"
    jobs = file_jobs(results, out, True)
    names = [job_file(j).name for j in jobs]
    premium, code = names.index("premium_multilingual.png"), names.index(
        "bytes_per_token_code.png")
    drawn = tmp_path / "drawn"
    for k in (premium, code):
        job = _jobs(results, drawn)[names[k]]
        plotcache.keep(job, job())
    (tmp_path / "claims").mkdir()
    claims = Claims(tmp_path / "claims", range(len(jobs)))
    assert claims.claim(code)  # the worker took this one first
    assert list(_take_kept(claims, jobs, b"another stack")) == []
    taken = list(_take_kept(claims, jobs, plotcache.drawing_stack()))
    assert taken == [(premium, out / names[premium])]
    assert (out / names[premium]).read_bytes() == (drawn / names[premium]).read_bytes()
    assert not claims.claim(premium)
