"""Coverage of tokbench's 95% intervals on seeded samples of FLORES-200 (prints; not a test).

The full FLORES-200 suite (every language of $TOKBENCH_FLORES, dev+devtest) is measured
once; then SAMPLES seeded samples (``?sample=5%&seed=N``: the same code path as the
spec option) are measured with the same tokenizers, and the script prints how often the
full-corpus value lies inside each sample's interval, per tokenizer and metric, for the
``all`` row and averaged over the per-language rows. A correct 95% interval covers the
full value in about 95% of samples (90-98% is the expected band for 200 samples).

    TOKBENCH_FLORES=/work/shared/corpora/flores200 python tests/bench/ci_coverage.py \
        [--samples 200] [--share 5%] [--tokenizers cl100k_base,xlm-roberta]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

METRICS = ("chars_per_token", "bytes_per_token", "fertility")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--share", default="5%")
    ap.add_argument("--tokenizers", default="cl100k_base,xlm-roberta")
    ap.add_argument("--flores", default=os.environ.get("TOKBENCH_FLORES", ""))
    args = ap.parse_args()
    if not args.flores:
        print("set TOKBENCH_FLORES to the FLORES-200 folder", file=sys.stderr)
        return 2

    from tokbench.engine.runner import run
    from tokbench.loading.loader import load_tokenizer
    from tokbench.suites import load_suite
    from tokbench.suites.sample import SampleSpec, sample_suite

    t0 = time.perf_counter()
    suite = load_suite(f"flores200:{args.flores}")
    toks = [load_tokenizer(t) for t in args.tokenizers.split(",")]
    full = run(toks, [suite], ["compression", "fertility"], throughput_repeats=1)
    truth = {(r.tokenizer, r.subset, r.metric): r.value for r in full.rows
             if r.metric in METRICS and r.value is not None}
    print(f"full corpus: {len(suite.documents)} documents, {len(suite.languages())} languages, "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    hits: dict[tuple[str, str, bool], list[bool]] = {}
    widths: dict[tuple[str, str], list[float]] = {}
    t1 = time.perf_counter()
    for seed in range(args.samples):
        sample = sample_suite(suite, SampleSpec.parse(args.share, seed, "bench"))
        res = run(toks, [sample], ["compression", "fertility"])
        for r in res.rows:
            key = (r.tokenizer, r.subset, r.metric)
            if key not in truth or "ci_low" not in r.extra:
                continue
            inside = r.extra["ci_low"] <= truth[key] <= r.extra["ci_high"]
            hits.setdefault((r.tokenizer, r.metric, r.subset == "all"), []).append(inside)
            if r.subset == "all":
                widths.setdefault((r.tokenizer, r.metric), []).append(
                    (r.extra["ci_high"] - r.extra["ci_low"]) / 2 / truth[key])
        if (seed + 1) % 25 == 0:
            print(f"  {seed + 1} samples, {time.perf_counter() - t1:.0f} s", flush=True)
        if seed == 0:
            units = sample.meta["sample"]["units"]
            print(f"one sample: {units} aligned texts of "
                  f"{sample.meta['sample']['population_units']} "
                  f"({len(sample.documents)} documents)", flush=True)
    elapsed = time.perf_counter() - t1
    print(f"{args.samples} samples of {args.share} in {elapsed:.0f} s")
    print(f"{'tokenizer':<14} {'metric':<16} {'all: covered':>13} {'mean ±rel':>10} "
          f"{'per language: covered':>22}")
    for tok in (t.name for t in toks):
        for metric in METRICS:
            row = hits.get((tok, metric, True), [])
            langs = hits.get((tok, metric, False), [])
            if not row:
                print(f"{tok:<14} {metric:<16} {'(no all row)':>13}"
                      + (f" {'':>10} {100 * sum(langs) / len(langs):>20.1f}% of {len(langs)}"
                         if langs else ""))
                continue
            w = widths[(tok, metric)]
            print(f"{tok:<14} {metric:<16} {100 * sum(row) / len(row):>12.1f}% "
                  f"{100 * sum(w) / len(w):>9.3f}% "
                  f"{100 * sum(langs) / max(1, len(langs)):>20.1f}% of {len(langs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
