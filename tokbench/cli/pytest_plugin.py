"""pytest plugin (entry point ``pytest11``): assert tokbench metrics in your own tests.

    def test_my_tokenizer_compresses_japanese(tokbench_measure):
        values = tokbench_measure("file:my_tokenizer.json", "japanese")
        assert values["bytes_per_token"] >= 2.5

    def test_no_regression(tokbench_run, tokbench_baseline):
        results = tokbench_run(["file:my_tokenizer.json"], ["multilingual", "japanese"])
        tokbench_baseline.check(results, fail=["bytes_per_token:0.5%"])

``tokbench_baseline`` keeps one baseline per test under ``tests/tokbench-baselines/`` (ini
option ``tokbench_baseline_dir``); ``pytest --tokbench-update-baseline`` writes them.
``assert_no_regression(results, baseline)`` is the same check without the fixture.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tokbench.ci.compare import Comparison
    from tokbench.results import Results

UPDATE_OPTION = "--tokbench-update-baseline"
DEFAULT_BASELINE_DIR = "tests/tokbench-baselines"
DEFAULT_METRICS = ("compression", "roundtrip", "unknown")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tokbench")
    group.addoption(UPDATE_OPTION, action="store_true", default=False,
                    help="write the results of tests using tokbench_baseline as their new "
                         "baselines instead of comparing")
    parser.addini("tokbench_baseline_dir", "folder of the tokbench_baseline files "
                  f"(default: {DEFAULT_BASELINE_DIR}, relative to the rootdir)",
                  default=DEFAULT_BASELINE_DIR)


def assert_no_regression(results: Results, baseline: Results | str | Path, *,
                         fail: Iterable[str] = (), allow_change: Iterable[str] = (),
                         allow_removed: bool = False) -> Comparison:
    """Fail (AssertionError) when ``results`` regress against ``baseline``, or when nothing
    could be compared; else the comparison.

    ``baseline`` is a Results or a results.json path. The tokenizer file may differ (the
    tokenizer is compared by name: in a tokenizer project its file is what changes);
    ``fail`` takes ``--fail`` specs.
    """
    from tokbench.ci.compare import compare, load_run
    from tokbench.results import Results

    base = baseline if isinstance(baseline, Results) else load_run(baseline)
    comp = compare(base, results, fail=fail, allow_change=allow_change,
                   allow_removed=allow_removed, base_label="baseline", new_label="this run")
    nothing = comp.nothing_compared()
    if nothing is not None:
        raise AssertionError(f"tokbench compared nothing: {nothing}")
    if comp.regression:
        raise AssertionError(comparison_text(comp))
    return comp


def comparison_text(comp: Comparison, limit: int = 25) -> str:
    """The verdict and the changed rows as plain text (an assertion message)."""
    from tokbench.render.comparison import format_cell, format_change, row_note, status_text

    lines = [f"tokbench {comp.verdict()}"]
    rows = comp.changed_rows()
    for r in rows[:limit]:
        mark = "FAIL" if r.fails else "    "
        note = row_note(r)
        lines.append(f"  {mark} {status_text(r)}: {r.tokenizer} · {r.suite} · {r.subset} · "
                     f"{r.metric}: {format_cell(r.base, r.metric) or '–'} → "
                     f"{format_cell(r.new, r.metric) or '–'} {format_change(r)}".rstrip()
                     + (f" ({note})" if note else ""))
    if len(rows) > limit:
        lines.append(f"  … and {len(rows) - limit} more")
    lines += [f"  new error: {f.tokenizer} · {f.suite} · {f.doc_id}: {f.error}"
              for f in comp.new_errors[:limit]]
    return "\n".join(lines)


class TokbenchBaseline:
    """The baseline file of one test: ``check(results)`` compares, or writes when updating."""

    def __init__(self, path: Path, update: bool) -> None:
        self.path = path
        self.update = update

    def check(self, results: Results, **options: Any) -> Comparison | None:
        """Assert no regression against the stored baseline (see ``assert_no_regression``).

        With ``--tokbench-update-baseline`` the results are written instead (None returned).
        A missing baseline fails the test: it must be written on purpose.
        """
        if self.update:
            from tokbench.atomic import write_atomic

            write_atomic(self.path, results.to_json())
            return None
        if not self.path.exists():
            pytest.fail(f"no tokbench baseline at {self.path}; write it with "
                        f"pytest {UPDATE_OPTION}", pytrace=False)
        return assert_no_regression(results, self.path, **options)


@pytest.fixture
def tokbench_baseline(request: pytest.FixtureRequest) -> TokbenchBaseline:
    """This test's baseline under ``tokbench_baseline_dir`` (named after the test's id)."""
    folder = Path(request.config.rootpath) / str(request.config.getini("tokbench_baseline_dir"))
    module = Path(str(request.node.nodeid.split("::")[0])).stem
    name = re.sub(r"[^\w.\-\[\]]+", "_", request.node.name)
    return TokbenchBaseline(folder / module / f"{name}.json",
                            bool(request.config.getoption(UPDATE_OPTION)))


@pytest.fixture
def tokbench_run() -> Callable[..., Results]:
    """Run tokbench: ``tokbench_run(tokenizers, suites, metrics=None, **settings) -> Results``.

    Tokenizers and suites are specs or loaded objects (a single one or a list); the
    default metrics are deterministic (compression, roundtrip, unknown).
    """

    def run_(tokenizers: Any, suites: Any, metrics: Sequence[str] | None = None,
             **settings: Any) -> Results:
        from tokbench.engine.runner import run

        toks = tokenizers if isinstance(tokenizers, (list, tuple)) else [tokenizers]
        suite_list = suites if isinstance(suites, (list, tuple)) else [suites]
        return run(list(toks), list(suite_list), list(metrics or DEFAULT_METRICS), **settings)

    return run_


@pytest.fixture
def tokbench_measure() -> Callable[..., dict[str, Any]]:
    """Run tokbench on one tokenizer and suite; return ``{metric: value}`` for one subset."""

    def measure(tokenizer: Any, suite: Any, metrics: Sequence[str] | None = None,
                subset: str = "all") -> dict[str, Any]:
        from tokbench.engine.runner import run

        results = run([tokenizer], [suite], metrics or ["compression", "roundtrip", "unknown"],
                      throughput_repeats=1)
        return {r.metric: r.value for r in results.rows if r.subset == subset}

    return measure
