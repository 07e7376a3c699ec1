"""Real runs shared by the tests of a run's other processes (``test_split``,
``test_helper``, the render worker's ``test_plot_parts`` and ``test_plot_cache``): a corpus
of several shards, the check that a run over two processes gives one process's results,
and waiting for another process."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

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


def wait_for(condition: Callable[[], bool], seconds: float = 120.0) -> None:
    """Until ``condition()`` holds (another process got there), failing after ``seconds``."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "waited too long"
        time.sleep(0.01)
