"""results.json's writer: the same bytes as ``json.dumps(..., ensure_ascii=False, indent=1)``
(the way it was written before), for a real run's results and for any JSON value."""

from __future__ import annotations

import enum
import json
import math
from collections import namedtuple
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._toy import ToyTokenizer
from tokbench import jsontext
from tokbench.engine.runner import Settings, run
from tokbench.results import Results, Row


def reference(obj: Any, indent: int = 1) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=indent)


@pytest.fixture(scope="module")
def real_results() -> Results:
    """A real run: the byte baseline and a toy tokenizer with unknown tokens (failures,
    round-trip rows), every default metric family (intervals, paired rows, timing
    samples as lists)."""
    toy = ToyTokenizer(list("abcdefghijklmnopqrstuvwxyz "))
    return run(["bytes", toy], ["multilingual"], None,
               settings=Settings(throughput_repeats=1, throughput_subsets=False))


def test_a_real_runs_results_json_is_json_dumps_of_its_dict(real_results: Results) -> None:
    results = real_results
    kinds = {type(v) for r in results.rows for v in r.extra.values()}
    assert {float, int, str, bool, list} <= kinds  # every shape a row takes
    assert results.failures
    expected = reference(results.to_dict()) + "\n"
    assert results.to_json() == expected
    assert results.to_json() == expected  # the second time from the rows' kept texts


def test_a_row_changed_after_a_write_is_written_anew(real_results: Results) -> None:
    results = Results(rows=[Row(r.tokenizer, r.suite, r.subset, r.metric, r.value,
                                dict(r.extra)) for r in real_results.rows],
                      meta=real_results.meta)
    results.to_json()
    listed = next(r for r in results.rows if any(type(v) is list for v in r.extra.values()))
    key = next(k for k, v in listed.extra.items() if type(v) is list)
    first, plain = results.rows[0], results.rows[1]
    listed.extra[key] = [*listed.extra[key], 0.5]  # a new list
    first.value = 1.0 if first.value != 1.0 else 2.0
    plain.extra["note"] = "x"
    assert results.to_json() == reference(results.to_dict()) + "\n"
    listed.extra[key].append(0.25)  # the same list, changed in place
    listed.extra[key][0] = 7  # an int where a float was: same value, other text
    plain.extra["nested"] = {"a": [1]}  # a list in a dict: not kept, made each time
    assert results.to_json() == reference(results.to_dict()) + "\n"
    plain.extra["nested"]["a"].append(2)
    assert results.to_json() == reference(results.to_dict()) + "\n"
    assert '"nested": {\n    "a": [\n     1,\n     2\n    ]\n   }' in results.to_json()


def test_a_row_keeps_its_text_until_it_changes() -> None:
    row = Row("t", "s", "all", "m", 1 / 3, {"ci_low": 0.25, "samples": [1.0, 2.0]})
    text = row.json_text()
    assert text == ('{\n   "tokenizer": "t",\n   "suite": "s",\n   "subset": "all",\n'
                    '   "metric": "m",\n   "value": 0.333333,\n   "ci_low": 0.25,\n'
                    '   "samples": [\n    1.0,\n    2.0\n   ]\n  }')
    assert row.json_text() is text
    row.extra["samples"][1] = 3.0
    assert '    3.0\n' in row.json_text()
    row.extra["samples"].insert(0, 0.5)
    assert '    0.5,\n    1.0,\n    3.0\n' in row.json_text()


FLOATS = st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 1e-320, 5e-324, 1e16, 1e22,
                                                  1.7976931348623157e308, 0.1, -1e-7,
                                                  math.inf, -math.inf, math.nan]))
#: every code point, lone surrogates included (json writes them as they are)
TEXT = st.text(st.characters(codec=None, categories=None), max_size=12)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-2**80, 2**80),
                    FLOATS, TEXT)
KEYS = st.one_of(TEXT, st.integers(), FLOATS, st.booleans(), st.none())
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.lists(inner, max_size=3).map(tuple),
                            st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(VALUES, st.integers(0, 4))
def test_any_json_value_is_written_as_json_dumps_writes_it(value: Any, indent: int) -> None:
    assert jsontext.dumps(value, indent) == reference(value, indent)


@settings(max_examples=200, deadline=None)
@given(VALUES, st.integers(0, 3))
def test_a_part_encoded_for_its_level_reads_as_if_written_in_place(value: Any,
                                                                    depth: int) -> None:
    def nest(v: Any) -> Any:
        for _ in range(depth):
            v = {"k": [v]}
        return v

    part = jsontext.Encoded(jsontext.dumps(value, 1, 2 * depth))
    assert jsontext.dumps(nest(part)) == reference(nest(value))


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


class Ratio(float):
    def __repr__(self) -> str:
        return "ratio"


def test_subclasses_are_written_as_json_writes_them() -> None:
    pair = namedtuple("pair", "a b")
    value = {"level": Level.HIGH, Level.HIGH: Name("x"), "ratio": Ratio(0.5),
             "pair": pair(1, [Ratio(2.0)]), Name("k"): [Level.HIGH]}
    assert jsontext.dumps(value) == reference(value)
    assert '"level": 3' in jsontext.dumps(value) and '"ratio": 0.5' in jsontext.dumps(value)


def test_what_json_refuses_raises_jsons_own_error() -> None:
    cycle: list[Any] = [1]
    cycle.append({"a": cycle})
    for bad, error, message in ((cycle, ValueError, "Circular reference detected"),
                                ({"a": {1, 2}}, TypeError, "type set is not JSON serializable"),
                                ({(1, 2): 3}, TypeError, "keys must be str, int, float, bool "
                                                         "or None, not tuple")):
        with pytest.raises(error, match=message):
            jsontext.dumps(bad)
        with pytest.raises(error, match=message):
            reference(bad)
