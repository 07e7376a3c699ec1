"""Vocabulary-size sweeps: exact prefix vocabularies, the rule, the cost, resuming."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tokbench.errors import InputError
from tokbench.events import Event, Overlap, SizeDone, SizeStarted
from tokbench.record import RunMeta, SuiteInfo
from tokbench.results import Results, Row
from tokbench.suites.model import Document, Suite
from tokbench.training.sweep import (
    SweepConfig,
    check_sizes,
    cost_table,
    groups_of,
    metric_by_size,
    overlap_report,
    parse_sizes,
    recommend,
    size_label,
    sweep,
    train_sizes,
)
from tokbench.training.train import (
    CorpusTooSmallError,
    TrainConfig,
    bytelevel_prefix_limit,
    derive_bytelevel,
    load_corpus,
    read_sidecar,
    train_model,
)


def test_sizes_parse_and_label() -> None:
    assert parse_sizes("1k, 2k,4K,32000,1.5k,1m") == [1024, 2048, 4096, 32000, 1536, 1048576]
    assert [size_label(s) for s in (1024, 65536, 32000, 300)] == ["1k", "64k", "32000", "300"]
    with pytest.raises(InputError, match="'8x' is not a number"):
        parse_sizes("1k,8x")
    with pytest.raises(InputError, match=r"must increase: 4k \(4,096\) comes after 8k"):
        check_sizes([1024, 8192, 4096], 256)
    with pytest.raises(InputError, match=r"must increase: 2k .* comes after 2k"):
        check_sizes([2048, 2048], 256)
    with pytest.raises(InputError, match=r"vocabulary size 200 .* below the alphabet \(257\)"):
        check_sizes([200, 1024], 257, "the alphabet")


@pytest.mark.parametrize("config,full", [
    (TrainConfig(), 20473),
    (TrainConfig(special_tokens=("<s>", "</s>"), min_frequency=3, pretokenizer="gpt2",
                 split_digits=True), 11347),
], ids=["cl100k", "gpt2-specials-minfreq3"])
def test_derived_vocabularies_equal_direct_training(config: TrainConfig, full: int) -> None:
    """Cutting the longest run the corpus allows (every pair seen at least min-frequency
    times merged: 20,473 and 11,347 tokens) down to 1,000 and 11,000 gives exactly the
    tokenizer.json of training to those sizes directly.

    Why it holds (tokenizers 0.23, models/bpe/trainer.rs): words are counted once; the
    alphabet is every one of the 256 bytes (``initial_alphabet``), ids in code-point
    order after the special tokens; ``limit_alphabet`` is never set (it drops characters
    of equal count in hash-map order). Pairs wait in a max-heap ordered by count, ties
    by the smaller (id, id) pair; ids of merged tokens are handed out in merge order, so
    the same pair gets the same id in every run. A stale count is re-pushed and
    compared again, so each pop is the true maximum. The vocabulary size only decides
    when the loop stops, and ``min_frequency`` only stops it, so a run to V makes the
    first V - base merges of any longer run. The one exception — a merge whose string
    is already a token, which gives no new id and leaves two heap entries for a pair —
    is detected by ``bytelevel_prefix_limit`` and such sizes are trained directly.

    On this corpus ties are the rule, not an edge case: replaying the first 19,744 merges
    (cl100k, min frequency 2), 19,324 have the same count as the merge before them and
    7,771 have count 2. Sizes 1,000 and 11,000 land in both regimes.
    """
    corpus = load_corpus("multilingual")
    big = train_model(corpus, dataclasses.replace(config, vocab_size=30000), require_size=False)
    assert big.json_spec is not None
    assert big.vocab_size == full
    assert bytelevel_prefix_limit(big.json_spec) == full  # every merge made a new token
    for size in (1000, 11000):
        direct = train_model(corpus, dataclasses.replace(config, vocab_size=size)).json_spec
        cut = derive_bytelevel(big.json_spec, size)
        assert cut["model"]["merges"] == direct["model"]["merges"]  # type: ignore[index]
        assert cut["model"]["vocab"] == direct["model"]["vocab"]  # type: ignore[index]
        assert cut == direct


def test_prefix_limit_stops_at_a_merge_that_reuses_a_token() -> None:
    """A hand-made run whose third merge spells an existing token ("ab"+"c" after
    "a"+"bc"): sizes up to base + 2 are exact, larger ones cannot be cut."""
    from tokbench.adapters.hf_tokenizers import bytes_to_unicode

    alphabet = [bytes_to_unicode()[b] for b in range(256)]
    vocab = {c: i for i, c in enumerate(sorted(alphabet, key=ord))}
    for k, tok in enumerate(("bc", "abc", "ab")):
        vocab[tok] = 256 + k
    merges = [["b", "c"], ["a", "bc"], ["ab", "c"], ["a", "b"]]
    spec: dict[str, Any] = {"added_tokens": [], "model": {"type": "BPE", "vocab": vocab,
                                                            "merges": merges}}
    assert bytelevel_prefix_limit(spec) == 258
    assert len(derive_bytelevel(copy.deepcopy(spec), 258)["model"]["merges"]) == 2
    with pytest.raises(InputError, match="cannot be cut from this run"):
        derive_bytelevel(spec, 259)


def test_recommendation_rule_by_hand() -> None:
    """A: best 3.65 (8k), within 2% means >= 3.577: 4k (3.60) qualifies. B: best 3.0,
    needs >= 2.94: 4k (2.90, 3.33% below) does not, 8k does -> 8k, bound by B at 4k.
    Within 5%: A needs >= 3.4675 (2k: 3.50 ok), B needs >= 2.85 (4k) -> 4k."""
    sizes = [1024, 2048, 4096, 8192]
    bpt = {("s", "A"): {1024: 3.0, 2048: 3.5, 4096: 3.6, 8192: 3.65},
           ("s", "B"): {1024: 2.0, 2048: 2.5, 4096: 2.9, 8192: 3.0}}
    groups = list(bpt)
    rec = recommend(bpt, groups, sizes, 0.02)
    assert rec["size"] == 8192 and rec["met"] is True
    assert rec["binding"] == [{"suite": "s", "subset": "B", "size": 4096,
                               "below_best_pct": 3.333}]
    rec5 = recommend(bpt, groups, sizes, 0.05)
    assert rec5["size"] == 4096
    assert [b["subset"] for b in rec5["binding"]] == ["B"]  # A at 2k is 4.11% below: fine
    assert rec5["binding"][0]["below_best_pct"] == pytest.approx(16.667, abs=1e-3)
    # a curve that falls again: no size within 1% for both; the smallest worst shortfall wins
    odd = {("s", "A"): {1024: 3.0, 2048: 2.0}, ("s", "B"): {1024: 2.0, 2048: 3.0}}
    rec = recommend(odd, list(odd), [1024, 2048], 0.01)
    assert rec["met"] is False and rec["size"] == 1024 and rec["binding"] == []


def test_cost_by_hand() -> None:
    """2 suites of 500,000 bytes each; 1k makes 400,000 + 300,000 tokens, 2k 350,000 +
    250,000: 700,000 and 600,000 tokens per 1M bytes, 2k saves 1/7 = 14.2857%."""
    meta = RunMeta(suites={"a": SuiteInfo(bytes=500_000), "b": SuiteInfo(bytes=500_000)})
    rows = [Row("bpe-1k", "a", "all", "tokens", 400_000), Row("bpe-1k", "b", "all", "tokens",
                                                                  300_000),
            Row("bpe-2k", "a", "all", "tokens", 350_000), Row("bpe-2k", "b", "all", "tokens",
                                                                  250_000)]
    names = {"bpe-1k": 1024, "bpe-2k": 2048}
    untied = cost_table(Results(rows, meta), names, [1024, 2048], 4096, tied=False)
    assert [c["params"] for c in untied] == [2 * 1024 * 4096, 2 * 2048 * 4096]
    assert [c["tokens_per_mb"] for c in untied] == [700_000, 600_000]
    assert untied[1]["saved_vs_smallest_pct"] == pytest.approx(100 / 7)
    assert untied[1]["extra_params"] == 1024 * 4096 * 2
    tied = cost_table(Results(rows, meta), names, [1024, 2048], 1000, tied=True)
    assert [c["params"] for c in tied] == [1_024_000, 2_048_000]


def _suite(name: str, texts: list[str], lang: str = "eng_Latn") -> Suite:
    return Suite(name, "t", [Document(f"{name}:{i}", lang, "d", t) for i, t in enumerate(texts)],
                 source="test")


def test_overlap_counts_documents_by_normalized_text() -> None:
    train = ["The quick brown fox.", "line one of a file\nA sentence long enough to count here.",
             "something else"]
    held = _suite("eval", ["the  QUICK brown fox.", "Not in training.",
                           "a sentence long enough to count here.", "one of a file"])
    report = overlap_report(train, [held])
    assert report == [{"suite": "eval", "documents": 4, "overlapping": 2,
                       "examples": ["eval:0", "eval:2"]}]


def test_bytelevel_sweep_trains_once_and_an_interrupted_sweep_resumes(tmp_path: Path) -> None:
    corpus = load_corpus("multilingual?languages=eng_Latn,deu_Latn,rus_Cyrl")
    config = SweepConfig(sizes=(300, 600, 1200), train=TrainConfig(vocab_size=1200))
    log: list[Event] = []

    def interrupt(event: Event) -> None:
        log.append(event)
        if isinstance(event, SizeDone) and event.how == "derived":
            raise KeyboardInterrupt  # after the largest size and one cut were saved

    with pytest.raises(KeyboardInterrupt):
        train_sizes(corpus, config, tmp_path, interrupt)
    assert [(e.kind, e.name, e.how) for e in log
            if isinstance(e, (SizeStarted, SizeDone))] == [
        ("size_start", "bpe-1200", "trained"), ("size_done", "bpe-1200", "trained"),
        ("size_done", "bpe-300", "derived")]
    assert len(log) == 3
    side = read_sidecar(tmp_path / "tokenizers" / "bpe-300" / "tokenizer.json")
    assert side is not None and side["derived_from"]["vocab_size"] == 1200
    assert not (tmp_path / "tokenizers" / "bpe-600").exists()

    log.clear()
    done = train_sizes(corpus, config, tmp_path, log.append)
    assert [(d.name, d.how) for d in done] == [("bpe-300", "reused"), ("bpe-600", "derived"),
                                             ("bpe-1200", "reused")]
    assert not any(isinstance(e, SizeStarted) for e in log)  # no training at all

    # other settings are other vocabularies: nothing is reused
    log.clear()
    other = dataclasses.replace(config, train=TrainConfig(vocab_size=1200, split_digits=True))
    assert [d.how for d in train_sizes(corpus, other, tmp_path, log.append)] == \
        ["derived", "derived", "trained"]


def test_sizes_the_corpus_cannot_reach_are_named_and_the_rest_kept(tmp_path: Path) -> None:
    corpus = load_corpus("multilingual?languages=eng_Latn&limit=20")
    config = SweepConfig(sizes=(300, 5000, 6000), train=TrainConfig(vocab_size=6000))
    with pytest.raises(CorpusTooSmallError) as err:
        train_sizes(corpus, config, tmp_path)
    msg = str(err.value)
    assert "vocabulary size 5,000, 6,000" in msg and f"only {err.value.merges:,} merges" in msg
    assert 300 < err.value.max_vocab < 5000
    assert (tmp_path / "tokenizers" / "bpe-300" / "tokenizer.train.json").is_file()


def test_worker_sweep_resume_trains_only_missing_sizes(tmp_path: Path) -> None:
    """Unigram sizes train in worker processes; an interruption keeps the saved sizes
    and the next run trains exactly the sizes that are not on disk."""
    corpus = load_corpus("multilingual?languages=eng_Latn,fra_Latn&limit=80")
    unigram = TrainConfig(algo="unigram", backend="sentencepiece", vocab_size=800)
    config = SweepConfig(sizes=(300, 500, 800), train=unigram, workers=2)
    log: list[Event] = []

    def interrupt(event: Event) -> None:
        log.append(event)
        if isinstance(event, SizeDone):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_sizes(corpus, config, tmp_path, interrupt)
    names = ("unigram-300", "unigram-500", "unigram-800")
    saved = {n for n in names
             if (tmp_path / "tokenizers" / n / "tokenizer.train.json").is_file()}
    assert saved  # at least the size whose completion was reported
    log.clear()
    done = train_sizes(corpus, config, tmp_path, log.append)
    assert {d.name for d in done if d.how == "reused"} == saved
    assert {e.name for e in log if isinstance(e, SizeStarted)} == set(names) - saved
    assert all(d.trained.info["vocab_size"] == d.size for d in done)


def test_sweep_end_to_end(tmp_path: Path) -> None:
    corpus = load_corpus("multilingual?languages=eng_Latn,deu_Latn&limit=120")
    held = [_suite("held", ["Ein kleiner Test der Tokenisierung.", "A small tokenization test."]),
            load_corpus("multilingual?languages=eng_Latn,deu_Latn&limit=5").suites[0]]
    config = SweepConfig(sizes=(300, 600), train=TrainConfig(vocab_size=600), within=0.05)
    log: list[Event] = []
    run = sweep(corpus, held, config, tmp_path, log.append)
    overlap = [e for e in log if isinstance(e, Overlap)]
    assert [(o.suite, o.overlapping) for o in overlap] == [("multilingual", 10)]
    saved = Results.load(run.path)
    assert run.path == tmp_path / "sweep.json"
    sw = saved.meta.sweep
    assert sw is not None
    assert sw["sizes"] == [300, 600] and sw["names"] == ["bpe-300", "bpe-600"]
    assert sw["algo"] == "bpe" and sw["corpus_sha256"] == corpus.sha256
    assert "within 5%" in sw["rule"]
    assert sw["recommendation"]["name"] in ("bpe-300", "bpe-600")
    assert {r.tokenizer for r in saved.rows} == {"bpe-300", "bpe-600"}
    assert {r.metric for r in saved.rows} >= {"bytes_per_token", "fertility", "premium",
                                              "roundtrip", "unk_rate", "vocab_used"}
    assert not any(r.metric.startswith("throughput") for r in saved.rows)
    for name in ("bpe-300", "bpe-600"):  # byte-level BPE: lossless, nothing unknown
        assert saved.value(name, "held", "all", "roundtrip") == 1.0
        assert saved.value(name, "held", "all", "unk_rate") == 0.0
    bpt = {n: saved.value(n, "multilingual", "all", "bytes_per_token") for n in sw["names"]}
    assert bpt["bpe-600"] > bpt["bpe-300"]
    names = dict(zip(sw["names"], sw["sizes"], strict=True))
    again = recommend(metric_by_size(saved, names, "bytes_per_token"), groups_of(saved),
                      sw["sizes"], 0.05)
    assert again["size"] == sw["recommendation"]["size"]
    assert ("held", "eng_Latn") in groups_of(saved) and ("held", "all") not in groups_of(saved)


def test_sweep_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tokbench.cli import main

    corpus = "multilingual?languages=eng_Latn,spa_Latn&limit=100"
    out = tmp_path / "out"
    args = ["sweep", "--corpus", corpus, "--sizes", "300,512", "--suites",
            "multilingual?languages=eng_Latn,spa_Latn,jpn_Jpan", "--out", str(out),
            "--within", "3%", "--d-model", "512", "--tied"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "Recommended: bpe-" in captured.out and "warning:" in captured.err
    assert "Answer: train at" in captured.out  # one reconciled answer, with its reasons
    for name in ("sweep.json", "sweep.md", "sweep.png", "sweep_bytes_per_token.png",
                 "sweep_fertility.png", "sweep_cost.png"):
        assert (out / name).is_file(), name
    sw = json.loads((out / "sweep.json").read_text(encoding="utf-8"))["meta"]["sweep"]
    assert sw["config"]["within"] == 0.03 and sw["config"]["tied"] is True
    assert [c["params"] for c in sw["cost"]] == [300 * 512, 512 * 512]
    md = (out / "sweep.md").read_text(encoding="utf-8")
    assert "## Gain of each doubling" in md and "| jpn_Jpan |" in md and "**Recommended:" in md
    answer = sw["answer"]
    assert answer["size"] == sw["recommendation"]["size"] and answer["source"] == "sweep"
    assert f"**Answer: train at {answer['size']:,} tokens** (the sweep's rule)." in md
    if answer["size"] == 512:  # the largest size tried: say so, and what to add
        assert answer["extend"] == ["1k", "2k"] and "the largest size tried" in md

    assert main(["sweep", "--corpus", corpus, "--sizes", "512,300", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--sizes must increase: 300 (300) comes after 512 (512)" in err
    assert main(["sweep", "--corpus", corpus, "--sizes", "100,300", "--out", str(out)]) == 2
    assert "vocabulary size 100 (100) is below" in capsys.readouterr().err
