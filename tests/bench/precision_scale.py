"""Reading a large corpus to a precision instead of whole (prints; not a test).

Builds a corpus of SIZE by repeating FLORES-200 (each language's dev+devtest lines in its
own ``<code>.txt``, repeated) in a temporary folder (never in the repository), then runs
tokbench on it twice with the same tokenizer: the whole corpus, and
``text:DIR?sample=START&seed=1`` with ``--precision``. Prints the share of the corpus the
sampled run read, both values of every ratio, their relative difference, whether the
sampled intervals hold the full values, and both wall times (one machine, one run each).

    TOKBENCH_FLORES=/work/shared/corpora/flores200 python tests/bench/precision_scale.py \
        [--size 1GB] [--precision 0.1%] [--tokenizer cl100k_base] [--jobs 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

METRICS = ("chars_per_token", "bytes_per_token")


def build(root: Path, flores: Path, size: int) -> int:
    """``<code>.txt`` files repeating each language's FLORES lines up to ``size`` in all."""
    langs = sorted(p.stem for p in (flores / "dev").glob("*.dev"))
    texts = {lang: (flores / "dev" / f"{lang}.dev").read_bytes()
             + (flores / "devtest" / f"{lang}.devtest").read_bytes() for lang in langs}
    once = sum(len(t) for t in texts.values())
    copies = max(1, round(size / once))
    for lang, data in texts.items():
        data = data if data.endswith(b"\n") else data + b"\n"
        with open(root / f"{lang}.txt", "wb") as f:
            for _ in range(copies):
                f.write(data)
    return sum(p.stat().st_size for p in root.iterdir())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1GB")
    ap.add_argument("--precision", default="0.1%")
    ap.add_argument("--start", default="0.5%", help="the first sample (then read more)")
    ap.add_argument("--tokenizer", default="cl100k_base")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", help="build the corpus in this folder and keep it")
    ap.add_argument("--flores", default=os.environ.get("TOKBENCH_FLORES", ""))
    args = ap.parse_args()
    if not args.flores:
        print("set TOKBENCH_FLORES to the FLORES-200 folder", file=sys.stderr)
        return 2

    from tokbench.cli.config import _fraction
    from tokbench.engine.runner import run
    from tokbench.suites.sample import SampleSpec

    target = float(_fraction(args.precision, "--precision"))
    size = SampleSpec.parse(args.size, 0, "--size").nbytes or 0
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tokbench-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        if not any(root.glob("*.txt")):
            total = build(root, Path(args.flores), size)
        else:
            total = sum(p.stat().st_size for p in root.glob("*.txt"))
        print(f"corpus: {total / 1e9:.2f} GB in {len(list(root.glob('*.txt')))} files at {root}")
        t0 = time.perf_counter()
        sampled = run([args.tokenizer], [f"text:{root}?sample={args.start}&seed=1&name=c"],
                      ["compression"], jobs=args.jobs, precision=target)
        t_sample = time.perf_counter() - t0
        info = sampled.meta.suites["c"].sample or {}
        print(f"sampled run: {t_sample:.1f} s wall, read {info.get('bytes', 0) / 1e6:.1f} MB "
              f"= {100 * info.get('bytes', 0) / total:.2f}% of the corpus "
              f"({info.get('units')} of {info.get('population_units')} blocks); precision "
              f"{args.precision} reached: {info.get('reached')} (widest relative half-width "
              f"{100 * (info.get('relative_half_width') or 0):.3f}%)")
        t0 = time.perf_counter()
        full = run([args.tokenizer], [f"text:{root}?name=c"], ["compression"], jobs=args.jobs)
        t_full = time.perf_counter() - t0
        print(f"full run: {t_full:.1f} s wall; sampled/full wall time = {t_sample / t_full:.3f}")
        truth = {r.metric: r.value for r in full.rows if r.subset == "all"}
        for r in sampled.rows:
            if r.subset != "all" or r.metric not in METRICS:
                continue
            full_value = float(truth[r.metric] or 0)
            rel = (float(r.value or 0) - full_value) / full_value
            inside = r.extra["ci_low"] <= full_value <= r.extra["ci_high"]
            half = (r.extra["ci_high"] - r.extra["ci_low"]) / 2
            print(f"  {r.metric:<16} sampled {r.value:.6f} ± {half:.6f}  full "
                  f"{full_value:.6f}  difference {100 * rel:+.4f}%  "
                  f"within {args.precision}: {abs(rel) <= target}  interval holds it: {inside}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
