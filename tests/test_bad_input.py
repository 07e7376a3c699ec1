"""Bad input gives one line naming what is wrong and how to fix it, exit code 2, no traceback.

One row per case: (command line, text the message must contain).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tokbench.cli import main

CASES = [
    (["bench", "--parts", "latency,warp", "-t", "gpt2"],
     "--parts: unknown part(s) warp; choose from latency, rate, threads, scaling, footprint"),
    (["bench", "--budget", "0", "-t", "gpt2"], "--budget must be a number above 0"),
    (["bench", "--budget", "-1", "-t", "gpt2"], "--budget must be a number above 0"),
    (["bench", "--max-threads", "0", "-t", "gpt2"], "--max-threads must be at least 1"),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_line(argv: list[str], message: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_bench_out_must_be_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x", encoding="utf-8")
    assert main(["bench", "-t", "gpt2", "-o", str(target), "--no-fetch"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{target}: not a directory" in err and len(err.splitlines()) == 1
