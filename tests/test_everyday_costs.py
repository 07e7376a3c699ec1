"""The everyday run's fixed costs: cached vocabulary facts (safe: a corrupt or foreign
entry is recomputed, never believed), a pool only when it pays, throughput timed on
bounded samples with the precision stated."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests._toy import ToyTokenizer
from tokbench.constants import ALL
from tokbench.engine import cores, executors
from tokbench.engine.executors import AutoExecutor, ProcessExecutor, SerialExecutor, make_executor
from tokbench.engine.runner import run
from tokbench.families.throughput import throughput_texts
from tokbench.loading.loader import load_tokenizer
from tokbench.metrics import factcache
from tokbench.metrics.tokenizer_facts import cached_vocabulary_facts, vocabulary_facts
from tokbench.record import TokenizerSource
from tokbench.speed.rate import RUN_SUBSET_BYTES, RateBudget, measure_rate
from tokbench.suites import wordcache, words
from tokbench.suites.model import Document, Suite
from tokbench.suites.words import Segmenter

PIECES = ["a", "b", "ab", "abc", " ", " a", "c"]


class FileToy(ToyTokenizer):
    """A toy tokenizer that says it was loaded from a file with a given sha256."""

    def __init__(self, sha: str | None, pieces: list[str] = PIECES) -> None:
        super().__init__(pieces, unk=False, name="filetoy")
        self.source = TokenizerSource("file", "toy.json", sha, "/somewhere/toy.json")
        self.calls = 0

    def token_bytes(self, token_id: int) -> bytes:
        self.calls += 1
        return super().token_bytes(token_id)


def entries(root: Path) -> list[Path]:
    return sorted((root / "facts").rglob("*.json"))


def test_vocabulary_facts_cached_per_file_and_code(cache: Path) -> None:
    tok = FileToy("ab" * 32)
    fresh = vocabulary_facts(tok)
    assert cached_vocabulary_facts(tok) == fresh  # computed, then stored
    [entry] = entries(cache)
    tok.calls = 0
    again = cached_vocabulary_facts(tok)
    assert again == fresh and list(again) == list(fresh)  # same rows, same order
    assert tok.calls == 0  # no token was tested again
    # another file (another sha256), or the same file under another name elsewhere
    other = FileToy("cd" * 32, pieces=["a", "b"])
    assert cached_vocabulary_facts(other) == vocabulary_facts(other)
    assert len(entries(cache)) == 2
    moved = FileToy("ab" * 32)
    moved.name = "renamed"
    moved.source = TokenizerSource("file", "toy.json", "ab" * 32, "/elsewhere/toy.json")
    method = "tokbench.metrics.tokenizer_facts"
    assert factcache.facts_key(moved, "vocabulary", method) == entry.stem


def test_key_changes_with_library_version_and_method(cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    tok = FileToy("ab" * 32)
    key = factcache.facts_key(tok, "vocabulary", "tokbench.metrics.tokenizer_facts")
    monkeypatch.setattr(FileToy, "backend_version", lambda self: "2.0", raising=False)
    assert factcache.facts_key(tok, "vocabulary", "tokbench.metrics.tokenizer_facts") != key
    monkeypatch.undo()
    monkeypatch.setattr(factcache, "module_sha256", lambda module: module + "-v2")
    assert factcache.facts_key(tok, "vocabulary", "tokbench.metrics.tokenizer_facts") != key


def test_tokenizer_without_file_hash_is_never_cached(cache: Path) -> None:
    tok = FileToy(None)
    assert cached_vocabulary_facts(tok) == vocabulary_facts(tok)
    assert entries(cache) == []


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],                              # torn write
    lambda text: "not json",
    lambda text: text.replace('"unreachable_tokens": 0', '"unreachable_tokens": 7'),  # checksum
    lambda text: json.dumps({**json.loads(text), "key": "0" * 64}),   # another entry's
    lambda text: text.replace('"vocab_size": 7', '"vocab_size": true'),
])
def test_damaged_entry_is_recomputed_never_believed(cache: Path, damage) -> None:
    tok = FileToy("ab" * 32)
    fresh = cached_vocabulary_facts(tok)
    [entry] = entries(cache)
    entry.write_text(damage(entry.read_text()))
    tok.calls = 0
    assert cached_vocabulary_facts(tok) == fresh
    assert tok.calls > 0  # recomputed
    assert json.loads(entry.read_text())["facts"] == fresh  # and rewritten whole


def test_unwritable_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TOKBENCH_CACHE", str(blocker / "sub"))  # cannot be a folder
    tok = FileToy("ab" * 32)
    assert cached_vocabulary_facts(tok) == vocabulary_facts(tok)


# -- the planner ----------------------------------------------------------------------------

def test_jobs_given_forces_that_many_and_default_decides() -> None:
    assert isinstance(make_executor("local", 1), SerialExecutor)
    assert isinstance(make_executor("local", 2), ProcessExecutor)
    auto = make_executor("local", None)
    assert isinstance(auto, AutoExecutor | SerialExecutor)  # one usable core: serial


def _by_load_average(monkeypatch: pytest.MonkeyPatch, usable: int, load: float) -> None:
    """``usable`` cores and a 1-minute load average of ``load``, on a machine whose CPU
    counters cannot be read (``free_cores`` then goes by the average)."""
    monkeypatch.setattr(executors, "usable_cores", lambda: usable)
    monkeypatch.setattr(executors, "_load_average", lambda: load)
    monkeypatch.setattr(cores, "_read", lambda: None)


def _readings(monkeypatch: pytest.MonkeyPatch, *readings: cores.Reading) -> None:
    """The kernel's counters read as ``readings``, one per read, none taken before."""
    left = list(readings)
    monkeypatch.setattr(cores, "_readings", [])
    monkeypatch.setattr(cores, "_read", lambda: left.pop(0))


@pytest.mark.parametrize(("busy", "own", "window", "free"), [
    (1.0, 1.0, 1.0, 2.0),    # only this process ran: both cores free
    (2.0, 1.0, 1.0, 1.0),    # another process took a core all along
    (1.5, 1.0, 1.0, 1.5),    # ... half of the time
    (0.5, 0.0, 0.5, 1.0),    # ... over half a second, this process idle
    (5.0, 0.0, 1.0, 0.0),    # more than the cores (a child of this one): none left
    (0.0, 1.0, 1.0, 2.0),    # own time beyond the busy counters (ticks): never over all
    (1.0, 1.0, 0.1, None),   # a window too short to read: the load average answers
])
def test_free_cores_are_measured_over_the_last_moments(
        monkeypatch: pytest.MonkeyPatch, busy: float, own: float, window: float,
        free: float | None) -> None:
    """Busy CPU time not this process's, over the window since the last reading old
    enough, is what others take; the load average (here 3.0: a run that ended a minute
    ago still in it) is read only when no window can be measured."""
    monkeypatch.setattr(executors, "usable_cores", lambda: 2)
    monkeypatch.setattr(executors, "_load_average", lambda: 3.0)
    _readings(monkeypatch, cores.Reading(10.0, 100.0, 7.0),
              cores.Reading(10.0 + window, 100.0 + busy, 7.0 + own))
    cores.mark()
    got = executors.free_cores()
    assert got == pytest.approx(free if free is not None else 0.0)


def test_the_kernel_counters_read_here() -> None:
    """On Linux the counters are read: busy and own CPU seconds grow with work done."""
    first = cores._read()
    if first is None:
        pytest.skip("no /proc/stat on this platform (free cores go by the load average)")
    sum(i * i for i in range(2_000_000))
    second = cores._read()
    assert second is not None and second.at > first.at
    assert second.own > first.own and second.busy >= first.busy


@pytest.mark.parametrize(("load", "per_byte", "left", "shards", "pays"), [
    (0.0, 1e-6, 100_000, 4, False),        # 0.1 s of work: never worth 0.5 s + loads
    (0.0, 1e-6, 200_000_000, 100, True),   # 200 s of work on an idle machine
    (3.0, 1e-6, 200_000_000, 100, False),  # the same with both cores taken by others
    (0.0, 1e-6, 200_000_000, 1, False),    # one shard left: nothing to share
    (0.0, 1e-6, 6_000_000, 4, False),      # 6 s: 0.5 + 2 + 3 = 5.5 s is not 35% less
    (0.0, 1e-6, 12_000_000, 4, False),     # 12 s: 0.5 + 2 + 6 = 8.5 s is 29% less
    (0.0, 1e-6, 20_000_000, 4, True),      # 20 s: 0.5 + 2 + 10 = 12.5 s is 37.5% less
])
def test_a_pool_only_when_it_pays(monkeypatch: pytest.MonkeyPatch, load: float,
                                  per_byte: float, left: int, shards: int, pays: bool) -> None:
    _by_load_average(monkeypatch, 2, load + 1.0)  # + this process
    auto = AutoExecutor(2)
    auto.expect(left, shards, load_s=2.0)
    assert auto.pays(per_byte, left, shards) is pays


def test_default_jobs_on_a_small_job_works_here_with_the_same_numbers() -> None:
    toks = [ToyTokenizer(PIECES, name="t1"), ToyTokenizer(["a", "b", "c", " "], name="t2")]
    suite = Suite("s", "1", [Document(f"d{i}", "eng_Latn", "x", "abc ab a " * (i + 1))
                             for i in range(30)])
    one = run(toks, [suite], ["compression", "roundtrip"], jobs=1)
    auto = AutoExecutor(2)
    default = run(toks, [suite], ["compression", "roundtrip"], executor=auto)
    assert auto.chosen == "serial"
    assert default.meta.executor == {"kind": "AutoExecutor", "workers": 2, "chosen": "serial"}
    assert [r.to_dict() for r in default.rows] == [r.to_dict() for r in one.rows]


def test_default_jobs_give_the_free_cores_to_tokenizers_with_their_own_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No pool: after the probes, a tokenizer that encodes outside the GIL gets the free
    cores as threads (recorded); one that does not, and every --jobs 1 shard, gets one."""
    from tokbench.suites import model

    seen: list[tuple[str, int]] = []

    class Native(ToyTokenizer):
        native_threads = True

        def encode_batch(self, texts: Any, threads: int = 1) -> list[list[int]]:
            seen.append((self.name, threads))
            return [self.encode(t) for t in texts]

    monkeypatch.setattr(model, "MIN_SHARD_BYTES", 100)
    monkeypatch.setattr(model, "MAX_SHARD_BYTES", 200)
    _by_load_average(monkeypatch, 2, 1.0)  # this process alone
    suite = Suite("s", "1", [Document(f"d{i}", "eng_Latn", "x", "abc ab a " * 10)
                             for i in range(20)])
    toks = [Native(PIECES, name="native"), ToyTokenizer(PIECES, name="plain")]
    one = run(toks, [suite], ["compression"], jobs=1, ci=None)
    assert set(seen) == {("native", 1)}
    seen.clear()
    auto = AutoExecutor(2)
    default = run(toks, [suite], ["compression"], executor=auto, ci=None)
    shards = len(suite.plan_shards(2)[0])
    probes = AutoExecutor.PROBES
    assert shards > probes
    assert [t for _, t in seen] == [1] * probes + [2] * (shards - probes)
    assert default.meta.executor == {"kind": "AutoExecutor", "workers": 2, "chosen": "serial",
                                     "threads": 2}
    assert [r.to_dict() for r in default.rows] == [r.to_dict() for r in one.rows]
    seen.clear()
    plain = run(toks[1:], [suite], ["compression"], executor=AutoExecutor(2), ci=None)
    assert "threads" not in plain.meta.executor and not seen


def test_default_jobs_give_threads_to_a_gil_free_encode_only_when_counting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tokenizer whose per-text encode releases the GIL (tiktoken) takes the free cores
    on shards that only count tokens (``count_batch`` counts on each thread), never on
    shards that keep every text's ids: there the threads gave back most of the gain."""
    from tokbench.suites import model

    seen: list[tuple[str, int]] = []

    class GilFree(ToyTokenizer):
        gil_free_encode = True

        def count_batch(self, texts: Any, threads: int = 1) -> list[int]:
            seen.append(("count", threads))
            return super().count_batch(texts, threads=threads)

        def encode_batch(self, texts: Any, threads: int = 1) -> list[list[int]]:
            seen.append(("encode", threads))
            return super().encode_batch(texts, threads=threads)

    monkeypatch.setattr(model, "MIN_SHARD_BYTES", 100)
    monkeypatch.setattr(model, "MAX_SHARD_BYTES", 200)
    # 1.6 free cores: two threads, as a split counts them
    _by_load_average(monkeypatch, 2, 1.4)
    suite = Suite("s", "1", [Document(f"d{i}", "eng_Latn", "x", "abc ab a " * 10)
                             for i in range(20)])
    tok = GilFree(PIECES, name="gilfree")
    one = run([tok], [suite], ["compression"], jobs=1, ci=None)
    shards = len(suite.plan_shards(2)[0])
    probes = AutoExecutor.PROBES
    seen.clear()
    counted = run([tok], [suite], ["compression"], executor=AutoExecutor(2), ci=None)
    assert [t for kind, t in seen if kind == "count"] == [1] * probes + [2] * (shards - probes)
    assert counted.meta.executor["threads"] == 2
    assert [r.to_dict() for r in counted.rows] == [r.to_dict() for r in one.rows]
    seen.clear()
    kept = run([tok], [suite], ["compression", "roundtrip"], executor=AutoExecutor(2), ci=None)
    assert seen and {t for _, t in seen} == {1}
    assert "threads" not in kept.meta.executor


# -- throughput ------------------------------------------------------------------------------

def test_run_throughput_rows_state_their_precision_and_use_bounded_samples() -> None:
    tok = ToyTokenizer(PIECES)
    docs = [Document(f"{lang}{i}", lang, "x", "abc ab a " * 200, align=str(i))
            for lang in ("eng_Latn", "fra_Latn") for i in range(10)]
    suite = Suite("par", "1", docs, parallel=True)
    samples = throughput_texts(suite, True, RUN_SUBSET_BYTES)
    for lang in ("eng_Latn", "fra_Latn"):
        assert len(samples[lang]) == 2  # 1,800 bytes each: the second passes 2 KB
    res = run([tok], [suite], ["throughput"], throughput_repeats=3)
    rows = {(r.subset, r.metric): r for r in res.rows}
    assert set(rows) == {(s, m) for s in (ALL, "eng_Latn", "fra_Latn")
                         for m in ("throughput_mb_s", "throughput_tokens_s")}
    for (subset, _), r in rows.items():
        assert r.extra["repeats"] >= 3 and len(r.extra["samples"]) == r.extra["repeats"]
        assert r.extra["clock"] == "thread_cpu" and r.extra["threads"] == 1
        assert r.extra["precision"] is not None and r.extra["precision"] >= 0
        # a subset: its first documents up to 2 KB; all: 16 KB taken in turn from each
        assert r.extra["bytes"] == (3600 if subset != ALL else 18000)
    mb, tk = rows[(ALL, "throughput_mb_s")], rows[(ALL, "throughput_tokens_s")]
    assert tk.extra["samples"][0] / mb.extra["samples"][0] == pytest.approx(tk.value / mb.value)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_a_long_pass_needs_fewer_samples() -> None:
    from tokbench.speed.clock import Clocks

    clock = Clock()

    class Slow(ToyTokenizer):
        def encode(self, text: str) -> list[int]:
            clock.t += 0.1  # every call: 100 ms of work
            return super().encode(text)

    tok = Slow(PIECES)
    clocks = Clocks(wall=clock, cpu=clock)
    short = measure_rate(tok, ["ab"], RateBudget(budget_s=0.0, min_samples=5), clocks)
    long = measure_rate(tok, ["ab"], RateBudget(budget_s=0.0, min_samples=5, long_pass_s=0.05),
                        clocks)
    assert short is not None and long is not None
    assert len(short.samples) == 5 and len(long.samples) == 3
    assert long.precision == 0.0 and long.mb_s == pytest.approx(2 / 1e6 / 0.1)


@pytest.mark.parametrize(("spread", "samples", "stop"), [
    # each pass 10 ms times 1, 1 + spread, 1 - spread, ... in turn
    (0.0, 5, "ci"),        # no noise: the target met at once
    (0.10, 5, "reach"),    # ±2% out of reach by 7 samples: no more are timed
    (0.021, 7, "max_samples"),  # ±2.1% at 5 and 6: within reach, so timed on, not met
    (0.022, 6, "reach"),   # ±2.2% at 6: out of reach by the seventh
])
def test_timing_stops_once_its_target_is_out_of_reach(spread: float, samples: int,
                                                      stop: str) -> None:
    from tokbench.speed.clock import Clocks
    from tokbench.speed.rate import RUN_BUDGET

    clock = Clock()
    factors = [1.0, 1.0 + spread, 1.0 - spread]
    calls = [0]

    class Noisy(ToyTokenizer):
        def encode(self, text: str) -> list[int]:
            clock.t += 0.01 * factors[calls[0] % 3]
            calls[0] += 1
            return super().encode(text)

    budget = RateBudget(budget_s=10.0, target_rel_ci=RUN_BUDGET.target_rel_ci,
                        min_samples=5, max_samples=7, min_sample_s=0.001,
                        stop_out_of_reach=True)
    rate = measure_rate(Noisy(PIECES), ["ab"], budget, Clocks(wall=clock, cpu=clock))
    assert rate is not None
    assert (len(rate.samples), rate.stop) == (samples, stop)


# -- word spans of dictionary segmenters -----------------------------------------------------

class CountingSegmenter(Segmenter):
    """Words are runs of letters; counts the texts it really segments."""

    name = "counting"

    def __init__(self) -> None:
        super().__init__()
        self.segmented = 0

    @property
    def version(self) -> str:
        return "1"

    def spans(self, text: str) -> list[tuple[int, int]]:
        self.segmented += 1
        return [m.span() for m in re.finditer(r"[a-z]+", text)]

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return self.spans(text)


@pytest.fixture
def segmenter(cache: Path, monkeypatch: pytest.MonkeyPatch) -> CountingSegmenter:
    seg = CountingSegmenter()
    monkeypatch.setattr(words, "segmenter_for", lambda lang: seg if lang == "xxx_Latn" else None)
    return seg


DOCS = [Document(f"d{i}", lang, "x", text) for i, (lang, text) in enumerate([
    ("xxx_Latn", "ab cd"), ("yyy_Latn", "no segmenter"), ("xxx_Latn", ""),
    ("xxx_Latn", "é ab")])]
SPANS = [[(0, 2), (3, 5)], None, [], [(2, 4)]]


def test_word_spans_are_read_back_for_the_same_texts(segmenter: CountingSegmenter,
                                                     cache: Path) -> None:
    assert words.segment_documents(DOCS) == SPANS
    assert segmenter.segmented == 3
    assert words.segment_documents(DOCS) == SPANS
    assert segmenter.segmented == 3  # read from the cache
    changed = [*DOCS[:3], Document("d3", "xxx_Latn", "x", "é abc")]
    assert words.segment_documents(changed)[3] == [(2, 5)]  # other text: segmented
    assert segmenter.segmented == 6
    assert len(list((cache / "words").rglob("*.npz"))) == 2


@pytest.mark.parametrize("damage", [
    lambda path: path.write_bytes(path.read_bytes()[:40]),  # torn
    lambda path: path.write_bytes(b"junk"),
    lambda path: wordcache.write_spans(path.stem, [[(0, 2), (3, 9)], [], [(2, 4)]]),  # past the end
    lambda path: wordcache.write_spans(path.stem, [[(0, 2)], []]),  # too few documents
    lambda path: wordcache.write_spans(path.stem, [[(3, 2)], [], [(2, 4)]]),  # backwards
])
def test_damaged_word_spans_are_segmented_again(segmenter: CountingSegmenter, cache: Path,
                                                damage) -> None:
    words.segment_documents(DOCS)
    [entry] = (cache / "words").rglob("*.npz")
    damage(entry)
    segmenter.segmented = 0
    assert words.segment_documents(DOCS) == SPANS
    assert segmenter.segmented == 3


def test_default_jobs_hands_the_rest_to_a_pool_when_it_pays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first shard (timed here), a pool takes the rest: same rows as --jobs 1."""
    docs = [Document(f"d{i}", "eng_Latn", "x", f"line {i} " + "abc def " * 2000)
            for i in range(60)]  # about 1 MB: four shards of 256 KB
    suite = Suite("big", "1", docs)
    one = run(["bytes"], [suite], ["compression", "roundtrip"], jobs=1)
    monkeypatch.setattr(AutoExecutor, "pays", lambda self, *args: True)
    auto = AutoExecutor(2)
    # given as an object, the tokenizer keeps the run from a second process (which loads
    # by spec: ``tokbench.engine.helper``), so the first shards choose
    pooled = run([load_tokenizer("bytes")], [suite], ["compression", "roundtrip"],
                 executor=auto)
    assert auto.chosen == "pool" and pooled.meta.executor["chosen"] == "pool"
    assert [r.to_dict() for r in pooled.rows] == [r.to_dict() for r in one.rows]


def test_on_more_than_two_cores_a_pool_that_pays_replaces_the_helper(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The second process runs shards (``helper``) unless the first shards say a pool of
    every core pays more: then the pool takes the rest and the helper is ended."""
    from tokbench.engine.helper import ShardHelper

    docs = [Document(f"d{i}", "eng_Latn", "x", f"line {i} " + "abc def " * 2000)
            for i in range(60)]
    suite = Suite("big", "1", docs)
    one = run(["bytes"], [suite], ["compression", "roundtrip"], jobs=1)
    monkeypatch.setattr(executors, "free_cores", lambda: 3.0)
    monkeypatch.setattr(AutoExecutor, "pays", lambda self, *args: True)
    helpers: list[ShardHelper] = []
    close = ShardHelper.close

    def closed(h: ShardHelper) -> None:
        helpers.append(h)
        close(h)

    monkeypatch.setattr(ShardHelper, "close", closed)
    auto = AutoExecutor(3)
    pooled = run(["bytes"], [suite], ["compression", "roundtrip"], executor=auto)
    assert pooled.meta.executor == {"kind": "AutoExecutor", "workers": 3, "chosen": "pool"}
    assert [r.to_dict() for r in pooled.rows] == [r.to_dict() for r in one.rows]
    assert len(helpers) == 1 and auto.helper is None
    assert not helpers[0].other.proc.is_alive()


def test_default_jobs_chooses_on_the_fastest_of_the_first_shards(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's choice sees the faster of the first two shards' rates, and what is left
    after both: a cold first shard does not make a pool look worth it."""
    from tokbench.engine import executors
    from tokbench.suites import model

    monkeypatch.setattr(model, "MIN_SHARD_BYTES", 256 * 1024)
    docs = [Document(f"d{i}", "eng_Latn", "x", f"line {i} " + "abc def " * 2000)
            for i in range(60)]  # about 1 MB: four shards of 256 KB
    suite = Suite("big", "1", docs)
    one = run(["bytes"], [suite], ["compression"], jobs=1)
    now = [0.0]
    took = iter([3.0, 1.0])  # the first shard 3 s (cold), the second 1 s
    work = executors.process_shard

    def timed(task: Any) -> Any:
        now[0] += next(took, 0.0)
        return work(task)

    monkeypatch.setattr(executors, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    monkeypatch.setattr(executors, "process_shard", timed)
    seen: list[tuple[float, int, int]] = []

    def pays(self: AutoExecutor, per_byte: float, left: int, shards: int) -> bool:
        seen.append((per_byte, left, shards))
        return False

    monkeypatch.setattr(AutoExecutor, "pays", pays)
    auto = AutoExecutor(2)
    got = run([load_tokenizer("bytes")], [suite], ["compression"], executor=auto)
    assert auto.chosen == "serial"
    assert [r.to_dict() for r in got.rows] == [r.to_dict() for r in one.rows]
    sizes = [len(d.text.encode()) for d in docs]
    total = sum(sizes)
    ((per_byte, left, shards),) = seen
    assert shards == 2 and 0 < left < total
    assert per_byte == pytest.approx(1.0 / ((total - left) / 2), rel=0.2)


def test_checkpoint_waits_longer_after_a_slow_write(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tokbench.cli import output
    from tokbench.results import Results

    now = [0.0]
    written: list[float] = []

    def write(results: Results, out_dir: Path) -> Path:
        written.append(now[0])
        now[0] += 0.5  # each write takes 0.5 s: the next waits 0.5 / 0.05 = 10 s
        return out_dir / "results.json"

    monkeypatch.setattr(output, "write_results_atomic", write)
    checkpoint = output.Checkpoint(tmp_path, interval=2.0, share=0.05, clock=lambda: now[0])
    for t in (0.0, 3.0, 9.9, 10.0, 12.0, 19.9, 20.0):
        now[0] = max(now[0], t)
        checkpoint(Results())
    assert written == [0.0, 10.0, 20.0]
    checkpoint.flush()  # an interruption writes now, whatever the wait
    assert written == [0.0, 10.0, 20.0, 20.5]


def test_counting_tokens_in_batches_loses_only_the_texts_that_fail() -> None:
    from tokbench.engine.work import COUNT_BATCH, count_tokens

    tok = ToyTokenizer(["a", "b", "ab"], unk=False)  # "x" raises
    texts = ["ab", "aab"] * 40  # 80 texts: two batches
    texts[3], texts[COUNT_BATCH + 2] = "abx", "x"
    counts, errors = count_tokens(tok, texts)
    want: list[int | None] = [1, 2] * 40
    want[3] = want[COUNT_BATCH + 2] = None
    assert COUNT_BATCH < 80 and counts == want
    assert errors == [(3, "ValueError: cannot encode 'x'"),
                      (COUNT_BATCH + 2, "ValueError: cannot encode 'x'")]


def test_a_shard_is_encoded_one_language_after_another() -> None:
    from tokbench.engine.work import count_tokens, in_order, language_order

    tok = ToyTokenizer(["a", "b", "ab"], unk=False)  # "x" raises
    langs_texts = [("eng_Latn", "ab"), ("fra_Latn", "aab"), ("eng_Latn", "a"),
                   ("fra_Latn", "x"), ("eng_Latn", "xb")]
    docs = [Document(f"{lang}:{i}", lang, "x", text, str(i))
            for i, (lang, text) in enumerate(langs_texts)]
    order = language_order(docs)
    assert order == [0, 2, 4, 1, 3]
    assert language_order([docs[0], docs[2], docs[1], docs[3]]) is None  # grouped already
    asked: list[list[str]] = []

    def count(texts: list[str]) -> tuple[list[int | None], list[tuple[int, str]]]:
        asked.append(list(texts))
        return count_tokens(tok, texts)

    counts, errors = in_order(order, [d.text for d in docs], count)
    assert asked == [["ab", "a", "xb", "aab", "x"]]
    assert counts == [1, 2, 1, None, None]  # by document again
    assert errors == [(3, "ValueError: cannot encode 'x'"), (4, "ValueError: cannot encode 'x'")]


def test_counting_tokens_gathers_no_token_ids() -> None:
    from tokbench.metrics.compute import TokenTable, measure_documents, subset_sums
    from tokbench.metrics.stats import collectors_for

    tok = ToyTokenizer(["a", "b", "ab"])  # "c" is unknown (id 3)
    texts = ["abc", "ab a", "é"]
    encs = [tok.encode(t) for t in texts]  # [2, 3], [2, 3, 0], [3]
    assert collectors_for(["tokens", "bytes", "chars"]) == {"counts"}
    assert collectors_for(["unk", "tokens"]) == {"counts", "kinds"}
    idx = np.arange(3)
    light = measure_documents(TokenTable(tok), texts, encs, None, None, token_ids=False)
    assert light.tokens.tolist() == [2, 3, 1] and light.bytes.tolist() == [3, 4, 2]
    assert light.ids.size == 0 and light.doc_of_token.size == 0  # never gathered
    assert subset_sums(light, idx, {"counts"}).sums == {
        "docs": 3, "ok": 3, "failed": 0, "tokens": 6, "bytes": 9, "chars": 8}
    full = measure_documents(TokenTable(tok), texts, encs, None, None)
    assert full.ids.tolist() == [2, 3, 2, 3, 0, 3]
    assert subset_sums(full, idx, {"counts", "kinds"}).sums == {
        "docs": 3, "ok": 3, "failed": 0, "tokens": 6, "bytes": 9, "chars": 8, "unk": 3,
        "fallback": 0, "byte_tokens": 0}
