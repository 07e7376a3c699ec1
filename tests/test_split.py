"""A run split by tokenizer over two processes (``tokbench.engine.split``): the choice, the
balance, the merge, and real split runs against one process's."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests._runs import same_as_serial, sharded_corpus
from tokbench.engine import executors, helper, runner, split
from tokbench.engine.executors import usable_cores
from tokbench.engine.runner import run
from tokbench.engine.split import AUTO, SERIAL, SPLIT, Half, Mark, Merger, balance, choose
from tokbench.engine.viewer import ViewerPart, viewer_from_results
from tokbench.events import Event, PhaseStarted, RunDone, RunStarted, ShardDone, TokenizerFailed
from tokbench.record import RunError, TokenizerInfo, TokenizerSource
from tokbench.results import Results, Row

SUITES = ["multilingual?languages=eng_Latn,jpn_Jpan,deu_Latn", "code"]
# costs 1.47 (cl100k_base, 1.68 MB), 1.38 (gpt2, 0.84 MB), 1.3, 1.3: this process takes
# cl100k_base (1.47) and bytes (2.77), the other gpt2 (0.7 + 1.38) and chars (3.38)
TOKENIZERS = ["bytes", "chars", "cl100k_base", "gpt2"]


# -- the choice (pure) --------------------------------------------------------------------

@pytest.mark.parametrize(("tokenizers", "free", "work", "splittable", "chosen"), [
    (8, 2.0, 6_400_000, True, SPLIT),      # the default run on an idle 2-core machine
    (8, 1.4, 6_400_000, True, SERIAL),     # others take a core: all here, as before
    (1, 2.0, 1_000_000, True, AUTO),       # one tokenizer: nothing to split
    (2, 2.0, 17 * 2 ** 20, True, AUTO),    # a large corpus: document shards may pay
    (8, 2.0, 6_400_000, False, AUTO),      # e.g. resumed, or read to a precision
    (2, 1.5, 16 * 2 ** 20, True, SPLIT),   # at both limits
])
def test_split_only_when_a_core_is_free_and_the_corpus_small(
        tokenizers: int, free: float, work: int, splittable: bool, chosen: str) -> None:
    assert choose(tokenizers=tokenizers, free_cores=free, work_bytes=work,
                  splittable=splittable) == chosen


def test_split_only_when_the_estimates_say_it_saves_enough() -> None:
    # the default eight: 21.604 s + 0.8 s of intervals in one process; split, 11.211 s
    # here (0.8 of it the intervals) and 11.193 s there: 11.193 s saved
    costs = [1.267, 1.436, 1.823, 1.695, 1.537, 7.321, 1.299, 5.226]
    other = balance(costs)
    assert split.saving(costs, other) == pytest.approx(22.404 - 11.211)
    # FLORES, cl100k_base (1.44) and xlm-roberta (7.32): 7.32 s there, 1.64 s here
    assert split.saving([1.436, 7.321], balance([1.436, 7.321])) == pytest.approx(1.636)
    kw = {"tokenizers": 2, "free_cores": 2.0, "work_bytes": 1_500_000, "splittable": True}
    assert choose(**kw, saved_s=1.636) == AUTO  # type: ignore[arg-type]
    assert choose(**kw, saved_s=2.0) == SPLIT  # type: ignore[arg-type]
    # a forked other process costs no start: that job splits
    assert choose(**kw, saved_s=1.636, forked=True) == SPLIT  # type: ignore[arg-type]
    assert choose(**kw, saved_s=0.99, forked=True) == AUTO  # type: ignore[arg-type]


def test_tokenizer_costs_by_adapter_and_file_size() -> None:
    # an HF tokenizer.json of 17.08 MB (xlm-roberta): 1.0 + 0.37 * 17.08 = 7.32 s
    assert split.tokenizer_cost(17_080_000, "tokenizers") == pytest.approx(7.3196)
    assert split.tokenizer_cost(1_680_000, "tiktoken") == pytest.approx(1.436)
    assert split.tokenizer_cost(490_000, "sentencepiece") == pytest.approx(1.298)
    assert split.tokenizer_cost(720_000, "gguf") == pytest.approx(1.694)
    assert split.tokenizer_cost(None, "bytes") == 1.1


def test_opt_in_families_add_their_cost_per_megabyte_of_text() -> None:
    # robustness on the Japanese preset's 0.19 MB: 18 * 0.19 = 3.42 s more per tokenizer
    gpt2 = 1.1 + 0.2 * 0.84
    assert split.tokenizer_cost(840_000, "tiktoken", ["compression", "robustness"],
                                190_000) == pytest.approx(gpt2 + 3.42)
    assert split.tokenizer_cost(840_000, "tiktoken", ["morph", "morph_sudachi"],
                                190_000) == pytest.approx(gpt2 + 0.19)
    assert split.tokenizer_cost(840_000, "tiktoken", ["compression"], 190_000) == \
        pytest.approx(gpt2)
    # the Japanese preset's tokenizers with a file (gpt2, cl100k_base, llama-2,
    # xlm-roberta, mbert): xlm-roberta alone against the rest by the files' costs, beside
    # mbert once robustness and morph are counted (15.75 s there, 15.65 s here)
    files = [(840_000, "tiktoken"), (1_680_000, "tiktoken"), (720_000, "gguf"),
             (17_080_000, "tokenizers"), (700_000, "tokenizers")]
    families = ["compression", "morph", "morph_sudachi", "robustness"]
    assert balance([split.tokenizer_cost(*f) for f in files]) == \
        [False, False, False, True, False]
    assert balance([split.tokenizer_cost(*f, families, 188_636) for f in files]) == \
        [False, False, False, True, True]


@pytest.mark.parametrize(("costs", "other"), [
    ([2.0, 1.0], [True, False]),  # 2.0 there against 1.0 + 0.2 here
    ([1.0, 2.0], [False, True]),
    ([1.0, 1.0], [True, False]),  # ties: the first split found
    ([5.0], [False]),  # one: nothing to split
    ([], []),
    # 9 there, 3 + 0.4 here: a 1 beside the 9 would end at 10
    ([1.0, 9.0, 1.0, 1.0], [False, True, False, False]),
    # greedy (costliest first, each to the lesser) ends at 3 + 2 + 2 = 7 there; the best
    # split is 3 + 3 there against 2 + 2 + 2 + 0.5 here
    ([3.0, 3.0, 2.0, 2.0, 2.0], [True, True, False, False, False]),
])
def test_balance_ends_both_processes_as_early_as_the_costs_allow(
        costs: list[float], other: list[bool]) -> None:
    assert balance(costs) == other


def test_balance_of_the_default_eight() -> None:
    # their files' sizes and adapters (gpt2, cl100k_base, o200k_base, llama-2, llama-3,
    # xlm-roberta, mistral-v1, qwen3): gpt2 + o200k_base + xlm-roberta + 0.8 = 11.211 s
    # here, the other five 11.193 s there
    costs = [1.267, 1.436, 1.823, 1.695, 1.537, 7.321, 1.299, 5.226]
    assert balance(costs) == [False, True, False, True, True, False, True, True]


def test_balance_of_many_deals_the_costliest_first() -> None:
    costs = [float(c) for c in range(1, split.EXACT_UP_TO + 2)]  # one more than tried all
    other = balance(costs)
    there = sum(c for c, o in zip(costs, other, strict=True) if o)
    here = split.MERGE_COST * len(costs) + sum(costs) - there
    assert abs(here - there) <= max(costs)
    assert other[-1] is True  # the costliest goes there: here starts with the intervals


# -- the merge (pure) ---------------------------------------------------------------------

def _half(toks: list[str], steps: list[tuple[str, list[Row]]], done: bool,
          errors: list[RunError] | None = None) -> Half:
    results = Results()
    results.meta.tokenizers = {t: TokenizerInfo(name=t, source=TokenizerSource(kind="builtin"),
                                                spec=t) for t in toks}
    results.meta.finished_units = []
    marks = []
    for step, rows in steps:
        marks.append(Mark(step, len(results.rows), 0, len(results.meta.errors), 0))
        results.rows += rows
        if step == "load":
            results.meta.errors += errors or []
    return Half(results, marks, done=done)


def _row(tok: str, suite: str, metric: str = "tokens") -> Row:
    return Row(tok, suite, "all", metric, 1)


def test_merge_puts_each_step_in_run_order_and_waits_for_both() -> None:
    specs = ["a", "b", "c", "bad"]
    here = _half(["a", "c"], [("load", []), ("before:tokenizer", [_row("a", "vocab"),
                                                                  _row("c", "vocab")]),
                              ("finish:s1", [_row("a", "s1"), _row("c", "s1")]),
                              ("finish:s2", [_row("a", "s2")])], done=False)
    there = _half(["b"], [("load", []), ("before:tokenizer", [_row("b", "vocab")]),
                          ("finish:s1", [_row("b", "s1"), _row("b", "s1", "chars")])],
                  done=False, errors=[RunError(tokenizer="bad", error="no such file")])
    joined: list[tuple[str, list[str]]] = []
    merger = Merger([here, there], specs, lambda suite, rows, units, prefix, order:
                    joined.append((suite, order)))
    executor = {"kind": "AutoExecutor", "workers": 2, "chosen": "split"}
    partial = merger.merge(executor)
    # s1 is finished by neither yet (each may still add to it): up to the vocabulary
    assert [(r.tokenizer, r.suite) for r in partial.rows] == [
        ("a", "vocab"), ("b", "vocab"), ("c", "vocab")]
    assert partial.meta.complete is False and list(partial.meta.tokenizers) == ["a", "b", "c"]
    assert partial.meta.errors == [RunError(tokenizer="bad", error="no such file")]
    there.done = here.done = True
    whole = merger.merge(executor, wall=3.0)
    assert [(r.tokenizer, r.suite, r.metric) for r in whole.rows] == [
        ("a", "vocab", "tokens"), ("b", "vocab", "tokens"), ("c", "vocab", "tokens"),
        ("a", "s1", "tokens"), ("b", "s1", "tokens"), ("b", "s1", "chars"),
        ("c", "s1", "tokens"), ("a", "s2", "tokens")]
    assert joined == []  # no units kept (no intervals asked): nothing to join
    assert whole.meta.complete is True and whole.meta.timings == {"wall_s": 3.0}
    assert whole.meta.executor == executor


def test_merge_refuses_one_tokenizer_in_both_processes() -> None:
    here = _half(["a"], [("load", [])], done=True)
    there = _half(["a"], [("load", [])], done=True)
    from tokbench.errors import InputError

    with pytest.raises(InputError, match="the same tokenizer 'a'; list it once"):
        Merger([here, there], ["a", "a2"], lambda *a: None).merge({})


def test_progress_of_both_processes_is_one_run() -> None:
    seen: list[Event] = []
    joined = split.JoinedProgress(seen.append, share=0.25)
    joined(RunStarted(units=3, bytes=100), mine=False)  # the other: 3 of 4 tokenizers
    joined(RunStarted(units=1, bytes=100))
    joined(PhaseStarted(name="throughput", units=2))
    joined(PhaseStarted(name="throughput", units=6), mine=False)
    joined(ShardDone(suite="s", bytes=10), mine=False)
    joined(RunDone())
    assert seen == [RunStarted(units=4, bytes=200), PhaseStarted(name="throughput", units=8),
                    ShardDone(suite="s", bytes=10)]


# -- real split runs ----------------------------------------------------------------------

@pytest.fixture
def free(monkeypatch: pytest.MonkeyPatch) -> None:
    """The split chosen: two free cores whatever the machine's load, and any saving worth
    it (these runs are small)."""
    monkeypatch.setattr(executors, "free_cores", lambda: 2.0)
    monkeypatch.setattr(split, "MIN_SAVED_S", 0.0)
    monkeypatch.setattr(split, "MIN_FORKED_SAVED_S", 0.0)


@pytest.fixture(params=[False, True], ids=["spawned", "forked"])
def forks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """The other process forked once the split is chosen (Linux), or spawned at the start
    (elsewhere)."""
    if request.param and not helper.can_fork():
        pytest.skip("forks only on Linux")
    monkeypatch.setattr(runner, "can_fork", lambda: request.param)
    return bool(request.param)


def test_a_split_run_gives_one_process_rows_in_its_order(free: None, forks: bool,
                                                         methods: list[str]) -> None:
    one = run(TOKENIZERS, SUITES, throughput_repeats=1, jobs=1)
    events: list[Event] = []
    checkpoints: list[int] = []
    loaded: dict[str, Any] = {}
    got = run(TOKENIZERS, SUITES, throughput_repeats=1, jobs=None, progress=events.append,
              on_unit=lambda r: checkpoints.append(len(r.rows)), on_loaded=loaded.update)
    assert got.meta.executor == {"kind": "AutoExecutor", "workers": usable_cores(),
                                 "chosen": "split"}
    assert methods == (["fork"] if forks else ["spawn"])
    same_as_serial(got, one)
    assert any(r.extra.get("vs") for r in got.rows)  # paired comparisons across processes
    # one start, one end; each process encodes the text once: twice the bytes
    starts = [e for e in events if isinstance(e, RunStarted)]
    assert len(starts) == 1 and isinstance(events[-1], RunDone)
    assert sum(e.bytes for e in events if isinstance(e, ShardDone)) == starts[0].bytes
    assert checkpoints and checkpoints == sorted(checkpoints)
    # each process's tokenizers come as its part of the viewer, built as its half ended
    assert set(loaded) == {"bytes", "chars", "cl100k_base", "gpt2"}
    assert all(isinstance(v, ViewerPart) for v in loaded.values())
    groups = {id(v): sorted(v.data["loaded"]) for v in loaded.values()}
    assert len(groups) == 2  # one part per process, none loaded here twice
    assert sorted(n for g in groups.values() for n in g) == sorted(loaded)

    def no_load(spec: str) -> Any:
        raise AssertionError(f"{spec} loaded again")

    merged = viewer_from_results(got, load_tokenizer=no_load, parts=loaded)
    whole = viewer_from_results(one)
    whole["run"] = merged["run"]  # same tokenizers and suites by name and hash
    assert json.dumps(merged) == json.dumps(whole)


def test_a_tokenizer_that_fails_in_the_other_process_is_said_as_in_one(
        free: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bad = f"file:{tmp_path / 'missing.json'}"
    specs = ["bytes", bad, "chars"]
    monkeypatch.setattr(split, "balance", lambda costs: [False, True, True])
    one = run(specs, SUITES[:1], ["compression"], jobs=1)
    events: list[Event] = []
    got = run(specs, SUITES[:1], ["compression"], jobs=None, progress=events.append)
    assert got.meta.executor["chosen"] == "split"
    same_as_serial(got, one)
    assert [e.subject for e in got.meta.errors] == [f"tokenizer {bad}"]
    assert [e.tokenizer for e in events if isinstance(e, TokenizerFailed)] == [bad]


def test_the_other_process_killed_is_redone_here(free: None, forks: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    killed: list[split.OtherProcess] = []
    send = split.OtherProcess.send

    def send_then_kill(self: split.OtherProcess, work: object) -> None:
        send(self, work)
        if work is not None:  # given its tokenizers, it dies before finishing them
            os.kill(self.proc.pid, signal.SIGKILL)
            killed.append(self)

    monkeypatch.setattr(split.OtherProcess, "send", send_then_kill)
    one = run(TOKENIZERS, SUITES, ["compression", "roundtrip"], jobs=1)
    events: list[Event] = []
    got = run(TOKENIZERS, SUITES, ["compression", "roundtrip"], jobs=None,
              progress=events.append)
    assert killed and got.meta.executor is not None
    assert got.meta.executor["chosen"] == "split"
    assert [r.to_dict() for r in got.rows] == [r.to_dict() for r in one.rows]
    assert got.meta.warnings == ["the second process of this run ended (killed by SIGKILL); "
                                 "its tokenizers were measured in the first"]
    assert not killed[0].proc.is_alive() and isinstance(events[-1], RunDone)


def test_resumed_and_precision_runs_stay_in_one_process(free: None) -> None:
    got = run(["bytes", "chars"], SUITES[:1], ["compression"], jobs=None, resume=Results())
    assert got.meta.executor is not None and got.meta.executor.get("chosen") != "split"


def test_viewer_parts_that_do_not_line_up_are_not_merged() -> None:
    data: dict[str, Any] = {"loaded": ["a"], "notes": [], "suites": [
        {"name": "s", "samples": [{"subset": "all", "doc_id": 1, "text": "x",
                                   "rows": {"a": {"n": 1}}}]}]}
    other: Mapping[str, Any] = {"loaded": ["b"], "notes": ["n"], "suites": [
        {"name": "s", "samples": [{"subset": "all", "doc_id": 2, "text": "y",
                                   "rows": {"b": {"n": 2}}}]}]}
    from tokbench.engine.viewer import merge_parts

    assert merge_parts(data, [other], ["a", "b"]) is False and data["loaded"] == ["a"]
    same = json.loads(json.dumps(other))
    same["suites"][0]["samples"][0].update(doc_id=1, text="x")
    assert merge_parts(data, [same], ["b", "a"]) is True
    assert data["suites"][0]["samples"][0]["rows"] == {"b": {"n": 2}, "a": {"n": 1}}
    assert data["loaded"] == ["b", "a"] and data["notes"] == ["n"]


def test_the_command_line_writes_the_same_viewer_from_both_processes(
        free: None, forks: bool, tmp_path: Path) -> None:
    from tokbench.cli import main

    argv = ["run", "-t", "bytes,gpt2,chars", "-s", "unicode,code", "-m",
            "compression,roundtrip", "--no-plots", "--no-history", "--repeats", "1"]
    assert main([*argv, "--out", str(tmp_path / "one"), "--jobs", "1"]) == 0
    assert main([*argv, "--out", str(tmp_path / "two")]) == 0
    one, two = Results.load(tmp_path / "one"), Results.load(tmp_path / "two")
    assert two.meta.executor == {"kind": "AutoExecutor", "workers": usable_cores(),
                                 "chosen": "split"}
    assert [r.to_dict() for r in two.rows] == [r.to_dict() for r in one.rows]
    assert (tmp_path / "two" / "viewer.json").read_bytes() == \
        (tmp_path / "one" / "viewer.json").read_bytes()


def test_an_outbox_never_waits_for_its_reader_and_keeps_the_order() -> None:
    import multiprocessing
    import threading

    mine, theirs = multiprocessing.Pipe()
    outbox = split.Outbox(mine)
    big = ["x" * 400_000] * 4  # 1.6 MB: a pipe holds 64 KB
    sender = threading.Thread(target=lambda: [outbox.send(("unit", k, big)) for k in range(3)])
    sender.start()
    sender.join(30)
    assert not sender.is_alive()  # every send returned though nothing read yet
    assert [theirs.recv()[1] for _ in range(3)] == [0, 1, 2]
    outbox.send(("viewer", None))
    outbox.close()
    assert theirs.recv() == ("viewer", None)
    theirs.close()
    gone = split.Outbox(mine)
    gone.send(("unit", 3, big))  # the reader is gone: the write fails, close still ends
    gone.close(wait=None)


def test_a_forked_split_shares_its_one_costly_tokenizer_with_a_helper(
        free: None, methods: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """gpt2 (its file) costs more than bytes: forked, this process takes gpt2 and, the
    other process done with bytes once gpt2 is loaded, forks a helper for gpt2's shards."""
    if not helper.can_fork():
        pytest.skip("forks only on Linux")

    def done_first(self: runner._Split) -> bool:  # the other group is done first
        self._pump(block=True, until=lambda: self.there.done)
        return self.there.done

    monkeypatch.setattr(runner._Split, "_other_done", done_first)
    taken: list[list[str]] = []
    mine_on = runner._Split._mine_on

    def recorded(self: runner._Split, mine: list[str]) -> object:
        taken.append(mine)
        return mine_on(self, mine)

    monkeypatch.setattr(runner._Split, "_mine_on", recorded)
    spec = sharded_corpus()
    assert len(spec.plan_shards(1)[0]) >= 2
    metrics = ["compression", "roundtrip"]
    one = run(["bytes", "gpt2"], [spec], metrics, jobs=1)
    got = run(["bytes", "gpt2"], [spec], metrics, jobs=None)
    assert got.meta.executor is not None and got.meta.executor["chosen"] == "split"
    assert taken == [["gpt2"]] and methods == ["fork", "fork"]  # the other half, the helper
    same_as_serial(got, one)


def _done_at_once(conn: Any, parent: int) -> None:
    from tokbench.record import RunMeta

    out = split.Outbox(conn)
    out.send(("done", split.Delta([], [], RunMeta(), [], {}, {}, done=True)))
    out.close(wait=None)
    conn.recv()  # until the test ends it


def _never_done(conn: Any, parent: int) -> None:
    conn.recv()


@pytest.mark.parametrize(("target", "done"), [(_done_at_once, True), (_never_done, False)])
def test_the_other_process_done_is_seen_though_its_message_waits_unread(
        target: Any, done: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's loading holds the interpreter, so the thread taking the other
    process's messages may not have read its end yet (here: held until 0.2 s after the
    question): it is waited for, never missed; a process still working is not waited
    for."""
    import threading

    if not helper.can_fork():
        pytest.skip("forks only on Linux")
    from tokbench.engine.runner import Settings

    gate = threading.Event()
    receive = split.OtherProcess._receive

    def held(self: split.OtherProcess) -> None:
        gate.wait()
        receive(self)

    monkeypatch.setattr(split.OtherProcess, "_receive", held)
    half = runner._Split(Settings(), [], False, None, None, None)
    half.there, half.gone = Half(Results(), []), None
    half.other = split.fork_other(target)
    try:
        if done:
            assert half.other.conn.poll(5)  # its message has come, not yet read
        else:
            time.sleep(0.2)
        threading.Timer(0.2, gate.set).start()
        t0 = time.perf_counter()
        assert half._other_done() is done
        assert time.perf_counter() - t0 < (runner.OTHER_DONE_WAIT + 0.1 if done else 0.1)
    finally:
        gate.set()
        half.other.close()
