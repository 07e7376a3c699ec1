"""Bad inputs, in tables that only grow: each gives one ``TokbenchError`` line naming what and
the fix (``ROWS``: library calls; ``CLI_ROWS``: command lines, exit code 2, no traceback).

``CASES`` (issue 11: hostile and careless uses) are fuller rows: files to create, commands to
run first, the command (CLI argv, or a Python callable) with its exit code and a phrase it must
say, and optionally a check of what is on disk afterwards. They run in a fresh temporary folder
(the current directory) with ``$TOKBENCH_CACHE`` an empty cache there; a callable row passes
when it raises a ``TokbenchError`` containing ``says`` (``exit=2``) or returns (``exit=0``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests._needs import need_module
from tokbench.cli import main
from tokbench.errors import (
    CorruptFileError,
    HashMismatchError,
    InputError,
    MissingDependencyError,
    SourceError,
    TokbenchError,
    UnknownNameError,
)
from tokbench.loading.sources import FetchSession, FolderSource


def _zip(member: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(member, data)
    return buf.getvalue()


def _recipe(name: str, content: bytes, **params: str) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        from tokbench.loading.derived import RECIPES

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
        from tokbench.engine.presets import get_preset

        return get_preset(name)
    return run


def _spec(spec: str) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        from tokbench.loading.loader import load_tokenizer

        return load_tokenizer(spec)
    return run


def _missing_implementation(tmp: Path) -> Any:
    from tokbench.loading.implementations import IMPLEMENTATIONS, Implementation
    from tokbench.loading.loader import clear_memo, load_tokenizer

    IMPLEMENTATIONS.register("no-such-lib", Implementation(
        "no-such-lib", "tokbench-no-such-lib", "tokbench_no_such_lib", ("tiktoken",),
        "tokbench.adapters.libraries:splintr"), replace=True)
    try:
        return load_tokenizer("cl100k_base@no-such-lib")
    finally:
        IMPLEMENTATIONS._targets.pop("no-such-lib", None)
        clear_memo()


def _versions(text: str) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        from tokbench.parity.drift import parse_versions

        return parse_versions(text)
    return run


def _gold(content: bytes, name: str = "gold.csv") -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        from tokbench.suites.morph_gold import read_gold

        (tmp / name).write_bytes(content)
        return read_gold(tmp / name)
    return run


def _analyzer_without(module: str, make: Callable[[], Any]) -> Callable[[Path], Any]:
    """Load a morphological analyzer as if ``module`` were not installed."""
    def run(tmp: Path) -> Any:
        import sys

        saved = sys.modules.get(module)
        sys.modules[module] = None  # type: ignore[assignment]  # import now fails
        try:
            return make().load()
        finally:
            if saved is None:
                del sys.modules[module]
            else:
                sys.modules[module] = saved
    return run


def _sudachi() -> Any:
    from tokbench.suites.morphemes import SudachiAnalyzer

    return SudachiAnalyzer("A")


def _kiwi() -> Any:
    from tokbench.suites.morphemes import KiwiAnalyzer

    return KiwiAnalyzer()


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
    # NAME@IMPL (issue 19)
    ("unknown implementation", _spec("cl100k_base@splinter"), UnknownNameError,
     "unknown implementation 'splinter'; did you mean 'splintr'"),
    ("implementation not installed", _missing_implementation, MissingDependencyError,
     "'tokbench-no-such-lib' is not installed.*pip install tokbench-no-such-lib"),
    ("implementation that cannot read the file kind", _spec("xlm-roberta@bpe-openai"),
     InputError, "xlm-roberta@bpe-openai: bpe-openai cannot read a tokenizers vocabulary"),
    ("reference library on another file kind", _spec("cl100k_base@sentencepiece"),
     InputError, "sentencepiece cannot read a tiktoken vocabulary"),
    ("version pip rejects", _versions("tokenizers=0.19,tokenizers==0.23.3"), TokbenchError,
     "'tokenizers=0.19' is not a requirement pip accepts"),
    ("version range instead of a pin", _versions("tokenizers>=0.19,tokenizers==0.23.3"),
     TokbenchError, "must pin one exact version"),
    ("one version only", _versions("tokenizers==0.19.1"), InputError,
     "give at least two NAME==VERSION pins"),
    # morpheme boundaries (issue 23): gold files and analyzers
    ("gold segmentation that does not spell its word",
     _gold(b"word,segmentation\ncats,cat+s\nwalked,walk+d\n"), InputError,
     r"gold\.csv:3: segmentation 'walk\+d' does not spell the word 'walked'"),
    ("MorphScore item whose parts do not spell the word",
     _gold(b",full_word,pt1,rest\n0,walked,walk,et\n"), InputError,
     r"gold\.csv:2: segmentation 'walk\+et' does not spell the word 'walked'"),
    ("gold JSONL line that is not JSON", _gold(b'{"word": "cats"\n', "gold.jsonl"),
     InputError, r"gold\.jsonl:1: not JSON"),
    ("gold file of unknown type", _gold(b"cats cat+s\n", "gold.txt"), InputError,
     r"unknown gold file type \.txt; use \.csv, \.tsv or \.jsonl"),
    ("Sudachi not installed", _analyzer_without("sudachipy", _sudachi), TokbenchError,
     r"'sudachipy' is not installed \(needed for Sudachi morpheme boundaries\); run: "
     r'pip install "tokbench\[morph\]"'),
    ("Kiwi not installed", _analyzer_without("kiwipiepy", _kiwi), TokbenchError,
     r'run: pip install "tokbench\[morph\]"'),
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
    (["run", "-t", "bytes", "-s", "numbers", "--morph-gold", "{tmp}/missing.csv",
      "--no-history", "-o", "{tmp}/run"], "missing.csv: cannot read it (No such file"),
    # speed profiles: tokbench bench
    (["bench", "--parts", "latency,warp", "-t", "gpt2"],
     "--parts: unknown part(s) warp; choose from latency, rate, threads, scaling, footprint"),
    (["bench", "--budget", "0", "-t", "gpt2"], "--budget must be a number above 0"),
    (["bench", "--budget", "-1", "-t", "gpt2"], "--budget must be a number above 0"),
    (["bench", "--max-threads", "0", "-t", "gpt2"], "--max-threads must be at least 1"),
    # intervals, paired comparisons and samples (issue 24)
    (["run", "-t", "bytes", "-s", "numbers", "--ci", "1.5", "--no-history", "-o", "{tmp}/run"],
     "--ci must be a level like 95% or 0.95 or none, got the string '1.5'"),
    (["run", "-t", "bytes", "-s", "numbers", "--precision", "fine", "--no-history",
      "-o", "{tmp}/run"], "--precision must be a level like 95% or 0.95, got the string 'fine'"),
    (["run", "-t", "bytes", "-s", "numbers", "--precision", "1%", "--no-history",
      "-o", "{tmp}/run"], "add ?sample=SIZE to a text: suite"),
    (["run", "-t", "bytes", "-s", "numbers?sample=lots", "--no-history", "-o", "{tmp}/run"],
     "sample='lots' is not a size; use a share like 1% or an amount of text like 50MB"),
    (["run", "-t", "bytes", "-s", "numbers?sample=0%", "--no-history", "-o", "{tmp}/run"],
     "sample=0% must be a share above 0% and at most 100%"),
    (["run", "-t", "bytes", "-s", "numbers?sample=20", "--no-history", "-o", "{tmp}/run"],
     "sample=20 needs a unit: % (share) or B, KB, MB, GB"),
    (["run", "-t", "bytes", "-s", "multilingual?seed=3", "--no-history", "-o", "{tmp}/run"],
     "unknown option 'seed'"),
    (["run", "-t", "bytes", "-s", "numbers?sample=5%&seed=x", "--no-history",
      "-o", "{tmp}/run"], "seed"),
    # parity and drift (issue 19)
    (["parity", "cl100k_base", "cl100k_base@splintr", "-s", "unicode", "--time-limit", "-1"],
     "--time-limit must be 0 (no limit) or more seconds"),
    (["parity", "cl100k_base", "cl100k_base@splinter", "-s", "unicode"],
     "did you mean 'splintr'"),
    (["parity", "cl100k_base", "cl100k_base@splintr", "-s", "unicode", "--speed", "warp"],
     "unknown speed part(s) warp"),
    (["drift", "gpt2", "--versions", "tiktoken=0.7,tiktoken==0.8", "-s", "unicode"],
     "'tiktoken=0.7' is not a requirement pip accepts"),
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


# -- issue 11: hostile and careless uses ------------------------------------------------------

FAST = ["--no-history", "--repeats", "1", "-m", "compression", "--no-html"]
BYTES_ON_UNICODE = ["run", "-t", "bytes", "-s", "unicode", *FAST]


@dataclass
class Case:
    id: str
    run: list[str] | Callable[[Path], Any]
    exit: int = 2
    says: str = ""  # a phrase of stderr (CLI) or of the TokbenchError (callable)
    files: dict[str, str | bytes] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    before: list[list[str]] = field(default_factory=list)  # commands run first (must exit 0)
    setup: Callable[[Path], Any] | None = None
    around: Callable[[Path], contextlib.AbstractContextManager[Any]] | None = None
    check: Callable[[Path, str], Any] | None = None  # (folder, stdout + stderr)


# -- helpers of the rows ------------------------------------------------------------------------

def _results(path: str) -> Callable[[Path], dict[str, Any]]:
    return lambda tmp: json.loads((tmp / path / "results.json").read_text(encoding="utf-8"))


def _good_results(tmp: Path) -> dict[str, Any]:
    assert main([*BYTES_ON_UNICODE, "-o", "good", "--no-plots"]) == 0
    return json.loads((tmp / "good" / "results.json").read_text(encoding="utf-8"))


def _tampered(change: Callable[[dict[str, Any]], Any], name: str) -> Callable[[Path], None]:
    def setup(tmp: Path) -> None:
        data = _good_results(tmp)
        change(data)
        (tmp / name).write_text(json.dumps(data), encoding="utf-8")
    return setup


def _content_changed(data: dict[str, Any]) -> None:
    """Another suite content, on rows without confidence intervals (with them, a changed
    corpus is judged on the intervals: tests/test_sampling.py)."""
    data["meta"]["suites"]["unicode"]["sha256"] = "0" * 64
    for row in data["rows"]:
        for key in [k for k in row if k.startswith(("ci_", "vs"))]:
            del row[key]


def _set_bpt(value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        for r in data["rows"]:
            if r["metric"] == "bytes_per_token" and r["subset"] == "all":
                r["value"] = value
    return change


def _manifest(name: str, **keys: Any) -> dict[str, str]:
    manifest = {"name": name, "version": "1", "description": "x", "parallel": False,
                "subset_by": "lang", **keys}
    return {f"{name}/manifest.json": json.dumps(manifest)}


@contextlib.contextmanager
def _locked_by_another_run(tmp: Path) -> Iterator[None]:
    """OUT locked by a live process (a child holding the lock) while the row runs."""
    import subprocess
    import sys
    import time

    code = ("import sys, time; from tokbench.cli.outdir import OutputFolder\n"
            "with OutputFolder('out'):\n print('locked', flush=True); time.sleep(30)")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp, stdout=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        yield
    finally:
        proc.kill()
        proc.wait()
        time.sleep(0)


def _dead_lock(tmp: Path) -> None:
    """A lock file left by a run killed long ago (its pid no longer exists)."""
    (tmp / ".out.lock").write_text(json.dumps({"pid": 2 ** 22 + 7, "host": "vm",
                                               "started": "2020-01-01T00:00:00Z"}))


@contextlib.contextmanager
def _read_only(path: str) -> Iterator[None]:
    """``mkdir`` under ``path`` fails with EACCES (tests run as root, where chmod cannot)."""
    real = Path.mkdir

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        if str(self).startswith(path):
            raise PermissionError(13, "Permission denied", str(self))
        real(self, *args, **kwargs)
    Path.mkdir = mkdir  # type: ignore[method-assign]
    try:
        yield
    finally:
        Path.mkdir = real  # type: ignore[method-assign]


def _gpt2_cache_file(tmp: Path) -> Path:
    from tokbench.loading.catalog import TOKENIZERS

    return TOKENIZERS.get("gpt2").recipes[0].source.cache_path(tmp / "cache")  # type: ignore[attr-defined]


def _tamper_gpt2_cache(tmp: Path) -> None:
    path = _gpt2_cache_file(tmp)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"SGVsbG8= 0\n")


def _no_png(tmp: Path, out: str) -> None:
    assert not list((tmp / "out").glob("*.png"))


def _has(path: str) -> Callable[[Path, str], None]:
    def check(tmp: Path, out: str) -> None:
        assert (tmp / path).exists(), path
    return check


def _both(*checks: Callable[[Path, str], Any]) -> Callable[[Path, str], None]:
    def check(tmp: Path, out: str) -> None:
        for c in checks:
            c(tmp, out)
    return check


def _rows_of(path: str, tokenizers: set[str]) -> Callable[[Path, str], None]:
    def check(tmp: Path, out: str) -> None:
        got = {r["tokenizer"] for r in _results(path)(tmp)["rows"]}
        assert got == tokenizers, got
    return check


def _unchanged_good(tmp: Path, out: str) -> None:
    assert len(_results("out")(tmp)["rows"]) == 48  # the earlier run's rows are still there


def _baseline_mode(tmp: Path, out: str) -> None:
    mode = stat.S_IMODE((tmp / "bl.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp / "good" / "results.json").stat().st_mode) == 0o644


def _atomic_failure_leaves_nothing(tmp: Path) -> None:
    from tokbench.atomic import write_atomic

    def chunks() -> Iterator[bytes]:
        yield b"half"
        raise TokbenchError("the producer failed")
    try:
        write_atomic(tmp / "x.json", chunks())
    finally:
        assert sorted(p.name for p in tmp.iterdir() if p.name != "cache") == []


def _plots_keep_backend(tmp: Path) -> None:
    import matplotlib

    from tokbench.render.plots import render_plots
    from tokbench.results import Results

    _good_results(tmp)
    matplotlib.use("pdf")
    assert render_plots(Results.load(tmp / "good"), tmp / "plots")
    assert matplotlib.get_backend() == "pdf"


def _report_escapes_names(tmp: Path, out: str) -> None:
    md = (tmp / "out" / "report.md").read_text(encoding="utf-8")
    assert "<b>" not in md and "&lt;b&gt;x&lt;/b&gt;" in md


def _left_out_shown(tmp: Path, out: str) -> None:
    suite = _results("out")(tmp)["meta"]["suites"]["text:bad"]
    assert suite["left_out"] == {"replaced_invalid": 1}
    md = (tmp / "out" / "report.md").read_text(encoding="utf-8")
    assert "1 with invalid UTF\\-8 replaced by U+FFFD" in md or \
        "1 with invalid UTF-8 replaced by U+FFFD" in md
    assert "1 with invalid UTF-8 replaced by U+FFFD (errors=replace)" in out


def _killed_run(tmp: Path) -> None:
    """What ``kill -9`` leaves: an unfinished run's checkpoint in ``.out.partial``.

    Its token count is marked (999) so the check can tell it was reused from there.
    """
    data = _good_results(tmp)
    data["meta"]["complete"] = False
    for r in data["rows"]:
        if r["metric"] == "tokens" and r["subset"] == "all":
            r["value"] = 999
    (tmp / ".out.partial").mkdir()
    (tmp / ".out.partial" / "results.json").write_text(json.dumps(data), encoding="utf-8")


def _resumed_from_partial(tmp: Path, out: str) -> None:
    data = _results("out")(tmp)
    assert data["meta"]["complete"] is True
    assert [r["value"] for r in data["rows"] if r["metric"] == "tokens"
            and r["subset"] == "all"] == [999]
    assert not (tmp / ".out.partial").exists()


def _write_into_unwritable_cache(tmp: Path) -> None:
    from tokbench.loading.sources import write_verified

    (tmp / "afile").write_text("x")
    write_verified(tmp / "afile" / "pypi" / "x.model", [b"data"], None, "x.model")


# -- issue 20 helpers ------------------------------------------------------------------------

TEXT_RUN = ["run", "-t", "bytes", "--no-history", "--repeats", "1", "--no-html", "--no-plots"]


def _kept(*paths: str) -> Callable[[Path, str], None]:
    def check(tmp: Path, out: str) -> None:
        for p in paths:
            assert (tmp / p).is_file(), p
    return check


def _user_file_in_marked_out(tmp: Path) -> None:
    """A user's file dropped into a folder tokbench wrote: the next run refuses, keeps it."""
    assert main([*BYTES_ON_UNICODE, "--no-plots", "-o", "out"]) == 0
    (tmp / "out" / "notes.txt").write_text("mine", encoding="utf-8")
    from tokbench.cli.outdir import OutputFolder

    assert main([*BYTES_ON_UNICODE, "-o", "out"]) == 2
    assert (tmp / "out" / "notes.txt").read_text(encoding="utf-8") == "mine"
    OutputFolder("out").check()  # the refusal, as a TokbenchError


def _legacy_out(extra: str | None) -> Callable[[Path], None]:
    """A folder written by a tokbench before markers (plus a user's file ``extra``)."""
    def setup(tmp: Path) -> None:
        _good_results(tmp)
        (tmp / "out").mkdir()
        for name in ("results.json", "results.csv", "report.md"):
            (tmp / "out" / name).write_bytes((tmp / "good" / name).read_bytes())
        (tmp / "out" / "bytes_per_token_unicode.png").write_bytes(b"png")
        if extra:
            (tmp / "out" / extra).write_text("mine", encoding="utf-8")
    return setup


def _migrated(tmp: Path, out: str) -> None:
    names = sorted(p.name for p in (tmp / "out").iterdir())
    assert ".tokbench-out.json" in names and "bytes_per_token_unicode.png" not in names, names


def _big_jsonl(tmp: Path) -> None:
    """Over 2 MB of English records, then a few German ones: the first shard has none."""
    with open(tmp / "big.jsonl", "w", encoding="utf-8") as f:
        for i in range(30000):
            f.write(json.dumps({"text": f"an English sentence, number {i}, padded to length",
                                "lang": "eng_Latn"}) + "\n")
        for i in range(10):
            f.write(json.dumps({"text": f"ein deutscher Satz {i}", "lang": "deu_Latn"}) + "\n")


def _documents(path: str, suite: str, documents: int) -> Callable[[Path, str], None]:
    def check(tmp: Path, out: str) -> None:
        data = _results(path)(tmp)
        info = data["meta"]["suites"][suite]
        assert info["documents"] == documents and info["subset_by"] is not None, info
        assert any(r["metric"] == "throughput_mb_s" for r in data["rows"])  # timed, too
    return check


def _corpus_changed_during_run(tmp: Path) -> None:
    """A corpus rewritten in place (same size) between planning and reading a shard."""
    import tokbench
    from tokbench.suites import load_suite

    path = tmp / "corpus.txt"
    path.write_text("hello world\n" * 1000, encoding="utf-8")
    suite = load_suite(f"text:{path}")
    suite.shards()  # planned: hashes taken
    path.write_text("HELLO WORLD\n" * 1000, encoding="utf-8")
    tokbench.run(["bytes"], [suite], ["compression"], jobs=1)


@contextlib.contextmanager
def _interrupted_after_first_shard(tmp: Path, at: int = 2) -> Iterator[None]:
    """Ctrl-C as shard ``at`` of the run starts."""
    from tokbench.engine import executors

    real, seen = executors.process_shard, []

    def interrupt(task: Any) -> Any:
        seen.append(task)
        if len(seen) == at:
            raise KeyboardInterrupt
        return real(task)
    executors.process_shard = interrupt  # type: ignore[assignment]
    try:
        yield
    finally:
        executors.process_shard = real  # type: ignore[assignment]


def _earlier_out_kept_partial_beside(tmp: Path, out: str) -> None:
    _unchanged_good(tmp, out)
    partial = _results("out.partial")(tmp)
    assert partial["meta"]["complete"] is False and partial["rows"]


def _tekken_without_nul(tmp: Path) -> None:
    """A Tekken JSON lacking byte 0x00 (tiktoken panics on a NUL), and a text holding one."""
    import base64

    from tokbench.adapters.tiktoken_adapter import R50K_PAT_STR

    tokens = [bytes([b]) for b in range(1, 256)] + [b"ab"]
    spec = {"config": {"pattern": R50K_PAT_STR, "num_vocab_tokens": len(tokens),
                       "default_vocab_size": 3 + len(tokens), "default_num_special_tokens": 3,
                       "version": "v7"},
            "vocab": [{"rank": r, "token_bytes": base64.b64encode(t).decode("ascii")}
                      for r, t in enumerate(tokens)],
            "special_tokens": [{"rank": r, "token_str": f"<s{r}>", "is_control": True}
                               for r in range(3)]}
    (tmp / "tekken.json").write_text(json.dumps(spec), encoding="utf-8")
    (tmp / "nul").mkdir()
    (tmp / "nul" / "a.txt").write_bytes(b"hello\nbad \x00 here\nfine text\n")


def _panic_is_one_failure(tmp: Path, out: str) -> None:
    data = _results("out")(tmp)
    assert [(f["tokenizer"], f["doc_id"], f["error"][:15]) for f in data["failures"]] == [
        ("file:tekken.json", "a.txt:2", "PanicException:")]
    rows = {(r["tokenizer"], r["metric"]): r for r in data["rows"] if r["subset"] == "all"}
    assert rows[("bytes", "tokens")]["value"] == 24  # every document of the other tokenizer
    assert rows[("file:tekken.json", "roundtrip")]["failed_docs"] == 1
    md = (tmp / "out" / "report.md").read_text(encoding="utf-8")
    # ° : three documents are too few for a confidence interval
    assert "| roundtrip ↑ | 100.00% ° | 100.00% ° (1 failed) |" in md, md
    assert "file:tekken.json (1 failed)" in out  # the terminal summary says it too


@contextlib.contextmanager
def _history_locked(tmp: Path) -> Iterator[None]:
    """Another process holds the history's write lock for the whole row."""
    import subprocess
    import sys

    from tokbench.ci import history

    code = ("import sqlite3, time\n"
            "db = sqlite3.connect('h.sqlite', isolation_level=None)\n"
            "db.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp, stdout=subprocess.PIPE,
                            text=True)
    wait, history.LOCK_TIMEOUT = history.LOCK_TIMEOUT, 0.5
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        yield
    finally:
        history.LOCK_TIMEOUT = wait
        proc.kill()
        proc.wait()


def _history_of_good(tmp: Path) -> None:
    _good_results(tmp)
    assert main(["history", "--add", "good", "--history", "h.sqlite"]) == 0


def _damaged_history(tmp: Path) -> None:
    """A history with one page overwritten (``database disk image is malformed``)."""
    _history_of_good(tmp)
    data = bytearray((tmp / "h.sqlite").read_bytes())
    data[4096 + 8:2 * 4096] = b"\xab" * (4096 - 8)  # the table of runs
    (tmp / "h.sqlite").write_bytes(bytes(data))


def _six_processes_create_a_history(tmp: Path) -> None:
    """Six processes open the same new history at once, ten times: each one opens it."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    for trial in range(10):
        barrier = ctx.Barrier(6)
        queue = ctx.Queue()
        procs = [ctx.Process(target=_open_history, args=(tmp / f"h{trial}.sqlite", barrier,
                                                          queue)) for _ in range(6)]
        for p in procs:
            p.start()
        got = [queue.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(60)
        assert got == ["ok"] * 6, got


def _open_history(path: Path, barrier: Any, queue: Any) -> None:
    from tokbench.ci.history import History

    barrier.wait()
    try:
        with History(path) as h:
            h.runs()
        queue.put("ok")
    except Exception as e:
        queue.put(str(e))


def _scheduler_without_workers(tmp: Path) -> None:
    """A real Dask scheduler (127.0.0.1, stopped at the end) that has no worker."""
    import subprocess
    import sys
    import time

    import tokbench
    from tokbench.engine import executors

    need_module("distributed", "pip install 'tokbench[dask]'")
    proc = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                             "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
                             str(tmp / "sched.json")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    wait, executors.WORKER_WAIT = executors.WORKER_WAIT, 1.0
    try:
        deadline = time.monotonic() + 60
        while not (tmp / "sched.json").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)
        address = json.loads((tmp / "sched.json").read_text(encoding="utf-8"))["address"]
        tokbench.run(["bytes"], ["unicode"], ["compression"], executor="dask",
                     scheduler=address)
    finally:
        executors.WORKER_WAIT = wait
        proc.kill()
        proc.wait()


def _bidi_escaped(tmp: Path, out: str) -> None:
    import re

    md = (tmp / "out" / "report.md").read_text(encoding="utf-8")
    page = (tmp / "out" / "report.html").read_text(encoding="utf-8")
    shown = re.sub(r"<script.*?</script>", "", page, flags=re.S)  # data, not text on screen
    assert "\u202e" not in md and "\u202e" not in shown
    assert "ab&lt;U+202E&gt;cd" in md and "ab&lt;U+202E&gt;cd" in shown
    assert "ab<U+202E>cd · all" in out and "\u202e" not in out


def _report_digits_as_saved(tmp: Path) -> None:
    """A value whose 4-digit form differs unrounded (1.9670) and as saved (1.96695 ->
    1.9669): the run's report and ``tokbench report`` show the same digits."""
    from tokbench.cli.output import write_outputs
    from tokbench.render.markdown import render_markdown
    from tokbench.results import Results

    _good_results(tmp)
    results = Results.load(tmp / "good")
    row = next(r for r in results.rows if r.metric == "chars_per_token" and r.subset == "all")
    row.value = 1.9669501
    write_outputs(results, tmp / "run", plots=False, html=False)
    md = (tmp / "run" / "report.md").read_text(encoding="utf-8")
    assert md == render_markdown(Results.load(tmp / "run"))
    assert "| chars_per_token ↑ | 1.9669 ± " in md  # (± its confidence interval)


def _rank_file(tmp: Path, rank: int) -> Path:
    import base64

    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    path = tmp / "ranks.tiktoken"
    path.write_bytes(b"\n".join([*lines, base64.b64encode(b"ab") + b" %d" % rank]) + b"\n")
    return path


def _tiktoken_api(rank: int, **special: int) -> Callable[[Path], Any]:
    """A rank file loaded through the API with its own pattern (no preset's size check)."""
    def run(tmp: Path) -> Any:
        from tokbench.adapters.tiktoken_adapter import R50K_PAT_STR, load

        return load(_rank_file(tmp, rank), name="x", pat_str=R50K_PAT_STR,
                    special_tokens=special)
    return run


def _truncated_partial(tmp: Path) -> None:
    """What a full disk can leave: the unfinished run's results.json cut in the middle."""
    text = json.dumps(_good_results(tmp))
    (tmp / "out.partial").mkdir()
    (tmp / "out.partial" / "results.json").write_text(text[:len(text) // 2], encoding="utf-8")
    (tmp / "out.partial" / ".tokbench-out.json").write_text(
        json.dumps({"tokbench": "output folder", "files": ["results.json"]}), encoding="utf-8")


def _interrupted_twice(tmp: Path) -> None:
    """Ctrl-C, then Ctrl-C of the --resume before its first checkpoint: the units the first
    run finished are still beside OUT."""
    argv = ["run", "-t", "bytes", "-s", "unicode,numbers", *FAST, "-j", "1", "-o", "out"]
    with _interrupted_after_first_shard(tmp):
        assert main(argv) == 130
    with _interrupted_after_first_shard(tmp, at=1):
        assert main([*argv, "--resume"]) == 130
    rows = _results("out.partial")(tmp)["rows"]
    assert {r["suite"] for r in rows} == {"unicode"}, rows
    assert main([*argv, "--resume"]) == 0
    assert {r["suite"] for r in _results("out")(tmp)["rows"]} == {"unicode", "numbers"}


def _tokenizer_changed_during_run(tmp: Path) -> None:
    """The tokenizer file rewritten after the run loaded it, before its workers load it."""
    import tokbench
    from tokbench.events import Event, RunStarted

    _tekken_without_nul(tmp)

    def progress(event: Event) -> None:
        # tokenizers loaded, suites planned, no worker started yet
        if isinstance(event, RunStarted):
            with open(tmp / "tekken.json", "a", encoding="utf-8") as f:
                f.write("\n")
    tokbench.run(["file:tekken.json"], ["unicode"], ["compression"], jobs=2,
                 progress=progress)


def _user_file_appears_during_the_run(tmp: Path) -> None:
    """A file of the user's dropped into OUT while a run works: OUT is not replaced."""
    from tokbench.cli.outdir import OutputFolder

    assert main([*BYTES_ON_UNICODE, "--no-plots", "-o", "out"]) == 0
    with OutputFolder("out") as folder:
        staging = folder.start()
        (staging / "results.json").write_text("{}", encoding="utf-8")
        (tmp / "out" / "notes.txt").write_text("mine", encoding="utf-8")
        try:
            folder.publish()
        finally:
            assert (tmp / "out" / "notes.txt").read_text(encoding="utf-8") == "mine"
            assert (tmp / "out.partial" / "results.json").is_file()


def _duplicate_bpt(value_factor: float) -> Callable[[dict[str, Any]], None]:
    """Append a second ``bytes · unicode · all · bytes_per_token`` row (value times factor)."""
    def change(data: dict[str, Any]) -> None:
        row = next(r for r in data["rows"] if r["metric"] == "bytes_per_token"
                   and r["subset"] == "all")
        data["rows"].append({**row, "value": row["value"] * value_factor})
    return change


def _renamed(data: dict[str, Any]) -> None:
    """Every row and the meta of tokenizer 'bytes' renamed 'other'."""
    for r in data["rows"]:
        r["tokenizer"] = "other"
    data["meta"]["tokenizers"] = {"other": data["meta"]["tokenizers"]["bytes"]}


@contextlib.contextmanager
def _crashing_compare(tmp: Path) -> Iterator[None]:
    """``compare`` raising what no one expected (a Rust panic is a BaseException too)."""
    class Panic(BaseException):
        pass

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise Panic("called `Option::unwrap()` on a `None` value\nsecond line")
    mp = pytest.MonkeyPatch()
    mp.setattr("tokbench.ci.compare.compare", boom)
    try:
        yield
    finally:
        mp.undo()


TIMINGS_ONLY = ["run", "-t", "bytes", "-s", "unicode", "--no-history", "--repeats", "1",
                "-m", "throughput", "--no-html", "--no-plots"]


def _quiet_copy(tmp: Path) -> None:
    """A timings-only run ``t1`` taken with a whole CPU, and the same run as ``t1.json``."""
    assert main([*TIMINGS_ONLY, "-o", "t1"]) == 0
    data = _results("t1")(tmp)
    for r in data["rows"]:
        r["cpu_share"] = 1.0
    for path in (tmp / "t1" / "results.json", tmp / "t1.json"):
        path.write_text(json.dumps(data), encoding="utf-8")


# -- the catalogue --------------------------------------------------------------------------------

CASES: list[Case] = [
    # issue 11
    # 2. a run that measures nothing leaves OUT as it was and fails
    Case("no-tokenizer-loads", ["run", "-t", "gpt2", "-s", "unicode", "--no-fetch", *FAST,
                                "-o", "out"],
         says="nothing was measured", before=[[*BYTES_ON_UNICODE, "-o", "out"]],
         check=_both(_unchanged_good, _has("out/bytes_per_token_unicode.png"))),
    Case("stale-plots-removed", [*BYTES_ON_UNICODE, "--no-plots", "-o", "out"], exit=0,
         before=[[*BYTES_ON_UNICODE, "-o", "out"]], check=_no_png),
    Case("one-tokenizer-fails", ["run", "-t", "bytes,file:bad.json", "-s", "unicode", *FAST,
                                 "-o", "out"],
         says="failed: tokenizer file:bad.json", files={"bad.json": '{"junk": 1}'},
         check=_rows_of("out", {"bytes"})),
    Case("one-suite-fails", ["run", "-t", "bytes", "-s", "unicode,text:missing", *FAST,
                             "-o", "out"],
         says="failed: suite text:missing", check=_rows_of("out", {"bytes"})),
    Case("every-suite-fails", ["run", "-t", "bytes", "-s", "text:missing", *FAST, "-o", "out"],
         says="no suite could be loaded"),
    Case("out-locked-by-another-run", [*BYTES_ON_UNICODE, "-o", "out"],
         says="is being written by another tokbench run (pid", around=_locked_by_another_run),
    Case("stale-lock-taken-over", [*BYTES_ON_UNICODE, "-o", "out"], exit=0, setup=_dead_lock,
         check=_has("out/results.json")),
    Case("out-is-a-file", [*BYTES_ON_UNICODE, "-o", "afile"], says="afile is a file",
         files={"afile": "x"}),
    Case("out-under-a-file", [*BYTES_ON_UNICODE, "-o", "afile/sub"], says="afile is a file",
         files={"afile": "x"}),
    Case("out-is-the-current-folder", [*BYTES_ON_UNICODE, "-o", "."],
         says="name a folder of its own"),
    Case("out-holds-other-files", [*BYTES_ON_UNICODE, "-o", "mine"],
         says="holds 'notes.txt', which tokbench did not write", files={"mine/notes.txt": "x"},
         check=_has("mine/notes.txt")),
    Case("out-read-only", [*BYTES_ON_UNICODE, "-o", "ro/out"], says="cannot write there",
         around=lambda tmp: _read_only("ro")),
    # 4. config values and flags are checked
    Case("config-bool-as-string", ["run", "-c", "c.toml", *FAST[:3], "-o", "out"],
         says="c.toml: premium_join must be true or false, got the string 'no'",
         files={"c.toml": 'premium_join = "no"\n'}),
    Case("config-tokenizers-as-string", ["run", "-c", "c.toml", "-s", "unicode", *FAST,
                                         "-o", "out"], exit=0,
         files={"c.toml": 'tokenizers = "bytes"\n'}, check=_rows_of("out", {"bytes"})),
    Case("config-tokenizers-not-a-list", ["run", "-c", "c.toml", *FAST, "-o", "out"],
         says="c.toml: tokenizers must be a list of strings", files={"c.toml": "tokenizers = 5\n"}),
    Case("config-repeats-as-word", ["run", "-c", "c.toml", "-t", "bytes", "-o", "out"],
         says="c.toml: repeats must be a whole number, got the string 'five'",
         files={"c.toml": 'repeats = "five"\n'}),
    Case("config-threads-zero", ["run", "-c", "c.toml", "-t", "bytes", "-o", "out"],
         says="c.toml: [tokbench] threads must be between 1 and",
         files={"c.toml": "[tokbench]\nthreads = 0\n"}),
    Case("config-not-a-table", ["run", "-c", "c.toml", "-o", "out"],
         says="'tokbench' must be a table", files={"c.toml": 'tokbench = "x"\n'}),
    Case("config-not-utf8", ["run", "-c", "c.toml", "-o", "out"], says="not UTF-8",
         files={"c.toml": b"\xff\xfe"}),
    Case("flag-threads-zero", [*BYTES_ON_UNICODE, "--threads", "0", "-o", "out"],
         says="--threads must be between 1 and"),
    Case("flag-threads-negative", [*BYTES_ON_UNICODE, "--threads", "-3", "-o", "out"],
         says="--threads must be between 1 and"),
    Case("flag-repeats-zero", [*BYTES_ON_UNICODE, "--repeats", "0", "-o", "out"],
         says="--repeats must be between 1 and"),
    # 5. NaN or a missing value fails the gate unless allowed
    Case("compare-nan", ["compare", "good", "nan.json"], exit=1,
         setup=_tampered(_set_bpt(float("nan")), "nan.json")),
    Case("compare-null", ["compare", "good", "null.json"], exit=1,
         setup=_tampered(_set_bpt(None), "null.json")),
    Case("compare-nan-allowed", ["compare", "good", "nan.json", "--allow-missing"], exit=0,
         setup=_tampered(_set_bpt(float("nan")), "nan.json")),
    # 6. manifests stay in their folder and call only known generators
    Case("manifest-domains-file-outside",
         ["run", "-t", "bytes", "-s", "manifest:ms", *FAST, "-o", "out"],
         says="domains_file must name files inside the suite's folder",
         files={**_manifest("ms", format="parallel-lines", files="*.txt", pivot="eng_Latn",
                            domains_file="../../../../etc/passwd"),
                "ms/eng_Latn.txt": "a\nb\n"}),
    Case("manifest-files-pattern-outside",
         ["run", "-t", "bytes", "-s", "manifest:ms", *FAST, "-o", "out"],
         says="without '..'",
         files={**_manifest("ms", format="parallel-lines", files="../*/eng_Latn.txt",
                            pivot="eng_Latn"), "ms/eng_Latn.txt": "a\n"}),
    Case("manifest-symlink-outside",
         ["run", "-t", "bytes", "-s", "manifest:ms", *FAST, "-o", "out"],
         says="must name files inside the suite's folder",
         files={**_manifest("ms", format="parallel-lines", files="*.txt", pivot="eng_Latn"),
                "secret.txt": "s\n"},
         setup=lambda tmp: (tmp / "ms" / "eng_Latn.txt").symlink_to(tmp / "secret.txt")),
    Case("manifest-generator-any-module",
         ["run", "-t", "bytes", "-s", "manifest:mg", *FAST, "-o", "out"],
         says="generator 'os:getcwd' is neither tokbench's own",
         files=_manifest("mg", format="generator", generator="os:getcwd", seed=1)),
    Case("manifest-generator-wrong-signature",
         ["run", "-t", "bytes", "-s", "manifest:mg", *FAST, "-o", "out"],
         says="generator 'tokbench.errors:require' failed: TypeError",
         files=_manifest("mg", format="generator", generator="tokbench.errors:require", seed=1)),
    # 7. markup and file names from user text
    Case("markup-closing-tag-in-path", ["run", "-t", "file:x[/]y.json,bytes", "-s", "unicode",
                                        *FAST, "-o", "out"],
         says="tokenizer file:x[/]y.json", files={"x[/]y.json": '{"junk": 1}'}),
    Case("markup-style-in-path", ["run", "-t", "file:a[red]b.json", "-s", "unicode", *FAST,
                                  "-o", "out"],
         says="file:a[red]b.json", files={"a[red]b.json": '{"junk": 1}'}),
    Case("slash-in-suite-name", ["run", "-t", "bytes", "-s", "unicode?name=a/b",
                                 "--no-history", "--repeats", "1", "-m", "compression",
                                 "-o", "out"], exit=0,
         check=_both(_has("out/report.md"), _has("out/report.html"),
                     lambda tmp, out: [p.name for p in (tmp / "out").glob("*.png")]
                     == ["bytes_per_token_a_b-c14cddc0.png"])),
    Case("html-in-suite-name", ["run", "-t", "bytes", "-s", "unicode?name=<b>x</b>", *FAST,
                                "-o", "out"], exit=0, check=_report_escapes_names),
    # 8. one line instead of a traceback
    Case("cache-is-a-file", ["fetch", "gpt2"], says="$TOKBENCH_CACHE", env={"TOKBENCH_CACHE":
                                                                            "afile"},
         files={"afile": "x"}),
    Case("compare-row-without-metric", ["compare", "good", "bad.json"],
         says="bad.json: row 0: missing 'metric'",
         setup=_tampered(lambda d: d["rows"][0].pop("metric"), "bad.json")),
    Case("report-meta-a-list", ["report", "bad.json", "--out", "r"],
         says="'meta' must be a JSON object", setup=_tampered(lambda d: d.update(meta=[]),
                                                              "bad.json")),
    Case("compare-meta-suites-a-list", ["compare", "good", "bad.json"],
         says="meta.suites must be an object",
         setup=_tampered(lambda d: d["meta"].update(suites=[]), "bad.json")),
    Case("sweep-within-not-a-percentage", ["sweep", "--within", "abc"],
         says="argument --within: 'abc' is not a percentage"),
    # 9. a tampered cached file says so
    Case("tampered-cache-offline", ["run", "-t", "gpt2", "-s", "unicode", "--no-fetch", *FAST,
                                    "-o", "out"],
         says="does not match the pinned", setup=_tamper_gpt2_cache,
         check=lambda tmp, out: _gpt2_cache_file(tmp).exists()),
    # 11. what ?errors=replace|skip changed is shown
    Case("left-out-counts-shown", ["run", "-t", "bytes", "-s", "text:bad.txt?errors=replace",
                                   *FAST, "-o", "out"], exit=0,
         files={"bad.txt": b"ok line\nbad \xff line\n"}, check=_left_out_shown),
    # 13. one atomic write: 0644 and no temporary file left behind
    Case("baseline-mode-0644", ["baseline", "update", "--from", "good", "--to", "bl.json"],
         exit=0, setup=_good_results, check=_baseline_mode),
    Case("atomic-write-failure-leaves-no-temp", _atomic_failure_leaves_nothing,
         says="the producer failed"),
    # 14. the history goes beside the output folder
    Case("history-beside-out", ["run", "-t", "bytes", "-s", "unicode", "--repeats", "1", "-m",
                                "compression", "--no-html", "--no-plots", "-o", "sub/run"],
         exit=0,
         check=lambda tmp, out: (tmp / "sub" / "history.sqlite").is_file()
         and not (tmp / "reports").exists()),
    # 15. the library never switches matplotlib's backend
    Case("plots-keep-the-backend", _plots_keep_backend, exit=0),
    Case("resume-after-kill-reads-the-partial-folder",
         [*BYTES_ON_UNICODE, "--no-plots", "--resume", "-o", "out"], exit=0,
         setup=_killed_run, check=_resumed_from_partial),
    Case("cache-not-writable", _write_into_unwritable_cache,
         says="cannot write into the tokenizer cache"),
    # found by tests/test_fuzz_inputs.py
    Case("tokenizer-path-of-unknown-user", ["run", "-t", "~nosuchuser0/tok.json", "-s",
                                            "unicode", *FAST, "-o", "out"],
         says="no tokenizer '~nosuchuser0/tok.json'"),
    Case("tokenizer-path-of-undecodable-user", ["run", "-t", "~\udcff/tok.json", "-s",
                                                "unicode", *FAST, "-o", "out"],
         says="no tokenizer"),  # a non-UTF-8 argv byte arrives as a lone surrogate
    Case("suite-path-of-unknown-user", ["run", "-t", "bytes", "-s", "text:~nosuchuser0/x.txt",
                                        *FAST, "-o", "out"],
         says="no such file or folder"),
    Case("report-tokenizer-source-not-an-object", ["report", "bad.json", "--out", "r"],
         says="meta.tokenizers.bytes.source must be an object, got true or false",
         setup=_tampered(lambda d: d["meta"]["tokenizers"]["bytes"].update(source=True),
                         "bad.json")),
    Case("compare-error-entry-not-a-string", ["compare", "good", "bad.json"],
         says="bad.json: meta.errors[0].error must be a string, got an integer",
         setup=_tampered(lambda d: d["meta"].update(errors=[{"tokenizer": "x", "error": 1}]),
                         "bad.json")),
    # issue 20.10, 20.11 and 21.2: a comparison refuses what it cannot judge, never passes it
    Case("compare-meta-deleted", ["compare", "good", "bad.json"],
         says="bad.json: 'meta' has no tokenizers/suites/settings (was it edited?)",
         setup=_tampered(lambda d: d.pop("meta"), "bad.json")),
    Case("compare-meta-emptied", ["compare", "bad.json", "good"],
         says="bad.json: 'meta' has no tokenizers/suites/settings",
         setup=_tampered(lambda d: d.update(meta={}), "bad.json")),
    Case("compare-suite-hash-deleted", ["compare", "good", "bad.json"],
         says="bad.json: row bytes · unicode · all · bytes_per_token: suite 'unicode' has no "
              "content hash in 'meta.suites'",
         setup=_tampered(lambda d: d["meta"]["suites"]["unicode"].pop("sha256"), "bad.json")),
    Case("compare-tokenizer-not-described", ["compare", "good", "bad.json"],
         says="tokenizer 'bytes' is not described in 'meta.tokenizers'",
         setup=_tampered(lambda d: d["meta"].update(tokenizers={}), "bad.json")),
    Case("baseline-meta-deleted", ["run", "-t", "bytes", "-s", "unicode", *FAST[:-1],
                                   "--baseline", "bad.json", "-o", "out"],
         says="'meta' has no tokenizers/suites/settings",
         setup=_tampered(lambda d: d.pop("meta"), "bad.json"),
         check=lambda tmp, out: not (tmp / "out").exists()),
    Case("compare-duplicate-rows-conflicting", ["compare", "good", "dup.json"],
         says="dup.json: row bytes · unicode · all · bytes_per_token appears twice with "
              "different values (1.0 and 2.0)",
         setup=_tampered(_duplicate_bpt(2.0), "dup.json")),
    Case("compare-duplicate-rows-identical", ["compare", "good", "dup.json"], exit=0,
         setup=_tampered(_duplicate_bpt(1.0), "dup.json")),
    Case("compare-nothing-in-common", ["compare", "good", "other.json"],
         says="nothing was compared: good and other.json have no row in common",
         setup=_tampered(_renamed, "other.json")),
    Case("compare-suite-changed-nothing-comparable", ["compare", "good", "bad.json"],
         says="nothing was compared: none of the 48 rows can be compared: suite 'unicode' "
              "content changed",
         setup=_tampered(_content_changed, "bad.json")),
    Case("compare-only-timings", ["compare", "t1", "t2"],
         says="timings are judged only when asked for: pass --fail throughput:15%",
         before=[[*TIMINGS_ONLY, "-o", "t1"], [*TIMINGS_ONLY, "-o", "t2"]]),
    Case("compare-only-timings-asked", ["compare", "t1", "t1.json", "--fail", "throughput:15%"],
         exit=0, setup=_quiet_copy),
    # issue 20.3: a crash is exit 2 (a failure), never 1 (a regression), in one line
    Case("compare-crash-is-not-a-regression", ["compare", "good", "good"],
         says="internal error in", setup=_good_results, around=_crashing_compare,
         check=lambda tmp, out: "Panic: called `Option::unwrap()` on a `None` value second "
                                "line; a bug in tokbench, not a regression" in out),
    Case("report-failure-document-a-list", ["report", "bad.json", "--out", "r"],
         says="bad.json: failures[0].doc_id must be a string or an integer or null, got an "
              "array",
         setup=_tampered(lambda d: d.update(failures=[{"tokenizer": "bytes", "doc_id": []}]),
                         "bad.json")),
    # issue 20
    # 1. a run never deletes a user's files; a folder is tokbench's only when marked
    Case("out-holds-a-photo-and-a-dotfile", [*BYTES_ON_UNICODE, "-o", "assets"],
         says="--out assets holds '.env', which tokbench did not write",
         files={"assets/family_photo.png": b"\x89PNG", "assets/.env": "SECRET=1\n"},
         check=_kept("assets/family_photo.png", "assets/.env")),
    Case("user-file-in-a-marked-out", _user_file_in_marked_out,
         says="holds 'notes.txt', which tokbench did not write"),
    Case("out-of-an-older-tokbench-migrates", [*BYTES_ON_UNICODE, "--no-plots", "-o", "out"],
         exit=0, setup=_legacy_out(None), check=_migrated),
    Case("out-of-an-older-tokbench-with-a-photo", [*BYTES_ON_UNICODE, "-o", "out"],
         says="holds 'family_photo.png', which tokbench did not write",
         setup=_legacy_out("family_photo.png"), check=_kept("out/family_photo.png")),
    Case("partial-folder-of-the-user", [*BYTES_ON_UNICODE, "-o", "out"],
         says="out.partial holds 'draft.md', which tokbench did not write",
         files={"out.partial/draft.md": "mine"}, check=_kept("out.partial/draft.md")),
    Case("out-marker-unreadable", [*BYTES_ON_UNICODE, "-o", "out"],
         says=".tokbench-out.json is not a readable tokbench marker",
         files={"out/.tokbench-out.json": "{", "out/thesis.tex": "mine"},
         check=_kept("out/thesis.tex")),
    # 2. empty shards, subsets and suites are ordinary
    Case("shard-without-documents", [*TEXT_RUN, "-s", "text:c", "-o", "out"], exit=0,
         files={"c/a.txt": "hello world\n", "c/b.txt": "\n\n"},
         check=_documents("out", "text:c", 1)),
    Case("language-absent-from-a-shard", [*TEXT_RUN, "-s", "text:big.jsonl?languages=deu_Latn",
                                          "-o", "out"], exit=0, setup=_big_jsonl,
         check=_documents("out", "text:big", 10)),
    Case("suite-of-blank-lines-beside-another", ["run", "-t", "bytes", "-s",
                                                 "unicode,text:blank.txt", *FAST, "-o", "out"],
         says="failed: suite text:blank.txt", files={"blank.txt": "\n\n\n"},
         check=_rows_of("out", {"bytes"})),
    Case("only-a-suite-of-blank-lines", [*TEXT_RUN, "-s", "text:blank.txt", "-o", "out"],
         says="has no documents (3 skipped empty)", files={"blank.txt": "\n\n\n"}),
    # 7. a corpus changed during the run is refused, not measured under the old hash
    Case("corpus-changed-during-the-run", _corpus_changed_during_run,
         says="corpus.txt: file changed during the run"),
    # 8. --resume of a finished run keeps what reading the suite told
    Case("resume-of-a-finished-streaming-run", [*TEXT_RUN, "-s", "text:c", "-o", "out",
                                                "--resume"], exit=0,
         files={"c/a.txt": "hello world\n", "c/b.txt": "\n\n"},
         before=[[*TEXT_RUN, "-s", "text:c", "-o", "out"]],
         check=_documents("out", "text:c", 1)),
    # 9. Ctrl-C keeps a complete earlier OUT; the partial run waits beside it
    Case("interrupt-keeps-the-earlier-out", ["run", "-t", "bytes", "-s", "unicode,numbers",
                                             *FAST, "-j", "1", "-o", "out"], exit=130,
         says="add --resume to continue it", before=[[*BYTES_ON_UNICODE, "-o", "out"]],
         around=_interrupted_after_first_shard, check=_earlier_out_kept_partial_beside),
    # 4. one line instead of a traceback; the gate still runs
    Case("history-write-locked", ["run", "-t", "bytes", "-s", "unicode", "--repeats", "1", "-m",
                                  "compression", "--no-html", "--no-plots", "--history",
                                  "h.sqlite", "--baseline", "good/results.json", "-o", "out"],
         exit=0, says="history not recorded: h.sqlite: cannot open the history: another "
                      "process holds it locked (0.5 s waited)",
         setup=_history_of_good, around=_history_locked,
         check=_both(_has("out/compare.md"), lambda tmp, out: main(  # OUT is still tokbench's
             [*BYTES_ON_UNICODE, "--no-plots", "-o", "out"]) == 0)),
    Case("history-damaged-page-run", ["run", "-t", "bytes", "-s", "unicode", "--repeats", "1",
                                      "-m", "compression", "--no-html", "--no-plots",
                                      "--history", "h.sqlite", "-o", "out"], exit=0,
         says="the file is damaged: move it away", setup=_damaged_history,
         check=_has("out/results.json")),
    Case("history-damaged-page-history", ["history", "bytes_per_token", "-t", "bytes", "-s",
                                          "unicode", "--history", "h.sqlite"],
         says="h.sqlite: cannot read the history (database disk image is malformed)",
         setup=_damaged_history),
    Case("scheduler-not-an-address", [*BYTES_ON_UNICODE, "--executor", "dask", "--scheduler",
                                      "notaurl", "-o", "out"],
         says="--scheduler 'notaurl' is not a scheduler address"),
    Case("scheduler-ipv6-unclosed", [*BYTES_ON_UNICODE, "--executor", "dask", "--scheduler",
                                     "tcp://[::1", "-o", "out"],
         says="--scheduler 'tcp://[::1' is not a scheduler address"),
    Case("scheduler-inproc", [*BYTES_ON_UNICODE, "--executor", "dask", "--scheduler",
                              "inproc://x", "-o", "out"],
         says="an inproc:// address only works inside the process that made it"),
    # 5. a Rust panic is one document's failure, in this process and across processes
    Case("rust-panic-one-document", ["run", "-t", "bytes,file:tekken.json", "-s", "text:nul",
                                     *FAST[:-1], "-m", "compression,roundtrip", "-j", "1",
                                     "-o", "out"], exit=0,
         setup=_tekken_without_nul, check=_panic_is_one_failure),
    Case("rust-panic-one-document-two-processes",
         ["run", "-t", "bytes,file:tekken.json", "-s", "text:nul", *FAST[:-1], "-m",
          "compression,roundtrip", "-j", "2", "-o", "out"], exit=0,
         setup=_tekken_without_nul, check=_panic_is_one_failure),
    # 6. a scheduler without workers: waited for, then one line
    Case("scheduler-without-workers", _scheduler_without_workers,
         says="has no workers (waited 1 s); start some with `dask worker"),
    # 12. several processes creating one history at once
    Case("history-created-by-six-at-once", _six_processes_create_a_history, exit=0),
    # 13. bidi and control characters in names are spelled out, never applied
    Case("bidi-override-in-suite-name", ["run", "-t", "bytes", "-s", "unicode?name=ab\u202ecd",
                                         "--no-history", "--repeats", "1", "-m", "compression",
                                         "--no-plots", "-o", "out"], exit=0,
         check=_bidi_escaped),
    # 15. the run's report and `tokbench report` render the same (saved) values
    Case("report-digits-as-saved", _report_digits_as_saved, exit=0),
    # 17. a rank far beyond the number of tokens is refused at once (not 6 GB later)
    Case("tiktoken-rank-far-beyond", _tiktoken_api(10 ** 8),
         says="ranks.tiktoken:257: id 100,000,000 is far beyond the 257 tokens"),
    Case("tiktoken-special-id-far-beyond", _tiktoken_api(256, **{"<|x|>": 10 ** 9}),
         says="token b'<|x|>': id 1,000,000,000 is far beyond the 258 tokens"),
    Case("tiktoken-rank-negative", _tiktoken_api(-5), says="ranks.tiktoken:257: rank -5 is "
                                                           "negative"),
    Case("tiktoken-gap-of-reserved-ids", _tiktoken_api(256, **{"<|x|>": 300}), exit=0),
    # beyond the list: `tokbench report --out` never overwrites a file it did not write
    Case("report-out-holds-users-report", ["report", "good", "--out", "docs", "--no-viewer"],
         says="--out docs holds 'report.html', which tokbench did not write",
         setup=_good_results, files={"docs/report.html": "my own page"},
         check=lambda tmp, out: (tmp / "docs" / "report.html").read_text(encoding="utf-8")
         == "my own page" and not list(tmp.glob(".docs.report-*"))),
    Case("report-into-its-run-folder-keeps-it-tokbenchs",
         ["run", "-t", "bytes", "-s", "unicode", *FAST, "-o", "good"], exit=0,
         before=[[*BYTES_ON_UNICODE, "--no-plots", "-o", "good"],
                 ["report", "good", "--no-viewer"]],
         check=_has("good/bytes_per_token_unicode.png")),
    # beyond the list: markup in a tokenizer path, in `tokbench bench` too
    Case("bench-markup-closing-tag-in-path", ["bench", "-t", "bytes,file:x[/]y.json", "--parts",
                                              "footprint", "--budget", "1", "-o", "b"], exit=0,
         says="skipped file:x[/]y.json:", files={"x[/]y.json": '{"junk": 1}'}),
    # beyond the list: an unfinished run's results.json cut short
    Case("resume-of-a-truncated-partial", [*BYTES_ON_UNICODE, "--resume", "-o", "out"],
         says="run without --resume to start afresh", setup=_truncated_partial,
         check=_has("out.partial/results.json")),
    Case("fresh-run-over-a-truncated-partial", [*BYTES_ON_UNICODE, "-o", "out"], exit=0,
         setup=_truncated_partial, check=_rows_of("out", {"bytes"})),
    # beyond the list: a name a spreadsheet would run as a formula stays text in results.csv
    Case("csv-formula-in-suite-name", ["run", "-t", "bytes", "-s",
                                       'unicode?name==HYPERLINK("http://x";"y")', *FAST,
                                       "--no-plots", "-o", "out"], exit=0,
         check=lambda tmp, out: "bytes,\"'=HYPERLINK(\"\"http://x\"\";\"\"y\"\")\",all,"
         in (tmp / "out" / "results.csv").read_text(encoding="utf-8")
         and _results("out")(tmp)["rows"][0]["suite"].startswith("=HYPERLINK")),
    # beyond the list: verifying a results.json without rows is no "all reproduce"
    Case("verify-without-rows", ["verify", "bad.json"],
         says="bad.json: no row to verify (0 rows, none deterministic)",
         setup=_tampered(lambda d: d.update(rows=[]), "bad.json")),
    # beyond the list: environment variables
    Case("pip-args-unclosed-quote", ["fetch", "gpt2"], says="$TOKBENCH_PIP_ARGS=\"--index-url "
                                                              "'x\": No closing quotation",
         env={"TOKBENCH_PIP_ARGS": "--index-url 'x"}),
    Case("history-of-no-user", ["run", "-t", "bytes", "-s", "unicode", "--repeats", "1", "-m",
                                "compression", "--no-html", "--no-plots", "-o", "out"], exit=0,
         says="'~nosuchuser0' names no user whose home ~ could stand for",
         env={"TOKBENCH_HISTORY": "~nosuchuser0/h.sqlite"},
         check=lambda tmp, out: not (tmp / "~nosuchuser0").exists()),
    Case("cache-of-no-user", ["fetch", "gpt2"], says="$TOKBENCH_CACHE=~nosuchuser0/c: "
                                                     "'~nosuchuser0' names no user",
         env={"TOKBENCH_CACHE": "~nosuchuser0/c"},
         check=lambda tmp, out: not (tmp / "~nosuchuser0").exists()),
    Case("interrupted-resume-keeps-the-finished-units", _interrupted_twice, exit=0),
    # beyond the list: a tokenizer file changed during the run (workers load it again)
    Case("tokenizer-file-changed-during-the-run", _tokenizer_changed_during_run,
         says="tokenizer file:tekken.json: its file changed during the run"),
    Case("user-file-appears-in-out-during-the-run", _user_file_appears_during_the_run,
         says="holds 'notes.txt', which tokbench did not write; move it out or give another "
              "folder (tokbench never deletes files it did not write); this run's files are in "
              "out.partial"),
    Case("out-holds-only-file-browser-litter", [*BYTES_ON_UNICODE, "--no-plots", "-o", "out"],
         exit=0, files={"out/.DS_Store": b"\x00\x00\x00\x01Bud1"},
         check=_rows_of("out", {"bytes"})),
    # issue 21
    # 13. a text: folder of other extensions names them and the option that reads them
    Case("text-folder-without-txt", ["run", "-t", "bytes", "-s", "text:fl", *FAST,
                                     "-o", "out"],
         says="text:fl: no .txt or .jsonl files in this folder; it holds .dev, .devtest "
              "files: read them as text (one document per line) with ?glob=*.dev,*.devtest",
         files={"fl/eng_Latn.dev": "one\ntwo\n", "fl/jpn_Jpan.devtest": "三\n"}),
    Case("text-folder-glob", ["run", "-t", "bytes", "-s", "text:fl?glob=*.dev,*.devtest",
                              *FAST, "--no-plots", "-o", "out"], exit=0,
         files={"fl/eng_Latn.dev": "one\ntwo\n", "fl/jpn_Jpan.devtest": "三\n",
                "fl/notes.md": "not read\n"},
         check=lambda tmp, out: _results("out")(tmp)["meta"]["suites"]["text:fl"][
             "documents"] == 3),
    #     an unknown metric is refused before any tokenizer is fetched (test_answers.py
    #     checks that nothing is fetched)
    Case("unknown-metric", ["run", "-t", "gpt2", "-s", "unicode", "-m", "compresion", "-o",
                            "out"],
         says="unknown metric 'compresion'; did you mean 'compression'",
         env={"TOKBENCH_OFFLINE": "1"}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_careless_use(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cache").mkdir()
    monkeypatch.setenv("TOKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TOKBENCH_HISTORY", raising=False)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    for name, content in case.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    if case.setup is not None:
        case.setup(tmp_path)
    for argv in case.before:
        assert main(argv) == 0, argv
    capsys.readouterr()

    if callable(case.run):
        if case.exit == 0:
            case.run(tmp_path)
        else:
            with pytest.raises(TokbenchError, match=None) as info:
                case.run(tmp_path)
            assert case.says in str(info.value)
        output = ""
    else:
        around = case.around(tmp_path) if case.around else contextlib.nullcontext()
        with around:
            usage_error = False
            try:
                code = main(case.run)
            except SystemExit as e:  # argparse's own usage errors
                code, usage_error = int(e.code or 0), True
        captured = capsys.readouterr()
        output = captured.out + captured.err
        assert "Traceback" not in output
        assert code == case.exit, output
        assert case.says in " ".join(output.split()), output
        if case.exit == 2 and not usage_error:
            errors = [ln for ln in captured.err.splitlines() if "tokbench: error:" in ln]
            assert len(errors) == 1, captured.err  # one line names the problem
    if case.check is not None:
        assert case.check(tmp_path, " ".join(output.split())) is not False
