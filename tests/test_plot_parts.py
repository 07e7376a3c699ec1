"""The files of ``tokbench run``'s render worker are the files one process writes, byte for
byte, in report order; the worker ignores Ctrl-C, ends with the run, and its failures are
reported and redone here, never waited for."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests._runs import wait_for
from tokbench.cli import render_worker
from tokbench.cli.output import write_outputs
from tokbench.cli.render_worker import NICE, PATIENCE, RenderWorker
from tokbench.engine.runner import run
from tokbench.metrics import FAMILIES
from tokbench.render.plots import PLOTTED_FAMILIES, plot_jobs
from tokbench.results import Results, as_saved


@pytest.fixture(scope="module")
def few() -> Results:
    """Results with two plots (premium, fairness): too little to draw for the run's
    process to import matplotlib."""
    return run(["bytes", "chars"], ["multilingual?languages=eng_Latn,jpn_Jpan,deu_Latn"],
               ["premium"], ci=None)


@pytest.fixture(scope="module")
def results() -> Results:
    return run(["bytes", "chars"],
               ["multilingual?languages=eng_Latn,jpn_Jpan,deu_Latn", "code", "japanese"],
               ["compression", "premium", "fertility"], ci=None)


def test_plot_jobs_list_every_plot_the_rows_allow(results: Results) -> None:
    names = [job.keywords["path"].name for job in plot_jobs(results, Path("."))]
    assert names[:6] == ["premium_multilingual.png", "fairness_multilingual.png",
                         "bytes_per_token_code.png", "bytes_per_token_japanese.png",
                         "fertility_japanese_multilingual.png", "fertility_japanese_japanese.png"]
    assert names[6:] == []  # the speed plots only with speed rows


def test_without_plotted_families_only_bars_by_domain_are_drawn(results: Results) -> None:
    """``PLOTTED_FAMILIES`` is what the CLI reads to start no render process: the rows of
    every other family draw nothing but compression's bars of a suite by domain."""
    kept = [f for f in FAMILIES if f not in PLOTTED_FAMILIES]
    rows = [r for r in results.rows if r.metric in {m for f in kept for m in FAMILIES[f]}]
    other = Results(rows=rows, meta=results.meta, failures=results.failures)
    names = [job.keywords["path"].name for job in plot_jobs(other, Path("."))]
    assert names == ["bytes_per_token_code.png", "bytes_per_token_japanese.png"]


@pytest.mark.parametrize(("argv", "starts"), [
    (["-m", "compression"], False), (["-m", "compression,roundtrip"], False),
    (["-m", "compression,fertility"], True), ([], True), (["--no-plots"], False),
    (["-j", "1"], False)])
def test_the_cli_starts_a_render_process_only_for_plots(argv: list[str], starts: bool) -> None:
    from tokbench.cli import build_parser
    from tokbench.commands.run import _render_worker, resolve_config

    args = build_parser().parse_args(["run", *argv])
    conf = resolve_config(args)
    with _render_worker(args, conf) as worker:
        assert (worker is not None) is starts


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_plots_are_taken_costliest_first(results: Results) -> None:
    """results.csv first (no import), then the plots by ``draw_cost``, highest first;
    every job once."""
    import functools

    from tokbench.cli.render_worker import claim_order, file_jobs
    from tokbench.render import plots

    bars = functools.partial(plots._grouped_bars, None, {("t", str(i)): 1.0 for i in range(40)})
    many = functools.partial(plots._grouped_bars, None, {("t", str(i)): 1.0 for i in range(49)})
    cells = functools.partial(plots._heatmap, None, {("t", str(i)): 1.0 for i in range(272)})
    assert plots.draw_cost(bars) == pytest.approx(0.25 + 0.025 * 40)
    assert plots.draw_cost(many) == pytest.approx(0.4 + 0.003 * 49)  # drawn as a heatmap
    assert plots.draw_cost(cells) == pytest.approx(0.4 + 0.003 * 272)
    assert plots.draw_cost(functools.partial(plots._fairness, None)) == 0.5
    jobs = file_jobs(as_saved(results), Path("."), plots=True)
    order = claim_order(jobs)
    assert order[0] == 0 and sorted(order) == list(range(len(jobs)))
    costs = [plots.draw_cost(jobs[k]) for k in order[1:]]
    assert costs == sorted(costs, reverse=True) and len(set(costs)) > 1
    assert claim_order([]) == []


def _pixels(path: Path) -> tuple[tuple[int, int], bytes]:
    from PIL import Image

    with Image.open(path) as image:
        return image.size, image.convert("RGB").tobytes()


@pytest.mark.parametrize("rows", [3, 20])  # the colour bar under the grid, and beside it
def test_a_heatmap_laid_out_in_one_pass_is_the_tight_picture(
        rows: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The heatmap's bounds are taken without matplotlib's extra draw; the file is the one
    ``bbox_inches="tight"`` (which draws every text once more first) writes."""
    from matplotlib.figure import Figure

    from tokbench.render import plots
    from tokbench.render.figures import Figures

    toks = ["gpt2", "cl100k_base", "xlm-roberta"]
    langs = [f"lang_{k:02d}" for k in range(rows)]
    values = {(t, r): 0.5 + (i * rows + k) / 7 for i, t in enumerate(toks)
              for k, r in enumerate(langs)}

    def draw(path: Path) -> Path | None:
        return plots._heatmap(Figures, values, toks, langs, "Premium (test)", "ratio", path)

    assert draw(tmp_path / "one.png") == tmp_path / "one.png"
    savefig = Figure.savefig

    def tight(fig: Figure, path: Path, **kw: object) -> None:
        savefig(fig, path, dpi=kw["dpi"], bbox_inches="tight", pad_inches=0.15)

    monkeypatch.setattr(Figure, "savefig", tight)
    draw(tmp_path / "tight.png")
    assert _pixels(tmp_path / "one.png") == _pixels(tmp_path / "tight.png")


def test_bar_labels_left_out_of_the_layout_change_no_pixel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Labels of bars short of the panel's middle skip the layout pass: the picture is
    the one with every label laid out. Here the longest labels (flagged, 9 panels in 3
    columns) pass the panel's edge, so leaving every label out would move the panels."""
    from matplotlib.axes import Axes

    from tokbench.metrics.trust import Caveat
    from tokbench.render import plots
    from tokbench.render.figures import Figures

    toks = ["gpt2", "cl100k_base", "o200k_base", "llama-3"]
    groups = [f"domain{k}" for k in range(9)]
    values = {(t, g): (1.0 + i) * 1.23e5 for i, t in enumerate(toks) for g in groups}
    flags = {key: Caveat(roundtrip=0.5, unk_chars=0.5, failed=3) for key in values}

    def draw(name: str) -> tuple[tuple[int, int], bytes]:
        plots._grouped_bars(Figures, values, toks, groups, "Bytes per token (test)",
                            "bytes / token", tmp_path / name, flags=flags)
        return _pixels(tmp_path / name)

    some = draw("some.png")
    annotate = Axes.annotate

    def laid_out(every: bool) -> Callable[..., object]:
        def call(ax: Axes, *args: object, **kw: object) -> object:
            kw["in_layout"] = every
            return annotate(ax, *args, **kw)  # type: ignore[arg-type]
        return call

    monkeypatch.setattr(Axes, "annotate", laid_out(True))
    assert some == draw("every.png")
    monkeypatch.setattr(Axes, "annotate", laid_out(False))
    assert some != draw("none.png")


@pytest.mark.parametrize(("free", "imported", "drawers", "cores", "pays"), [
    ([0, 1, 2], False, 1, 2, True),    # results.csv needs no import
    ([1, 2, 3], False, 1, 2, True),    # 0.8 s import + 1.2 s < 2.7 s of plots left
    ([2, 3], False, 1, 2, False),      # 0.8 + 1.0 > 1.5: the warm worker is done sooner
    ([3], False, 1, 2, False),         # the last plot: never worth the import
    ([3], True, 1, 2, True),           # matplotlib here already: any free plot
    ([1, 2, 3], False, 2, 2, False),   # the worker and its sibling have both cores
    ([1, 2, 3], False, 1, 1, False),   # one core, the worker's
    ([1, 2, 3], False, 2, 4, False),   # 0.8 + 1.2 > 2.7 / 2: two drawers are done sooner
    ([0, 1, 2], False, 2, 2, True),    # results.csv: no import, no core to wait for
])
def test_this_process_takes_a_plot_only_when_that_ends_sooner(
        monkeypatch: pytest.MonkeyPatch, free: list[int], imported: bool, drawers: int,
        cores: int, pays: bool) -> None:
    if imported:
        monkeypatch.setitem(sys.modules, "matplotlib.figure", sys)
    else:
        monkeypatch.delitem(sys.modules, "matplotlib.figure", raising=False)
    monkeypatch.setattr(render_worker, "_cores", lambda: cores)
    assert render_worker.IMPORT_S == 0.8
    assert render_worker._pays_here(free, [0.0, 1.2, 1.0, 0.5], drawers) is pays


def _taken(worker: RenderWorker) -> int:
    return len(list(worker.folder.glob("job*")))


SIBLINGS = pytest.mark.skipif(render_worker._cores() < 2 or not hasattr(os, "fork"),
                              reason="a sibling is forked only with a second core")


@pytest.mark.parametrize(("which", "siblings", "plots"), [
    # 6 plots: enough for the run's process to draw too, so the worker forks no sibling
    ("results", 0, ["premium_multilingual.png", "fairness_multilingual.png",
                    "bytes_per_token_code.png", "bytes_per_token_japanese.png",
                    "fertility_japanese_multilingual.png", "fertility_japanese_japanese.png"]),
    # 2 plots: the warm worker forks a sibling, and each draws one
    pytest.param("few", 1, ["premium_multilingual.png", "fairness_multilingual.png"],
                 marks=SIBLINGS),
])
def test_the_render_worker_writes_the_files_one_process_writes(
        request: pytest.FixtureRequest, tmp_path: Path, which: str, siblings: int,
        plots: list[str]) -> None:
    results: Results = request.getfixturevalue(which)
    alone = write_outputs(results, tmp_path / "alone", html=False)
    worker = RenderWorker.start(nice=0)  # not starved by a busy machine
    assert worker is not None
    with worker:
        # results.csv and the plots are jobs; the worker takes them all while this
        # process waits (in a run it builds the token viewer meanwhile). It is sent the
        # run's values unrounded, as a run sends them: it renders them as saved
        worker.send(results, tmp_path / "shared", plots=True)
        wait_for(lambda: _taken(worker) == 1 + len(plots))
        shared = write_outputs(results, tmp_path / "shared", html=False, worker=worker)
        assert worker.failure is None
        assert len(worker.siblings) == siblings
        # it ends with its jobs: after it said the last one done (a loaded machine may
        # take a moment to run its exit)
        wait_for(lambda: not any(_alive(pid) for pid in worker.siblings), seconds=10.0)
    assert [p.name for p in shared] == [p.name for p in alone] == [
        "results.json", "results.csv", *plots, "report.md"]
    assert _files(tmp_path / "shared") == _files(tmp_path / "alone")
    assert not worker.folder.exists()


class _Drawn:
    """A render worker's part, played here: ``finish`` does every job and returns what
    each made, except the plots named in ``empty``, which had nothing to draw (None)."""

    def __init__(self, empty: set[str]) -> None:
        self.empty, self.failure = empty, None
        self.sent: list[object] = []

    def send(self, results: Results, out: Path, plots: bool) -> None:
        self.sent.append(results)

    def finish(self, jobs: list[Callable[[], Path | None]]) -> list[Path | None]:
        made = [job() for job in jobs]
        for k, path in enumerate(made):
            if path is not None and path.name in self.empty:
                path.unlink()
                made[k] = None
        return made


def test_reports_drafted_while_plots_are_drawn_are_the_reports_one_process_writes(
        results: Results, tmp_path: Path) -> None:
    """With a worker, report.md and the HTML page are drafted before the plots are done;
    they come out byte for byte as written after them."""
    alone = write_outputs(results, tmp_path / "alone")
    shared = write_outputs(results, tmp_path / "shared", worker=_Drawn(set()))  # type: ignore[arg-type]
    assert [p.name for p in shared] == [p.name for p in alone]
    assert _files(tmp_path / "shared") == _files(tmp_path / "alone")
    assert "premium_multilingual.png" in (tmp_path / "alone" / "report.md").read_text()


def test_a_plot_with_nothing_to_draw_is_left_out_of_drafted_reports(
        results: Results, tmp_path: Path) -> None:
    empty = "premium_multilingual.png"
    files = write_outputs(results, tmp_path, worker=_Drawn({empty}))  # type: ignore[arg-type]
    assert empty not in {p.name for p in files}
    assert "fairness_multilingual.png" in (tmp_path / "report.md").read_text()
    assert empty not in (tmp_path / "report.md").read_text()
    page = (tmp_path / "report.html").read_text()
    assert "fairness_multilingual.png" in page and empty not in page


def _workers_at_work(results: Results, tmp_path: Path) -> Iterator[tuple[Path, RenderWorker]]:
    """Up to 5 workers in turn (not starved by a busy machine), each sent the results to
    draw into a folder of its own, and closed once the caller moves on."""
    for attempt in range(5):
        out = tmp_path / f"shared{attempt}"
        worker = RenderWorker.start(nice=0)
        assert worker is not None
        with worker:
            worker.send(as_saved(results), out, plots=True)
            yield out, worker


def test_jobs_of_a_killed_worker_are_done_here(results: Results, tmp_path: Path) -> None:
    write_outputs(results, tmp_path / "alone", html=False)
    for out, worker in _workers_at_work(results, tmp_path):
        wait_for(lambda w=worker: _taken(w) >= 2)  # two jobs taken
        os.kill(worker.pid, signal.SIGSTOP)
        if not _in_flight(results, worker, out):  # it finished before we looked
            continue
        os.kill(worker.pid, signal.SIGKILL)  # killed with a job taken and not done
        write_outputs(results, out, html=False, worker=worker)
        # write_outputs sends the results again (a run sends once): that finds the
        # pipe closed if the kill took effect first, else the wait finds it dead
        assert worker.failure in ("the render worker ended early (exit code -9)",
                                  "the render worker could not be reached "
                                  "([Errno 32] Broken pipe)")
        assert _files(out) == _files(tmp_path / "alone")
        return
    pytest.fail("the worker finished every job before it could be stopped, 5 times")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(stat.parent.name))
    return kids


@SIBLINGS
def test_a_sibling_dies_with_its_killed_worker_and_its_jobs_are_done_here(
        few: Results, tmp_path: Path) -> None:
    write_outputs(few, tmp_path / "alone", html=False)
    for out, worker in _workers_at_work(few, tmp_path):
        wait_for(lambda w=worker, o=out: bool(_children(w.pid))
                  or (_taken(w) == 3 and not _in_flight(few, w, o)))
        siblings = _children(worker.pid)
        for pid in [worker.pid, *siblings]:
            os.kill(pid, signal.SIGSTOP)
        if not siblings or not _in_flight(few, worker, out):  # done before we looked
            continue
        os.kill(worker.pid, signal.SIGKILL)  # its sibling is killed with it
        wait_for(lambda s=siblings: not any(_alive(pid) for pid in s), seconds=5.0)
        write_outputs(few, out, html=False, worker=worker)
        assert worker.failure is not None
        assert _files(out) == _files(tmp_path / "alone")  # what they left half-written too
        return
    pytest.fail("the worker and its sibling took every job before they could be stopped")


def _in_flight(results: Results, worker: RenderWorker, out: Path) -> bool:
    """Whether the (stopped) worker took a job whose file it has not written: each job
    writes one file, renamed into place when whole."""
    names = ["results.csv", *(job.keywords["path"].name for job in plot_jobs(results, out))]
    return any(not (out / names[int(p.name[3:])]).exists() for p in worker.folder.glob("job*"))


def test_a_failing_job_in_the_worker_is_reported_and_raised(results: Results,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "shared"
    (out / "bytes_per_token_code.png").mkdir(parents=True)  # no file can be written there
    worker = RenderWorker.start(nice=0)  # not starved by a busy machine
    assert worker is not None
    with worker:
        worker.send(as_saved(results), out, plots=True)
        # the worker takes job 3 and stops
        wait_for(lambda: (worker.folder / "job3").exists())
        with pytest.raises(IsADirectoryError):  # done again here: the same error
            write_outputs(results, out, html=False, worker=worker)
        assert worker.failure is not None
        assert worker.failure.startswith("the render worker failed: IsADirectoryError")


def test_the_worker_ignores_ctrl_c_and_ends_with_the_run(tmp_path: Path) -> None:
    script = ("import os, signal, sys, time\n"
              "from tokbench.cli.render_worker import RenderWorker\n"
              "if __name__ == '__main__':\n"
              "    w = RenderWorker.start()\n"
              "    print(w.pid, flush=True)\n"
              "    time.sleep(60)\n")
    (tmp_path / "run.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    run_process = subprocess.Popen([sys.executable, str(tmp_path / "run.py")], env=env,
                                   stdout=subprocess.PIPE, text=True)
    assert run_process.stdout is not None
    pid = int(run_process.stdout.readline())
    # the lowest priority: it takes a core only when nothing else wants it
    lowest = min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICE)
    wait_for(lambda: os.getpriority(os.PRIO_PROCESS, pid) == lowest, seconds=30)
    os.kill(pid, signal.SIGINT)  # what Ctrl-C sends to every process of the terminal
    time.sleep(0.5)
    assert _alive(pid)
    run_process.kill()  # the run's process is gone (kill -9): the worker follows it
    run_process.wait()
    wait_for(lambda: not _alive(pid), seconds=10)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_a_stalled_worker_is_stopped_and_its_jobs_done_here(results: Results,
                                                           tmp_path: Path) -> None:
    write_outputs(results, tmp_path / "alone", html=False)
    worker = RenderWorker.start(nice=0)  # not starved by a busy machine
    assert worker is not None
    with worker:
        worker.send(as_saved(results), tmp_path / "shared", plots=True)
        wait_for(lambda: _taken(worker) >= 2)
        os.kill(worker.pid, signal.SIGSTOP)  # as a busy machine leaves it no core
        t0 = time.monotonic()
        write_outputs(results, tmp_path / "shared", html=False, worker=worker)
        assert time.monotonic() - t0 < PATIENCE + 30  # waited once, not for the worker
        assert worker.failure is None  # a slow worker is no failure
        assert not _alive(worker.pid)
    assert _files(tmp_path / "shared") == _files(tmp_path / "alone")
