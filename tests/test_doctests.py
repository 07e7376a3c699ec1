"""The ``>>>`` examples of the public API run as written (no network: the ``bytes`` and
``chars`` baselines and the built-in suites)."""

from __future__ import annotations

import doctest
import importlib

import pytest

#: modules whose public functions carry examples: the adapter API, load_tokenizer,
#: load_suite, run, compare
MODULES = ["tokbench.adapters.base", "tokbench.loading.loader", "tokbench.suites",
           "tokbench.engine.runner", "tokbench.ci.compare"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_in_docstrings_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
