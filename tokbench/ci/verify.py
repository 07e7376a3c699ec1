"""Recompute a run from what its results.json records and check every row.

What a run records is enough to redo it: each tokenizer's spec and the sha256 of the file
it was loaded from, each suite's spec and content hash, the settings and the metric
families. ``verify`` loads them again, refuses inputs whose hash changed (the numbers
would then be of something else), reruns, and compares row by row: equal, or equal
within the 6 significant digits results.json keeps. Timings are not deterministic and
are not checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tokbench.ci.compare import same_within_rounding
from tokbench.errors import InputError
from tokbench.metrics import metric_info
from tokbench.record import RunMeta, TokenizerInfo
from tokbench.results import Results


@dataclass
class RowCheck:
    """One recorded row and what recomputing it gave."""

    key: tuple[str, str, str, str]  # tokenizer, suite, subset, metric
    recorded: Any
    recomputed: Any
    missing: bool = False

    @property
    def ok(self) -> bool:
        return not self.missing and same_within_rounding(self.recorded, self.recomputed)


@dataclass
class Verification:
    """The outcome: per-row checks and problems with the inputs (changed hashes)."""

    checks: list[RowCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: int = 0  # timing rows, not deterministic

    @property
    def ok(self) -> bool:
        return not self.problems and all(c.ok for c in self.checks)


def _settings(meta: RunMeta) -> Any:
    from tokbench.engine.runner import Settings

    known = set(Settings.__dataclass_fields__)
    recorded = meta.settings
    unknown = sorted(set(recorded) - known)
    if unknown:
        raise InputError(f"results record setting(s) {', '.join(unknown)} this tokbench does "
                         "not know; verify with the tokbench version that made the run")
    return Settings(**recorded)


def inputs(results: Results) -> tuple[list[Any], list[Any], list[str]]:
    """(tokenizers, suites, problems): the run's inputs loaded again, with every hash or
    version that no longer matches what was recorded."""
    from tokbench.loading.loader import load_tokenizer
    from tokbench.suites import load_suite
    from tokbench.suites.morph_gold import GOLD_SUITE, read_gold

    meta = results.meta
    problems: list[str] = []
    toks = []
    for name, info in meta.tokenizers.items():
        spec = info.spec or name
        tok = load_tokenizer(spec)
        want = info.source.sha256
        got = TokenizerInfo.from_dict(tok.describe(), "describe()", name)
        have = got.source.sha256
        if want and have and want != have:
            problems.append(f"tokenizer {name!r}: file sha256 {have[:12]} is not the recorded "
                            f"{want[:12]}")
        if info.backend_version and got.backend_version != info.backend_version:
            problems.append(f"tokenizer {name!r}: {info.backend} "
                            f"{got.backend_version} is not the recorded "
                            f"{info.backend_version}")
        toks.append(tok)
    suites = []
    for name, sinfo in meta.suites.items():
        if name == GOLD_SUITE:  # the --morph-gold file, read again by the rerun's settings
            gold = read_gold(sinfo.source or "")
            if sinfo.sha256 and gold.sha256 != sinfo.sha256:
                problems.append(f"--morph-gold {sinfo.source}: sha256 {gold.sha256[:12]} is "
                                f"not the recorded {sinfo.sha256[:12]}")
            continue
        spec = sinfo.spec or name
        suite = load_suite(spec)
        if sinfo.sha256 and suite.sha256 != sinfo.sha256:
            problems.append(f"suite {name!r} ({spec}): content sha256 {suite.sha256[:12]} is "
                            f"not the recorded {sinfo.sha256[:12]}")
        suites.append(suite)
    return toks, suites, problems


def verify(results: Results) -> Verification:
    """Rerun ``results``' recorded inputs and check each of its deterministic rows."""
    from tokbench.engine.runner import run

    toks, suites, problems = inputs(results)
    out = Verification(problems=problems)
    if problems:
        return out
    families = list(results.meta.metric_families)
    fresh = run(toks, suites, [f for f in families if f != "throughput"],
                settings=_settings(results.meta))
    again = {r.key: r.value for r in fresh.rows}
    for r in results.rows:
        if not metric_info(r.metric).deterministic:
            out.skipped += 1
            continue
        out.checks.append(RowCheck(r.key, r.value, again.get(r.key), r.key not in again))
    return out
