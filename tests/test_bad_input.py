"""Bad inputs, in tables that only grow: each gives one ``TokbenchError`` line naming what and
the fix (``ROWS``: library calls; ``CLI_ROWS``: command lines, exit code 2, no traceback)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tokbench.errors import (
    CorruptFileError,
    HashMismatchError,
    InputError,
    SourceError,
    TokbenchError,
    UnknownNameError,
)
from tokbench.sources import FetchSession, FolderSource


def _zip(member: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(member, data)
    return buf.getvalue()


def _recipe(name: str, content: bytes, **params: str) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        from tokbench.derived import RECIPES

        path = tmp / "input"
        path.write_bytes(content)
        return b"".join(RECIPES[name]([path], params, lambda m: None))
    return run


def _wordpiece(content: bytes | None, **options: Any) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        from tokbench.adapters.wordpiece import load

        path = tmp / "vocab.txt"
        if content is not None:
            path.write_bytes(content)
        return load(path, name="wp", **options)
    return run


def _folder(env: str | None, content: bytes = b"[UNK]\n") -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        (tmp / "tok").mkdir()
        (tmp / "tok" / "vocab.txt").write_bytes(content)
        mp = pytest.MonkeyPatch()
        try:
            if env is None:
                mp.delenv("TOKBENCH_TOKENIZER_DIR", raising=False)
            else:
                mp.setenv("TOKBENCH_TOKENIZER_DIR", str(tmp) if env == "TMP" else env)
            with FetchSession(tmp / "cache", offline=True) as s:
                return FolderSource("tok", "vocab.txt", "0" * 64).fetch(s)
        finally:
            mp.undo()
    return run


def _preset(name: str) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        from tokbench.presets import get_preset

        return get_preset(name)
    return run


ROWS: list[tuple[str, Callable[[Path], Any], type[TokbenchError], str]] = [
    ("C array not in the header", _recipe("c-byte-array", b"static const unsigned char a[] = "
                                                         b"{ 0x41 };", symbol="b"),
     SourceError, "input defines no byte array 'b'"),
    ("C array with a non-hex element", _recipe("c-byte-array", b"static const unsigned char "
                                                              b"a[] = { 0x41, 'B' };",
                                               symbol="a"),
     CorruptFileError, r"input: a holds more than 0x\.\. bytes"),
    ("zip without the member", _recipe("unzip", _zip("vocab.json", b"{}"),
                                       member="tokenizer.json"),
     SourceError, "input holds no 'tokenizer.json'"),
    ("not a zip file", _recipe("unzip", b"plain text", member="tokenizer.json"),
     CorruptFileError, "input is not a readable zip file"),
    ("vocab.txt without [UNK]", _wordpiece(b"hello\nworld\n"),
     CorruptFileError, r"vocab\.txt: no \[UNK\] line; not a BERT vocab\.txt"),
    ("vocab.txt not UTF-8", _wordpiece(b"[UNK]\n\xff\xfe\n"),
     CorruptFileError, r"vocab\.txt is not UTF-8"),
    ("no vocab.txt", _wordpiece(None), InputError, r"no such vocab\.txt"),
    ("unknown wordpiece option", _wordpiece(b"[UNK]\n", lowercase_all=True),
     InputError, "wordpiece adapter: unknown option.*lowercase_all; accepted: lowercase"),
    ("tokenizer folder variable unset", _folder(None),
     SourceError, r"\$TOKBENCH_TOKENIZER_DIR is not set"),
    ("tokenizer folder without the files", _folder("/no/such/dir"),
     SourceError, r"no /no/such/dir/tok/vocab\.txt"),
    ("tokenizer folder with other files", _folder("TMP"),
     HashMismatchError, r"vocab\.txt: sha256 mismatch, expected 0{64}"),
    ("unknown preset", _preset("japanes"), UnknownNameError,
     "unknown preset 'japanes'; did you mean 'japanese'"),
]


@pytest.mark.parametrize("what,call,error,message", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input(what: str, call: Callable[[Path], Any], error: type[TokbenchError],
                   message: str, tmp_path: Path) -> None:
    with pytest.raises(error, match=message) as e:
        call(tmp_path)
    assert "\n" not in str(e.value)


# -- command lines ---------------------------------------------------------------------

SWEEP = ["sweep", "--corpus", "multilingual", "--sizes", "1k,2k,4k"]

CLI_ROWS = [
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
    # speed profiles: tokbench bench
    (["bench", "--parts", "latency,warp", "-t", "gpt2"],
     "--parts: unknown part(s) warp; choose from latency, rate, threads, scaling, footprint"),
    (["bench", "--budget", "0", "-t", "gpt2"], "--budget must be a number above 0"),
    (["bench", "--budget", "-1", "-t", "gpt2"], "--budget must be a number above 0"),
    (["bench", "--max-threads", "0", "-t", "gpt2"], "--max-threads must be at least 1"),
]


@pytest.mark.parametrize("argv,message", CLI_ROWS, ids=[" ".join(r[0][:1] + r[0][-2:])
                                                    for r in CLI_ROWS])
def test_bad_command_line_is_one_line(argv: list[str], message: str, tmp_path: Path,
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


def test_bench_out_must_be_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    from tokbench.cli import main

    target = tmp_path / "file.txt"
    target.write_text("x", encoding="utf-8")
    assert main(["bench", "-t", "gpt2", "-o", str(target), "--no-fetch"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{target}: not a directory" in err and "\n" not in err
