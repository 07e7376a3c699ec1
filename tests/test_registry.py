"""Registries: explicit factories, collisions refused, third parties through entry points."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tokbench.errors import TokbenchError, UnknownNameError
from tokbench.registry import Registry


def test_a_function_is_an_entry_not_a_factory() -> None:
    reg: Registry[object] = Registry("thing")

    def loader() -> str:
        return "made"

    reg.register("fn", loader)
    assert reg.get("fn") is loader
    calls: list[int] = []
    reg.register_factory("lazy", lambda: calls.append(1) or "built")
    assert calls == []
    assert reg.get("lazy") == "built" and reg.get("lazy") == "built" and calls == [1]


def test_names_collide_loudly_and_unknown_names_suggest() -> None:
    reg: Registry[int] = Registry("thing")
    reg.register("alpha", 1, aliases=("a",))
    with pytest.raises(TokbenchError, match="thing 'alpha' is registered twice"):
        reg.register("alpha", 2)
    with pytest.raises(TokbenchError, match="thing 'a' is registered twice"):
        reg.register("a", 3)
    reg.register("alpha", 4, replace=True)
    assert reg.get("a") == 4
    with pytest.raises(UnknownNameError, match="did you mean 'alpha'"):
        reg.get("alpah")


def _fake_distribution(root: Path, group: str, entries: dict[str, str], module: str,
                       code: str) -> None:
    dist = root / "tbthird-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tbthird\nVersion: 1.0\n",
                                   encoding="utf-8")
    lines = "".join(f"{k} = {v}\n" for k, v in entries.items())
    (dist / "entry_points.txt").write_text(f"[{group}]\n{lines}", encoding="utf-8")
    (root / f"{module}.py").write_text(textwrap.dedent(code), encoding="utf-8")


def _fresh(monkeypatch: pytest.MonkeyPatch, reg: Registry[object]) -> None:
    for attr in ("_targets", "_loaded", "_origins", "_aliases"):
        monkeypatch.setattr(reg, attr, dict(getattr(reg, attr)))
    monkeypatch.setattr(reg, "_entry_points_read", False)


def test_a_third_party_suite_from_an_installed_distribution(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tokbench.suites import SUITES, load_suite

    _fake_distribution(tmp_path, "tokbench.suites", {"greetings": "tbthird_suites:load"},
                       "tbthird_suites", """
        from tokbench.suites.model import Document, Suite

        def load(count="2"):
            docs = [Document(f"g{i}", "eng_Latn", "hello", "hello " * (i + 1))
                    for i in range(int(count))]
            return Suite("greetings", "1", docs, subset_by="domain")
    """)
    monkeypatch.syspath_prepend(str(tmp_path))
    _fresh(monkeypatch, SUITES)  # type: ignore[arg-type]
    suite = load_suite("greetings?count=3")
    assert [d.text for d in suite] == ["hello ", "hello hello ", "hello hello hello "]
    from tokbench.engine.runner import run

    results = run(["bytes"], ["greetings"], ["compression"])
    assert results.value("bytes", "greetings", "all", "tokens") == 6 + 12


def test_an_entry_point_reusing_a_built_in_name_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tokbench.suites import SUITES

    _fake_distribution(tmp_path, "tokbench.suites", {"japanese": "tbthird_clash:load"},
                       "tbthird_clash", "def load():\n    raise AssertionError\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _fresh(monkeypatch, SUITES)  # type: ignore[arg-type]
    with pytest.raises(TokbenchError, match=r"suite 'japanese' is registered twice \(by "
                                            r"tokbench and entry point of tbthird\)"):
        SUITES.names()


def test_a_third_party_file_format_is_detected_and_loaded_by_its_adapter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``file:`` specs reach a plug-in format: its detector (``tokbench.detectors``) names
    the kind, its adapter (``tokbench.adapters``) loads it; built-in formats still win
    where the plug-in says None."""
    from tokbench.adapters import ADAPTERS
    from tokbench.loading.loader import DETECTORS, detect_file, load_tokenizer

    site = tmp_path / "site"
    site.mkdir()
    _fake_distribution(site, "tokbench.detectors", {"wordlist": "tbthird_fmt:detect"},
                       "tbthird_fmt", """
        from tokbench.adapters.baselines import load_chars

        def detect(path, head):
            return "wordlist" if head.startswith(b"#wordlist") else None

        def load(path, *, name, source=None, **options):
            return load_chars(path, name=name, source=source)
    """)
    (site / "tbthird-1.0.dist-info" / "entry_points.txt").write_text(
        "[tokbench.detectors]\nwordlist = tbthird_fmt:detect\n"
        "[tokbench.adapters]\nwordlist = tbthird_fmt:load\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    _fresh(monkeypatch, DETECTORS)  # type: ignore[arg-type]
    _fresh(monkeypatch, ADAPTERS)  # type: ignore[arg-type]
    mine = tmp_path / "words.txt"
    mine.write_text("#wordlist\nhello\n", encoding="utf-8")
    assert detect_file(mine) == (mine, "wordlist")
    tok = load_tokenizer(f"file:{mine}")
    assert tok.encode("hé") == [104, 233]
    sp = tmp_path / "m.model"
    sp.write_bytes(b"\x0a\x05")
    assert detect_file(sp) == (sp, "sentencepiece")
