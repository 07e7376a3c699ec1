"""Paired against unpaired interval widths on one suite (prints; not a test).

Runs the tokenizers on the suite (default: multilingual) and, for every tokenizer compared
with the best of a subset, prints the relative half-width of the paired interval of
value / best (``vs_low``/``vs_high``) next to what two separate intervals give for the same
ratio (√(r_a² + r_b²), r the relative half-widths of the two rows), and how many
differences each can tell apart (interval excludes 1).

    python tests/bench/paired_widths.py [--suite multilingual] [--tokenizers a,b,c]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys

METRICS = ("chars_per_token", "bytes_per_token", "fertility")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="multilingual")
    ap.add_argument("--tokenizers", default="gpt2,cl100k_base,o200k_base,llama-3,xlm-roberta")
    args = ap.parse_args()
    from tokbench.engine.runner import run

    res = run(args.tokenizers.split(","), [args.suite], ["compression", "fertility"])
    rows = {(r.tokenizer, r.subset, r.metric): r for r in res.rows}
    print(f"{'metric':<16} {'pairs':>5} {'paired ±rel (median)':>21} "
          f"{'unpaired ±rel (median)':>23} {'ratio':>6} {'told apart: paired':>19} "
          f"{'unpaired':>9}")
    for metric in METRICS:
        paired, apart, sep_p, sep_u = [], [], 0, 0
        for (_tok, subset, m), r in rows.items():
            if m != metric or "vs_low" not in r.extra:
                continue
            best = rows.get((r.extra["vs"], subset, metric))
            if best is None or "ci_low" not in best.extra or "ci_low" not in r.extra:
                continue
            ratio = r.extra["vs_ratio"]
            rp = (r.extra["vs_high"] - r.extra["vs_low"]) / 2 / ratio
            ra = (r.extra["ci_high"] - r.extra["ci_low"]) / 2 / r.value
            rb = (best.extra["ci_high"] - best.extra["ci_low"]) / 2 / best.value
            ru = math.hypot(ra, rb)
            paired.append(rp)
            apart.append(ru)
            sep_p += bool(r.extra["vs_distinct"])
            sep_u += abs(ratio - 1) > ru
        if not paired:
            continue
        mp, mu = statistics.median(paired), statistics.median(apart)
        print(f"{metric:<16} {len(paired):>5} {100 * mp:>20.3f}% {100 * mu:>22.3f}% "
              f"{mu / mp:>6.1f} {sep_p:>19} {sep_u:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
