"""Bad input gets one clear line and exit code 2, never a traceback (one row per case)."""

from __future__ import annotations

from pathlib import Path

import pytest

SWEEP = ["sweep", "--corpus", "multilingual", "--sizes", "1k,2k,4k"]

ROWS = [
    # compute-optimal vocabulary size (Tao et al. 2024): sweep --model-params, recommend
    ([*SWEEP, "--model-params=-7e9"], "--model-params -7e+09 is not a model size"),
    ([*SWEEP, "--model-params", "1e20"], "--model-params 1e+20 is not a model size"),
    ([*SWEEP, "--model-params", "seven"], "--model-params 'seven' is not a number like 7e9"),
    (["sweep", "--corpus", "multilingual", "--sizes", "1k,2k", "--model-params", "7e9"],
     "needs at least 3; --sizes has 2"),
    ([*SWEEP, "--model-params", "7e9", "--flops", "1e40"],
     "--flops 1e+40 is not a training budget"),
    ([*SWEEP, "--flops", "1e22"], "--flops needs --model-params"),
    ([*SWEEP, "--model-params", "7e9", "--d-model", "0"], "--d-model 0 is not a model width"),
    ([*SWEEP, "--model-params", "7e9", "--metrics", "fertility"],
     "needs tokens per character: add compression to --metrics"),
    (["recommend", "--model-params", "0"], "--model-params 0 is not a model size"),
    (["recommend", "--model-params", "7B", "--sweep", "{tmp}/missing.json"],
     "no such results file"),
    # fertility conventions and verify (issue 10)
    (["run", "-t", "bytes", "-s", "numbers", "--fertility", "alone/sentences", "--no-history",
      "-o", "{tmp}/run"], "fertility convention 'alone/sentences': expected ENCODING/WORDS"),
    (["run", "-t", "bytes", "-s", "numbers", "--fertility", "isolated", "--no-history",
      "-o", "{tmp}/run"], "ENCODING one of context, alone, alone_space"),
    (["verify", "{tmp}/nonexistent"], "nonexistent: no such results file; pass a results.json"),
]


@pytest.mark.parametrize("argv,message", ROWS, ids=[" ".join(r[0][:1] + r[0][-2:])
                                                    for r in ROWS])
def test_bad_input_is_one_line(argv: list[str], message: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    from tokbench.cli import main

    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if argv[0] == "sweep":
        argv += ["--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tokbench: error:") and "\n" not in err, err
    assert message in err
    assert not (tmp_path / "out" / "tokenizers").exists()  # refused before any training
