"""What building the token viewer costs (prints; not a test): ``viewer_from_results`` on a
run's results with its tokenizers and suites loaded once beforehand, so the figure is
the viewer's own work (encoding the sample texts, placing every token, its JSON).

    python tests/bench/viewer_cost.py RUN_DIR_OR_RESULTS [--reps 5] [--trees a=DIR,b=DIR]

With ``--trees``, each tree (its tokbench on PYTHONPATH) runs in its own process, the
trees alternating within each repetition (the machine is noisy); the load average is
printed beside the medians, and the sha256 of each tree's viewer.json text (as
``save_viewer`` writes it) shows whether they are identical.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import hashlib, sys, time
from tokbench.engine.viewer import viewer_from_results
from tokbench.loading.loader import load_tokenizer
from tokbench.results import Results, dumps_json
from tokbench.suites import load_suite
import tokbench
assert tokbench.__file__.startswith(sys.argv[3]), tokbench.__file__
results = Results.load(sys.argv[1])
reps = int(sys.argv[2])
toks, suites = {}, {}
def tok(spec):
    if spec not in toks:
        toks[spec] = load_tokenizer(spec)
    return toks[spec]
def suite(spec):
    if spec not in suites:
        suites[spec] = load_suite(spec)
    return suites[spec]
data = viewer_from_results(results, load_tokenizer=tok, load_suite=suite)  # loads, untimed
times = []
for _ in range(reps):
    t0, c0 = time.perf_counter(), time.process_time()
    data = viewer_from_results(results, load_tokenizer=tok, load_suite=suite)
    times.append(f"{time.perf_counter() - t0:.4f}/{time.process_time() - c0:.4f}")
text = dumps_json(data, separators=(",", ":")) + "\n"
tokens = sum(row.get("n", 0) for s in data["suites"] for sample in s["samples"]
             for row in sample["rows"].values())
print(" ".join(times), hashlib.sha256(text.encode()).hexdigest()[:16],
      tokens)
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--reps", type=int, default=3, help="processes per tree")
    ap.add_argument("--inner", type=int, default=2, help="builds per process (the fastest counts)")
    ap.add_argument("--trees", default="", help="name=DIR,... (default: this process's tokbench)")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.trees.split(",") if t) or {"this": ""}
    times: dict[str, list[float]] = {n: [] for n in trees}
    cpus: dict[str, list[float]] = {n: [] for n in trees}
    digests: dict[str, str] = {}
    loads = []
    for _ in range(args.reps):
        for name, tree in trees.items():
            env = dict(os.environ, PYTHONPATH=tree) if tree else None
            # `python -c` puts the working directory first on sys.path: run it in the tree
            out = subprocess.run([sys.executable, "-c", _CHILD, str(Path(args.results).resolve()),
                                  str(args.inner), str(Path(tree or ".").resolve())],
                                 env=env, cwd=tree or None,
                                 capture_output=True, text=True, check=True).stdout.split()
            wall, cpu = min(tuple(map(float, t.split("/"))) for t in out[:-2])
            times[name].append(wall)
            cpus[name].append(cpu)
            digests[name] = f"viewer.json sha256 {out[-2]}, {out[-1]} tokens"
            loads.append(os.getloadavg()[0])
    lines = [f"build the viewer (tokenizers and suites loaded): medians of {args.reps} "
             f"processes (the fastest of {args.inner} builds in each); load average "
             f"{statistics.median(loads):.2f}"]
    lines += [f"  {name:<10} {statistics.median(times[name]):7.3f} s wall "
              f"{statistics.median(cpus[name]):7.3f} s CPU   {digests[name]}" for name in trees]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
