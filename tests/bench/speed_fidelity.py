"""Fidelity of tokbench's single-thread figure: reported MB/s against a bare loop.

For each tokenizer, over the same texts in the same process: tokbench's
``measure_rate`` (what ``tokbench bench`` reports as encode_mb_s) and a bare
``for t in texts: tok.encode(t)`` loop, each on the thread CPU clock and on the wall
clock. The bare loop is run 5 times before and 5 after the measurement, its median
taken. Target: ratio within ±5% (0.95 .. 1.05).
With ``--run``, the same for the run's throughput rows (``tokbench run``, family
``throughput``): ``measure_rate`` with ``RUN_BUDGET`` over the sample of every subset of
the built-in suites against a bare loop over each subset's sample;
prints, per tokenizer, the ``all`` ratio, the median and worst subset ratio, the median
precision the rows state and the CPU seconds the timing cost.
Usage: python tests/bench/speed_fidelity.py [--tokenizers cl100k_base,xlm-roberta]
       [--reruns N]   (N > 1 also prints the spread of the reported figure over reruns)
       [--run]
"""

from __future__ import annotations

import argparse
import statistics
import time

from tokbench.loading.loader import load_tokenizer
from tokbench.speed.bench import DEFAULT_SUITES
from tokbench.speed.rate import measure_rate
from tokbench.speed.rows import SAMPLE_BYTES, sample_texts
from tokbench.suites import load_suite


def bare(tok, texts: list[str], runs: int = 5) -> tuple[float, float]:
    """Median (thread CPU, wall) seconds of a bare loop over ``texts``."""
    cpus, walls = [], []
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.thread_time()
        for t in texts:
            tok.encode(t)
        cpus.append(time.thread_time() - c0)
        walls.append(time.perf_counter() - w0)
    return statistics.median(cpus), statistics.median(walls)


def run_rows(names: list[str]) -> None:
    """Fidelity of the run's throughput rows, subset by subset (see the module doc)."""
    from tokbench.constants import ALL
    from tokbench.engine.runner import DEFAULT_SUITES as RUN_SUITES
    from tokbench.families.throughput import throughput_texts
    from tokbench.speed.rate import RUN_BUDGET, RUN_SAMPLE_BYTES, RUN_SUBSET_BYTES

    suites = [load_suite(s) for s in RUN_SUITES]
    print("target ratio 0.95 .. 1.05 (reported MB/s / bare loop MB/s, thread CPU clock)")
    print(f"{'tokenizer':<14}{'suite':<14}{'subsets':>8}{'all':>7}{'median':>8}{'worst':>7}"
          f"{'precision':>10}{'cost s':>8}")
    for name in names:
        tok = load_tokenizer(name)
        for suite in suites:
            targets = throughput_texts(suite, False, RUN_SAMPLE_BYTES)
            if suite.parallel:
                subsets = throughput_texts(suite, True, RUN_SUBSET_BYTES)
                targets.update((k, v) for k, v in subsets.items() if k != ALL)
            ratios, precisions, cost = {}, [], 0.0
            for subset, texts in targets.items():
                c0 = time.thread_time()
                rate = measure_rate(tok, texts, RUN_BUDGET)
                cost += time.thread_time() - c0
                assert rate is not None
                nb = sum(len(t.encode("utf-8")) for t in texts)
                c1, _ = bare(tok, texts * rate.loops)
                c2, _ = bare(tok, texts * rate.loops)
                ratios[subset] = rate.mb_s / (nb * rate.loops / 1e6 / statistics.median(
                    [c1, c2]))
                precisions.append(rate.precision or 0.0)
            subs = [v for k, v in ratios.items() if k != ALL] or [ratios[ALL]]
            worst = max(subs, key=lambda r: abs(r - 1))
            print(f"{name:<14}{suite.name:<14}{len(subs):>8}{ratios[ALL]:>7.3f}"
                  f"{statistics.median(subs):>8.3f}{worst:>7.3f}"
                  f"{statistics.median(precisions):>10.3f}{cost:>8.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizers", default="cl100k_base,xlm-roberta")
    ap.add_argument("--reruns", type=int, default=1)
    ap.add_argument("--run", action="store_true", help="the run's throughput rows")
    args = ap.parse_args()
    if args.run:
        run_rows(args.tokenizers.split(","))
        return
    texts_all = [d.text for s in DEFAULT_SUITES for d in load_suite(s).documents]
    texts = sample_texts(texts_all, SAMPLE_BYTES)
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    print(f"{len(texts)} texts, {nbytes} bytes; target ratio 0.95 .. 1.05")
    print(f"{'tokenizer':<14}{'run':>4}{'tokbench CPU':>14}{'bare CPU':>10}{'ratio':>7}"
          f"{'tokbench wall':>15}{'bare wall':>11}{'ratio':>7}{'repeats':>9}{'stop':>7}")
    for name in args.tokenizers.split(","):
        tok = load_tokenizer(name)
        tok.encode(texts[0])
        reported = []
        for run in range(args.reruns):
            c1, w1 = bare(tok, texts)
            rate = measure_rate(tok, texts)
            c2, w2 = bare(tok, texts)
            assert rate is not None
            bare_cpu = nbytes / 1e6 / statistics.median([c1, c2])
            bare_wall = nbytes / 1e6 / statistics.median([w1, w2])
            reported.append(rate.mb_s)
            print(f"{name:<14}{run + 1:>4}{rate.mb_s:>14.3f}{bare_cpu:>10.3f}"
                  f"{rate.mb_s / bare_cpu:>7.3f}{rate.wall_mb_s:>15.3f}{bare_wall:>11.3f}"
                  f"{rate.wall_mb_s / bare_wall:>7.3f}{len(rate.samples):>9}{rate.stop:>7}")
        if len(reported) > 1:
            med = statistics.median(reported)
            print(f"{name}: reported MB/s over {len(reported)} reruns: min {min(reported):.3f}, "
                  f"median {med:.3f}, max {max(reported):.3f}, spread (max-min)/median "
                  f"{(max(reported) - min(reported)) / med:.1%}")


if __name__ == "__main__":
    main()
