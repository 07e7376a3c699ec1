"""Benchmark: tokbench on corpora of any size — memory, overhead, scaling, same numbers.

Builds corpora from FLORES-200 (all languages, dev + devtest, one document per line,
repeated R times: R=5 is about 100 MB, R=50 about 1 GB) in a temporary folder, then
measures, each in a fresh subprocess (wall time, and peak RSS summed over the process
tree, sampled every 50 ms):

* a bare loop: read the lines, ``encode`` each with every tokenizer (and ``decode``,
  since round-trip is asked), sum the lengths — the tokenizers' own cost;
* ``tokbench run`` with ``--jobs 1``, ``--jobs 2``, the default ``--jobs`` (on 2 cores:
  this process and the helper, ``tokbench.engine.helper``) and ``--executor dask`` (2
  workers).

It prints the figures and the ratios (overhead = run / bare loop; scaling = jobs 1 /
jobs 2; default / jobs 2; dask / jobs 2) and checks every non-timing row is identical
across the runs.

    python tests/bench/stream_scale.py --repeats 5            # 100 MB
    python tests/bench/stream_scale.py --repeats 5,50 --only jobs1,jobs2   # + 1 GB memory
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

TOKENIZERS = "cl100k_base,xlm-roberta"
METRICS = "compression,unknown,roundtrip,vocab_use"
FLORES = Path(os.environ.get("TOKBENCH_FLORES", Path(__file__).resolve().parents[3]
                             / "shared" / "corpora" / "flores200"))

BARE = r"""
import sys, time
from tokbench.loading.loader import load_tokenizer
toks = [load_tokenizer(n) for n in sys.argv[2].split(",")]
t0 = time.perf_counter()
n = 0
from pathlib import Path
for path in sorted(Path(sys.argv[1]).glob("*.txt")):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            for tok in toks:
                ids = tok.encode(line)
                n += len(ids)
                tok.decode(ids)
print(n, time.perf_counter() - t0)
"""


def build_corpus(root: Path, repeats: int) -> int:
    """One ``<lang>.txt`` per language: dev then devtest lines, the whole repeated."""
    root.mkdir(parents=True, exist_ok=True)
    total = 0
    for dev in sorted((FLORES / "dev").glob("*.dev")):
        lang = dev.stem
        text = dev.read_bytes() + (FLORES / "devtest" / f"{lang}.devtest").read_bytes()
        with open(root / f"{lang}.txt", "wb") as f:
            for _ in range(repeats):
                f.write(text)
        total += len(text) * repeats
    return total


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            for task in os.listdir(f"/proc/{p}/task"):  # children of every thread
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return total


def measure(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """Wall seconds, peak RSS of the process tree, and stdout of ``cmd``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    peak = 0
    stop = threading.Event()

    def poll() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, tree_rss(proc.pid))
            time.sleep(0.05)

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    stop.set()
    th.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err[-3000:]}")
    return wall, peak, out


def deterministic_rows(path: Path) -> list[tuple]:
    data = json.loads(path.read_text(encoding="utf-8"))
    from tokbench.metrics import metric_info

    return sorted((r["tokenizer"], r["suite"], r["subset"], r["metric"], r["value"])
                  for r in data["rows"] if metric_info(r["metric"]).deterministic)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", default="5", help="comma-separated corpus repeats")
    ap.add_argument("--only", default="bare,jobs1,jobs2,default,dask",
                    help="which measurements (bare, jobs1, jobs2, default, dask)")
    ap.add_argument("--tokenizers", default=TOKENIZERS)
    ap.add_argument("--metrics", default=METRICS)
    args = ap.parse_args()
    only = set(args.only.split(","))
    tokbench = [sys.executable, "-m", "tokbench"]
    with tempfile.TemporaryDirectory(prefix="tokbench-scale-") as tmp:
        for reps in (int(r) for r in args.repeats.split(",")):
            corpus = Path(tmp) / f"corpus{reps}"
            size = build_corpus(corpus, reps)
            print(f"\ncorpus: FLORES dev+devtest x{reps} = {size / 1e6:.1f} MB, "
                  f"{len(list(corpus.glob('*.txt')))} files", flush=True)
            figures: dict[str, tuple[float, int]] = {}
            rows: dict[str, list[tuple]] = {}
            if "bare" in only:
                wall, peak, _ = measure([sys.executable, "-c", BARE, str(corpus),
                                         args.tokenizers])
                figures["bare loop"] = (wall, peak)
                print(f"  bare loop      {wall:8.1f} s  {peak / 2**30:6.2f} GiB", flush=True)
            runs = {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "default": [],
                    "dask": ["--executor", "dask", "--jobs", "2"]}
            for key, extra in runs.items():
                if key not in only:
                    continue
                out = Path(tmp) / f"out-{reps}-{key}"
                cmd = [*tokbench, "run", "-t", args.tokenizers, "-s", f"text:{corpus}",
                       "-m", args.metrics, "-o", str(out), "--no-plots", "--no-html",
                       "--no-history", *extra]
                wall, peak, _ = measure(cmd)
                figures[key] = (wall, peak)
                rows[key] = deterministic_rows(out / "results.json")
                print(f"  run {key:10s} {wall:8.1f} s  {peak / 2**30:6.2f} GiB", flush=True)
            if "bare loop" in figures and "jobs1" in figures:
                print(f"  overhead (jobs1 / bare loop): "
                      f"{figures['jobs1'][0] / figures['bare loop'][0]:.3f}")
            if "jobs1" in figures and "jobs2" in figures:
                print(f"  scaling (jobs1 / jobs2): {figures['jobs1'][0] / figures['jobs2'][0]:.3f}")
            if "default" in figures and "jobs2" in figures:
                print(f"  default / jobs2: {figures['default'][0] / figures['jobs2'][0]:.3f}")
            if "dask" in figures and "jobs2" in figures:
                print(f"  dask / jobs2: {figures['dask'][0] / figures['jobs2'][0]:.3f}")
            keys = list(rows)
            for k in keys[1:]:
                same = rows[k] == rows[keys[0]]
                print(f"  rows {k} == {keys[0]}: {same} ({len(rows[k])} rows)")


if __name__ == "__main__":
    main()
