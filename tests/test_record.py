"""The typed run record: results.json round-trips byte for byte through ``from_dict`` and
``to_dict``, unknown keys included, and a wrongly typed key is a one-line error naming it."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._toy import ToyTokenizer
from tokbench.engine.runner import run
from tokbench.errors import InputError
from tokbench.record import (
    Failure,
    RunError,
    RunMeta,
    SuiteInfo,
    TokenizerInfo,
    TokenizerSource,
)
from tokbench.results import Results, Row


@pytest.fixture(scope="module")
def run_json(tmp_path_factory: pytest.TempPathFactory) -> str:
    """results.json of a real run with every kind of entry: a tokenizer that raises on
    some documents, one that decodes lossily, one with unknown tokens, a suite with an
    invalid line left out, and a tokenizer that fails to load."""
    corpus = tmp_path_factory.mktemp("corpus") / "bad.txt"
    corpus.write_bytes(b"ab ba\nbad \xff line\n\nabc\n")
    pieces = list(string.ascii_letters + " ")
    toks = [ToyTokenizer(pieces, name="unk"), ToyTokenizer(pieces, unk=False, name="raises"),
            ToyTokenizer(pieces, lossy={"a": "b"}, name="lossy"), "file:/nonexistent/tok.json"]
    results = run(toks, ["unicode?limit=4", f"text:{corpus}?errors=replace"],
                  ["compression", "roundtrip"], throughput_repeats=1)
    return results.to_json()


def test_a_runs_results_round_trip_byte_for_byte(run_json: str) -> None:
    data = json.loads(run_json)
    meta = data["meta"]
    # the run has every part of the record this test is about
    assert {f["kind"] for f in data["failures"]} >= {"error", "unknown_token", "other"}
    assert meta["errors"][0]["tokenizer"] == "file:/nonexistent/tok.json"
    assert any(s.get("left_out") for s in meta["suites"].values())
    assert {"failure_counts", "finished_units", "segmenters", "timings", "executor",
            "metric_formulas", "warnings"} <= set(meta)
    back = Results.from_dict(data)
    assert back.to_json() == run_json
    assert isinstance(back.meta, RunMeta) and isinstance(back.failures[0], Failure)
    assert back.meta.errors[0].subject == "tokenizer file:/nonexistent/tok.json"
    # each part alone gives back the same object
    assert RunMeta.from_dict(meta).to_dict() == meta
    assert [Failure.from_dict(f).to_dict() for f in data["failures"]] == data["failures"]


def test_typed_access_gives_the_recorded_values(run_json: str) -> None:
    results = Results.from_dict(json.loads(run_json))
    meta = results.meta
    assert list(meta.tokenizers) == ["lossy", "raises", "unk"]
    unk = meta.tokenizers["unk"]
    assert (unk.backend, unk.vocab_size, unk.unk_id, unk.source.kind) == ("toy", 54, 53,
                                                                          "builtin")
    assert unk.spec is None  # given as an object, not a name
    bad = next(s for name, s in meta.suites.items() if name.startswith("text:"))
    assert (bad.documents, bad.left_out) == (3, {"replaced_invalid": 1, "skipped_empty": 1})
    assert meta.complete is True and meta.metric_families == ["compression", "roundtrip"]
    raised = [f for f in results.failures if f.kind == "error"]
    assert raised and all(f.tokenizer == "raises" and f.error for f in raised)
    lossy = [f for f in results.failures if f.tokenizer == "lossy" and f.kind == "other"]
    assert lossy and all(f.offset is not None and f.expected is not None for f in lossy)


#: metas as the existing tests and older or third-party producers write them: partial,
#: with nulls, with keys this version does not know
FIXTURES: list[dict[str, Any]] = [
    {},
    {"z": 1, "a": {"y": 2, "b": 3}},
    {"complete": False},
    {"errors": [{"tokenizer": "gpt2", "error": "offline"}, {"suite": "x", "error": "gone"}]},
    {"git_commit": None, "created": None, "tokbench_version": None},
    {"tokenizers": {"a": {}, "b": {"backend_version": "1", "source": {"sha256": "cd" * 32}}},
     "suites": {"s": {}, "multi": {"sha256": "s1", "documents": None}}},
    {"settings": {"fertility": "context/words"}, "segmenters": {"eng_Latn": None},
     "suites": {"s": {"languages": ["eng_Latn"]}},
     "metric_formulas": {"tokens": "Σ tokens"}},
    {"machine": {"hostname": "ci-1", "cpus": 2}, "plugin": {"anything": [1, None, "x"]},
     "tokenizers": {"t": {"name": "t", "encoding": "cl100k_base", "gguf": {"flags": {}},
                          "source": {"kind": "file", "path": "/x", "mirror": "y"}}},
     "suites": {"s": {"streaming": True, "shards": 3, "description": "d"}},
     "sweep": {"sizes": [1000], "names": ["bpe-1k"]}, "recommend": {"k": 1},
     "speed": {"load_average_start": None}, "warnings": [], "timings": {"wall": 1.5}},
]


@pytest.mark.parametrize("meta", FIXTURES, ids=range(len(FIXTURES)))
def test_partial_and_third_party_metas_round_trip(meta: dict[str, Any]) -> None:
    assert RunMeta.from_dict(meta, "meta").to_dict() == meta
    results = Results(rows=[Row("t", "s", "all", "tokens", 1)], meta=RunMeta.from_dict(meta),
                      failures=[Failure.from_dict({"tokenizer": "t", "doc_id": "d", "x": 1})])
    text = results.to_json()
    assert Results.from_dict(json.loads(text)).to_json() == text
    assert json.loads(text)["meta"] == meta


def test_fixtures_of_the_other_tests_round_trip(tmp_path: Path) -> None:
    from tests.test_history import _run
    from tests.test_html_report import hand_results

    for results in (hand_results(), _run("c1", "2025-01-01T00:00:00Z", 1.5)):
        path = results.save(tmp_path / "results.json")
        text = path.read_text(encoding="utf-8")
        assert Results.load(path).to_json() == text == results.to_json()


def test_a_value_set_after_loading_is_written_and_an_unset_one_is_not() -> None:
    meta = RunMeta.from_dict({"created": "2025-01-01T00:00:00Z"})
    assert meta.to_dict() == {"created": "2025-01-01T00:00:00Z"}
    meta.recommend = {"k": 1}
    meta.errors.append(RunError(tokenizer="x", error="no"))
    assert meta.to_dict() == {"created": "2025-01-01T00:00:00Z",
                              "errors": [{"tokenizer": "x", "error": "no"}],
                              "recommend": {"k": 1}}
    assert meta.has("created") and not meta.has("complete") and meta.complete is True


def test_a_record_built_in_code_writes_nulls_only_where_they_mean_something() -> None:
    assert TokenizerInfo(name="t").to_dict() == {
        "name": "t", "backend": None, "backend_version": None,
        "source": {"kind": None, "location": None, "sha256": None, "path": None},
        "vocab_size": None, "unk_id": None, "byte_fallback": None, "special_tokens": {}}
    assert SuiteInfo(name="s").to_dict() == {
        "name": "s", "version": None, "sha256": None, "source": None, "spec": None,
        "parallel": False, "subset_by": None, "documents": None, "languages": []}
    assert RunError(suite="text:x", error="gone").to_dict() == {"suite": "text:x",
                                                                "error": "gone"}
    assert RunError(suite="text:x").subject == "suite text:x"


@pytest.mark.parametrize(("meta", "says"), [
    ([], "meta must be an object, got an array"),
    ({"complete": "yes"}, "meta.complete must be true or false, got a string"),
    ({"suites": []}, "meta.suites must be an object, got an array"),
    ({"suites": {"s": {"documents": "3"}}},
     "meta.suites.s.documents must be an integer or null, got a string"),
    ({"tokenizers": {"b": {"source": True}}},
     "meta.tokenizers.b.source must be an object, got true or false"),
    ({"tokenizers": {"b": {"special_tokens": {"<s>": 1.5}}}},
     "meta.tokenizers.b.special_tokens.<s> must be an integer, got a number"),
    ({"errors": [{"error": 3}]}, "meta.errors[0].error must be a string, got an integer"),
    ({"metric_families": ["a", None]}, "meta.metric_families[1] must be a string, got null"),
    ({"timings": {"wall_s": "1"}}, "meta.timings.wall_s must be a number, got a string"),
])
def test_a_wrongly_typed_key_is_one_line_naming_it(meta: Any, says: str) -> None:
    with pytest.raises(InputError) as e:
        RunMeta.from_dict(meta, "meta", "r.json")
    assert str(e.value) == f"r.json: {says}"


def test_a_wrongly_typed_failure_names_its_index() -> None:
    data = json.loads(Results(failures=[Failure(tokenizer="t", suite="s", doc_id="d")]).to_json())
    data["failures"][0]["offset"] = "7"
    with pytest.raises(InputError, match=r"^r.json: failures\[0\].offset must be an integer "
                                         r"or null, got a string$"):
        Results.from_dict(data, "r.json")


_TEXT = st.text(max_size=8)
_OPT_TEXT = st.none() | _TEXT
_EXTRA_KEYS = st.text(min_size=1, max_size=6).filter(
    lambda k: k not in {f for c in (RunMeta, TokenizerInfo, TokenizerSource, SuiteInfo, RunError)
                        for f in c.__dataclass_fields__})
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | _TEXT,
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(_TEXT, inner, max_size=3), max_leaves=6)


def _partial(required: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with any subset of ``required``'s keys, plus unknown keys."""
    return st.builds(lambda known, extra: {**extra, **known},
                     st.fixed_dictionaries({}, optional=required),
                     st.dictionaries(_EXTRA_KEYS, _JSON, max_size=2))


_TOKENIZER = _partial({"name": _TEXT, "backend": _OPT_TEXT, "vocab_size": st.none()
                       | st.integers(), "unk_id": st.none() | st.integers(),
                       "byte_fallback": st.none() | st.booleans(),
                       "special_tokens": st.dictionaries(_TEXT, st.integers(), max_size=2),
                       "source": _partial({"kind": _OPT_TEXT, "sha256": _OPT_TEXT}),
                       "spec": _TEXT})
_SUITE = _partial({"name": _TEXT, "sha256": _OPT_TEXT, "parallel": st.booleans(),
                   "documents": st.none() | st.integers(), "languages": st.lists(_TEXT),
                   "left_out": st.dictionaries(_TEXT, st.integers(), max_size=2)})
_META = _partial({"git_commit": _OPT_TEXT, "complete": st.booleans(),
                  "machine": st.dictionaries(_TEXT, _JSON, max_size=2),
                  "tokenizers": st.dictionaries(_TEXT, _TOKENIZER, max_size=2),
                  "suites": st.dictionaries(_TEXT, _SUITE, max_size=2),
                  "errors": st.lists(_partial({"tokenizer": _TEXT, "error": _TEXT}),
                                     max_size=2),
                  "warnings": st.lists(_TEXT, max_size=2),
                  "segmenters": st.dictionaries(_TEXT, _OPT_TEXT, max_size=2),
                  "timings": st.dictionaries(_TEXT, st.floats(allow_nan=False), max_size=2),
                  "finished_units": st.lists(st.lists(_TEXT, max_size=2), max_size=2)})


@settings(max_examples=150, deadline=None)
@given(meta=_META)
def test_any_well_typed_meta_round_trips(meta: dict[str, Any]) -> None:
    assert RunMeta.from_dict(meta, "meta").to_dict() == meta
