"""The results schema: stable order, rounding, load/save, bad files."""

from __future__ import annotations

import json

import pytest

from tests._toy import ToyTokenizer
from tokbench.engine.runner import run
from tokbench.errors import InputError
from tokbench.metrics import metric_info
from tokbench.record import Failure, RunMeta
from tokbench.render.markdown import render_markdown
from tokbench.render.tables import build_tables, format_value
from tokbench.results import SCHEMA_VERSION, Results, Row, round_value
from tokbench.suites.model import Document, Suite


def test_round_value_keeps_six_significant_digits():
    assert round_value(1 / 3) == 0.333333
    assert round_value(123456.789) == 123457.0
    assert round_value(0.000123456789) == 0.000123457
    assert round_value(float("nan")) is None
    assert round_value(7) == 7


def test_rows_are_sorted_and_keys_stable():
    r = Results(rows=[Row("b", "s", "all", "tokens", 2), Row("a", "s", "all", "tokens", 1)],
                meta=RunMeta.from_dict({"z": 1, "a": {"y": 2, "b": 3}}))
    d = r.to_dict()
    assert [x["tokenizer"] for x in d["rows"]] == ["a", "b"]
    assert list(d) == ["schema", "schema_version", "meta", "rows", "failures"]
    assert list(d["meta"]) == ["a", "z"] and list(d["meta"]["a"]) == ["b", "y"]
    assert list(d["rows"][0]) == ["tokenizer", "suite", "subset", "metric", "value"]


def test_save_load_roundtrip(tmp_path):
    r = Results(rows=[Row("a", "s", "all", "bytes_per_token", 1 / 3, {"spread": 0.25})],
                meta=RunMeta.from_dict({"k": "v"}),
                failures=[Failure.from_dict({"tokenizer": "a", "doc_id": "d1"})])
    path = r.save(tmp_path)
    assert path.name == "results.json"
    back = Results.load(tmp_path)
    assert back.to_json() == r.to_json()
    assert back.rows[0].extra == {"spread": 0.25}


def test_two_identical_runs_give_identical_rows():
    tok = ToyTokenizer(["a", "b", " "])
    suite = Suite("s", "1", [Document("d", "eng_Latn", "x", "ab ba")])
    a = run([tok], [suite], ["compression", "roundtrip", "unknown", "vocab_use"])
    b = run([tok], [suite], ["compression", "roundtrip", "unknown", "vocab_use"])
    assert [x.to_dict() for x in a.sorted_rows()] == [x.to_dict() for x in b.sorted_rows()]
    assert a.meta.suites["s"].sha256 == b.meta.suites["s"].sha256


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "not valid JSON"),
    (json.dumps({"rows": []}), "not a tokbench results file"),
    (json.dumps({"schema": "tokbench.results", "schema_version": SCHEMA_VERSION + 1}),
     "newer than this tokbench understands"),
])
def test_bad_results_files_give_one_line_errors(tmp_path, content, message):
    p = tmp_path / "results.json"
    p.write_text(content)
    with pytest.raises(InputError, match=message) as e:
        Results.load(p)
    assert "\n" not in str(e.value)
    assert str(p) in str(e.value)


def test_missing_results_file(tmp_path):
    with pytest.raises(InputError, match="no such results file"):
        Results.load(tmp_path / "nope")


def test_tables_mark_the_best_value_by_direction():
    r = Results(rows=[Row("a", "s", "all", "bytes_per_token", 2.0),
                      Row("b", "s", "all", "bytes_per_token", 3.0),
                      Row("a", "s", "all", "fertility", 1.5),
                      Row("b", "s", "all", "fertility", 1.2)],
                meta=RunMeta.from_dict({"tokenizers": {"a": {}, "b": {}}, "suites": {"s": {}}}))
    tables = {t.metric.name: t for t in build_tables(r)}
    assert tables["bytes_per_token"].best["all"] == {"b"}  # higher is better
    assert tables["fertility"].best["all"] == {"b"}  # lower is better
    md = render_markdown(r)
    assert "| bytes_per_token ↑ | 2.0000 | **3.0000** |" in md
    assert "| fertility ↓ | 1.5000 | **1.2000** |" in md


def test_format_value():
    assert format_value(0.98765, metric_info("roundtrip")) == "98.77%"
    assert format_value(12345, metric_info("tokens")) == "12,345"
    assert format_value(None, metric_info("tokens")) == "–"
    assert format_value(3.14159, metric_info("bytes_per_token")) == "3.1416"


def test_to_frame_has_one_row_per_value():
    tok = ToyTokenizer(["a", "b"])
    suite = Suite("s", "1", [Document("d", "eng_Latn", "x", "ab")])
    df = run([tok], [suite], ["compression"]).to_frame()
    assert set(df["metric"]) == {"tokens", "bytes_per_token", "chars_per_token"}
    assert df.loc[(df.metric == "tokens") & (df.subset == "all"), "value"].item() == 2
    assert len(df) == 6  # subsets "all" and "eng_Latn"
