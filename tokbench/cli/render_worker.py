"""A process that writes a run's plots and ``results.csv`` beside ``tokbench run``.

Started before the run (``RenderWorker.start``) at the lowest priority, it imports
matplotlib and the renderers on a core the run leaves idle (a run on one core never
waits for it; a run's own process pool takes the cores first). After the run it is sent
the results and takes the file jobs (``file_jobs``: the CSV, then each plot, costliest
first) one at a time from a list this process takes from too, once it has built what
only it can (the token viewer): each job is done once, by whichever process is free,
and neither waits for the other but for the last jobs in flight. A job the worker took
and did not finish (it failed, or died) is done here, so a run's files never depend on
the worker; what went wrong is kept in ``failure`` for the CLI to say.

A worker started with ``cache`` keeps the plots drawn by it and by the run's process
between runs (``tokbench.render.plotcache``), and takes each plot kept from the same
inputs as done at once: a run whose values did not change draws only its timings. A
busy run leaves it little of a core, so it first says its drawing stack (matplotlib's
versions, settings and fonts: ``plotcache.drawing_stack``) and the run's process takes
the kept plots itself on it; the renderers are imported and matplotlib's drawing warmed
after, the drawing on a thread while the worker waits for the results.

With a second core and plots too few for the run's process to import matplotlib and
draw too (two or three small ones), the warm worker forks a sibling that takes jobs from
the same list (``_fork``): a fork starts drawing at once. The worker ends when its jobs
are done (its sibling's too), when it is closed, or when the process that started it is
gone; a sibling ends with the worker. Both ignore Ctrl-C (the run's process handles it
and closes them).
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tokbench.atomic import write_atomic
from tokbench.results import Results, as_saved

#: the worker's niceness: it gets a core only when no process of normal priority wants it
NICE = 19
#: seconds the run's process waits for a dead worker's exit code
STOP_WAIT = 2.0
#: seconds the run's process, with nothing else to do, waits for the worker to finish a
#: job before it takes a free one, or, with none free, stops the worker and does the jobs
#: it had in flight (longer than a plot takes on a core of its own)
PATIENCE = 3.0
#: seconds the run's process takes to import matplotlib and the renderers before its
#: first plot (0.6-0.8 s: on the flores4 job, whose 3 plots take the warm worker about
#: 0.7 s, the run's process spent 1.3 s profiled on the one plot it took, 0.8 s of it
#: importing)
IMPORT_S = 0.8

Job = Callable[[], Path | None]


def file_jobs(results: Results, out: Path, plots: bool) -> list[Job]:
    """The files both processes may write, in report order: ``results.csv``, then each
    plot (``plot_jobs``) when ``plots``. Built alike in both from the same results."""
    from tokbench.render.csvfile import write_csv

    jobs: list[Job] = [functools.partial(write_csv, results, out)]
    if plots:
        from tokbench.render.plots import plot_jobs

        jobs += plot_jobs(results, out)
    return jobs


def job_costs(jobs: Sequence[Job]) -> list[float]:
    """``draw_cost`` of each job (results.csv: none, it draws nothing)."""
    from tokbench.render.plots import draw_cost

    return [0.0 if k == 0 else draw_cost(job) for k, job in enumerate(jobs)]


def claim_order(jobs: Sequence[Job]) -> list[int]:
    """The order in which processes take ``jobs`` (``file_jobs``): results.csv first (it
    needs no import), then the plots costliest first (``draw_cost``), so that the last
    jobs in flight are short ones (the default run's longest plot, drawn last, kept the
    other process idle for 1.6 s). The same in both processes: it depends on the jobs
    alone."""
    return _order(job_costs(jobs))


def _order(costs: Sequence[float]) -> list[int]:
    """``claim_order`` from the jobs' ``job_costs``."""
    plots = sorted(range(1, len(costs)), key=lambda k: -costs[k])  # ties: in report order
    return [0, *plots] if costs else []


class Claims:
    """Jobs shared by processes, taken in ``order`` (``claim_order``): each is taken by
    the first process to ``claim`` it (a file created exclusively per job in ``folder``)."""

    def __init__(self, folder: Path, order: Sequence[int]) -> None:
        self.folder, self.order = folder, list(order)

    def claim(self, k: int) -> bool:
        try:
            os.close(os.open(self.folder / f"job{k}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True

    def free(self) -> list[int]:
        """The jobs no process has taken yet, in order."""
        return [k for k in self.order if not (self.folder / f"job{k}").exists()]

    def take(self) -> Iterator[int]:
        """Claim the free jobs in turn, yielding each this process got."""
        for k in self.order:
            if self.claim(k):
                yield k


class RenderWorker:
    """The worker process, seen from the run's process (see the module's docstring)."""

    def __init__(self, process: Any, conn: Any, folder: Path, cache: bool = False) -> None:
        self._process, self._conn, self._folder = process, conn, folder
        self.cache = cache
        self._sent = False
        #: the pids of the processes the worker forked to draw beside it (``SIBLING``)
        self.siblings: list[int] = []
        #: the plots the worker took as done without drawing them: kept in the plot cache
        #: (``cache``)
        self.adopted: list[int] = []
        #: why the worker did not do every job it took, if it did not (for the CLI to say)
        self.failure: str | None = None

    @classmethod
    def start(cls, nice: int = NICE, cache: bool = False) -> RenderWorker | None:
        """A worker importing the renderers now, or None when no process can start;
        ``nice``: its niceness added (0 for a worker as urgent as this process);
        ``cache``: plots are kept between runs (``tokbench.render.plotcache``).
        It is spawned: it imports ``__main__`` again, which a script without an
        ``if __name__ == "__main__"`` guard does not survive (the CLI has one)."""
        import multiprocessing

        folder = Path(tempfile.mkdtemp(prefix="tokbench-render-"))
        ctx = multiprocessing.get_context("spawn")  # no copy of this process's threads
        target = _niceness(nice)
        try:
            conn, theirs = ctx.Pipe()
            process = ctx.Process(target=_serve, args=(theirs, os.getpid(), str(folder),
                                                       target, cache),
                                  daemon=True, name="tokbench-render")
            with _no_interrupt():  # inherited: Ctrl-C is for this process to handle
                process.start()
            # from its first moment, not once it has imported enough to lower its own
            # priority: its start-up would count as another's work (``free_cores``)
            if process.pid is not None:
                _lower_priority(process.pid, target)
            theirs.close()
        except (OSError, RuntimeError, NotImplementedError):
            shutil.rmtree(folder, ignore_errors=True)
            return None
        return cls(process, conn, folder, cache)

    @property
    def pid(self) -> int:
        return int(self._process.pid)

    @property
    def sent(self) -> bool:
        """Whether the worker was given the results (``send``)."""
        return self._sent

    @property
    def folder(self) -> Path:
        """Where the jobs are claimed (``Claims``) and the results handed over."""
        return self._folder

    def send(self, results: Results, out: Path, plots: bool) -> None:
        """Give the worker the run's results and where its files go: it starts on the jobs
        at once, on the values as saved (``as_saved``, which it applies). The results go
        through a file, so this never waits for the worker to read them."""
        data = self._folder / "results.pickle"
        data.write_bytes(pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL))
        try:
            self._conn.send((str(data), str(out), plots))
            self._sent = True
        except OSError as e:  # it is gone already: every job is done here
            self._note(f"the render worker could not be reached ({e})")

    def finish(self, jobs: Sequence[Job]) -> list[Path | None]:
        """Do the jobs of ``jobs`` (``file_jobs`` of what was sent) the worker does not
        take, and collect the ones it does; the files, in the jobs' order.

        This process takes free jobs too when that pays (``_pays_here``), or when the
        worker has finished none for ``PATIENCE`` seconds (it runs at the lowest priority:
        a busy machine may leave it no core); with no job free by then, the worker is
        stopped and its jobs in flight are done here. What a failed or dead worker left
        undone is done here too (a file it left half-written is written again). Told the
        worker's drawing stack (a worker keeping plots says it once warm enough), this
        process takes the kept plots itself (``_take_kept``)."""
        costs = job_costs(jobs)
        claims = Claims(self._folder, _order(costs))
        done: dict[int, Path | None] = {}
        live, patient = self._sent, True
        while len(done) < len(jobs):
            if not live:
                self._stop()  # a dead worker's siblings are dead or dying with it
                undone = [k for k in range(len(jobs)) if k not in done]
                _clear_temporaries(jobs, undone)
                for k in undone:
                    done[k] = jobs[k]()
                break
            free = claims.free()
            if free and (not patient or _pays_here(free, costs, 1 + len(self.siblings))):
                if claims.claim(free[0]):
                    done[free[0]] = made(jobs[free[0]], self.cache and free[0] > 0)
                patient = True
                continue
            msg = self._receive(PATIENCE)
            if msg is None and free:
                patient = False
            elif msg is None:  # its jobs in flight are slower than doing them here
                live = False
            elif msg[0] in ("done", "adopted"):
                done[msg[1]] = None if msg[2] is None else Path(msg[2])
                if msg[0] == "adopted":
                    self.adopted.append(msg[1])
            elif msg[0] == "sibling":
                self.siblings.append(msg[1])
            elif msg[0] == "stack":  # the kept plots can be taken here, as the worker would
                for k, path in _take_kept(claims, jobs, msg[1]):
                    done[k] = path
                    self.adopted.append(k)
            else:
                live = False
        return [done[k] for k in range(len(jobs))]

    def _receive(self, timeout: float) -> tuple[Any, ...] | None:
        """The worker's next message (None after ``timeout`` seconds without one); its
        failure or end is noted and comes as ``("failed",)``."""
        try:
            if not self._conn.poll(timeout):
                return None
            msg: tuple[Any, ...] = self._conn.recv()
        except (EOFError, OSError):
            self._process.join(STOP_WAIT)
            self._note(f"the render worker ended early (exit code {self._process.exitcode})")
            return ("failed",)
        if msg[0] == "failed":
            self._note(f"the render worker failed: {msg[1]}")
        return msg

    def _note(self, why: str) -> None:
        self.failure = self.failure or why

    def close(self) -> None:
        """End the worker (at once if it is still working) and remove its files."""
        with contextlib.suppress(OSError):
            self._conn.close()
        self._stop()
        shutil.rmtree(self._folder, ignore_errors=True)

    def _stop(self) -> None:
        """Kill the worker (its siblings die with it, ``_follow``): they hold nothing a
        kill could spoil (what they had in flight is done again here)."""
        if self._process.is_alive():
            self._process.kill()
            self._process.join()

    def __enter__(self) -> RenderWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def job_file(job: Job) -> Path:
    """The file a job of ``file_jobs`` writes, if it draws anything: results.csv
    (``write_csv(results, out)``) or a plot's ``path`` (``plot_jobs``)."""
    keywords = getattr(job, "keywords", {})
    if "path" in keywords:
        return Path(keywords["path"])
    args: tuple[Any, ...] = getattr(job, "args", ())
    return Path(args[1]) / "results.csv"


def _clear_temporaries(jobs: Sequence[Job], undone: Sequence[int]) -> None:
    """Remove what a killed worker left half-written of the ``undone`` jobs' files (the
    temporary files of ``atomic_open``), before they are written here: the staging
    folder is published whole."""
    import glob

    for k in undone:
        target = job_file(jobs[k])
        for temp in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
            with contextlib.suppress(OSError):
                temp.unlink()


def _pays_here(free: list[int], costs: Sequence[float], drawers: int = 1) -> bool:
    """Whether this process should take the first of the ``free`` jobs: results.csv
    (job 0) costs no import; a plot does, unless matplotlib is here already, and pays only
    when the worker's ``drawers`` (it and its siblings) would take longer over every free
    job (by ``costs``) than this process over the import and that one plot, and a core is
    left for it."""
    import sys

    if free[0] == 0 or "matplotlib.figure" in sys.modules:
        return True
    if drawers >= _cores():
        return False
    return _import_pays(free, costs, drawers)


def _import_pays(free: Sequence[int], costs: Sequence[float], drawers: int = 1) -> bool:
    """Whether importing matplotlib (``IMPORT_S``) to draw the first of the ``free`` plots
    ends sooner than ``drawers`` warm processes drawing all of them (by ``costs``)."""
    return IMPORT_S + costs[free[0]] < sum(costs[k] for k in free) / drawers


def _cores() -> int:
    """The cores this process may run on (``usable_cores``)."""
    from tokbench.engine.cores import usable_cores

    return usable_cores()


@contextlib.contextmanager
def _no_interrupt() -> Iterator[None]:
    """Ctrl-C ignored meanwhile, so that a process started now starts with it ignored
    (the setting is inherited; Python keeps it): no traceback from a worker interrupted
    while it starts. Only the main thread can change it; elsewhere ``_serve`` does."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _niceness(nice: int) -> int | None:
    """This process's niceness plus ``nice`` (at most 19); None where there is none."""
    try:
        return min(19, os.getpriority(os.PRIO_PROCESS, 0) + nice)
    except (OSError, AttributeError):  # AttributeError: not on this platform
        return None


def _lower_priority(pid: int, niceness: int | None) -> None:
    """Give process ``pid`` (0: this one) the ``niceness``, unless it has that or more."""
    if niceness is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        if os.getpriority(os.PRIO_PROCESS, pid) < niceness:
            os.setpriority(os.PRIO_PROCESS, pid, niceness)


def _serve(conn: Any, parent: int, folder: str, niceness: int | None, cache: bool = False
           ) -> None:
    """The worker: warm up, wait for the results, take jobs until none is left."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run's process handles Ctrl-C
    _watch(parent, folder)
    _lower_priority(0, niceness)  # if the process that started it could not
    try:
        drawing = _warm(cache, conn)
        try:
            data, out, plots = conn.recv()
        except EOFError:  # closed before the run's end: nothing to do
            return
        results = as_saved(pickle.loads(Path(data).read_bytes()))
        jobs = file_jobs(results, Path(out), plots)
        claims = Claims(Path(folder), claim_order(jobs))
        if cache:
            _adopt(conn, claims, jobs)
        drawing.join()  # before a fork: a sibling must not inherit an import half done
        sibling = _fork(conn, claims, jobs, cache)
        _draw(conn, claims, jobs, cache)
        if sibling:
            os.waitpid(sibling, 0)  # it ends with this process: let it finish its jobs
    except Exception as e:
        with contextlib.suppress(OSError):
            conn.send(("failed", f"{type(e).__name__}: {e}"))


def made(job: Job, cache: bool) -> Path | None:
    """Do ``job``; with ``cache``, a plot is taken from the plot cache if kept there, else
    drawn and kept (``tokbench.render.plotcache``)."""
    if not cache:
        return job()
    from tokbench.render import plotcache

    return plotcache.draw(job)


def _adopt(conn: Any, claims: Claims, jobs: Sequence[Job]) -> None:
    """Take as done each plot of ``jobs`` kept in the plot cache from the same inputs
    (``tokbench.render.plotcache``): claimed, its file written, said ``adopted``. First,
    so that neither process draws what is kept."""
    for k, target in _take_kept(claims, jobs):
        conn.send(("adopted", k, None if target is None else str(target)))


def _take_kept(claims: Claims, jobs: Sequence[Job], stack: bytes | None = None
               ) -> Iterator[tuple[int, Path | None]]:
    """The free plots of ``jobs`` kept from the same inputs, each claimed and its file
    written: ``(job, file)``. ``stack``: the worker's drawing stack, for the run's process
    (``plotcache.plot_key``); None: this process's own."""
    from tokbench.render import plotcache

    for k in claims.free():
        if k == 0:
            continue
        hit, data = plotcache.lookup(jobs[k], stack)
        if hit and claims.claim(k):
            yield k, None if data is None else write_atomic(job_file(jobs[k]), data)


def _draw(conn: Any, claims: Claims, jobs: Sequence[Job], cache: bool = False) -> None:
    """Take the free jobs in turn, saying each one done (``cache``: see ``made``)."""
    for k in claims.take():
        path = made(jobs[k], cache) if k > 0 else jobs[k]()
        conn.send(("done", k, None if path is None else str(path)))


#: free plot jobs from which the worker forks a sibling (with a second core): two plots
#: drawn at once end sooner than one after the other (the flores4 job's three plots take
#: a warm worker 0.8-1.1 s after the run's end)
SIBLING = 2


def _fork(conn: Any, claims: Claims, jobs: Sequence[Job], cache: bool = False) -> int:
    """Fork a sibling that draws beside this process; its pid (said to the run's
    process), or 0 when none is forked: with ``SIBLING`` plots or more free, a second
    core, and too little to draw for the run's process to import matplotlib and draw too
    (``_import_pays``; with more, the run's process is the second drawer, as the
    Japanese preset's 6 plots were drawn 0.2-0.4 s sooner by it than by a sibling). The
    sibling says its jobs done on the same pipe (each message is one write, whole) and
    ends when its jobs are done or this process is gone (``_follow``)."""
    free = [k for k in claims.free() if k > 0]
    if not hasattr(os, "fork") or _cores() < 2 or len(free) < SIBLING or _import_pays(
            free, job_costs(jobs)):
        return 0
    worker = os.getpid()
    said, go = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no process to spare: this one draws alone
        os.close(said)
        os.close(go)
        return 0
    if pid == 0:  # the sibling: only the forking thread lives on here
        code = 0
        try:
            os.close(go)
            _follow(worker)
            os.read(said, 1)  # the worker has said it forked: every "done" comes after
            _draw(conn, claims, jobs, cache)
        except BaseException as e:
            code = 1
            with contextlib.suppress(BaseException):  # one write, whole: kept short
                conn.send(("failed", f"{type(e).__name__}: {e}"[:1000]))
        finally:
            os._exit(code)  # nothing of the worker's is to be flushed or cleaned here
    os.close(said)
    try:
        conn.send(("sibling", pid))
    finally:
        os.write(go, b"s")
        os.close(go)
    return pid


def _follow(worker: int) -> None:
    """End this sibling when its ``worker`` is gone (the run's process kills a worker it
    no longer waits for): at once where Linux sends a signal on the parent's death, else
    within 0.2 s."""
    import threading
    import time

    with contextlib.suppress(Exception):  # Linux only: prctl(PR_SET_PDEATHSIG, SIGKILL)
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != worker:  # gone before the signal was asked for
        os._exit(1)

    def watch() -> None:
        while os.getppid() == worker:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="tokbench-sibling-watch").start()


def _watch(parent: int, folder: str) -> None:
    """End this process when ``parent`` is gone (``kill -9`` leaves no orphan), removing
    the jobs' ``folder`` it can no longer remove."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="tokbench-parent-watch").start()


class _Warming:
    """The drawing stack warmed on a thread of the worker (``_warm``); ``join`` waits for
    it and raises what it raised."""

    def __init__(self) -> None:
        import threading

        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="tokbench-render-warm")
        self._thread.start()

    def _run(self) -> None:
        try:
            _warm_drawing()
        except BaseException as e:  # said by ``join``, on the worker's own thread
            self.error = e

    def join(self) -> None:
        self._thread.join()
        if self.error is not None:
            raise self.error


def _warm(cache: bool, conn: Any = None) -> _Warming:
    """Import what the jobs use, then draw one small figure (fonts loaded, caches filled)
    on a thread. With ``cache``, what telling a kept plot needs comes first, and the
    worker's ``drawing_stack`` is said on ``conn``: the worker, at the lowest priority,
    may get little of a core while the run works, and the run's process then takes the
    kept plots itself (``RenderWorker.finish``) rather than wait for the worker to import
    the renderers and read the results."""
    if cache:
        from tokbench.render import plotcache

        stack = plotcache.drawing_stack()
        if conn is not None:
            conn.send(("stack", stack))
    from tokbench.render.plots import plot_jobs  # noqa: F401  (the renderers, imported)

    return _Warming()


def _warm_drawing() -> None:
    import io

    from tokbench.render.figures import Figures

    fig, ax = Figures.subplots(figsize=(1, 1))
    ax.text(0.5, 0.5, "0.5")
    fig.savefig(io.BytesIO(), format="png")
