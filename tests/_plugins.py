"""A third party's distribution, faked: entry points tokbench reads as if pip-installed."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest


def install_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                         entry_points: str, modules: Mapping[str, str],
                         registries: Sequence[Any]) -> None:
    """Put distribution ``name`` on ``sys.path`` with ``entry_points`` (the text of its
    entry_points.txt) and ``modules`` (module name -> source); each of ``registries``
    reads entry points again, and forgets them after the test."""
    site = tmp_path / "site"
    dist = site / f"{name}-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
                                   encoding="utf-8")
    (dist / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    for module, source in modules.items():
        (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.syspath_prepend(str(site))
    for registry in registries:
        monkeypatch.setattr(registry, "_entry_points_read", False)
        for attr in ("_targets", "_loaded", "_origins"):
            monkeypatch.setattr(registry, attr, dict(getattr(registry, attr)))
