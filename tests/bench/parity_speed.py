"""Fidelity of ``tokbench parity``'s speed column: reported MB/s against a bare loop over
the same library call.

For each implementation, over the same texts in the same process: the single-thread
MB/s that ``tokbench parity`` reports (``speed_rows`` rate part, thread CPU clock) and a
bare ``for t in texts: call(t)`` loop over the library's own call (splintr's
``encode_raw``, tiktoken's ``encode_ordinary``, ...; not tokbench's adapter), median of
5 runs before and 5 after. Target: ratio within ±10% (0.90 .. 1.10).

Usage: python tests/bench/parity_speed.py [--specs cl100k_base,cl100k_base@splintr,...]
       [--suite "flores200:DIR?split=devtest"]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from tokbench.adapters.library import LibraryTokenizer
from tokbench.constants import ALL
from tokbench.engine.runner import _load_suite
from tokbench.families.throughput import throughput_texts
from tokbench.loading.loader import load_tokenizer
from tokbench.speed.rows import SpeedSettings, sample_texts, speed_rows

DEFAULT = ("cl100k_base,cl100k_base@bpe-openai,cl100k_base@splintr,cl100k_base@tokendagger,"
           "cl100k_base@fastokens,cl100k_base@gigatoken,cl100k_base@tokenizers,"
           "xlm-roberta,xlm-roberta@kitoken,xlm-roberta-spm")


def library_call(tok: Any) -> tuple[str, Callable[[str], Any]]:
    """The library's own encode call behind a tokbench tokenizer."""
    if isinstance(tok, LibraryTokenizer):
        return tok.calls.call, tok.calls.encode
    if tok.backend == "tiktoken":
        return "Encoding.encode_ordinary", tok.encoding.encode_ordinary
    if tok.backend == "tokenizers":
        raw = tok._tok
        return "Tokenizer.encode(add_special_tokens=False)", \
            lambda t: raw.encode(t, add_special_tokens=False)
    if tok.backend == "sentencepiece":
        sp = tok._sp
        return "SentencePieceProcessor.encode", lambda t: sp.encode(t, out_type=int)
    return "tokbench encode", tok.encode


def bare(call: Callable[[str], Any], texts: list[str], runs: int = 5) -> float:
    """Median MB/s (thread CPU clock) of a bare loop."""
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    rates = []
    for _ in range(runs):
        c0 = time.thread_time()
        for t in texts:
            call(t)
        rates.append(nbytes / 1e6 / max(time.thread_time() - c0, 1e-9))
    return statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--specs", default=DEFAULT)
    ap.add_argument("--suite", default="multilingual")
    args = ap.parse_args()
    texts = throughput_texts(_load_suite(args.suite), False)[ALL]
    print(f"{len(texts)} texts, {sum(len(t.encode()) for t in texts):,} bytes from {args.suite}")
    print(f"{'implementation':34} {'call':44} {'reported':>9} {'bare':>9} {'ratio':>6}")
    for spec in args.specs.split(","):
        try:
            tok = load_tokenizer(spec)
        except Exception as e:
            print(f"{spec:34} not loaded: {e}")
            continue
        name, call = library_call(tok)
        settings = SpeedSettings(parts=("rate",))
        sample = sample_texts(texts, settings.sample_bytes)  # the texts the rate is timed on
        before = bare(call, sample)
        rows = speed_rows(tok, texts, settings=settings)
        reported = next(r.value for r in rows if r.metric == "encode_mb_s")
        after = bare(call, sample)
        base = statistics.median([before, after])
        print(f"{spec:34} {name[:44]:44} {reported:9.2f} {base:9.2f} {reported / base:6.3f}")


if __name__ == "__main__":
    main()
