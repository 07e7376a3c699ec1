"""The streaming engine: shards merge to the same numbers however a corpus is cut or
where it runs (this process, a process pool, a Dask cluster), resumes at shard
granularity, and survives bad input mid-stream and dying workers."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tests._needs import need_module
from tokbench.engine import executors, work
from tokbench.engine.executors import ProcessExecutor
from tokbench.engine.runner import run
from tokbench.engine.work import ShardTask
from tokbench.errors import InputError
from tokbench.metrics import METRICS, metric_info
from tokbench.metrics.stats import (
    FailureExample,
    SubsetStats,
    UnitStats,
    histogram,
    merge_histograms,
)
from tokbench.record import Failure
from tokbench.results import Results
from tokbench.suites import load_suite
from tokbench.suites.model import Document, InlineDocs
from tokbench.suites.stream import StreamingSuite

LINES = {
    "eng_Latn": ["Hello world.", "The year 2024 had 366 days.", "", "Tea, coffee or water?",
                 "A line with café and naïve words."],
    "deu_Latn": ["Guten Tag, Welt.", "Im Jahr 2024 gab es 366 Tage.", "Tee oder Wasser?"],
    "jpn_Jpan": ["こんにちは、世界。", "2024年は366日でした。", "お茶かコーヒー？"],
}
TOKENIZERS = ["bytes", "chars"]


def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir(exist_ok=True)
    for lang, lines in LINES.items():
        (root / f"{lang}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def deterministic(results: Results) -> list[tuple]:
    return sorted((r.tokenizer, r.suite, r.subset, r.metric, r.value) for r in results.rows
                  if metric_info(r.metric).deterministic)


def failures(results: Results) -> list[tuple]:
    return sorted((f.tokenizer, f.suite, str(f.doc_id), f.kind) for f in results.failures)


def tiny_shards(suite: StreamingSuite, shard_bytes: int) -> StreamingSuite:
    from dataclasses import replace

    return replace(suite, shard_bytes=shard_bytes)


def test_a_text_corpus_streams_in_shards_that_end_at_line_starts(tmp_path: Path) -> None:
    suite = load_suite(f"text:{corpus(tmp_path)}")
    assert isinstance(suite, StreamingSuite)
    small = tiny_shards(suite, 20)
    shards = small.shards()
    assert len(shards) > len(LINES)  # files are cut
    assert all(s.start == 0 or (Path(s.path).read_bytes()[s.start - 1:s.start] == b"\n")
               for s in shards)
    # reading every shard gives every document once, in file and line order
    docs = [d for s in shards for d in s.read()[0]]
    assert [d.id for d in docs] == [d.id for d in suite.documents]
    assert docs[1].id == "deu_Latn.txt:2" and docs[1].text == "Im Jahr 2024 gab es 366 Tage."
    assert small.sha256 == suite.sha256  # the content hash does not depend on the cut


@pytest.mark.parametrize("shard_bytes", [1, 17, 64, 10_000])
def test_results_do_not_depend_on_how_the_corpus_is_cut(tmp_path: Path, shard_bytes: int
                                                        ) -> None:
    suite = load_suite(f"text:{corpus(tmp_path)}")
    assert isinstance(suite, StreamingSuite)
    whole = run(TOKENIZERS, [suite.materialize()], None)
    cut = run(TOKENIZERS, [tiny_shards(suite, shard_bytes)], None)
    assert deterministic(cut) == deterministic(whole)
    assert cut.meta.suites["text:corpus"].documents == 10
    assert cut.meta.suites["text:corpus"].left_out == {"skipped_empty": 1}
    assert cut.value("bytes", "text:corpus", "deu_Latn", "tokens") == len(
        "".join(LINES["deu_Latn"]).encode())


def test_merging_statistics_is_addition_in_any_order() -> None:
    def part(ids: list[int], **sums: int) -> UnitStats:
        a = np.asarray(ids)
        u, c = np.unique(a, return_counts=True)
        return UnitStats({"all": SubsetStats(dict(sums), u, c)},
                         {"deu_Latn": {"1": sums.get("tokens", 0)}},
                         [FailureExample(Failure(kind="other"), sums["shard"], 0)],
                         {"other": 1})

    parts = [part([1, 2, 2], tokens=3, shard=0), part([2, 5], tokens=2, shard=1),
             part([9, 1, 1, 1], tokens=4, shard=2)]
    forward = UnitStats()
    for p in parts:
        forward.merge(p)
    backward = UnitStats()
    for p in reversed(parts):
        backward.merge(p)
    assert forward.to_dict() == backward.to_dict()
    hist = forward.subsets["all"].histogram
    assert hist is not None
    assert hist[0].tolist() == [1, 2, 5, 9] and hist[1].tolist() == [4, 3, 1, 1]
    assert forward.subsets["all"].sums["tokens"] == 9
    assert [f.shard for f in forward.failures] == [0, 1, 2]
    assert UnitStats.from_dict(forward.to_dict()).to_dict() == forward.to_dict()
    # a checkpointed failure example keeps where it was found beside the failure, not in it
    assert forward.to_dict()["failures"][1] == {"failure": {"tokenizer": "", "suite": "",
                                                            "doc_id": None, "kind": "other"},
                                                "shard": 1, "pos": 0}
    ids, counts = merge_histograms((np.array([3]), np.array([2])), (np.array([3]), np.array([5])))
    assert ids.tolist() == [3] and counts.tolist() == [7]
    # a few ids of a large vocabulary: sorted, never a dense array over the whole range
    hist = histogram(np.array([200_000, 7, 200_000, 150_001]))
    assert hist[0].tolist() == [7, 150_001, 200_000] and hist[1].tolist() == [1, 1, 2]
    ids, counts = merge_histograms(hist, (np.array([7, 9]), np.array([4, 1])))
    assert ids.tolist() == [7, 9, 150_001, 200_000] and counts.tolist() == [5, 1, 1, 2]
    assert ids.dtype == counts.dtype == np.int64


def test_process_pool_gives_the_same_rows_as_one_process() -> None:
    suites = ["unicode", "numbers", "multilingual?languages=eng_Latn,jpn_Jpan,deu_Latn"]
    one = run(TOKENIZERS, suites, None, jobs=1, throughput_repeats=1)
    two = run(TOKENIZERS, suites, None, jobs=2, throughput_repeats=1)
    assert two.meta.executor == {"kind": "ProcessExecutor", "workers": 2}
    assert deterministic(two) == deterministic(one)
    assert failures(two) == failures(one)
    assert two.meta.suites == one.meta.suites


def test_dask_local_cluster_gives_the_same_rows_as_a_local_run(tmp_path: Path) -> None:
    need_module("distributed", "pip install 'tokbench[dask]'")
    spec = f"text:{corpus(tmp_path)}"
    local = run(TOKENIZERS, [spec, "unicode"], ["compression", "roundtrip", "vocab_use"])
    dask = run(TOKENIZERS, [spec, "unicode"], ["compression", "roundtrip", "vocab_use"],
               executor="dask", jobs=2)
    assert dask.meta.executor == {"kind": "DaskExecutor", "workers": 2}
    assert deterministic(dask) == deterministic(local)
    assert failures(dask) == failures(local)


class ShardCalls:
    """Records which shards run (in this process, ``jobs=1``); ``stop_at`` interrupts the
    run as Ctrl-C would when that many shards have been started."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, stop_at: int | None = None) -> None:
        self.indexes: list[int] = []
        self.stop_at = stop_at
        self.real = work.process_shard  # the real one, however often this is patched
        monkeypatch.setattr(executors, "process_shard", self)

    def __call__(self, task: ShardTask):  # type: ignore[no-untyped-def]
        self.indexes.append(task.index)
        if len(self.indexes) == self.stop_at:
            raise KeyboardInterrupt
        return self.real(task)


def test_an_interrupted_run_resumes_from_its_finished_shards(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = tiny_shards(load_suite(f"text:{corpus(tmp_path)}"), 30)  # type: ignore[arg-type]
    n_shards = len(suite.shards())
    state = tmp_path / "state.json"
    ShardCalls(monkeypatch, stop_at=4)
    with pytest.raises(KeyboardInterrupt):
        run(TOKENIZERS, [suite], ["compression", "roundtrip"], state=state)
    assert state.exists()  # the three finished shards were written on the interruption

    calls = ShardCalls(monkeypatch)
    resumed = run(TOKENIZERS, [suite], ["compression", "roundtrip"], state=state,
                  resume=Results())
    assert sorted(calls.indexes) == list(range(3, n_shards))  # only the unfinished shards
    assert not state.exists()  # a finished run leaves no state behind
    fresh = run(TOKENIZERS, [suite], ["compression", "roundtrip"])
    assert deterministic(resumed) == deterministic(fresh)


def test_a_state_from_other_settings_is_not_reused(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    suite = tiny_shards(load_suite(f"text:{corpus(tmp_path)}"), 30)  # type: ignore[arg-type]
    state = tmp_path / "state.json"
    ShardCalls(monkeypatch, stop_at=2)
    with pytest.raises(KeyboardInterrupt):
        run(TOKENIZERS, [suite], ["compression"], state=state)
    calls = ShardCalls(monkeypatch)
    run(TOKENIZERS, [suite], ["compression", "roundtrip"], state=state, resume=Results())
    assert sorted(calls.indexes) == list(range(len(suite.shards())))  # different work: all redone


def test_invalid_utf8_is_found_before_any_work_with_file_and_line(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    bad = root / "deu_Latn.txt"
    bad.write_bytes(bad.read_bytes() + b"ok\nbad \xff here\n")
    with pytest.raises(InputError) as err:
        run(TOKENIZERS, [f"text:{root}"], ["compression"])
    assert str(err.value).startswith(f"{bad}: invalid UTF-8 at byte 71 (line 5, bytes ff); ")
    assert "?errors=replace" in str(err.value)
    skipped = run(TOKENIZERS, [f"text:{root}?errors=skip"], ["compression"])
    assert skipped.meta.suites["text:corpus"].left_out == {
        "skipped_empty": 1, "skipped_invalid": 1}


def test_a_file_changed_or_deleted_during_the_run_is_named(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    suite = tiny_shards(load_suite(f"text:{root}"), 30)  # type: ignore[arg-type]
    suite.shards()  # planned: hashed and cut
    jpn = root / "jpn_Jpan.txt"
    data = bytearray(jpn.read_bytes())
    data[28] = 0xFF  # the first byte of line 2 ("2024年...")
    jpn.write_bytes(bytes(data))
    # its bytes are checked against the planning pass's hash before they are decoded
    with pytest.raises(InputError, match=r"jpn_Jpan\.txt: file changed during the run \(bytes "
                                         r"0-\d+, line 1 on, differ from when the run "
                                         r"planned it\)"):
        run(TOKENIZERS, [suite], ["compression"])
    jpn.write_bytes(bytes(data[:20]))
    with pytest.raises(InputError, match=r"jpn_Jpan\.txt: file shrank during the run"):
        run(TOKENIZERS, [suite], ["compression"])
    (root / "jpn_Jpan.txt").unlink()
    with pytest.raises(InputError, match=r"jpn_Jpan\.txt: file not found \(was it moved or "
                                         "deleted during the run\\?\\)"):
        run(TOKENIZERS, [suite], ["compression"])


@dataclass(frozen=True)
class KillsItsWorkerOnce:
    """A shard whose first reading kills the worker process (as the OOM killer would)."""

    marker: str
    documents: tuple[Document, ...]
    nbytes: int = 10

    def read(self) -> tuple[list[Document], dict[str, int]]:
        if not os.path.exists(self.marker):
            Path(self.marker).write_text("killed once", encoding="utf-8")
            os._exit(9)
        return list(self.documents), {}


def test_a_killed_worker_is_replaced_and_its_shard_run_again(tmp_path: Path) -> None:
    docs = tuple(Document(f"d{i}", "eng_Latn", "x", f"text {i}") for i in range(6))
    pool = ProcessExecutor(2)
    pool.start("run-1", [], [("bytes", "bytes")])
    try:
        tasks = [ShardTask("run-1", "s", i, InlineDocs(docs[i:i + 1], 6), ("bytes",),
                           frozenset({"counts"}), "lang", False) for i in range(5)]
        tasks.append(ShardTask("run-1", "s", 5, KillsItsWorkerOnce(
            str(tmp_path / "marker"), docs[5:]), ("bytes",), frozenset({"counts"}), "lang",
            False))
        results = list(pool.map(tasks))
    finally:
        pool.close()
    assert sorted(r.index for r in results) == list(range(6))
    assert (tmp_path / "marker").exists()
    assert sum(r.stats["bytes"].subsets["all"].sums["tokens"] for r in results) == 6 * 6


def test_a_shard_that_raises_ends_the_run_with_its_message() -> None:
    work.install("run-2", [])
    task = ShardTask("run-2", "s", 0, InlineDocs((), 0), ("missing",), frozenset({"counts"}),
                     "lang", False)
    with pytest.raises(KeyError):
        list(executors.SerialExecutor().map([task]))


def test_a_third_party_metric_from_an_entry_point_is_computed_and_described(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "site"
    (pkg / "tbextra-1.0.dist-info").mkdir(parents=True)
    (pkg / "tbextra-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tbextra\nVersion: 1.0\n", encoding="utf-8")
    (pkg / "tbextra-1.0.dist-info" / "entry_points.txt").write_text(
        "[tokbench.metrics]\nunk_per_kb = tbextra_metrics:UNK_PER_KB\n", encoding="utf-8")
    (pkg / "tbextra_metrics.py").write_text(textwrap.dedent("""
        from tokbench.metrics import MetricInfo

        UNK_PER_KB = MetricInfo(
            "unk_per_kb", "lower", "unknown tokens per 1000 UTF-8 bytes",
            "1000 Σ unk / Σ bytes", family="extra", needs=("unk", "bytes"),
            compute=lambda s, ctx: 1000 * s["unk"] / s["bytes"] if s["bytes"] else None)
    """), encoding="utf-8")
    monkeypatch.syspath_prepend(str(pkg))
    monkeypatch.setattr(METRICS, "_entry_points_read", False)
    monkeypatch.setattr(METRICS, "_targets", dict(METRICS._targets))
    monkeypatch.setattr(METRICS, "_loaded", dict(METRICS._loaded))
    monkeypatch.setattr(METRICS, "_origins", dict(METRICS._origins))
    from tests._toy import ToyTokenizer

    tok = ToyTokenizer(["a", "b", " "])
    (tmp_path / "c.txt").write_text("ab xa\nbb\n", encoding="utf-8")  # one unknown: x
    results = run([tok], [f"text:{tmp_path / 'c.txt'}"], ["unk_per_kb"])
    assert results.meta.metric_families == ["extra"]
    assert results.value("toy", "text:c", "all", "unk_per_kb") == pytest.approx(1000 * 1 / 7)
    assert metric_info("unk_per_kb").direction == "lower"
    assert "tbextra_metrics" in sys.modules


def test_a_streamed_dataset_is_read_shard_by_shard_by_the_workers(tmp_path: Path) -> None:
    need_module("datasets", "pip install 'tokbench[datasets]'")
    files = []
    for k, lang in enumerate(("eng_Latn", "deu_Latn", "jpn_Jpan")):
        path = tmp_path / f"part{k}.jsonl"
        path.write_text("".join(f'{{"text": {json.dumps(t)}, "lg": "{lang}"}}\n'
                                for t in LINES[lang]), encoding="utf-8")
        files.append(str(path))
    spec = f"hf-dataset:json?data_files={','.join(files)}&lang_field=lg&streaming=true"
    streamed = load_suite(spec)
    assert isinstance(streamed, StreamingSuite) and len(streamed.shards()) == 3
    whole = load_suite(spec.replace("&streaming=true", ""))
    assert sorted(d.text for d in streamed) == sorted(d.text for d in whole)
    a = run(TOKENIZERS, [streamed], ["compression", "roundtrip"], jobs=2)
    b = run(TOKENIZERS, [whole], ["compression", "roundtrip"])
    assert deterministic(a) == deterministic(b)
    assert a.meta.suites["hf:json@train"].documents == 10
    assert a.value("chars", "hf:json@train", "jpn_Jpan", "tokens") == len(
        "".join(LINES["jpn_Jpan"]))
