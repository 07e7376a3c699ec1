"""Every non-timing row of two runs' results.json identical (a change that only makes
tokbench faster must not move a number).

Rows are matched by (tokenizer, suite, subset, metric); value and details must be equal.
Timing rows (the throughput family, the ``speed`` pseudo-suite) and ``meta`` (timings,
dates, executor) are left out; failures are compared too. Prints each difference and
exits 1 if there is any.
Usage: python tests/bench/same_numbers.py BEFORE/results.json AFTER/results.json
"""

from __future__ import annotations

import json
import sys
from typing import Any

TIMING_METRICS = ("throughput_",)
TIMING_SUITES = ("speed",)


def numbers(path: str) -> tuple[dict[tuple[str, ...], dict[str, Any]], list[Any]]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rows = {}
    for r in data["rows"]:
        if r["metric"].startswith(TIMING_METRICS) or r["suite"] in TIMING_SUITES:
            continue
        key = (r["tokenizer"], r["suite"], r["subset"], r["metric"])
        if key in rows:
            sys.exit(f"{path}: row {key} twice")
        rows[key] = r
    failures = sorted(json.dumps(f, sort_keys=True) for f in data.get("failures", []))
    return rows, failures


def main() -> None:
    before, after = sys.argv[1:3]
    a, fa = numbers(before)
    b, fb = numbers(after)
    bad = 0
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            bad += 1
            if bad <= 20:
                print(f"{key}: {a.get(key)} -> {b.get(key)}")
    if fa != fb:
        bad += 1
        print(f"failures differ: {len(fa)} -> {len(fb)}")
    print(f"{len(a)} non-timing rows before, {len(b)} after; {bad} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
