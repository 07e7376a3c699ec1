"""`tokbench run` end to end with the built-in baselines (no download)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from tokbench.cli import main
from tokbench.commands.run import PRESETS, resolve_config
from tokbench.engine import executors
from tokbench.results import Results

FAST = ["--no-history", "--repeats", "1"]


def test_run_writes_every_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = main(["run", "-t", "bytes,chars", "-s", "unicode", "--out", str(out), *FAST])
    assert code == 0
    names = {p.name for p in out.iterdir()}
    assert {"results.json", "results.csv", "report.md", "report.html"} <= names
    assert any(n.endswith(".png") for n in names)
    res = Results.load(out)
    assert res.meta.complete is True
    # one token per UTF-8 byte of the suite
    unicode_bytes = res.meta.suites["unicode"].bytes
    assert res.value("bytes", "unicode", "all", "tokens") == unicode_bytes
    assert res.value("bytes", "unicode", "all", "bytes_per_token") == 1.0
    assert res.value("chars", "unicode", "all", "chars_per_token") == 1.0
    assert res.value("bytes", "vocab", "all", "single_byte_tokens") == 128  # 0x80..0xFF


def test_config_file_and_flags_override_it(tmp_path: Path) -> None:
    config = tmp_path / "bench.toml"
    config.write_text('[tokbench]\ntokenizers = ["bytes", "chars"]\nsuites = ["unicode"]\n'
                      'metrics = ["compression"]\n', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", "--config", str(config), "-t", "chars", "--out", str(out), "--no-html",
                 "--no-plots", *FAST]) == 0
    res = Results.load(out)
    assert set(res.meta.tokenizers) == {"chars"}
    assert {r.metric for r in res.rows} == {"tokens", "bytes_per_token", "chars_per_token"}


def test_unknown_config_key_is_a_one_line_error(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "bench.toml"
    config.write_text('tokenisers = ["bytes"]\n', encoding="utf-8")
    assert main(["run", "--config", str(config), "--out", str(tmp_path / "o"), *FAST]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown key(s) tokenisers" in err and "\n" not in err and "Traceback" not in err


def test_a_split_runs_late_measuring_stays_on_the_measuring_bar() -> None:
    """The other process of a split run may still measure once this one times: its bytes
    go to the measuring bar, never to the timing bar's count of units."""
    from tokbench import events as ev
    from tokbench.commands.run import _Progress

    with _Progress() as progress:
        for event in [ev.RunStarted(units=4, bytes=100), ev.ShardDone(suite="s", bytes=60),
                      ev.PhaseStarted(name="throughput", units=2),
                      ev.TimingStarted(tokenizer="a", suite="s"), ev.TimingDone(
                          tokenizer="a", suite="s"),
                      ev.ShardDone(suite="s", bytes=40),  # the other process's last shard
                      ev.TimingDone(tokenizer="b", suite="s")]:
            progress.event(event)
        measuring, timing = progress._p.tasks
    assert (measuring.completed, measuring.total, measuring.description) == (100, 100,
                                                                             "measured")
    assert (timing.completed, timing.total) == (2, 2)
    assert timing.description == "timing a · s"


def test_japanese_preset() -> None:
    args = argparse.Namespace(preset="japanese", config=None, tokenizers=None, suites=None,
                              metrics=None, out=None, premium_join=None, repeats=None,
                              threads=None)
    conf = resolve_config(args)
    assert conf["tokenizers"][:2] == ["gpt2", "cl100k_base"] and "xlm-roberta" in conf["tokenizers"]
    assert conf["suites"] == PRESETS["japanese"]["suites"]
    assert "fertility" in conf["metrics"] and "premium" in conf["metrics"]


def test_interrupted_run_keeps_finished_units_and_resume_finishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    real = executors.process_shard
    seen: list[str] = []

    def interrupt_second(task):  # type: ignore[no-untyped-def]
        seen.append(task.suite)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(executors, "process_shard", interrupt_second)
    argv = ["run", "-t", "bytes", "-s", "unicode,numbers", "-m", "compression",
            "--out", str(out), "--no-html", "--no-plots", "--jobs", "1", *FAST]
    assert main(argv) == 130
    assert not out.exists()  # OUT only ever holds a complete run
    saved = json.loads((tmp_path / "out.partial" / "results.json").read_text(encoding="utf-8"))
    assert saved["meta"]["complete"] is False
    assert {r["suite"] for r in saved["rows"]} == {"unicode"}

    calls: list[str] = []
    monkeypatch.setattr(executors, "process_shard", lambda task: (
        calls.append(task.suite), real(task))[1])
    assert main([*argv, "--resume"]) == 0
    assert calls == ["numbers"]  # the finished unit was reused
    res = Results.load(out)
    assert res.meta.complete is True
    assert {r.suite for r in res.rows} == {"unicode", "numbers"}
    assert not (tmp_path / "out.partial").exists()
