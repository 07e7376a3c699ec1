"""``tokbench bench`` as a library call: load, measure each tokenizer, collect Results.

All suites' texts form one pool the requests and hard inputs are drawn from; rows go
to the suite ``speed``, whose meta entry hashes that pool (``compare`` refuses to judge
timings on different text).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from tokbench.adapters.base import first_line
from tokbench.errors import TokbenchError
from tokbench.events import (
    BenchStarted,
    Progress,
    SpeedPart,
    TokenizerDone,
    TokenizerFailed,
    TokenizerStarted,
    ignore,
)
from tokbench.record import RunError, RunMeta, SuiteInfo, TokenizerInfo
from tokbench.results import Results
from tokbench.speed.rows import SpeedSettings, speed_rows
from tokbench.suites.builtin import BUILTIN_SUITES as DEFAULT_SUITES

SUITE = "speed"

def suite_meta(names: Sequence[str], texts: Sequence[str]) -> dict[str, Any]:
    """The ``speed`` suite's meta entry: the pool of texts speed rows were measured on."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8", "surrogatepass"))
        h.update(b"\n")
    return {"name": SUITE, "version": "1", "sha256": h.hexdigest(), "source": "builtin",
            "spec": ",".join(names), "parallel": False, "subset_by": "request",
            "documents": len(texts), "languages": [],
            "bytes": sum(len(t.encode("utf-8")) for t in texts),
            "description": f"requests and hard inputs drawn from {', '.join(names)}"}


def _part_events(emit: Progress, name: str) -> Callable[[str], None]:
    return lambda what: emit(SpeedPart(tokenizer=name, part=what))


def run_bench(specs: Sequence[str], suites: Sequence[str] = DEFAULT_SUITES,
              settings: SpeedSettings | None = None, event: Progress | None = None) -> Results:
    """Speed rows for every tokenizer in ``specs``; a tokenizer that fails to load is
    recorded in ``meta.errors`` and skipped."""
    from tokbench.environment import git_commit, machine_info
    from tokbench.loading.loader import load_tokenizer
    from tokbench.suites import load_suite
    from tokbench.version import __version__

    settings = settings or SpeedSettings()
    emit = event or ignore
    wall0 = time.perf_counter()
    loaded = [load_suite(s) for s in suites]
    texts = [d.text for s in loaded for d in s.documents]
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    speed: dict[str, Any] = {"load_average_start": load0}
    meta = RunMeta(
        tokbench_version=__version__,
        created=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        git_commit=git_commit(), machine=machine_info(),
        settings=settings.to_dict(), metric_families=["speed"],
        suites={SUITE: SuiteInfo.from_dict(suite_meta([s.name for s in loaded], texts))},
        complete=False, speed=speed)
    results = Results(meta=meta)
    emit(BenchStarted(tokenizers=len(specs)))
    for spec in specs:
        emit(TokenizerStarted(tokenizer=spec))
        try:
            tok = load_tokenizer(spec)
        except TokbenchError as e:
            meta.errors.append(RunError(tokenizer=spec, error=first_line(e)))
            emit(TokenizerFailed(tokenizer=spec, error=first_line(e)))
            continue
        meta.tokenizers[tok.name] = TokenizerInfo.from_dict(tok.describe())
        t0 = time.perf_counter()
        rows = speed_rows(tok, texts, suite=SUITE, spec=spec, settings=settings,
                          progress=_part_events(emit, tok.name))
        results.rows.extend(rows)
        speed.setdefault("seconds", {})[tok.name] = time.perf_counter() - t0
        emit(TokenizerDone(tokenizer=tok.name))
    speed["load_average_end"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    meta.timings = {"wall": time.perf_counter() - wall0}
    meta.complete = True
    return results
