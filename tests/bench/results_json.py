"""What writing results.json costs (prints; not a test): ``Results.to_json`` against the
way it was written before (``json.dumps(to_dict(), ensure_ascii=False, indent=1)``, the
pure-Python encoder), on a run's results.

A run writes results.json at its checkpoints and once at the end, the same rows each
time (plus the newly measured ones): ``first`` is a write of rows never written,
``again`` a write of the same results once more, ``run of N`` N writes in a row.

    python tests/bench/results_json.py reports/latest/results.json [--reps 5] [--writes 5]

Variants alternate within each repetition (the machine is noisy); the load average is
printed beside the medians. The texts are checked to be identical.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from tokbench.results import Results


def before(results: Results) -> str:
    return json.dumps(results.to_dict(), ensure_ascii=False, indent=1) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--writes", type=int, default=5, help="writes in a run (checkpoints + final)")
    args = ap.parse_args()
    data = json.loads(Path(args.results).read_text(encoding="utf-8"))
    times: dict[str, list[float]] = {}
    loads = []
    for _ in range(args.reps):
        fresh = Results.from_dict(data)
        t0 = time.perf_counter()
        old = before(fresh)
        t1 = time.perf_counter()
        new = fresh.to_json()
        t2 = time.perf_counter()
        again = fresh.to_json()
        t3 = time.perf_counter()
        if not old == new == again:
            raise SystemExit("to_json differs from json.dumps")
        run = Results.from_dict(data)
        t4 = time.perf_counter()
        for _ in range(args.writes):
            run.to_json()
        t5 = time.perf_counter()
        for _ in range(args.writes):
            before(run)
        t6 = time.perf_counter()
        for name, took in (("json.dumps indent=1 (before)", t1 - t0), ("to_json first", t2 - t1),
                           ("to_json again", t3 - t2),
                           (f"run of {args.writes}: to_json", t5 - t4),
                           (f"run of {args.writes}: json.dumps (before)", t6 - t5)):
            times.setdefault(name, []).append(took)
        loads.append(os.getloadavg()[0])
    print(f"{len(data.get('rows', []))} rows, {len(new)} characters; medians of {args.reps}; "
          f"load average {statistics.median(loads):.2f}")
    for name, values in times.items():
        print(f"  {name:<36} {statistics.median(values):7.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
