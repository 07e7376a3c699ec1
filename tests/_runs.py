"""Real runs shared by the tests of a run's second process (``test_split``,
``test_helper``): a corpus of several shards, and the check that a run over two processes
gives one process's results."""

from __future__ import annotations

import random

from tokbench.results import Results
from tokbench.suites.model import Document, Suite

WORDS = ["token", "Wörter", "слово", "语言", "テキスト", "λέξη", "12345", "naïve", "😀"]


def sharded_corpus(docs: int = 30_000) -> Suite:
    """About 1.3 MB of text in three languages: several shards (``MIN_SHARD_BYTES`` is
    256 KB)."""
    rng = random.Random(7)
    return Suite("helped", "1", [
        Document(f"d{i}", ("eng_Latn", "rus_Cyrl", "jpn_Jpan")[i % 3], "x",
                 " ".join(rng.choices(WORDS, k=rng.randint(3, 9)))) for i in range(docs)])


def same_as_serial(got: Results, one: Results) -> None:
    """Every non-timing row equal and in the same order; failures and meta as one
    process's; timing rows the same keys in the same order."""
    def rows(r: Results) -> list[object]:
        return [x.key if x.metric.startswith("throughput") else x.to_dict() for x in r.rows]

    assert rows(got) == rows(one)
    assert [f.to_dict() for f in got.failures] == [f.to_dict() for f in one.failures]
    a, b = got.meta.to_dict(), one.meta.to_dict()
    for key in ("tokenizers", "suites", "errors", "warnings", "finished_units",
                "failure_counts", "segmenters", "settings", "metric_families", "complete"):
        assert a.get(key) == b.get(key), key
