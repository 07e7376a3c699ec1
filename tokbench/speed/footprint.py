"""Load cost and memory of a tokenizer, measured in the process that loads it first.

Run in a fresh subprocess (``tokbench.speed.worker``) so that nothing is cached or
already imported: the backend library's import time and memory, the tokenizer's load
time from its cached file and the resident memory it adds, its first encode call
(lazy initialization shows here) against a warm call.
"""

from __future__ import annotations

import importlib
import os
import statistics
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

#: backend name -> module to import
BACKEND_MODULES = {"tiktoken": "tiktoken", "tokenizers": "tokenizers",
                   "sentencepiece": "sentencepiece", "transformers": "transformers"}


def rss_bytes() -> int | None:
    """Current resident set size of this process (Linux /proc; None elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def peak_rss_bytes() -> int | None:
    try:
        import resource
    except ImportError:
        return None
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # KiB on Linux


@dataclass(frozen=True)
class Footprint:
    import_s: float  # importing the backend library (wall)
    import_rss: int | None  # bytes the import added
    load_s: float  # loading the tokenizer from its cached file (wall)
    load_cpu_s: float  # the same on the process CPU clock
    rss_added: int | None  # bytes the loaded tokenizer added
    peak_rss: int | None  # the process's peak resident set after the first call
    first_call_s: float  # first encode (wall)
    warm_call_s: float  # median of the next calls on the same text (wall)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def measure_footprint(spec: str, backend: str, first_text: str) -> tuple[Footprint, Tokenizer]:
    """Import, load, first call (see the module doc); returns the tokenizer too."""
    from tokbench.loading.loader import load_tokenizer

    rss0 = rss_bytes()
    t0 = time.perf_counter()
    if backend in BACKEND_MODULES:
        importlib.import_module(BACKEND_MODULES[backend])
    import_s = time.perf_counter() - t0
    rss1 = rss_bytes()
    t0, c0 = time.perf_counter(), time.process_time()
    tok = load_tokenizer(spec)
    load_s, load_cpu = time.perf_counter() - t0, time.process_time() - c0
    rss2 = rss_bytes()
    t0 = time.perf_counter()
    tok.encode(first_text)
    first = time.perf_counter() - t0
    warm = []
    for _ in range(21):
        t0 = time.perf_counter()
        tok.encode(first_text)
        warm.append(time.perf_counter() - t0)
    return Footprint(import_s, _diff(rss1, rss0), load_s, load_cpu, _diff(rss2, rss1),
                     peak_rss_bytes(),
                     first, statistics.median(warm)), tok


def _diff(a: int | None, b: int | None) -> int | None:
    return a - b if a is not None and b is not None else None
