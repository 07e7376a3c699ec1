"""Tests that need data a fresh machine lacks skip with the variable to set, and fail in CI."""

from __future__ import annotations

from pathlib import Path

import pytest

import tests._needs as _needs


def test_missing_flores_skips_naming_the_variable(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setenv("TOKBENCH_FLORES", str(tmp_path / "absent"))
    monkeypatch.setattr(_needs, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match=r"needs FLORES-200: set TOKBENCH_FLORES"):
        _needs.need("flores")


def test_missing_data_fails_under_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TOKBENCH_SHARED", str(tmp_path))
    monkeypatch.setattr(_needs, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception,
                       match=r"cannot run in CI: needs shared/tokenizer-sources\.md: set "
                             r"TOKBENCH_SHARED"):
        _needs.need("shared")


def test_present_data_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "tokenizer-sources.md").write_text("| name |\n", encoding="utf-8")
    monkeypatch.setenv("TOKBENCH_SHARED", str(tmp_path))
    monkeypatch.setenv("TOKBENCH_LARGE_DOWNLOADS", "1")
    monkeypatch.setattr(_needs, "IN_CI", True)
    _needs.need("shared")
    _needs.need("large_downloads")


def test_large_downloads_are_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOKBENCH_LARGE_DOWNLOADS", raising=False)
    monkeypatch.setattr(_needs, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match=r"TOKBENCH_LARGE_DOWNLOADS=1"):
        _needs.need("large_downloads")
