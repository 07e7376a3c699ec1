"""A warm second process that runs document shards beside this one.

A run on the default ``jobs`` with a free core has a second process, started before
anything was loaded (``tokbench.engine.runner.start_second_process``; the command line
starts it before reading the suites). When the run is not split by tokenizer (one
tokenizer, or a split that would not pay: ``tokbench.engine.split``), the run hands it the
shards of its corpus instead of ending it: it loads the run's tokenizers while this
process loads them too, then takes shards one at a time from the same queue as this
process, so both cores encode from the first shards and neither waits for the other at the
end by more than one shard. A pool started at that point would first pay its interpreter,
imports and loads (``AutoExecutor``).

Where the run would not split whatever its suites (``tokbench.engine.runner``'s
``shards_only``) and the platform forks cheaply (Linux), no second process is started
early: once this process has loaded the run's tokenizers, it forks the helper
(``fork_helper``), which has them all from its first moment. On FLORES devtest in four
languages with cl100k_base and xlm-roberta, a spawned helper spent 1.3-1.7 s of a core
loading what this process was loading too (xlm-roberta's tokenizer.json alone: 1.0 s).

Shards are the same as a pool's, and their statistics merge by addition in any order: the
rows are those of one process. A helper that dies has its shard run here again; an error a
shard raises there ends the run with that error, as in a pool.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from tokbench.adapters.base import Tokenizer
    from tokbench.engine.split import OtherProcess, Outbox
    from tokbench.engine.work import ShardResult, ShardTask


class ShardHelper:
    """The parent's side: ``install`` gives the helper the run's tokenizers (as a pool's
    workers get them, pinned to the files this process loaded), ``map`` runs a run's
    shards here and there. A thread reads the helper's messages and gives it its next
    shard the moment it returns one."""

    def __init__(self, other: OtherProcess, specs: Sequence[str]) -> None:
        self.other = other
        other.send(("shards", list(specs)))  # it loads them while this process does
        self.ready = False
        self.dead = False
        self._lock = threading.Lock()
        self._take: Callable[[], ShardTask | None] | None = None
        self._busy: ShardTask | None = None  # the shard it is working on
        self._results: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()

    def install(self, run_id: str, payload: Sequence[tuple[str, object]]) -> None:
        """The run's tokenizers by name and how to load them (``PinnedSpec``...)."""
        self.other.send(("install", (run_id, list(payload))))
        threading.Thread(target=self._read, daemon=True, name="tokbench-helper-reader").start()

    def _read(self) -> None:
        for kind, body in self.other.messages(block=True):
            if kind == "ready":
                self.ready = True
                self._feed()
            elif kind == "result":  # queued before it is idle: ``map`` waits for both
                self._results.put(("result", body))
                with self._lock:
                    self._busy = None
                self._feed()
            elif kind == "died":
                self._results.put(("died", body))
                with self._lock:
                    self.dead = True
            else:  # "error": a shard's error ends the run
                self._results.put((kind, body))

    def _feed(self) -> None:
        """Give the idle helper the next shard, if the run has one left."""
        with self._lock:
            if self._busy is not None or self._take is None or self.dead:
                return
            task = self._take()
            self._busy = task
        if task is not None:
            self.other.send(("shard", task))

    def map(self, tasks: Iterator[ShardTask], here: Callable[[ShardTask], ShardResult]
            ) -> Iterator[ShardResult]:
        """Results of ``tasks`` as they finish, each run by ``here`` in this process or by
        the helper, whichever is free first."""
        lock = threading.Lock()  # the helper's reader takes shards from the same iterator

        def take() -> ShardTask | None:
            with lock:
                return next(tasks, None)

        with self._lock:
            self._take = take
        if self.ready:
            self._feed()
        try:
            while (task := take()) is not None:
                yield here(task)
                yield from self._collected(block=False, here=here)
            while True:
                with self._lock:
                    if self._busy is None or self.dead:
                        self._take = None
                        break
                yield from self._collected(block=True, here=here)
            yield from self._collected(block=False, here=here)
        finally:
            with self._lock:
                self._take = None

    def _collected(self, block: bool, here: Callable[[ShardTask], ShardResult]
                   ) -> Iterator[ShardResult]:
        """What the helper returned (with ``block``: at least one message)."""
        while True:
            try:
                kind, body = self._results.get(block, timeout=None if block else 0)
            except queue.Empty:
                return
            block = False
            if kind == "result":
                yield body
            elif kind == "died":
                with self._lock:
                    lost, self._busy = self._busy, None
                if lost is not None:  # its shard is run here
                    yield here(lost)
            else:
                raise body

    def close(self) -> None:
        """End the helper (it has nothing left to do, or the run stopped)."""
        self.other.send(None)
        self.other.close()


def can_fork() -> bool:
    """Whether a helper is forked after the loads (``fork_helper``): on Linux, where a
    fork copies nothing until it is written (elsewhere a fork with threads running, or
    under macOS's frameworks, is unsafe)."""
    import multiprocessing

    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()


def fork_helper(tokenizers: Sequence[tuple[str, Tokenizer]],
                specs: Sequence[tuple[str, object]]) -> ShardHelper | None:
    """A helper forked from this process, which has loaded ``tokenizers`` (by name, as
    ``specs`` say how: a spec string, or one ``PinnedSpec`` to its file): it starts with
    them loaded. None when a tokenizer has no spec string (the helper's protocol names
    them by spec) or no process can start."""
    from tokbench.engine.split import fork_other
    from tokbench.engine.work import PinnedSpec

    how = dict(specs)
    preloaded = {}
    for name, tok in tokenizers:
        spec = how.get(name)
        spec = spec.spec if isinstance(spec, PinnedSpec) else spec
        if not isinstance(spec, str):
            return None
        preloaded[spec] = tok
    try:
        other = fork_other(forked_child, (preloaded,))
    except OSError:
        return None
    return ShardHelper(other, list(preloaded))


def forked_child(conn: Connection, parent: int, preloaded: dict[str, Tokenizer]) -> None:
    """The forked helper: told ``("shards", specs)`` it runs shards (``serve``) with the
    tokenizers of the process it was forked from; told None, it ends. It never writes to
    the terminal: another thread of that process (the progress display) may have held a
    stream's lock at the fork."""
    from tokbench.engine.split import Outbox, sendable_error
    from tokbench.engine.watch import watch_parent

    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (until it ends)
    watch_parent(parent)
    outbox = Outbox(conn)  # this process never waits for the run's process to read
    try:
        work = conn.recv()
        if work is not None:
            serve(conn, outbox, work[1], preloaded)
    except KeyboardInterrupt:  # Ctrl-C reaches both processes; the run's process says it
        return
    except BaseException as e:
        outbox.send(("error", sendable_error(e)))
    finally:
        outbox.close(wait=None)  # all said (a pipe whose reader is gone fails at once)


def preload(specs: Sequence[str]) -> dict[str, Tokenizer]:
    """The tokenizers of ``specs`` that load (one that fails is said by the run's process,
    which loads it too, and is not sent here)."""
    from tokbench.loading.loader import load_tokenizer

    loaded: dict[str, Tokenizer] = {}
    for spec in specs:
        try:
            loaded[spec] = load_tokenizer(spec)
        except Exception:  # the run's process loads it too and says why
            continue
    return loaded


def serve(conn: Connection, outbox: Outbox, specs: Sequence[str],
          preloaded: dict[str, Tokenizer]) -> None:
    """The helper's side: load those of ``specs`` not ``preloaded``, then take the run's
    tokenizers (``install``: each preloaded one whose file is the one pinned) and run
    shards until told to stop (None)."""
    from tokbench.engine.work import install, process_shard

    preloaded.update(preload([s for s in specs if s not in preloaded]))
    while (message := conn.recv()) is not None:
        kind, body = message
        if kind == "install":
            run_id, payload = body
            install(run_id, [(name, _reuse(preloaded, spec)) for name, spec in payload])
            outbox.send(("ready", None))
        elif kind == "shard":
            outbox.send(("result", process_shard(body)))


def _reuse(preloaded: dict[str, Tokenizer], spec: object) -> Tokenizer:
    """The preloaded tokenizer of ``spec`` if it is the file the run pinned, else loaded."""
    from tokbench.engine.work import PinnedSpec, materialize

    if isinstance(spec, PinnedSpec):
        tok = preloaded.get(spec.spec)
        if tok is not None and tok.source.sha256 == spec.sha256:
            return tok
    elif isinstance(spec, str) and spec in preloaded:
        return preloaded[spec]
    return materialize(spec)
