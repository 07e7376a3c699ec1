"""Bad input gives one line naming what is wrong and the fix, exit 2, never a traceback."""

from __future__ import annotations

import pytest

from tokbench.cli import main

CASES = [
    # (argv, expected fragment of the one-line error)
    (["run", "-t", "bytes", "-s", "numbers", "--fertility", "alone/sentences", "--no-history"],
     "fertility convention 'alone/sentences': expected ENCODING/WORDS"),
    (["run", "-t", "bytes", "-s", "numbers", "--fertility", "isolated", "--no-history"],
     "ENCODING one of context, alone, alone_space"),
    (["verify", "/nonexistent/run"], "/nonexistent/run: no such results file; pass a results.json"),
]


@pytest.mark.parametrize(("argv", "message"), CASES)
def test_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                   tmp_path) -> None:
    assert main([*argv, *(["-o", str(tmp_path)] if argv[0] == "run" else [])]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert message in " ".join(err.split())
