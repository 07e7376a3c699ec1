"""The everyday runs against their floor: wall of a whole ``tokbench run`` process over the
wall of a bare process that loads the same tokenizers and encodes + decodes the same text.

Jobs (``--jobs-to-run``, comma-separated; default all):

* ``default``   ``tokbench run`` (8 tokenizers x 5 built-in suites; plots and HTML too)
* ``japanese``  ``tokbench run --preset japanese`` (tokenizers that do not load are skipped
  by both sides)
* ``flores4``   FLORES devtest, eng/jpn/zho/hin, cl100k_base + xlm-roberta, five families
  (tokenizer, compression, fertility, premium, roundtrip)
* ``flores42``  FLORES dev+devtest, 42 languages, cl100k_base, compression only; its floor
  is a bare encode loop (compression needs no decode)

Every code tree given (``--tree NAME=PATH``, e.g. ``before=/tmp/main-copy after=.``) runs
each job with the default ``--jobs`` and with ``--jobs 1``; the bare process runs beside
them. Each repetition runs every variant once, in turn (alternated, so a burst of load on a
shared machine touches all alike); medians are printed with the 1-minute load average seen.
Files must be cached (``tokbench fetch``); runs use ``--no-fetch`` and a temporary OUT.
Each tree's modules are byte-compiled first, as ``pip install`` leaves them: an editable
checkout under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile tokbench's modules in
every run (0.3 s of a 4 s job), which an installed tokbench and the peers never do.
Before timing, every variant runs once (warms file caches and tokbench's own caches, the
plots kept between runs among them); ``--cold-plots TREES`` adds a variant that runs with
no plot kept (the plot cache emptied before each of its runs), as a run whose values
changed since the last one draws them.
Usage: python tests/bench/everyday.py --tree before=/tmp/old --tree after=. [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLORES4 = "flores200?split=devtest&languages=eng_Latn,jpn_Jpan,zho_Hans,hin_Deva"
JOBS: dict[str, dict[str, object]] = {
    "default": {"args": []},
    "japanese": {"args": ["--preset", "japanese"]},
    "flores4": {"args": ["-t", "cl100k_base,xlm-roberta", "-s", FLORES4, "-m",
                         "tokenizer,compression,fertility,premium,roundtrip"]},
    "flores42": {"args": ["-t", "cl100k_base", "-s", "flores200", "-m", "compression"],
                 "decode": False},
}

#: the bare process: load each tokenizer, then encode (and decode) every document
BARE = r"""
import json, sys, time
from tokbench.loading.loader import load_tokenizer
from tokbench.suites import load_suite
job = json.loads(sys.argv[1])
texts = [d.text for s in job["suites"] for d in load_suite(s).documents]
load = work = 0.0
for spec in job["tokenizers"]:
    t0 = time.perf_counter()
    try:
        tok = load_tokenizer(spec)
    except Exception:
        continue
    t1 = time.perf_counter()
    encode, decode = tok.encode, tok.decode
    if job["decode"]:
        for t in texts:
            decode(encode(t))
    else:
        for t in texts:
            encode(t)
    load += t1 - t0
    work += time.perf_counter() - t1
print(json.dumps({"load": load, "work": work, "bytes": sum(len(t.encode()) for t in texts)}))
"""


def job_spec(name: str) -> dict[str, object]:
    """Tokenizers and suites a job runs (resolved as ``tokbench run`` resolves them)."""
    from tokbench.engine.presets import get_preset
    from tokbench.engine.runner import DEFAULT_SUITES, DEFAULT_TOKENIZERS

    args = list(JOBS[name]["args"])  # type: ignore[call-overload]
    conf: dict[str, object] = {"tokenizers": list(DEFAULT_TOKENIZERS),
                               "suites": list(DEFAULT_SUITES)}
    if "--preset" in args:
        conf.update(get_preset(args[args.index("--preset") + 1]))
    if "-t" in args:
        conf["tokenizers"] = args[args.index("-t") + 1].split(",")
    if "-s" in args:
        conf["suites"] = [args[args.index("-s") + 1]]
    return {"tokenizers": conf["tokenizers"], "suites": conf["suites"],
            "decode": JOBS[name].get("decode", True)}


def compiled(tree: str) -> str:
    """``tree``, its package byte-compiled (``__pycache__`` is ignored by git)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(tree) / "tokbench")],
                   check=True)
    return tree


def plot_cache() -> Path:
    """Where ``tokbench run`` keeps its plots (``tokbench.render.plotcache``)."""
    from tokbench.paths import cache_dir

    return cache_dir() / "plots"


def env_for(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    env.setdefault("MPLBACKEND", "Agg")
    return env


def timed(cmd: list[str], tree: Path) -> tuple[float, str]:
    """Wall time and output of ``cmd`` run from ``tree`` (``python -m`` puts the working
    folder first on the path: it must be the tree timed, not this checkout)."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env_for(tree), cwd=tree, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - t0
    if done.returncode not in (0, 2):
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return wall, done.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                    help="a tokbench source tree to time (default: after=this checkout)")
    ap.add_argument("--jobs-to-run", default=",".join(JOBS))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--jobs1", default=None, metavar="TREES",
                    help="trees also run with --jobs 1 (comma-separated; default: all)")
    ap.add_argument("--cold-plots", default="", metavar="TREES",
                    help="trees also run with no plot kept from an earlier run (the plot "
                         "cache, $TOKBENCH_CACHE/plots, emptied before each such run)")
    ap.add_argument("--warm", default=None, metavar="TREES",
                    help="trees whose default variant runs once first, untimed, to fill "
                         "tokbench's caches (default: all variants)")
    args = ap.parse_args()
    trees = {k: str(Path(v).resolve()) for k, v in (t.split("=", 1) for t in args.tree)} or {
        "after": str(Path(__file__).resolve().parents[2])}
    trees = {k: compiled(v) for k, v in trees.items()}
    out = Path(tempfile.mkdtemp(prefix="tokbench-everyday-"))
    for job in args.jobs_to_run.split(","):
        spec = job_spec(job)
        variants: dict[str, list[str]] = {}
        for name in trees:
            base = [sys.executable, "-m", "tokbench", "run", *JOBS[job]["args"],  # type: ignore[misc]
                    "--no-fetch", "--no-history", "-o", str(out / f"{job}-{name}")]
            variants[f"{name} default"] = base
            if args.jobs1 is None or name in args.jobs1.split(","):
                variants[f"{name} --jobs 1"] = [*base, "--jobs", "1"]
            if name in args.cold_plots.split(","):
                variants[f"{name} cold plots"] = base
        first_tree = Path(next(iter(trees.values())))
        bare_cmd = [sys.executable, "-c", BARE, json.dumps(spec)]
        walls: dict[str, list[float]] = {k: [] for k in [*variants, "bare"]}
        inner: list[float] = []
        loads: list[float] = []
        for rep in range(args.reps + 1):  # the first round warms caches, not counted
            loads.append(os.getloadavg()[0])
            for name, cmd in variants.items():
                tree_name, kind = name.split(" ", 1)
                if not rep and args.warm is not None and (
                        tree_name not in args.warm.split(",") or kind != "default"):
                    continue
                if kind == "cold plots":
                    shutil.rmtree(plot_cache(), ignore_errors=True)
                wall, _ = timed(cmd, Path(trees[tree_name]))
                if rep:
                    walls[name].append(wall)
            if not rep and args.warm is not None:
                continue
            wall, stdout = timed(bare_cmd, first_tree)
            facts = json.loads(stdout.strip().splitlines()[-1])
            if rep:
                walls["bare"].append(wall)
                inner.append(facts["load"] + facts["work"])
        bare = statistics.median(walls["bare"])
        floor = statistics.median(inner)
        print(f"\n== {job}: {len(spec['tokenizers'])} tokenizers, "  # type: ignore[arg-type]
              f"{facts['bytes'] / 1e6:.2f} MB; {args.reps} alternated reps, median; "
              f"1-min load average {min(loads):.1f}..{max(loads):.1f} on {os.cpu_count()} CPUs")
        print(f"  bare process (load + encode{' + decode' if spec['decode'] else ''}) "
              f"{bare:7.2f} s   of which load + work {floor:.2f} s")
        print(f"  {'variant':<22}{'wall s':>9}{'/ bare process':>16}{'/ (load+work)':>15}")
        for name in variants:
            w = statistics.median(walls[name])
            print(f"  {name:<22}{w:>9.2f}{w / bare:>16.2f}{w / floor:>15.2f}")
        for name in trees:
            if f"{name} --jobs 1" in variants:
                d = statistics.median(walls[f"{name} default"])
                one = statistics.median(walls[f"{name} --jobs 1"])
                print(f"  {name}: default --jobs / --jobs 1 = {d / one:.3f}")


if __name__ == "__main__":
    main()
