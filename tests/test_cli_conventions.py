"""One set of command-line conventions across commands (tokbench.cli.flags), the old spellings
kept for a release, and ``python -m tokbench``."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from tokbench.cli import COMMANDS, build_parser
from tokbench.version import __version__


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _visible_options(p: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in p._actions if a.help != argparse.SUPPRESS for s in a.option_strings}


# short letter -> the long option it means, in every command that has either
SHORT = {"-t": "--tokenizers", "-s": "--suites", "-m": "--metrics", "-o": "--out",
         "-j": "--jobs", "-c": "--config"}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_short_letters_mean_the_same_everywhere(command: str) -> None:
    options = _visible_options(_subparsers()[command])
    for short, long in SHORT.items():
        if short in options:
            assert long in options[short].option_strings, (command, short)
        if long in options:
            assert short in options[long].option_strings, (command, long)
    # lists are plural; --json prints, a file is --json-out; worker processes are --jobs
    for old in ("--tokenizer", "--suite", "--metric", "--eval", "--workers", "--markdown"):
        assert old not in options, (command, old)
    if "--json" in options:
        assert options["--json"].nargs in (0, "?"), command  # usable as a flag


# (old spelling, new spelling): both parse to the same namespace; the old one is hidden
RENAMED = [
    ("history", ["m", "--tokenizer", "gpt2"], ["m", "--tokenizers", "gpt2"]),
    ("history", ["m", "--suite", "japanese"], ["m", "--suites", "japanese"]),
    ("sweep", ["--corpus", "c", "--eval", "a", "--eval", "b"],
     ["--corpus", "c", "--suites", "a", "-s", "b"]),
    ("sweep", ["--corpus", "c", "--workers", "3"], ["--corpus", "c", "--jobs", "3"]),
    ("compare", ["a", "b", "--json", "x.json"], ["a", "b", "--json-out", "x.json"]),
    ("compare", ["a", "b", "--markdown", "x.md"], ["a", "b", "--markdown-out", "x.md"]),
]


@pytest.mark.parametrize(("command", "old", "new"), RENAMED)
def test_old_spelling_still_works_and_is_hidden(command: str, old: list[str], new: list[str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    got_old = vars(parser.parse_args([command, *old]))
    note = capsys.readouterr().err
    got_new = vars(parser.parse_args([command, *new]))
    assert capsys.readouterr().err == ""
    got_old.pop("_main"), got_new.pop("_main")
    assert got_old == got_new
    flag = next(a for a in old if a.startswith("--") and a not in new)
    assert f"note: {flag} " in note and " is now " in note  # told, not silently accepted
    text = _subparsers()[command].format_help()
    new_flag = next(a for a in new if a.startswith("--") and a not in old)
    assert new_flag in text
    if flag != "--json":  # --json stays visible: alone it now prints JSON
        assert flag not in text.replace(new_flag, "")


def test_json_prints_in_every_command_that_has_it() -> None:
    parsers = _subparsers()
    assert parsers["compare"].parse_args(["a", "b", "--json"]).format == "json"
    assert parsers["history"].parse_args(["m", "--json"]).format == "json"
    assert parsers["show"].parse_args(["text", "--json"]).json is True
    assert parsers["compare"].parse_args(["a", "b"]).format == "table"


def test_python_dash_m_tokbench() -> None:
    done = subprocess.run([sys.executable, "-m", "tokbench", "--version"], capture_output=True,
                          text=True, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, f"tokbench {__version__}")
    done = subprocess.run([sys.executable, "-m", "tokbench", "list", "--help"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("usage: tokbench list")


@pytest.mark.parametrize("kind", ["tokenizers", "suites", "metrics"])
def test_a_reader_that_stops_early_is_no_failure(kind: str) -> None:
    """``tokbench list | head -1``: the closed pipe ends the command quietly with exit 0
    (rich's own handler exited 1, which the command line turned into 2)."""
    proc = subprocess.Popen([sys.executable, "-m", "tokbench", "list", kind],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # gone before the command prints: its first write finds no reader
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0 and err == b""


@pytest.mark.parametrize(("traced", "teardown"), [(False, False), (True, True)])
def test_the_command_exits_without_teardown_unless_traced(traced: bool,
                                                          teardown: bool) -> None:
    """``exit_now``: the exit code and every byte printed (buffered, to a pipe) arrive;
    the interpreter's teardown (here an ``atexit`` function) is skipped, except under a
    tracer (a profiler or coverage writes its data then)."""
    script = ("import atexit, sys\n"
              "from tokbench.cli import exit_now\n"
              f"if {traced}: sys.settrace(lambda *a: None)\n"
              "atexit.register(lambda: sys.stderr.write('teardown'))\n"
              "sys.stdout.write('x' * 100000)\n"
              "exit_now(3)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    assert (done.returncode, len(done.stdout)) == (3, 100000)
    assert (done.stderr == "teardown") is teardown


def test_a_command_builds_only_its_own_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    imported: list[str] = []
    real = importlib.import_module
    monkeypatch.setattr(importlib, "import_module",
                        lambda name, package=None: imported.append(name) or real(name, package))
    run_only = build_parser("run")
    sub = next(a for a in run_only._actions if isinstance(a, argparse._SubParsersAction))
    assert imported == ["tokbench.commands.run"] and list(sub.choices) == ["run"]
    assert set(_subparsers()) == set(COMMANDS)  # no command named: every one
