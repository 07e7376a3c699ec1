"""Does ``compare`` gate on speed honestly? A rerun vs a real 2x slowdown, on a real tokenizer.

Measures latency and single-thread rate of a tokenizer three times in this process:
base, a rerun, and the same tokenizer wrapped so every encode and decode runs twice
(a real 2x slowdown of the work). Prints compare's verdict for base -> rerun (aim: no
regression) and base -> slowed (aim: regression, the rate and latency rows worse).
Usage: python tests/bench/speed_gate.py [--tokenizer cl100k_base] [--budget 0.5]
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence

from tokbench.adapters.base import Tokenizer
from tokbench.ci.compare import compare
from tokbench.loading.loader import load_tokenizer
from tokbench.results import Results
from tokbench.speed.bench import DEFAULT_SUITES
from tokbench.speed.rows import SpeedSettings, speed_rows
from tokbench.suites import load_suite


class Twice(Tokenizer):
    """Delegates to a tokenizer, doing every encode and decode twice."""

    def __init__(self, inner: Tokenizer) -> None:
        super().__init__(inner.name, inner.source)
        self.inner = inner

    @property
    def vocab_size(self) -> int:
        return self.inner.vocab_size

    def encode(self, text: str) -> list[int]:
        self.inner.encode(text)
        return self.inner.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        self.inner.decode(ids)
        return self.inner.decode(ids)

    def token_bytes(self, token_id: int) -> bytes:
        return self.inner.token_bytes(token_id)

    def backend_version(self) -> str:
        return self.inner.backend_version()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", default="cl100k_base")
    args = ap.parse_args()
    tok = load_tokenizer(args.tokenizer)
    texts = [d.text for s in DEFAULT_SUITES for d in load_suite(s).documents]
    settings = SpeedSettings(parts=("latency", "rate"))

    def measure(t: Tokenizer) -> Results:
        return Results(rows=speed_rows(t, texts, settings=settings))

    base, rerun, slowed = measure(tok), measure(tok), measure(Twice(tok))
    for label, new in (("rerun", rerun), ("2x slowed", slowed)):
        comp = compare(base, new, timings=True)  # timings are judged only when asked
        print(f"base -> {label}: {comp.verdict()}")
        counts = Counter((r.metric, r.status) for r in comp.rows
                         if r.metric.endswith(("_p50_us", "_p99_us", "_mb_s")))
        for (metric, status), n in sorted(counts.items()):
            print(f"   {metric:<16} {status:<16} {n}")
        for r in comp.rows:
            if label != "rerun" and r.status != "worse" and r.metric.endswith(("_us", "_mb_s")) \
                    and "max" not in r.metric:
                print(f"   not worse: {r.subset} {r.metric} {r.base:.4g} -> {r.new:.4g}: "
                      f"{r.reason}")


if __name__ == "__main__":
    main()
