"""Fuzzing every parser of user input: any input gives a result or a ``TokbenchError``.

Tokenizer specs, suite specs with options, ``run`` config files and flags, and
results.json loading (plus what the renderers and ``compare`` then do with a loaded
file). Nothing else may escape: no KeyError, TypeError, AttributeError, MarkupError...
Cases found here are also rows of tests/test_bad_input.py.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokbench.errors import TokbenchError

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# text that looks like specs: separators and option syntax are common, names are real
SPEC_PIECES = st.sampled_from([
    "gpt2", "bytes", "chars", "cl100k_base", "tiktoken", "hf", "hub", "file", "text", "code",
    "manifest", "flores200", "hf-dataset", "unicode", "numbers", "japanese", ":", "?", "&",
    "=", ",", "@", "/", "..", "%", "%zz", "%00", "[", "]", "[/]", "errors", "replace", "skip",
    "strict", "limit", "name", "languages", "domains", "eng_Latn", "-1", "0", "1", "x", " ",
    "\x00", "é", "\ud800", "~", "nan",
])
specs = st.one_of(st.text(max_size=40), st.lists(SPEC_PIECES, max_size=12).map("".join))


def _only_tokbench_errors(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except TokbenchError as e:
        assert str(e).strip(), "an error must say something"
        return None


# -- tokenizer specs ------------------------------------------------------------------------------

@FUZZ
@given(spec=specs)
def test_tokenizer_spec_parser(spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                               ) -> None:
    from tokbench.loading.loader import parse_tokenizer_spec, recipes_for

    monkeypatch.chdir(tmp_path)
    parsed = _only_tokbench_errors(parse_tokenizer_spec, spec)
    if parsed is not None:
        _only_tokbench_errors(recipes_for, parsed)


# -- suite specs with options ---------------------------------------------------------------------

@FUZZ
@given(spec=specs)
def test_suite_spec_parser(spec: str) -> None:
    from tokbench.suites import parse_suite_spec, split_suite_specs

    _only_tokbench_errors(parse_suite_spec, spec)
    for piece in split_suite_specs([spec]):
        assert piece.strip()


OPTION_KEYS = st.sampled_from(["errors", "languages", "domains", "limit", "name", "lang",
                               "per_file", "parallel", "pivot", "subset_by", "domain",
                               "seed", "count", "split", "max_bytes", "bogus", ""])
OPTION_VALUES = st.one_of(st.sampled_from(["replace", "skip", "strict", "0", "1", "-1", "2",
                                           "eng_Latn", "jpn_Jpan", "xx", "true", "no", "",
                                           "a/b", "lang", "domain", "1e3", "%ff"]),
                          st.text(max_size=8))


@FUZZ
@given(base=st.sampled_from(["unicode", "numbers", "text:corpus.txt", "text:corpus",
                             "text:missing.txt", "code:corpus", "manifest:corpus"]),
       options=st.lists(st.tuples(OPTION_KEYS, OPTION_VALUES), max_size=4))
def test_suite_specs_with_options_load_or_fail_cleanly(
        base: str, options: list[tuple[str, str]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from urllib.parse import quote

    from tokbench.suites import load_suite

    monkeypatch.chdir(tmp_path)
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    (tmp_path / "corpus.txt").write_bytes(b"one line\n\nbad \xff byte\nlast\n")
    (corpus / "eng_Latn.txt").write_text("a\nb\n", encoding="utf-8")
    (corpus / "x.py").write_text("print(1)\n", encoding="utf-8")
    query = "&".join(f"{quote(k)}={quote(v, safe='')}" for k, v in options)
    spec = f"{base}?{query}" if query else base
    suite = _only_tokbench_errors(load_suite, spec)
    if suite is not None:
        info = suite.describe()  # a streaming suite reads (and counts) its documents later
        docs = _only_tokbench_errors(lambda: suite.documents)
        if docs is not None:
            assert docs and info["documents"] in (None, len(docs))


# -- config files and flags -----------------------------------------------------------------------

KEYS = st.sampled_from(["tokenizers", "suites", "metrics", "out", "premium_join", "repeats",
                        "threads", "tokbench", "bogus"])
SCALARS = st.one_of(st.booleans(), st.integers(-10, 10 ** 6), st.floats(allow_nan=False),
                    st.text(max_size=12), st.sampled_from(["bytes", "unicode", "compression"]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=4))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    return "[" + ", ".join(_toml_value(x) for x in v) + "]"


@FUZZ
@given(table=st.dictionaries(KEYS, VALUES, max_size=5), nested=st.booleans(),
       raw=st.one_of(st.none(), st.text(max_size=60)))
def test_config_files(table: dict[str, Any], nested: bool, raw: str | None,
                      tmp_path: Path) -> None:
    from tokbench.cli.config import read_config

    lines = [f"{k} = {_toml_value(v)}" for k, v in table.items()]
    text = raw if raw is not None else ("[tokbench]\n" if nested else "") + "\n".join(lines)
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    conf = _only_tokbench_errors(read_config, path)
    if conf is not None:
        for key in ("tokenizers", "suites", "metrics"):
            if key in conf:
                assert conf[key] and all(isinstance(x, str) and x for x in conf[key])
        for key in ("repeats", "threads"):
            if key in conf:
                assert isinstance(conf[key], int) and conf[key] >= 1


@FUZZ
@given(threads=st.one_of(st.none(), st.integers(-5, 5)),
       repeats=st.one_of(st.none(), st.integers(-5, 5)),
       tokenizers=st.one_of(st.none(), st.lists(st.text(max_size=5), max_size=3)),
       out=st.one_of(st.none(), st.text(max_size=5)))
def test_run_flags(threads: int | None, repeats: int | None, tokenizers: list[str] | None,
                   out: str | None) -> None:
    from tokbench.commands.run import resolve_config

    args = argparse.Namespace(preset=None, config=None, tokenizers=tokenizers, suites=None,
                              metrics=None, out=out, premium_join=None, repeats=repeats,
                              threads=threads)
    conf = _only_tokbench_errors(resolve_config, args)
    if conf is not None:
        assert conf.get("threads", 1) >= 1 and conf.get("repeats", 1) >= 1


# -- results.json ---------------------------------------------------------------------------------

JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6)),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(max_size=6), children, max_size=3)),
    max_leaves=12)


@pytest.fixture(scope="module")
def valid_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real, small results.json (bytes and chars on the unicode suite)."""
    from tokbench.engine.runner import Settings, run

    results = run(["bytes", "chars"], ["unicode?limit=3"], ["compression", "roundtrip"],
                  settings=Settings(throughput_repeats=1))
    data: dict[str, Any] = json.loads(results.to_json())
    return data


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document (for replacing one value)."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:4]):
            out += _paths(v, (*prefix, i))
    return out


def _load_and_use(data: Any, tmp_path: Path) -> None:
    """Load ``data`` as a results.json; if it loads, render it and compare it with itself."""
    from tokbench.ci.compare import compare
    from tokbench.render.markdown import render_markdown
    from tokbench.results import Results

    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    results = _only_tokbench_errors(Results.load, path)
    if results is None:
        return
    _only_tokbench_errors(render_markdown, results)
    _only_tokbench_errors(compare, results, copy.deepcopy(results))
    _only_tokbench_errors(results.to_json)


@FUZZ
@given(data=JSON)
def test_results_loading_of_any_json(data: Any, tmp_path: Path) -> None:
    _load_and_use(data, tmp_path)


@FUZZ
@given(seed=st.integers(0, 10 ** 6), value=JSON, drop=st.booleans())
def test_results_loading_of_damaged_results(valid_results: dict[str, Any], seed: int,
                                            value: Any, drop: bool, tmp_path: Path) -> None:
    data = copy.deepcopy(valid_results)
    places = [p for p in _paths(data) if p]
    where = places[seed % len(places)]
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    if drop and isinstance(parent, dict):
        del parent[where[-1]]
    else:
        parent[where[-1]] = value
    _load_and_use(data, tmp_path)


@FUZZ
@given(raw=st.binary(max_size=80))
def test_results_loading_of_any_bytes(raw: bytes, tmp_path: Path) -> None:
    from tokbench.results import Results

    path = tmp_path / "results.json"
    path.write_bytes(raw)
    _only_tokbench_errors(Results.load, path)

