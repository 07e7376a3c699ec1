"""Empty shards, subsets and files are ordinary: any cut of a corpus into shards (many of
them holding no document) gives exactly the rows of the uncut run (issue 20, item 2)."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokbench
from tokbench.errors import InputError
from tokbench.suites import load_suite
from tokbench.suites.stream import StreamingSuite

#: every family that does not time anything (timings differ between runs)
FAMILIES = ["compression", "fertility", "roundtrip", "unknown", "vocab_use", "numbers"]
LINES = st.one_of(st.just(""), st.just("   "), st.text(
    st.sampled_from("ab 12\u00e9\u4e2d\U0001f600"), min_size=1, max_size=12))


def _rows(suite: StreamingSuite, shard_bytes: int) -> list[tuple[Any, ...]]:
    cut = dataclasses.replace(suite, shard_bytes=shard_bytes, meta=dict(suite.meta))
    res = tokbench.run(["bytes", "chars"], [cut], FAMILIES, jobs=1)
    assert not res.meta.errors
    return sorted((r.tokenizer, r.suite, r.subset, r.metric, r.value, sorted(r.extra.items()))
                  for r in res.rows)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.lists(st.lists(LINES, max_size=8), min_size=1, max_size=3),
       shard_bytes=st.integers(1, 40))
def test_any_cut_gives_the_rows_of_the_uncut_run(files: list[list[str]], shard_bytes: int
                                                 ) -> None:
    if not any(line for lines in files for line in lines):
        files = [*files, ["x"]]  # a suite needs one document (an empty one is an error)
    with tempfile.TemporaryDirectory() as tmp:
        for i, lines in enumerate(files):
            (Path(tmp) / f"f{i}.txt").write_text("".join(f"{line}\n" for line in lines),
                                                 encoding="utf-8")
        suite = load_suite(f"text:{tmp}")
        assert isinstance(suite, StreamingSuite)
        assert _rows(suite, shard_bytes) == _rows(suite, 1 << 30)


def test_per_shard_hashes_cover_every_byte(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"one\n\n\ntwo three\nfour\n" * 50)
    suite = load_suite(f"text:{path}")
    assert isinstance(suite, StreamingSuite)
    shards = dataclasses.replace(suite, shard_bytes=7).shards()
    data = path.read_bytes()
    assert len(shards) > 10 and shards[-1].end == len(data)
    for s in shards:
        assert s.sha256 == hashlib.sha256(data[s.start:s.end]).hexdigest()


def test_a_shard_changed_in_place_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"first line\nsecond line\n")
    shard = load_suite(f"text:{path}").shards()[0]  # type: ignore[union-attr]
    path.write_bytes(b"first line\nSECOND LINE\n")  # same size, other bytes
    with pytest.raises(InputError, match=r"a\.txt: file changed during the run \(bytes 0-23, "
                                         r"line 1 on"):
        shard.read()


SENTENCES = st.text(st.sampled_from("ab 12.\u00e9\u4e2d"), min_size=1, max_size=10)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.tuples(SENTENCES, SENTENCES), min_size=1, max_size=6),
       cuts=st.lists(st.integers(0, 12), max_size=6))
def test_any_cut_of_a_parallel_suite_gives_the_rows_of_the_uncut_run(
        texts: list[tuple[str, str]], cuts: list[int]) -> None:
    """In-memory shards cut anywhere, empty ones included (premium and fairness too)."""
    from unittest import mock

    from tokbench.engine import runner
    from tokbench.engine.work import InlineDocs
    from tokbench.suites.model import Document, Suite

    docs = [Document(f"{lang}:{i}", lang, "d", pair[k], align=str(i))
            for i, pair in enumerate(texts) for k, lang in enumerate(("eng_Latn", "deu_Latn"))]
    suite = Suite("par", "1", docs, parallel=True, subset_by="lang")
    bounds = sorted({0, len(docs), *(min(c, len(docs)) for c in cuts)})
    bounds = [0, *bounds, *bounds[-1:]]  # an empty first and last shard as well

    def cut(s: Any, workers: int) -> tuple[list[Any], int]:
        return [InlineDocs(tuple(s.documents[a:b]), sum(len(d.text.encode()) for d in
                                                        s.documents[a:b]))
                for a, b in itertools.pairwise(bounds)], -1

    def rows() -> list[tuple[Any, ...]]:
        res = tokbench.run(["bytes", "chars"], [suite], [*FAMILIES, "premium"], jobs=1)
        return sorted((r.tokenizer, r.subset, r.metric, r.value) for r in res.rows)

    whole = rows()
    with mock.patch.object(runner, "_shards", cut):
        assert rows() == whole
    assert any(m == "premium" for _, _, m, _ in whole)
