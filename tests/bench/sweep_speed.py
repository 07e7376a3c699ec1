"""Sweep speed: training 7 byte-level BPE sizes (1k..64k) against one training at 64k.

A byte-level BPE sweep trains once, at the largest size, and cuts the smaller
vocabularies from its first merges, so its training stage should cost little more than
the single run. Both are timed in this process on the same corpus: the single run is
``tokbench.training.train.train`` (train and save one tokenizer.json, like ``tokbench train``);
the sweep is ``tokbench.training.sweep.train_sizes`` into an empty folder (train, cut, save seven
tokenizer.json files and sidecars). The evaluation of the sizes is not part of either.

Corpus: FLORES-200 from ``tokbench.paths.flores_dir()``, every language, dev + devtest
(the 42-language copy is 84,378 lines, 20.97 MB of UTF-8), repeated whole if it is
smaller than ``--mb``. The text is read from there and never written anywhere.

Each side is timed ``--repeats`` times, alternating which runs first; the best times are
compared. Aim: sweep / single <= 1.3. ``--naive`` also times training each size separately.
Usage: python tests/bench/sweep_speed.py [--mb 20] [--sizes 1k,...,64k] [--repeats 2] [--naive]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from tokbench.suites.model import Document, Suite
from tokbench.training.sweep import SweepConfig, parse_sizes, size_label, train_sizes
from tokbench.training.train import Corpus, TrainConfig, load_corpus, train, train_model

AIM = 1.3


def flores_corpus(megabytes: float) -> tuple[Corpus, int]:
    """All of FLORES-200 (dev + devtest), repeated until it holds ``megabytes`` MB."""
    base = load_corpus("flores200")
    docs = base.suites[0].documents
    size = sum(len(d.text.encode("utf-8")) for d in docs)
    copies = max(1, -(-int(megabytes * 1e6) // size))
    if copies == 1:
        return base, 1
    repeated = [Document(f"{d.id}#{k}", d.lang, d.domain, d.text, d.align)
                for k in range(copies) for d in docs]
    suite = Suite(f"flores200x{copies}", "bench", repeated, source="flores200")
    return Corpus([f"flores200 x{copies}"], [suite], suite.sha256), copies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=20.0, help="corpus size in MB (default 20)")
    ap.add_argument("--sizes", default="1k,2k,4k,8k,16k,32k,64k")
    ap.add_argument("--naive", action="store_true", help="also train every size separately")
    ap.add_argument("--repeats", type=int, default=2,
                    help="timed rounds, alternating which runs first (default 2; best of)")
    args = ap.parse_args()
    sizes = parse_sizes(args.sizes)
    corpus, copies = flores_corpus(args.mb)
    info = corpus.describe()  # hashes the corpus once, outside the timings
    print(f"corpus: {info['specs'][0]}, {info['documents']:,} documents, "
          f"{info['bytes'] / 1e6:.2f} MB" + (f" ({copies} copies)" if copies > 1 else
                                             " (no repetition needed)"))
    config = TrainConfig(vocab_size=sizes[-1])
    train_model(["warm up the tokenizers library"] * 4, TrainConfig(vocab_size=260,
                                                                    min_frequency=1))
    with tempfile.TemporaryDirectory(prefix="tokbench-sweep-bench-") as tmp:
        root = Path(tmp)
        singles: list[float] = []
        sweeps: list[float] = []
        for k in range(max(1, args.repeats)):
            # alternate the order so neither side always runs on a warm process
            order = ("single", "sweep") if k % 2 == 0 else ("sweep", "single")
            for what in order:
                folder = root / f"{what}-{k}"
                t0 = time.perf_counter()
                if what == "single":
                    single = train(corpus, config, folder)
                    singles.append(time.perf_counter() - t0)
                else:
                    done = train_sizes(corpus, SweepConfig(sizes=tuple(sizes), train=config),
                                       folder)
                    sweeps.append(time.perf_counter() - t0)
        t_single, t_sweep = min(singles), min(sweeps)
        print(f"single training at {size_label(sizes[-1])}: {t_single:7.1f} s (best of "
              f"{len(singles)}: {', '.join(f'{t:.1f}' for t in singles)})")
        how = ", ".join(f"{d.name} {d.how}" for d in done)
        print(f"sweep of {len(sizes)} sizes:         {t_sweep:7.1f} s (best of {len(sweeps)}: "
              f"{', '.join(f'{t:.1f}' for t in sweeps)}; {how})")
        ratio = t_sweep / t_single
        verdict = "ok" if ratio <= AIM else "ABOVE AIM"
        print(f"ratio sweep / single: {ratio:.3f} (aim <= {AIM}: {verdict})")
        same = (root / "sweep-0" / "tokenizers" / f"bpe-{size_label(sizes[-1])}" /
                "tokenizer.json").read_bytes() == single.path.read_bytes()
        print(f"largest size identical to the single run: {same}")

        if args.naive:
            t0 = time.perf_counter()
            for s in sizes:
                train_model(corpus, dataclasses.replace(config, vocab_size=s))
            t_naive = time.perf_counter() - t0
            print(f"training each size separately: {t_naive:7.1f} s "
                  f"({t_naive / t_single:.2f}x the single run)")


if __name__ == "__main__":
    main()
