"""Shard-level checkpoints of a run in progress, so a long run survives ``kill -9``.

For each suite still being worked on, the merged statistics of its finished shards
and their indexes are written to one JSON file (atomically, at most every
``interval`` seconds, and at once on ``flush``). A resumed run whose tokenizers,
suite content and settings match (the ``key``) starts from those statistics and runs
only the shards not yet done; since merging is addition, the results are the same.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokbench.metrics.intervals import Moments
from tokbench.metrics.stats import UnitStats

#: 2: a failure example is {"failure", "shard", "pos"} (1 mixed "_shard"/"_pos" into the
#: failure's own keys); a checkpoint of another version is recomputed
STATE_VERSION = 2
#: the checkpoint file in a run's (or sweep's) output folder; removed when it completes
STATE_FILE = ".tokbench-state.json"


def unit_key(**parts: Any) -> str:
    """A short stable hash of what a suite's statistics depend on."""
    blob = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


@dataclass
class SuiteProgress:
    """A suite's merged statistics so far (per tokenizer) and the shards they cover."""

    key: str
    done: set[int] = field(default_factory=set)
    stats: dict[str, UnitStats] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    languages: set[str] = field(default_factory=set)
    segmenters: dict[str, str | None] = field(default_factory=dict)
    #: subset -> moments of every tokenizer's variables (confidence intervals)
    moments: dict[str, Moments] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "done": sorted(self.done),
                "stats": {k: v.to_dict() for k, v in sorted(self.stats.items())},
                "counts": dict(sorted(self.counts.items())), "languages": sorted(self.languages),
                "segmenters": dict(sorted(self.segmenters.items())),
                "moments": {k: v.to_dict() for k, v in sorted(self.moments.items())}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SuiteProgress:
        return cls(str(d["key"]), {int(i) for i in d["done"]},
                   {k: UnitStats.from_dict(v) for k, v in d["stats"].items()},
                   {k: int(v) for k, v in d["counts"].items()}, set(d["languages"]),
                   dict(d["segmenters"]),
                   {k: Moments.from_dict(v) for k, v in d.get("moments", {}).items()})


class RunState:
    """The checkpoint file of one output folder (``None`` path: kept in memory only)."""

    def __init__(self, path: str | Path | None, interval: float = 2.0) -> None:
        self.path = Path(path) if path is not None else None
        self.interval = interval
        self._cost = 0.0  # seconds the last write took
        self.suites: dict[str, SuiteProgress] = {}
        self._written_at = time.monotonic()
        self._dirty = False

    def load(self) -> None:
        """Read an earlier run's checkpoint; an unreadable one is ignored (recomputed)."""
        if self.path is None or not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != STATE_VERSION:
                return
            self.suites = {k: SuiteProgress.from_dict(v) for k, v in data["suites"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.suites = {}

    def progress(self, suite: str, key: str) -> SuiteProgress:
        """The suite's progress if it was made under the same ``key``, else a fresh one."""
        prior = self.suites.get(suite)
        if prior is None or prior.key != key:
            prior = self.suites[suite] = SuiteProgress(key)
        return prior

    def finished(self, suite: str) -> None:
        """A suite's rows are in the results now: its shard statistics are not needed."""
        if self.suites.pop(suite, None) is not None:
            self._dirty = True

    def touched(self) -> None:
        self._dirty = True
        # at least `interval` apart, and never more than ~5% of the time on writing
        if time.monotonic() - self._written_at >= max(self.interval, 20 * self._cost):
            self.flush()

    def flush(self) -> None:
        if self.path is None or not self._dirty:
            return
        from tokbench.atomic import write_atomic

        t0 = time.monotonic()
        data = {"version": STATE_VERSION,
                "suites": {k: v.to_dict() for k, v in sorted(self.suites.items())}}
        write_atomic(self.path, json.dumps(data, ensure_ascii=False))
        self._written_at = time.monotonic()
        self._cost = self._written_at - t0
        self._dirty = False

    def remove(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
