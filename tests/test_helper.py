"""The run's second process running document shards beside this one when the run is not
split by tokenizer (``tokbench.engine.helper``), spawned early or forked once the
tokenizers are loaded: the rows of one process, a helper that dies has its shard run here,
and a tokenizer it preloaded is used only if its file is the one the run pinned."""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from tests._runs import WORDS, same_as_serial, sharded_corpus
from tokbench.engine import executors, helper, runner, split
from tokbench.engine.executors import usable_cores
from tokbench.engine.helper import ShardHelper, _reuse
from tokbench.engine.runner import run
from tokbench.engine.work import PinnedSpec, ShardResult, ShardTask
from tokbench.errors import InputError
from tokbench.loading.loader import load_tokenizer

METRICS = ["compression", "roundtrip"]


@pytest.fixture
def free(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second core free whatever the machine's load."""
    monkeypatch.setattr(executors, "free_cores", lambda: 2.0)


class Here:
    """``process_shard`` in the run's process, recorded; its first shard waits until the
    helper is ready, so that the helper surely takes some."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.real = executors.process_shard
        self.indexes: list[int] = []
        self.helpers: list[ShardHelper] = []
        monkeypatch.setattr(executors, "process_shard", self)
        install = ShardHelper.install

        def recorded(h: ShardHelper, run_id: str, payload: object) -> None:
            self.helpers.append(h)
            install(h, run_id, payload)  # type: ignore[arg-type]

        monkeypatch.setattr(ShardHelper, "install", recorded)

    def __call__(self, task: ShardTask) -> ShardResult:
        if not self.indexes:
            end = time.monotonic() + 60
            while not self.helpers[0].ready and not self.helpers[0].dead \
                    and time.monotonic() < end:
                time.sleep(0.01)
        self.indexes.append(task.index)
        return self.real(task)


@pytest.fixture(params=[True, False], ids=["forked", "spawned"])
def forks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """The helper forked once the tokenizers are loaded (Linux), or spawned at the start
    and loading them itself (elsewhere)."""
    if request.param and not helper.can_fork():
        pytest.skip("forks a helper only on Linux")
    monkeypatch.setattr(runner, "can_fork", lambda: request.param)
    return bool(request.param)


def test_one_tokenizer_runs_its_shards_in_both_processes(
        free: None, forks: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = sharded_corpus()
    shards = len(spec.plan_shards(usable_cores())[0])
    one = run(["cl100k_base"], [spec], METRICS, jobs=1)
    here = Here(monkeypatch)
    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    got = run(["cl100k_base"], [spec], METRICS, jobs=None)
    assert "TOKENIZERS_PARALLELISM" not in os.environ  # set for the fork alone
    assert got.meta.executor == {"kind": "AutoExecutor", "workers": usable_cores(),
                                 "chosen": "helper"}
    same_as_serial(got, one)
    assert shards >= 4 and 0 < len(here.indexes) < shards  # the helper ran the others
    assert not here.helpers[0].other.proc.is_alive()  # ended with the shards


def test_a_helper_that_dies_has_its_shard_run_here(
        free: None, forks: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = sharded_corpus()
    shards = len(spec.plan_shards(usable_cores())[0])
    killed: list[int] = []
    send = split.OtherProcess.send

    def send_then_kill(self: split.OtherProcess, work: object) -> None:
        send(self, work)
        if isinstance(work, tuple) and work[0] == "shard" and not killed:
            killed.append(work[1].index)  # given its first shard, it dies on it
            os.kill(self.proc.pid, signal.SIGKILL)

    monkeypatch.setattr(split.OtherProcess, "send", send_then_kill)
    one = run(["gpt2"], [spec], METRICS, jobs=1)
    here = Here(monkeypatch)
    got = run(["gpt2"], [spec], METRICS, jobs=None)
    assert got.meta.executor is not None and got.meta.executor["chosen"] == "helper"
    same_as_serial(got, one)
    assert killed and killed[0] in here.indexes  # its shard, run again here
    assert sorted(here.indexes) == list(range(shards))


def test_a_run_that_stops_before_its_shards_ends_its_helper(
        free: None, forks: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from tokbench.errors import UnknownNameError

    made: list[ShardHelper] = []
    init = ShardHelper.__init__

    def recorded(h: ShardHelper, *args: object) -> None:
        init(h, *args)  # type: ignore[arg-type]
        made.append(h)

    monkeypatch.setattr(ShardHelper, "__init__", recorded)
    with pytest.raises(UnknownNameError, match="reference tokenizer"):
        run(["gpt2"], [sharded_corpus()], METRICS, jobs=None, reference="gtp2")
    if forks:  # it stopped once loaded, before the helper was forked
        assert made == []
    else:  # spawned at the start
        assert len(made) == 1 and not made[0].other.proc.is_alive()


@pytest.mark.parametrize(("case", "spawned", "chosen"), [
    ("one shard", True, "serial"),        # started before the suites load, then told None
    ("split declined", True, "serial"),   # two tokenizers, the split saves too little
    ("busy machine", False, "serial"),    # no second core free
    ("tokenizer object", False, "serial"),  # the other process loads tokenizers by spec
])
def test_a_second_process_starts_with_a_free_core_and_ends_if_it_cannot_help(
        monkeypatch: pytest.MonkeyPatch, forks: bool, case: str, spawned: bool,
        chosen: str) -> None:
    started: list[object] = []

    class Recorded:
        def __init__(self, target: object, method: str = "spawn", args: object = ()) -> None:
            started.append(method)

        def send(self, work: object) -> None:
            assert work is None

        def close(self) -> None:
            pass

    monkeypatch.setattr(split, "OtherProcess", Recorded)
    monkeypatch.setattr(executors, "free_cores", lambda: 1.0 if case == "busy machine" else 2.0)
    monkeypatch.setattr(split, "MIN_SAVED_S", float("inf"))
    monkeypatch.setattr(split, "MIN_FORKED_SAVED_S", float("inf"))
    toks: list[object] = [load_tokenizer("bytes") if case == "tokenizer object" else "bytes"]
    if case == "split declined":
        toks.append("chars")
    got = run(toks, ["code"], ["compression"], jobs=None)  # type: ignore[arg-type]
    # a run that cannot split forks its helper once loaded, and one shard needs none
    assert started == (["spawn"] if spawned and not forks else [])
    assert got.meta.executor is not None and got.meta.executor.get("chosen") == chosen


def test_a_split_that_does_not_pay_runs_shards_in_its_second_process(
        free: None, forks: bool, methods: list[str], monkeypatch: pytest.MonkeyPatch
        ) -> None:
    """Two tokenizers whose files' costs allow a split, which the suites then decline:
    forked, nothing started before and the helper is forked once this process has loaded
    the tokenizers; spawned, the process spawned at once is handed the shards."""
    monkeypatch.setattr(runner, "shards_only", lambda specs, families: False)
    monkeypatch.setattr(split, "choose", lambda **kwargs: split.AUTO)  # the split declined
    spec = sharded_corpus()
    one = run(["gpt2", "bytes"], [spec], METRICS, jobs=1)
    got = run(["gpt2", "bytes"], [spec], METRICS, jobs=None)
    assert methods == (["fork"] if forks else ["spawn"])
    assert got.meta.executor is not None and got.meta.executor["chosen"] == "helper"
    same_as_serial(got, one)


def test_no_second_process_is_started_early_for_a_run_that_will_not_take_it(
        free: None) -> None:
    from tokbench.engine.runner import start_second_process

    assert start_second_process(["bytes"], jobs=1) is None  # --jobs forces its number
    assert start_second_process(["bytes"], jobs=None, executor="dask") is None
    assert start_second_process(["bytes", "bytes"], jobs=None) is None  # said as a dup
    assert start_second_process([load_tokenizer("bytes")], jobs=None) is None  # type: ignore[list-item]


def test_a_preloaded_tokenizer_is_used_only_for_the_file_the_run_pinned() -> None:
    cl100k = load_tokenizer("cl100k_base")
    sha = cl100k.source.sha256
    assert sha
    preloaded = {"cl100k_base": cl100k}
    assert _reuse(preloaded, PinnedSpec("cl100k_base", sha)) is cl100k
    assert _reuse(preloaded, "cl100k_base") is cl100k
    # pinned to another file: loaded again, and the file now is not the one pinned
    with pytest.raises(InputError, match="its file changed during the run"):
        _reuse(preloaded, PinnedSpec("cl100k_base", "0" * 64))
    other = _reuse(preloaded, "gpt2")  # not preloaded (it failed there): loaded now
    assert other.name == "gpt2" and other is not cl100k


# -- the command line ---------------------------------------------------------------------

class Started:
    """Records the CLI's calls: the second process started, the suites read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from tokbench import suites
        from tokbench.engine import runner

        self.calls: list[str] = []
        self.seconds: list[runner.SecondProcess] = []
        start, load = runner.start_second_process, suites.load_suites

        def started(*args: object, **kwargs: object) -> runner.SecondProcess | None:
            second = start(*args, **kwargs)  # type: ignore[arg-type]
            self.calls.append("second")
            if second is not None:
                self.seconds.append(second)
            return second

        def loaded(*args: object, **kwargs: object) -> object:
            self.calls.append("suites")
            return load(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(runner, "start_second_process", started)
        monkeypatch.setattr(suites, "load_suites", loaded)


def test_the_command_line_starts_the_helper_before_it_reads_the_suites(
        free: None, forks: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Spawned: before the suites are read, so that its start overlaps them; forked: it
    is decided then, and forked once the tokenizers are loaded."""
    from tokbench.cli import main
    from tokbench.results import Results

    corpus = tmp_path / "big.txt"  # 4.5 MB: three streamed shards of 2 MB
    rng = random.Random(3)
    corpus.write_text("".join(" ".join(rng.choices(WORDS, k=8)) + "\n"
                              for _ in range(90_000)), encoding="utf-8")
    argv = ["run", "-t", "bytes", "-s", f"text:{corpus}", "-m", "compression",
            "--no-plots", "--no-html", "--no-history"]
    assert main([*argv, "--out", str(tmp_path / "one"), "--jobs", "1"]) == 0
    started = Started(monkeypatch)
    helpers = Here(monkeypatch).helpers
    assert main([*argv, "--out", str(tmp_path / "two")]) == 0
    assert started.calls == ["second", "suites"]
    one, two = Results.load(tmp_path / "one"), Results.load(tmp_path / "two")
    assert two.meta.executor == {"kind": "AutoExecutor", "workers": usable_cores(),
                                 "chosen": "helper"}
    assert [r.to_dict() for r in two.rows if not r.metric.startswith("throughput")] == \
        [r.to_dict() for r in one.rows if not r.metric.startswith("throughput")]
    second = started.seconds[0].other
    assert (second is None) is forks  # forked: nothing was started before the loads
    assert len(helpers) == 1 and not helpers[0].other.proc.is_alive()
    assert second is None or second is helpers[0].other


@pytest.mark.parametrize("tokenizers", ["bytes", "bytes,chars"])
def test_a_run_that_stops_before_it_starts_ends_the_second_process(
        free: None, forks: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        tokenizers: str) -> None:
    """Spawned early (where no fork is to come), it is ended when no suite loads; where
    the run forks its second process, nothing was started."""
    from tokbench.cli import main

    monkeypatch.setattr(split, "MIN_SAVED_S", 0.0)  # two tokenizers may split
    monkeypatch.setattr(split, "MIN_FORKED_SAVED_S", 0.0)
    started = Started(monkeypatch)
    code = main(["run", "-t", tokenizers, "-s", f"text:{tmp_path / 'missing.txt'}",
                 "--no-history", "--out", str(tmp_path / "out")])
    assert code != 0 and started.calls == ["second", "suites"]
    other = started.seconds[0].other
    if forks:  # to be forked once the work is known: nothing started
        assert other is None
    else:
        assert other is not None and not other.proc.is_alive()
