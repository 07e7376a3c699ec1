"""A run split by tokenizer: another process measures some of the run's tokenizers while
this one measures the others, and the two results merge into what one process makes.

For the default ``jobs`` on a small corpus a pool sharding documents does not pay (every
worker loads every tokenizer for little text), so one core would idle. Splitting by
tokenizer loads each tokenizer once: the other process is forked once the suites are read
and the split chosen (on Linux; elsewhere it is spawned at the run's start, so that its
interpreter and imports overlap this process's reading and loading), and does everything
per tokenizer for its group (load, encode, measure, throughput timing, vocabulary facts).
Every row is one tokenizer's, so the results merge step by step (``Mark``: the steps a run
goes through in one order) into the rows, failures and errors of one process, in the same
order; the confidence intervals, which compare tokenizers on the same units, are taken at
the merge from both processes' units (``tokbench.engine.work.UnitTable``).

This module holds the choice (``choose``, ``balance``), the merge and the pipe to the
other process; ``tokbench.engine.runner`` runs the two halves.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tokbench.errors import InputError
from tokbench.events import (
    Event,
    PhaseStarted,
    Progress,
    RunDone,
    RunStarted,
)
from tokbench.record import Failure, RunError, RunMeta
from tokbench.results import Results, Row

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from tokbench.engine.work import UnitTable

#: text bytes times tokenizers up to which a run may be split: below it a pool of
#: document shards never pays back every worker's loading of every tokenizer (the
#: default run is 6.4 MB), and the units the merge keeps for the intervals stay small
SPLIT_MAX_BYTES = 16 * 1024 * 1024
#: the cost of one tokenizer in a run (seconds): a fixed part by adapter plus a part per MB
#: of its file. Measured on the built-in suites (0.8 MB of text, every default family),
#: each default tokenizer run alone with ``--jobs 1``, less 0.42 s (word segmentation, which
#: each process does once, and the intervals, ``MERGE_COST``): tiktoken 1.29 s (gpt2, 0.84 MB),
#: 1.38 (cl100k_base, 1.68 MB), 1.52 (llama-3, 2.18 MB), 1.83 (o200k_base, 3.61 MB);
#: GGUF 1.72 (llama-2, 0.72 MB); sentencepiece 1.27 (mistral-v1, 0.49 MB); HF
#: tokenizer.json (``tokenizers``) 5.00 (qwen3, 11.4 MB) and 7.40 (xlm-roberta, 17.1 MB):
#: parsing, encoding and timing all grow with the file
BASE_COST = 1.1
BASE_COSTS = {"gguf": 1.55, "sentencepiece": 1.2, "tokenizers": 1.0, "transformers": 1.0}
COST_PER_MB = 0.2
COSTS_PER_MB = {"tokenizers": 0.37, "transformers": 0.37}
#: seconds per tokenizer and MB of text of the opt-in families that measure every text
#: again whatever the tokenizer's file (none is in the default run, on which the costs
#: above were measured). Measured with ``--jobs 1`` on the Japanese preset's suites
#: (0.19 MB), one tokenizer at a time (gpt2, xlm-roberta, mbert; twice each), each family
#: alone against none of them, less its word segmentation (once per process, not per
#: tokenizer): robustness 3.2-3.6 s per tokenizer (every text again in each variant that
#: applies), morph and morph_sudachi -0.1-0.3 s (taken as 0.1). The Japanese preset then
#: splits xlm-roberta and one more against the other three, not xlm-roberta alone
#: against the other four (5.8 s against 11.6 s)
FAMILY_COSTS_PER_MB = {"morph": 0.5, "morph_sudachi": 0.5, "robustness": 18.0}
#: seconds per tokenizer of a split run's work only this process does: the confidence
#: intervals of both halves, taken at the merge (default run: 0.76 s for 8 tokenizers).
#: The other process has no such handicap at its start: it is spawned before anything is
#: loaded, and its start overlaps this process's (both began loading within 0.06 s)
MERGE_COST = 0.1
#: the least a split must save by the estimates (seconds): below it the second process's
#: own costs (its start, the merge, word segmentation done twice) eat the gain (FLORES
#: devtest in 4 languages with cl100k_base and xlm-roberta: 1.64 s estimated; split, its
#: run took 3.54-4.02 s against 3.21-3.78 s in one process, 4 alternated pairs)
MIN_SAVED_S = 2.0
#: the same where the other process is forked once the split is chosen (``fork_other``):
#: it pays no interpreter, imports or reading of the suites, and when this process
#: measures one costly tokenizer it forks a shard helper once the other group is done
#: (the same job, 1.44 s saved by the estimates: split, 4.26-4.69 s against 4.52-5.01 s
#: not split, with a helper; 6 alternated runs each, median 4.37 s against 4.79 s)
MIN_FORKED_SAVED_S = 1.0

SPLIT = "split"
SERIAL = "serial"
AUTO = "auto"
#: free cores from which a second process runs beside this one (split or shard helper)
SECOND_CORE = 1.5


def choose(*, tokenizers: int, free_cores: float, work_bytes: int, splittable: bool,
           saved_s: float = float("inf"), forked: bool = False) -> str:
    """How a default-``jobs`` run works: ``"split"`` by tokenizer over two processes,
    ``"serial"`` in this process, or ``"auto"`` (``AutoExecutor``: a pool of document
    shards if the first shard's speed says it pays, else this process).

    ``free_cores``: the cores other processes leave free (``executors.free_cores``);
    ``work_bytes``: the text times the tokenizers; ``splittable``: nothing in the run
    keeps it in one process (a resumed run, one read to a precision, tokenizers that
    cannot be sent, a family comparing tokenizers); ``saved_s``: the seconds the split
    saves by the estimates (``saving``; unknown before the suites are loaded); ``forked``:
    the other process would be forked (``MIN_FORKED_SAVED_S``), not spawned.
    """
    if free_cores < SECOND_CORE:
        return SERIAL
    if splittable and tokenizers >= 2 and work_bytes <= SPLIT_MAX_BYTES \
            and saved_s >= (MIN_FORKED_SAVED_S if forked else MIN_SAVED_S):
        return SPLIT
    return AUTO


def tokenizer_cost(size: int | None, adapter: str | None, families: Collection[str] = (),
                   text: int = 0) -> float:
    """Estimated seconds of one tokenizer's part of a run, from its file's size and the
    adapter that loads it (``tokbench.loading.loader.local_file``), plus the opt-in
    ``families`` whose work per tokenizer grows with the ``text`` (bytes) whatever the
    file (``FAMILY_COSTS_PER_MB``)."""
    base = BASE_COSTS.get(adapter or "", BASE_COST)
    extra = sum(FAMILY_COSTS_PER_MB.get(f, 0.0) for f in families) * text / 1e6
    return base + COSTS_PER_MB.get(adapter or "", COST_PER_MB) * (size or 0) / 1e6 + extra


#: up to this many tokenizers ``balance`` tries every split (2 ** n - 2 of them); more
#: are dealt out greedily
EXACT_UP_TO = 12


def balance(costs: Sequence[float]) -> list[bool]:
    """Which tokenizers (by position) the other process takes, so that the later of the two
    processes ends soonest, this one also doing ``MERGE_COST`` per tokenizer: the best of
    every split for up to ``EXACT_UP_TO`` tokenizers (ties: the first found), else the
    costliest first, each to the process with less so far."""
    n = len(costs)
    if n < 2:
        return [False] * n
    here = MERGE_COST * n
    if n > EXACT_UP_TO:
        loads = [here, 0.0]  # this process, the other
        other = [False] * n
        for i in sorted(range(n), key=lambda i: -costs[i]):
            side = 0 if loads[0] <= loads[1] else 1
            loads[side] += costs[i]
            other[i] = side == 1
        return other
    total = sum(costs)
    best, best_end = 0, float("inf")
    for mask in range(1, (1 << n) - 1):  # each process has one at least
        theirs = sum(costs[i] for i in range(n) if mask >> i & 1)
        end = max(here + total - theirs, theirs)
        if end < best_end - 1e-9:
            best, best_end = mask, end
    return [bool(best >> i & 1) for i in range(n)]


def saving(costs: Sequence[float], other: Sequence[bool]) -> float:
    """Seconds a split into ``other`` (``balance``) saves over one process, by ``costs``
    (one process takes the intervals too: ``MERGE_COST`` per tokenizer either way)."""
    alone = MERGE_COST * len(costs) + sum(costs)  # all of it in one process
    theirs = sum(c for c, o in zip(costs, other, strict=True) if o)
    return alone - max(alone - theirs, theirs)


# -- what each process did -------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    """Where a step of a run began: how many rows, failures, errors and finished units
    there were. Steps (``"load"``, ``"finish:SUITE"``, ...) come in one order whatever
    the tokenizers, and within a step rows come tokenizer by tokenizer in run order."""

    step: str
    rows: int
    failures: int
    errors: int
    units: int


@dataclass
class Half:
    """What one process of a split run did so far: its results and where each step
    began; ``units`` (suite -> shard -> subset -> table) and ``prefixes`` (suite -> its
    subset prefix) for the intervals taken at the merge; ``done`` once it finished."""

    results: Results
    marks: list[Mark]
    units: dict[str, dict[int, dict[str, UnitTable]]] = field(default_factory=dict)
    prefixes: dict[str, str | None] = field(default_factory=dict)
    done: bool = False

    def update(self, delta: Delta) -> None:
        """Add what the other process sent since its last ``Delta``."""
        self.results.rows.extend(delta.rows)
        self.results.failures.extend(delta.failures)
        self.results.meta = delta.meta
        self.marks = delta.marks
        self.units.update(delta.units)
        self.prefixes.update(delta.prefixes)
        self.done = delta.done


@dataclass
class Delta:
    """A checkpoint of the other process: rows and failures since the last one, its meta
    (small), its marks and the units of suites finished since."""

    rows: list[Row]
    failures: list[Failure]
    meta: RunMeta
    marks: list[Mark]
    units: dict[str, dict[int, dict[str, UnitTable]]]
    prefixes: dict[str, str | None]
    done: bool = False


class DeltaMaker:
    """Makes the ``Delta`` of a half since the previous one."""

    def __init__(self, half: Half) -> None:
        self.half = half
        self._rows = self._failures = 0
        self._suites: set[str] = set()

    def __call__(self, done: bool = False) -> Delta:
        h = self.half
        r = h.results
        new = {s: u for s, u in h.units.items() if s not in self._suites and s in h.prefixes}
        self._suites.update(new)
        delta = Delta(r.rows[self._rows:], r.failures[self._failures:], r.meta,
                      list(h.marks), new, {s: h.prefixes[s] for s in new}, done)
        self._rows, self._failures = len(r.rows), len(r.failures)
        return delta


# -- the merge ------------------------------------------------------------------------


#: joins the intervals of a suite finished by both processes: (suite, its rows from
#: both, both processes' units, the subset prefix, the run's tokenizers in order); the
#: rows are changed in place
JoinIntervals = Callable[[str, list[Row], list[dict[int, dict[str, "UnitTable"]]],
                          "str | None", list[str]], None]


class Merger:
    """Merges the halves of a split run, step by step, as far as both have gone (the
    merged steps are kept: each call adds only the steps finished since)."""

    def __init__(self, halves: Sequence[Half], specs: Sequence[str], join: JoinIntervals
                 ) -> None:
        self.halves = list(halves)
        self.rank = {spec: i for i, spec in enumerate(specs)}
        self.join = join
        self.rows: list[Row] = []
        self.failures: list[Failure] = []
        self.errors: list[RunError] = []
        self.units: list[list[str]] = []
        self._merged: list[str] = []

    def _rank(self, name: str | None) -> int:
        if name is None:
            return -1
        if name not in self.rank:  # a loaded tokenizer: the position of its spec
            for h in self.halves:
                info = h.results.meta.tokenizers.get(name)
                if info is not None and info.spec in self.rank:
                    self.rank[name] = self.rank[info.spec]
        return self.rank.get(name, len(self.rank))

    def _steps(self) -> list[str]:
        """Every step either half went through, in their common order."""
        order: list[str] = []
        for h in self.halves:
            at = -1
            for m in h.marks:
                if m.step in order:
                    at = order.index(m.step)
                else:
                    at += 1
                    order.insert(at, m.step)
        return order

    def _finished(self, h: Half, step: str) -> bool | None:
        """Whether ``h`` finished ``step`` (None: it never will, being done without it)."""
        for i, m in enumerate(h.marks):
            if m.step == step:
                return h.done or i + 1 < len(h.marks)
        return None if h.done else False

    def _span(self, h: Half, step: str) -> tuple[Mark, Mark] | None:
        for i, m in enumerate(h.marks):
            if m.step == step:
                r = h.results
                end = h.marks[i + 1] if i + 1 < len(h.marks) else Mark(
                    "", len(r.rows), len(r.failures), len(r.meta.errors),
                    len(r.meta.finished_units or []))
                return m, end
        return None

    def merge(self, executor: dict[str, Any], wall: float | None = None) -> Results:
        """The results so far (complete when every half is done); ``wall`` the run's."""
        for step in self._steps():
            if step in self._merged:
                continue
            if any(self._finished(h, step) is False for h in self.halves):
                break
            self._merge_step(step)
            self._merged.append(step)
        return Results(rows=list(self.rows), meta=self._meta(executor, wall),
                       failures=list(self.failures))

    def _merge_step(self, step: str) -> None:
        rows: list[Row] = []
        failures: list[Failure] = []
        errors: list[RunError] = []
        units: list[list[str]] = []
        for h in self.halves:
            span = self._span(h, step)
            if span is None:
                continue
            a, b = span
            r = h.results
            rows += r.rows[a.rows:b.rows]
            failures += r.failures[a.failures:b.failures]
            for e in r.meta.errors[a.errors:b.errors]:
                if e.tokenizer is not None or e not in errors:  # a suite's: said once
                    errors.append(e)
            units += (r.meta.finished_units or [])[a.units:b.units]
        rows.sort(key=lambda x: self._rank(x.tokenizer))
        failures.sort(key=lambda x: self._rank(x.tokenizer))
        errors.sort(key=lambda x: self._rank(x.tokenizer))
        units.sort(key=lambda x: self._rank(x[0]))
        suite = step.partition(":")[2] if step.startswith("finish:") else None
        if suite is not None:
            with_units = [h for h in self.halves if suite in h.prefixes]
            if with_units:
                self.join(suite, rows, [h.units.get(suite, {}) for h in with_units],
                          with_units[0].prefixes[suite], self._names())
        self.rows += rows
        self.failures += failures
        self.errors += errors
        self.units += units

    def _names(self) -> list[str]:
        """The run's tokenizers in its order."""
        return sorted({n for h in self.halves for n in h.results.meta.tokenizers},
                      key=self._rank)

    def _meta(self, executor: dict[str, Any], wall: float | None) -> RunMeta:
        metas = [h.results.meta for h in self.halves]
        names = self._names()
        for n in names:
            owners = [m.tokenizers[n] for m in metas if n in m.tokenizers]
            if len(owners) > 1:
                raise InputError(f"tokenizers {owners[0].spec!r} and {owners[1].spec!r} are "
                                 f"the same tokenizer {n!r}; list it once")
        tokenizers = {n: next(m.tokenizers[n] for m in metas if n in m.tokenizers)
                      for n in names}
        base = next((m for m in metas if m.tokenizers), metas[0])
        suites = dict(base.suites)
        warnings = list(base.warnings or [])
        segmenters: dict[str, str | None] = {}
        counts: dict[str, dict[str, dict[str, int]]] = {}
        timings: dict[str, float] = {}
        for m in metas:
            suites.update((k, v) for k, v in m.suites.items() if k not in suites)
            warnings += [w for w in m.warnings or [] if w not in warnings]
            segmenters.update(m.segmenters or {})
            counts.update(m.failure_counts or {})
            for k, v in (m.timings or {}).items():
                timings[k] = timings.get(k, 0.0) + v
        if wall is not None:
            timings["wall_s"] = wall
        done = all(h.done for h in self.halves)
        return replace(base, tokenizers=tokenizers, suites=suites, errors=list(self.errors),
                       warnings=warnings, executor=executor,
                       finished_units=list(self.units),
                       failure_counts={n: counts[n] for n in sorted(counts, key=self._rank)}
                       or None, segmenters=dict(sorted(segmenters.items())) or
                       base.segmenters, timings=timings or None, complete=done)


# -- progress of both processes as one run --------------------------------------------


class JoinedProgress:
    """Both processes' progress events as one run's: one ``RunStarted`` (twice the
    bytes: each process encodes the text once), one ``PhaseStarted`` per phase (for
    every tokenizer), no ``RunDone`` (the merge says when the run is done)."""

    def __init__(self, progress: Progress, share: float) -> None:
        self.progress = progress
        self.share = share  # this process's tokenizers over all
        self._seen: set[str] = set()

    def __call__(self, event: Event, mine: bool = True) -> None:
        scale = 1 / self.share if mine else 1 / (1 - self.share)
        if isinstance(event, RunStarted):
            if "start" not in self._seen:
                self._seen.add("start")
                self.progress(RunStarted(units=round(event.units * scale),
                                         bytes=event.bytes * 2))
            return
        if isinstance(event, PhaseStarted):
            if event.name not in self._seen:
                self._seen.add(event.name)
                self.progress(PhaseStarted(name=event.name, units=round(event.units * scale)))
            return
        if isinstance(event, RunDone):
            return
        self.progress(event)


# -- the other process ------------------------------------------------------------------


class Outbox:
    """Messages to the process at the other end of ``conn``, pickled when sent and written
    by a thread, in order: the sender never waits for the reader. A pipe holds 64 KB, and
    the reader may be starting, or holding its GIL in a long call of a library (its
    reading thread cannot run): the other process of a default run sat 1.4 s in one send
    while this one encoded a shard."""

    def __init__(self, conn: Connection) -> None:
        import queue
        import threading

        self._conn = conn
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write, daemon=True,
                                        name="tokbench-split-outbox")
        self._thread.start()

    def send(self, message: object) -> None:
        from multiprocessing.reduction import ForkingPickler

        self._queue.put(bytes(ForkingPickler.dumps(message)))

    def _write(self) -> None:
        while (data := self._queue.get()) is not None:
            try:
                self._conn.send_bytes(data)
            except OSError:  # the reader is gone: nothing more can reach it
                return

    def close(self, wait: float | None = 5.0) -> None:
        """Write what was sent (at most ``wait`` seconds; None: all of it), then stop."""
        self._queue.put(None)
        self._thread.join(wait)


class OtherProcess:
    """The run's second process and the pipe to it: spawned before this one loads
    anything and given its work (``send``) once that is decided, or forked (``method``,
    ``fork_other``) once this one knows its work: a split's half, or shards once this one
    has loaded the tokenizers (``tokbench.engine.helper.fork_helper``).
    A thread takes its messages as they come (so it never waits for this process to
    read), ``messages`` hands them over. It ends with this process (``close``), on
    Ctrl-C, or when this process dies (its parent watch)."""

    def __init__(self, target: Callable[..., None], method: str = "spawn",
                 args: tuple[Any, ...] = ()) -> None:
        import multiprocessing
        import queue
        import threading

        ctx: Any = multiprocessing.get_context(method)  # "fork": ``args`` are not pickled
        self.conn, theirs = ctx.Pipe()
        self.proc = ctx.Process(target=target, args=(theirs, os.getpid(), *args),
                                daemon=True, name="tokbench-split")
        self.proc.start()
        theirs.close()
        self.finished = False  # it said its last
        self._reading = False  # a message is being read
        self._outbox = Outbox(self.conn)
        self._inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        threading.Thread(target=self._receive, daemon=True, name="tokbench-split-inbox").start()

    def _receive(self) -> None:
        import pickle

        while True:
            try:
                self.conn.poll(None)  # a message begins (or the pipe ends)
                self._reading = True  # from its first bytes until it is in the inbox
                data = self.conn.recv_bytes()
            except (EOFError, OSError):  # it ended, or this side closed the pipe
                self.proc.join(5)
                self._inbox.put(("died", self.proc.exitcode))
                self._reading = False
                return
            message = pickle.loads(data)
            self._inbox.put(message)
            self._reading = False
            if message[0] in ("viewer", "error"):
                return

    def pending(self) -> bool:
        """Whether a message has begun to come that ``messages`` has not handed over yet
        (in the pipe, being read, or read): the thread that reads them may not have run,
        or only in part (this process's loading held the interpreter; a message of many
        pipefuls is read one pipeful per turn)."""
        try:
            waiting = self.conn.poll(0)
        except (OSError, EOFError):  # closed: nothing more comes
            waiting = False
        return self._reading or not self._inbox.empty() or waiting

    def send(self, work: object) -> None:
        """Give the process its work (``Outbox``: it may still be starting, and the default
        run's suites are 1.1 MB); one that died already is found by ``messages``."""
        self._outbox.send(work)

    def messages(self, block: bool, timeout: float | None = None
                 ) -> Iterator[tuple[str, Any]]:
        """Messages received (``block``: waiting for more until the process has said its
        last, ``"viewer"`` or ``"error"``, or for ``timeout`` seconds at most for each); a
        process that died first says ``("died", exit code)``."""
        import queue

        while not self.finished:
            try:
                message = self._inbox.get(block, timeout)
            except queue.Empty:
                return
            self.finished = message[0] in ("viewer", "error", "died")
            yield message

    def close(self) -> None:
        if self.proc.is_alive():
            self.proc.terminate()
        self.proc.join(5)
        if self.proc.is_alive():  # SIGTERM not taken within 5 s (a loaded machine)
            self.proc.kill()
            self.proc.join(5)
        self._outbox.close()  # a write to a process now gone fails at once
        self.conn.close()


def fork_other(target: Callable[..., None], args: tuple[Any, ...] = ()) -> OtherProcess:
    """An ``OtherProcess`` forked from this one (``args`` are not pickled: it has all this
    process has). Raises OSError when no process can start."""
    # the tokenizers library warns on a fork once its threads were used, unless told
    # whether to use them: a forked process encodes text by text, never with them
    quiet = "TOKENIZERS_PARALLELISM" not in os.environ
    if quiet:
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
    try:
        return OtherProcess(target, method="fork", args=args)
    finally:
        if quiet:
            os.environ.pop("TOKENIZERS_PARALLELISM", None)


def sendable_error(e: BaseException) -> BaseException:
    """``e`` if it pickles, else a RuntimeError with its text."""
    import pickle

    try:
        pickle.loads(pickle.dumps(e))
    except Exception:
        return RuntimeError(f"{type(e).__name__}: {e}")
    return e


def describe_death(code: int | None) -> str:
    """What a dead process's exit code says, in a few words."""
    import signal

    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            pass
    return f"exit code {code}"


def sendable(objects: Mapping[str, object]) -> bool:
    """Whether every object pickles (the other process receives them)."""
    import pickle

    try:
        pickle.dumps(dict(objects))
    except Exception:  # any object a library cannot pickle keeps the run in one process
        return False
    return True
