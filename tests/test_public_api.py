"""The Python API: the lazily exported names, the list_* functions, and the README's example."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import tokbench

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_exported_name_loads_and_is_documented() -> None:
    for name in tokbench.__all__:
        obj = getattr(tokbench, name)
        if name != "__version__":
            assert (obj.__doc__ or "").strip(), name
    from tokbench.ci.compare import compare
    from tokbench.engine.runner import Settings

    assert tokbench.Settings is Settings and tokbench.compare is compare


def test_list_tokenizers() -> None:
    items = tokbench.list_tokenizers()
    by_name = {t["name"]: t for t in items}
    assert list(by_name)[:4] == ["gpt2", "p50k_base", "cl100k_base", "o200k_base"]
    assert by_name["gpt2"] == {"name": "gpt2", "aliases": ["r50k_base", "gpt-2", "r50k"],
                               "vocab_size": 50257, "algorithm": "byte-level BPE",
                               "adapter": "tiktoken", "description": "GPT-2 / GPT-3 (r50k_base)",
                               "large": False}
    assert by_name["bytes"]["vocab_size"] == 256 and by_name["chars"]["vocab_size"] == 0x110000


def test_list_suites() -> None:
    items = tokbench.list_suites()
    assert [s["name"] for s in items] == ["multilingual", "japanese", "code", "numbers",
                                          "unicode", "flores200"]
    described = {s["name"]: s["description"] for s in items}
    assert described["numbers"].startswith("Numbers as people and programs write them")
    assert described["numbers"].endswith("(v1)")  # a built-in suite: from its manifest
    assert described["flores200"].startswith("FLORES-200")  # the loader's docstring


def test_list_metrics() -> None:
    items = tokbench.list_metrics()
    by_name = {m["name"]: m for m in items}
    assert [m["name"] for m in items if m["family"] == "compression"] == [
        "tokens", "bytes_per_token", "chars_per_token"]
    assert by_name["bytes_per_token"]["direction"] == "higher"
    assert by_name["bytes_per_token"]["deterministic"] is True
    timings = [m["name"] for m in items if not m["deterministic"]]
    assert "throughput" in {by_name[n]["family"] for n in timings}


def _readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Python API"):]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README: no Python block under ## Python API"
    return match.group(1)


def _run_example(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(code, str(README), "exec"), namespace)  # the README's own code
    return namespace


def _check(ns: dict[str, Any]) -> None:
    assert "gpt2" in ns["names"] and "chars" in ns["names"]
    assert ns["suites"][:2] == ["multilingual", "japanese"]
    assert ns["compression"] == ["tokens", "bytes_per_token", "chars_per_token"]
    frame = ns["frame"]
    # 2 tokenizers x (all, eng_Latn, jpn_Jpan) x 3 metrics
    assert len(frame) == 18 and set(frame["subset"]) == {"all", "eng_Latn", "jpn_Jpan"}
    chars = frame[(frame.tokenizer == "chars") & (frame.subset == "eng_Latn")]
    assert dict(zip(chars.metric, chars.value, strict=True))["chars_per_token"] == 1.0
    assert ns["comparison"].regression is False


def test_readme_example_offline() -> None:
    """The README's example with the built-in tokenizers in place of the fetched ones."""
    code = _readme_example().replace('"cl100k_base"', '"bytes"').replace('"gpt2"', '"bytes"')
    ns = _run_example(code)
    assert ns["ids"] == list("Hello, こんにちは".encode())
    _check(ns)


@pytest.mark.real
def test_readme_example(real_cache: Path) -> None:
    ns = _run_example(_readme_example())
    assert ns["ids"] == [9906, 11, 220, 90115]  # tiktoken's cl100k_base
    _check(ns)
