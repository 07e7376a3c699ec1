"""pytest-benchmark benchmarks of tokbench's own hot paths.

They run once as plain tests by default (pyproject's ``--benchmark-disable``). To time
them and compare commits::

    pytest tests/bench --benchmark-enable --benchmark-autosave
    pytest tests/bench --benchmark-enable --benchmark-compare --benchmark-compare-fail=mean:10%
"""

from __future__ import annotations

import random
import re

import pytest

from tests._trained import hf_bpe_bytelevel
from tokbench.adapters import ADAPTERS
from tokbench.adapters.base import Tokenizer, align_spans
from tokbench.ci.compare import compare
from tokbench.metrics import FAMILIES
from tokbench.metrics.compute import TokenTable, measure_documents
from tokbench.record import RunMeta
from tokbench.results import Results, Row
from tokbench.suites import load_suite
from tokbench.suites.model import Suite

_WORD = re.compile(r"\w+")


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite("multilingual")


@pytest.fixture(scope="module")
def bpe() -> Tokenizer:
    return ADAPTERS.get("tokenizers")(hf_bpe_bytelevel(), name="bpe")


def test_measure_documents(benchmark, suite, bpe):
    """Every count of one tokenizer over the multilingual suite (fertility spans included)."""
    texts = [d.text for d in suite.documents]
    encodings = [bpe.encode(t) for t in texts]
    words = [[(m.start(), m.end()) for m in _WORD.finditer(t)] for t in texts]

    def measure():
        return measure_documents(TokenTable(bpe), texts, encodings, texts, words, numbers=True)

    counts = benchmark(measure)
    assert int(counts.tokens.sum()) == sum(len(e) for e in encodings)
    assert counts.roundtrip.all()
    assert int(counts.bytes.sum()) == sum(len(t.encode("utf-8")) for t in texts)


def _big_results(seed: int, tokenizers: int = 8, subsets: int = 40) -> Results:
    """8 tokenizers x 5 suites x 41 subsets x every metric: about 38,000 rows."""
    rng = random.Random(seed)
    metrics = [m for ms in FAMILIES.values() for m in ms]
    rows = []
    for t in range(tokenizers):
        for s in range(5):
            for k in range(subsets + 1):
                subset = "all" if k == 0 else f"lang{k:02d}"
                for m in metrics:
                    extra = {}
                    if m.startswith("throughput"):
                        samples = [rng.uniform(9.0, 11.0) for _ in range(5)]
                        extra = {"samples": samples, "spread": 0.2, "repeats": 5}
                    rows.append(Row(f"tok{t}", f"suite{s}", subset, m,
                                    rng.uniform(0.5, 5.0), extra))
    meta = {"suites": {f"suite{s}": {"sha256": "ab" * 32} for s in range(5)},
            "tokenizers": {f"tok{t}": {"backend_version": "1", "source": {"sha256": "cd" * 32}}
                           for t in range(tokenizers)}}
    return Results(rows=rows, meta=RunMeta.from_dict(meta))


@pytest.fixture(scope="module")
def big() -> tuple[Results, Results]:
    return _big_results(1), _big_results(2)


def test_results_to_json(benchmark, big):
    text = benchmark(big[0].to_json)
    assert text.count('"metric"') == len(big[0].rows)


def test_compare_big_results(benchmark, big):
    comp = benchmark(compare, *big)
    assert len(comp.rows) == len(big[0].rows)
    assert comp.regression  # random values: many rows are worse


def test_align_spans(benchmark, suite, bpe):
    text = "\n".join(d.text for d in suite.documents)
    data = text.encode("utf-8")
    pieces = [bpe.token_bytes(i) for i in bpe.encode(text)]
    spans = benchmark(align_spans, data, pieces)
    assert len(spans) == len(pieces)
    assert b"".join(data[s:e] for s, e in spans) == data
