"""Mergeable statistics: what one shard of a corpus contributes to every metric.

A shard's encodings are reduced to sums and counts per (tokenizer, suite, subset), a
sparse token-id histogram, per-aligned-document token counts for parallel suites and a
bounded list of example failures. Merging two shards' statistics is addition, so the
order of shards and how a corpus is split never changes a result; metric formulas
(``tokbench.metrics.definitions``) read only these merged statistics.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tokbench.errors import UnknownNameError
from tokbench.metrics.morph import GOLD_STATS, stat_names
from tokbench.record import Failure
from tokbench.suites.variants import VARIANTS

#: what every text variant sums (``tokbench.metrics.robustness``)
ROBUST_KINDS = ("docs", "tokens", "vtokens", "edit", "moved")


def robust_stat_names(variants: tuple[str, ...] = VARIANTS) -> tuple[str, ...]:
    """The summed statistics of the robustness family, ``rob_{variant}_{kind}``."""
    return tuple(f"rob_{v}_{k}" for v in variants for k in ROBUST_KINDS)


#: Work a shard does beyond encoding, and the statistics each produces. ``counts`` is
#: always done; the others only when a chosen metric ``needs`` one of their statistics.
COLLECTORS: dict[str, tuple[str, ...]] = {
    "counts": ("docs", "ok", "failed", "tokens", "bytes", "chars"),
    # what kind of tokens: every token id of the shard looked up (not needed to count them)
    "kinds": ("unk", "fallback", "byte_tokens"),
    "decode": ("roundtrip",),
    "words": ("seg_docs", "seg_tokens", "words", "continued", "single_words"),
    "unk_spans": ("unk_chars",),
    "digits": ("digits", "digit_tokens", "runs_single", "runs_l2r3", "runs_r2l3",
               "runs_other", "runs_groups3", "runs_whole"),
    "histogram": ("histogram",),
    "aligned": ("aligned_tokens",),
    "morph": stat_names("morph"),
    "morph_sudachi": tuple(n for m in ("sudachi_a", "sudachi_b", "sudachi_c")
                           for n in stat_names(m)),
    "variants": robust_stat_names(),
    # scored by the --morph-gold step (tokbench.metrics.morph_score) on the gold words, never
    # by a shard: listed so the morph_gold metrics' needs are known statistics
    "morph_gold": GOLD_STATS,
}
STAT_COLLECTOR = {stat: name for name, stats in COLLECTORS.items() for stat in stats}
#: the collectors measuring tokens against a morphological analyzer's boundaries (each
#: named after its family; ``tokbench.suites.morphemes.FAMILY_SCHEMES``)
MORPH_COLLECTORS = ("morph", "morph_sudachi")
#: how runs of 4+ digits are cut (columns of ``DocCounts.runs``; see ``_count_digits``)
RUN_KINDS = ("runs_single", "runs_l2r3", "runs_r2l3", "runs_other", "runs_groups3",
             "runs_whole")

#: at most this many example failures of each kind are kept per (tokenizer, suite);
#: the total count is always kept
MAX_FAILURE_EXAMPLES = 1000


def collectors_for(needs: Iterable[str]) -> set[str]:
    """The collectors that produce the statistics ``needs`` (``counts`` always); an
    unknown statistic is an error."""
    out = {"counts"}
    for stat in needs:
        if stat not in STAT_COLLECTOR:
            raise UnknownNameError("statistic", stat, list(STAT_COLLECTOR))
        out.add(STAT_COLLECTOR[stat])
    return out


@dataclass
class SubsetStats:
    """Summed statistics of one subset; ``hist_ids``/``hist_counts`` a sparse histogram."""

    sums: dict[str, int] = field(default_factory=dict)
    hist_ids: np.ndarray | None = None
    hist_counts: np.ndarray | None = None

    def add(self, other: SubsetStats) -> None:
        for k, v in other.sums.items():
            self.sums[k] = self.sums.get(k, 0) + v
        theirs = other.histogram
        if theirs is not None:
            mine = self.histogram
            self.hist_ids, self.hist_counts = theirs if mine is None else merge_histograms(
                mine, theirs)

    @property
    def histogram(self) -> tuple[np.ndarray, np.ndarray] | None:
        if self.hist_ids is None or self.hist_counts is None:
            return None
        return self.hist_ids, self.hist_counts

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"sums": dict(sorted(self.sums.items()))}
        if self.hist_ids is not None and self.hist_counts is not None:
            d["hist"] = [_pack(self.hist_ids), _pack(self.hist_counts)]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SubsetStats:
        hist = d.get("hist")
        ids = counts = None
        if hist is not None:
            ids, counts = _unpack(hist[0]), _unpack(hist[1])
        return cls({k: int(v) for k, v in d["sums"].items()}, ids, counts)


def merge_histograms(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Sum two sparse histograms (sorted unique ids, counts): through a dense array over
    the id range (the vocabulary) when they fill much of it, else through their union."""
    if not a[0].size:
        return b
    if not b[0].size:
        return a
    top = int(max(a[0][-1], b[0][-1])) + 1
    if (a[0].size + b[0].size) * _SPARSE < top:
        ids = _distinct(np.sort(np.concatenate([a[0], b[0]])))[0]
        counts = np.zeros(ids.size, dtype=np.int64)
        counts[np.searchsorted(ids, a[0])] += a[1]
        counts[np.searchsorted(ids, b[0])] += b[1]
        return ids, counts
    dense = np.zeros(top, dtype=np.int64)
    dense[a[0]] += a[1]
    dense[b[0]] += b[1]
    ids = np.flatnonzero(dense)
    return ids.astype(np.int64), dense[ids]


#: a histogram of fewer ids than its id range over this is built by sorting, not densely
_SPARSE = 16


def _distinct(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted non-empty array and how often each occurs."""
    first = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(first, ordered.size))
    return ordered[first].astype(np.int64), counts.astype(np.int64)


def histogram(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sparse histogram of token ids: (sorted distinct ids, their counts)."""
    if not ids.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if ids.size * _SPARSE < int(ids.max()) + 1:  # a few tokens of a large vocabulary
        return _distinct(np.sort(ids))
    dense = np.bincount(ids)
    nz = np.flatnonzero(dense)
    return nz.astype(np.int64), dense[nz].astype(np.int64)


def _pack(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype="<i8").tobytes()).decode("ascii")


def _unpack(s: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(s), dtype="<i8").astype(np.int64)


@dataclass(frozen=True)
class FailureExample:
    """An example failure and where it was found: ``shard`` and ``pos`` (the document's
    position in the shard) order examples, so which are kept never depends on timing."""

    failure: Failure
    shard: int = 0
    pos: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"failure": self.failure.to_dict(), "shard": self.shard, "pos": self.pos}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FailureExample:
        return cls(Failure.from_dict(d["failure"]), int(d["shard"]), int(d["pos"]))


@dataclass
class UnitStats:
    """Everything one tokenizer's pass over (part of) a suite contributes.

    ``aligned`` maps language -> alignment key -> tokens, for parallel suites only
    (premium compares languages on the aligned documents they share). ``failures``
    keeps at most ``MAX_FAILURE_EXAMPLES`` examples per kind, ordered by (shard,
    position), and ``failure_counts`` the totals.
    """

    subsets: dict[str, SubsetStats] = field(default_factory=dict)
    aligned: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: list[FailureExample] = field(default_factory=list)
    failure_counts: dict[str, int] = field(default_factory=dict)

    def merge(self, other: UnitStats) -> UnitStats:
        """Add ``other`` into this one (in place) and return it."""
        for name, stats in other.subsets.items():
            self.subsets.setdefault(name, SubsetStats()).add(stats)
        for lang, counts in other.aligned.items():
            mine = self.aligned.setdefault(lang, {})
            for key, n in counts.items():
                mine[key] = mine.get(key, 0) + n
        for kind, n in other.failure_counts.items():
            self.failure_counts[kind] = self.failure_counts.get(kind, 0) + n
        if other.failures:
            self.failures = bound_failures(self.failures + other.failures)
        return self

    def to_dict(self) -> dict[str, Any]:
        return {"subsets": {k: v.to_dict() for k, v in sorted(self.subsets.items())},
                "aligned": {k: dict(v) for k, v in sorted(self.aligned.items())},
                "failures": [f.to_dict() for f in self.failures],
                "failure_counts": dict(self.failure_counts)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> UnitStats:
        return cls({k: SubsetStats.from_dict(v) for k, v in d["subsets"].items()},
                   {k: {a: int(n) for a, n in v.items()} for k, v in d["aligned"].items()},
                   [FailureExample.from_dict(f) for f in d["failures"]],
                   {k: int(v) for k, v in d["failure_counts"].items()})


def bound_failures(failures: list[FailureExample]) -> list[FailureExample]:
    """Keep the first ``MAX_FAILURE_EXAMPLES`` of each kind, in (shard, position) order."""
    failures = sorted(failures, key=lambda f: (f.shard, f.pos))
    seen: dict[str, int] = {}
    kept = []
    for f in failures:
        kind = f.failure.kind
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] <= MAX_FAILURE_EXAMPLES:
            kept.append(f)
    return kept
