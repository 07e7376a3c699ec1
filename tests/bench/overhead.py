"""Harness overhead: wall time of a run (no throughput repeats) / the tokenizers' own time.

The tokenizers' own time is measured by wrapping each one in a proxy that times
every call to encode, encode_batch and decode, in the same process as the run.
Aim: at most 1.2. Usage: python tests/bench/overhead.py [--tokenizers a,b] [--suites x,y]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from tokbench.adapters.base import EncodedWithOffsets, Tokenizer
from tokbench.engine.runner import DEFAULT_SUITES, DEFAULT_TOKENIZERS, run
from tokbench.loading.loader import load_tokenizer
from tokbench.suites import load_suite


class Timed(Tokenizer):
    """Delegates to a tokenizer and adds up the time spent inside encode and decode."""

    def __init__(self, inner: Tokenizer) -> None:
        super().__init__(inner.name, inner.source)
        self.inner = inner
        self.backend = inner.backend
        self.spent = 0.0

    def _timed(self, fn: Any, *args: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kw)
        finally:
            self.spent += time.perf_counter() - t0

    def encode(self, text: str) -> list[int]:
        return self._timed(self.inner.encode, text)

    def encode_batch(self, texts: Sequence[str], threads: int = 1) -> list[list[int]]:
        return self._timed(self.inner.encode_batch, texts, threads=threads)

    def encode_batch_offsets(self, texts: Sequence[str], threads: int = 1
                             ) -> list[EncodedWithOffsets]:
        return self._timed(self.inner.encode_batch_offsets, texts, threads=threads)

    @property
    def offsets_unit(self) -> str:  # type: ignore[override]
        return self.inner.offsets_unit

    def decode(self, ids: Sequence[int]) -> str:
        return self._timed(self.inner.decode, ids)

    @property
    def vocab_size(self) -> int:
        return self.inner.vocab_size

    @property
    def unk_id(self) -> int | None:
        return self.inner.unk_id

    @property
    def special_tokens(self) -> dict[str, int]:
        return self.inner.special_tokens

    def token_bytes(self, token_id: int) -> bytes:
        return self.inner.token_bytes(token_id)

    def all_token_bytes(self) -> list[bytes] | None:
        return self.inner.all_token_bytes()

    @property
    def byte_fallback(self) -> bool:
        return self.inner.byte_fallback

    def is_byte_fallback_token(self, token_id: int) -> bool:
        return self.inner.is_byte_fallback_token(token_id)

    def backend_version(self) -> str:
        return self.inner.backend_version()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tokenizers", default=",".join(DEFAULT_TOKENIZERS))
    ap.add_argument("--suites", default=",".join(DEFAULT_SUITES))
    args = ap.parse_args()
    toks = [Timed(load_tokenizer(n)) for n in args.tokenizers.split(",")]
    suites = [load_suite(s) for s in args.suites.split(",")]
    metrics = ["compression", "fertility", "premium", "roundtrip", "unknown", "vocab_use",
               "numbers"]
    run(toks[:1], suites[:1], metrics)  # warm the word-segmenter imports
    for t in toks:
        t.spent = 0.0
    t0 = time.perf_counter()
    res = run(toks, suites, metrics)
    wall = time.perf_counter() - t0
    own = sum(t.spent for t in toks)
    words = (res.meta.timings or {})["words_s"]
    print(f"tokenizers: {len(toks)}, suites: {len(suites)}, "
          f"documents: {sum(len(s) for s in suites)}")
    for t in toks:
        print(f"  {t.name:14s} encode+decode {t.spent:7.3f} s")
    print(f"wall time of the run          {wall:7.3f} s")
    print(f"tokenizers' own encode/decode {own:7.3f} s")
    print(f"  of which suite layouts: words, joined text (once per suite) {words:.3f} s")
    print(f"harness overhead ratio        {wall / own:7.3f}  (target <= 1.2)")


if __name__ == "__main__":
    main()
