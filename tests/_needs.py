"""What a test needs that a fresh machine may lack, and what to set to provide it.

A test declares it with ``@pytest.mark.needs("flores")`` (see ``conftest.py``), or calls
:func:`need` inside a fixture. Missing data skips the test with a reason naming the variable
to set; under ``CI=true`` the same reason fails it, so CI never passes by skipping.

>>> sorted(RESOURCES)
['flores', 'japanese_bert', 'large_downloads', 'morph', 'shared']
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def shared_dir() -> Path:
    """``$TOKBENCH_SHARED``, else ``../shared`` beside the clone (this project's CI layout)."""
    env = os.environ.get("TOKBENCH_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared"


def _flores() -> bool:
    from tokbench.paths import flores_dir

    root = flores_dir()
    return root is not None and root.is_dir()


@dataclass(frozen=True)
class Resource:
    """Something a test reads that is not in the repository: what it is and how to give it."""

    what: str
    fix: str
    present: Callable[[], bool]


RESOURCES: dict[str, Resource] = {
    "flores": Resource("FLORES-200", "set TOKBENCH_FLORES to its folder", _flores),
    "shared": Resource("shared/tokenizer-sources.md",
                       "set TOKBENCH_SHARED to the folder that holds it",
                       lambda: (shared_dir() / "tokenizer-sources.md").is_file()),
    "japanese_bert": Resource(
        "a copy of cl-tohoku/bert-base-japanese-v3 (no package registry carries it)",
        "set TOKBENCH_SHARED to the folder whose tokenizers/ holds it",
        lambda: (shared_dir() / "tokenizers" / "cl-tohoku-bert-base-japanese-v3").is_dir()),
    "morph": Resource(
        "the morphological analyzers (fugashi + unidic-lite, sudachipy + sudachidict-core, "
        "kiwipiepy + kiwipiepy-model)", 'pip install "tokbench[morph]"',
        lambda: all(importlib.util.find_spec(m) is not None for m in (
            "fugashi", "unidic_lite", "sudachipy", "sudachidict_core", "kiwipiepy",
            "kiwipiepy_model"))),
    "large_downloads": Resource(
        "downloads of over 100 MB (gemma-3's 253 MB model file)",
        "set TOKBENCH_LARGE_DOWNLOADS=1 to allow them",
        lambda: os.environ.get("TOKBENCH_LARGE_DOWNLOADS", "") == "1"),
}


def missing(problem: str) -> None:
    """Skip with ``problem``, or fail with it under ``CI=true``."""
    if IN_CI:
        pytest.fail(f"cannot run in CI: {problem}")
    pytest.skip(problem)


def need_module(module: str, install: str) -> Any:
    """``import module``, or skip (fail in CI) saying how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        missing(f"{module} is not installed ({install})")


def need(name: str) -> None:
    """Skip (fail in CI) unless resource ``name`` is present."""
    resource = RESOURCES[name]
    if not resource.present():
        missing(f"needs {resource.what}: {resource.fix}")
