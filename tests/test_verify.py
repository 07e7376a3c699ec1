"""tokbench verify: a run recomputed from what it records, row by row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokbench.cli import main


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run")
    assert main(["run", "-t", "bytes,chars", "-s", "numbers", "-m",
                 "compression,unknown,numbers,roundtrip,vocab_use,throughput", "--repeats", "1",
                 "-o", str(out), "--no-history", "--no-plots", "--no-html"]) == 0
    return out


def _copy(run_dir: Path, tmp_path: Path, edit) -> Path:
    data = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    edit(data)
    (tmp_path / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path


def test_an_honest_run_reproduces(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(run_dir)]) == 0
    out = capsys.readouterr().out
    data = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    timing = sum(r["metric"].startswith("throughput") for r in data["rows"])
    assert timing > 0
    assert f"all {len(data['rows']) - timing} rows reproduce ({timing} timing rows not checked)" \
        in " ".join(out.split())


def test_a_changed_number_is_named_and_exits_1(run_dir: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    def edit(data: dict) -> None:
        row = next(r for r in data["rows"] if r["tokenizer"] == "chars"
                   and r["subset"] == "all" and r["metric"] == "tokens")
        row["value"] += 1

    assert main(["verify", str(_copy(run_dir, tmp_path, edit))]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "1 of" in out and "rows do not reproduce" in out
    assert "chars" in out and "tokens" in out and "✗" in out


def test_a_changed_suite_is_refused(run_dir: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    def edit(data: dict) -> None:
        data["meta"]["suites"]["numbers"]["sha256"] = "0" * 64

    assert main(["verify", str(_copy(run_dir, tmp_path, edit))]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "suite 'numbers' (numbers): content sha256" in out
    assert "is not the recorded 000000000000" in out


def test_a_gold_file_run_reproduces_and_a_changed_gold_file_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "gold.csv"
    gold.write_text("word,segmentation\nwalked,walk+ed\ncats,cat+s\n", encoding="utf-8")
    out = tmp_path / "run"
    assert main(["run", "-t", "bytes,chars", "-s", "numbers", "-m", "compression",
                 "--morph-gold", str(gold), "-o", str(out), "--no-history", "--no-plots",
                 "--no-html"]) == 0
    rows = json.loads((out / "results.json").read_text(encoding="utf-8"))["rows"]
    # chars cuts every character: both gold boundaries hit, 2 of 8 cuts are gold ones
    got = {r["metric"]: r["value"] for r in rows
           if r["suite"] == "morph-gold" and r["tokenizer"] == "chars"}
    assert (got["morphscore"], got["morph_gold_recall"], got["morph_gold_precision"]) == (
        1.0, 1.0, 0.25)
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    gold.write_text("word,segmentation\nwalked,wal+ked\ncats,cat+s\n", encoding="utf-8")
    assert main(["verify", str(out)]) != 0
    said = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    assert f"--morph-gold {gold}: sha256" in said and "is not the recorded" in said
