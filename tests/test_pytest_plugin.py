"""The pytest plugin: a project asserts its own tokenizer's metrics in its own tests."""

from __future__ import annotations

import pytest

from tests._toy import ToyTokenizer
from tokbench.cli.pytest_plugin import assert_no_regression
from tokbench.engine.runner import run
from tokbench.results import Results
from tokbench.suites.model import Document, Suite

pytest_plugins = ["pytester"]

SUITE = Suite("mini", "1", [Document("d1", "eng_Latn", "x", "the cat sat"),
                            Document("d2", "eng_Latn", "x", "the hat")])
PIECES = ["the", "cat", "hat", "sat", " ", "t", "h", "e", "c", "a", "s"]


def _results(pieces: list[str], lossy: dict[str, str] | None = None) -> Results:
    return run([ToyTokenizer(pieces, lossy=lossy)], [SUITE], ["compression", "roundtrip"])


def test_assert_no_regression():
    base = _results(PIECES)
    comp = assert_no_regression(_results(PIECES), base)
    assert comp.verdict() == f"no change ({len(comp.rows)} rows)"
    # without the piece "the", both documents need two more tokens
    with pytest.raises(AssertionError) as exc:
        assert_no_regression(_results([p for p in PIECES if p != "the"]), base)
    message = str(exc.value)
    assert message.splitlines()[0].startswith("tokbench regression: ")
    assert "FAIL worse: toy · mini · all · tokens: 8 → 12 +50.00%" in message
    # a tolerance that covers the loss
    assert_no_regression(_results([p for p in PIECES if p != "the"]), base,
                         fail=["compression:100%"])


def test_roundtrip_regression_names_the_document():
    base = _results(PIECES)
    with pytest.raises(AssertionError, match="new failing documents: d2"):
        assert_no_regression(_results(PIECES, lossy={"hat": "hot"}), base)


INNER = '''
import os

from tests._toy import ToyTokenizer
from tokbench.suites.model import Document, Suite

SUITE = Suite("mini", "1", [Document("d1", "eng_Latn", "x", "the cat sat"),
                            Document("d2", "eng_Latn", "x", "the hat")])


def test_compression(tokbench_run, tokbench_baseline):
    pieces = os.environ["TOY_PIECES"].split(",")
    results = tokbench_run(ToyTokenizer(pieces), SUITE)
    tokbench_baseline.check(results)


def test_measure(tokbench_measure):
    values = tokbench_measure(ToyTokenizer(["the", " ", "c", "a", "t", "s", "h"]), SUITE)
    assert values["tokens"] == 14 and values["roundtrip"] == 1.0
'''


# the plugin is found through its entry point; other installed plugins only cost time here
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark",
         "-p", "no:anyio")


def test_baseline_fixture_in_a_project(pytester, monkeypatch):
    pytester.makepyfile(test_mine=INNER)
    pytester.makeini("[pytest]\ntokbench_baseline_dir = baselines\n")
    monkeypatch.setenv("TOY_PIECES", ",".join(PIECES))
    baseline = pytester.path / "baselines" / "test_mine" / "test_compression.json"

    first = pytester.runpytest_inprocess(*QUIET)
    first.assert_outcomes(passed=1, failed=1)
    first.stdout.fnmatch_lines(["*no tokbench baseline at *test_compression.json; write it "
                                "with pytest --tokbench-update-baseline*"])
    assert not baseline.exists()

    pytester.runpytest_inprocess(*QUIET, "--tokbench-update-baseline").assert_outcomes(passed=2)
    assert baseline.exists()
    pytester.runpytest_inprocess(*QUIET).assert_outcomes(passed=2)

    monkeypatch.setenv("TOY_PIECES", ",".join(p for p in PIECES if p != "cat"))
    worse = pytester.runpytest_inprocess(*QUIET)
    worse.assert_outcomes(passed=1, failed=1)
    worse.stdout.fnmatch_lines(["*tokbench regression: *",
                                "*FAIL worse: toy · mini · all · tokens: 8 → 10 +25.00%*"])
