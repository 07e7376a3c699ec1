"""pytest plugin (entry point ``pytest11``): assert tokbench metrics in your own tests.

    def test_my_tokenizer_compresses_japanese(tokbench_measure):
        values = tokbench_measure("file:my_tokenizer.json", "japanese")
        assert values["bytes_per_token"] >= 2.5
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest


@pytest.fixture
def tokbench_measure() -> Callable[..., dict[str, Any]]:
    """Run tokbench on one tokenizer and suite; return ``{metric: value}`` for one subset."""

    def measure(tokenizer: Any, suite: Any, metrics: Sequence[str] | None = None,
                subset: str = "all") -> dict[str, Any]:
        from tokbench.runner import run

        results = run([tokenizer], [suite], metrics or ["compression", "roundtrip", "unknown"],
                      throughput_repeats=1)
        return {r.metric: r.value for r in results.rows if r.subset == subset}

    return measure
