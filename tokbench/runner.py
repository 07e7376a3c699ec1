"""Run tokenizers over suites and collect metric rows.

One unit of work is (tokenizer, suite): every document is encoded once and
decoded once, and all metric families are computed from those encodings. A unit
that finishes is handed to ``on_unit`` (the CLI checkpoints it to disk), so an
interruption or one bad document never loses finished results.
"""

from __future__ import annotations

import os
import platform
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tokbench import __version__
from tokbench.errors import TokbenchError
from tokbench.metrics import resolve_families
from tokbench.metrics.compute import (
    SuiteLayout,
    TokenTable,
    aggregate,
    classify_roundtrip,
    measure_documents,
    ratio,
)
from tokbench.results import Results, Row

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.suites.model import Suite

DEFAULT_TOKENIZERS = ("gpt2", "cl100k_base", "o200k_base", "llama-2", "llama-3", "xlm-roberta",
                      "mistral-v1", "qwen2")
DEFAULT_SUITES = ("multilingual", "japanese", "code", "numbers", "unicode")
PIVOT = "eng_Latn"
VOCAB_SUITE = "vocab"
ALL = "all"


@dataclass
class Settings:
    """Every setting that changes a number; recorded in the results."""

    premium_join: bool = False
    throughput_repeats: int = 5
    throughput_subsets: bool = True  # also time each subset, not only "all"
    threads: int = 1
    add_special_tokens: bool = False
    decode_skip_special_tokens: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Timings:
    """Where the time went (seconds); ``encode + decode`` is the tokenizers' own work."""

    encode: float = 0.0
    decode: float = 0.0
    throughput: float = 0.0
    vocab: float = 0.0
    words: float = 0.0
    load: float = 0.0
    wall: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)


ProgressFn = Callable[[str, dict[str, Any]], None]


def run(
    tokenizers: Sequence[str | Tokenizer] | None = None,
    suites: Sequence[str | Suite] | None = None,
    metrics: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    on_unit: Callable[[Results], object] | None = None,
    progress: ProgressFn | None = None,
    resume: Results | None = None,
    **options: Any,
) -> Results:
    """Compare ``tokenizers`` on ``suites``; returns the results (rows + what was run).

    ``tokenizers`` and ``suites`` are names/specs or loaded objects (defaults: the
    eight reference tokenizers on every built-in suite); ``metrics`` are metric or
    family names (default: all). ``resume`` reuses the rows of finished units whose
    tokenizer, suite and settings are unchanged. Keyword ``options`` set ``Settings``
    fields (e.g. ``premium_join=True``).
    """
    settings = settings or Settings(**options)
    families = resolve_families(metrics)
    # digit metrics belong to the numbers suite unless asked for by name
    digits_everywhere = metrics is not None and "numbers" in families
    notify = progress or (lambda event, info: None)
    timings = Timings()
    wall0 = time.perf_counter()

    tok_specs = list(tokenizers) if tokenizers is not None else list(DEFAULT_TOKENIZERS)
    suite_specs = list(suites) if suites is not None else list(DEFAULT_SUITES)

    loaded_suites = [_load_suite(s) for s in suite_specs]
    results = Results(meta=_meta(settings, families))
    results.meta["suites"] = {s.name: s.describe() for s in loaded_suites}
    results.meta["tokenizers"] = {}
    results.meta["errors"] = []
    results.meta["warnings"] = _suite_warnings(loaded_suites, families)
    layouts = _Layouts()

    units = len(tok_specs) * (len(loaded_suites) + ("tokenizer" in families))
    notify("start", {"units": units})
    for spec in tok_specs:
        t0 = time.perf_counter()
        try:
            tok = _load(spec)
        except TokbenchError as e:
            results.meta["errors"].append({"tokenizer": str(spec), "error": str(e)})
            notify("tokenizer_failed", {"tokenizer": str(spec), "error": str(e)})
            notify("advance", {"steps": len(loaded_suites) + ("tokenizer" in families)})
            continue
        timings.load += time.perf_counter() - t0
        info = tok.describe()
        results.meta["tokenizers"][tok.name] = info
        table = TokenTable(tok)
        if "tokenizer" in families:
            notify("unit", {"tokenizer": tok.name, "suite": VOCAB_SUITE})
            reused = _reuse(resume, tok.name, VOCAB_SUITE, info, None, settings)
            if reused is None:
                t0 = time.perf_counter()
                from tokbench.metrics.vocab import vocabulary_facts

                facts = vocabulary_facts(tok)
                timings.vocab += time.perf_counter() - t0
                reused = [Row(tok.name, VOCAB_SUITE, ALL, k, v) for k, v in facts.items()]
            results.rows.extend(reused)
            notify("advance", {"steps": 1})
        for suite in loaded_suites:
            notify("unit", {"tokenizer": tok.name, "suite": suite.name})
            prior = _reuse(resume, tok.name, suite.name, info, suite.sha256, settings)
            if prior is not None:
                results.failures.extend(f for f in (resume.failures if resume else [])
                                        if f.get("tokenizer") == tok.name
                                        and f.get("suite") == suite.name)
                results.rows.extend(prior)
            else:
                fams = families if digits_everywhere or suite.name == "numbers" else [
                    f for f in families if f != "numbers"]
                rows, failures = _run_unit(tok, table, suite, fams, settings, layouts, timings)
                results.failures.extend(failures)  # before the rows: rows mark a unit finished
                results.rows.extend(rows)
            if on_unit is not None:
                results.meta["timings"] = _timings_dict(timings, wall0)
                on_unit(results)
            notify("advance", {"steps": 1})
    results.meta["timings"] = _timings_dict(timings, wall0)
    results.meta["segmenters"] = dict(sorted(layouts.segmenters.items()))
    results.meta["complete"] = True
    notify("done", {})
    return results


def _load(spec: str | Tokenizer) -> Tokenizer:
    if not isinstance(spec, str):
        return spec
    from tokbench.loader import load_tokenizer

    return load_tokenizer(spec)


def _load_suite(spec: str | Suite) -> Suite:
    if not isinstance(spec, str):
        return spec
    from tokbench.suites import load_suite

    suite = load_suite(spec)
    suite.meta.setdefault("spec", spec)
    return suite


class _Layouts:
    """Per suite, what measuring needs that does not depend on the tokenizer (the joined
    text, word spans, digit runs): computed once and shared by all tokenizers."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, bool, bool], SuiteLayout] = {}
        self.segmenters: dict[str, str | None] = {}

    def get(self, suite: Suite, fertility: bool, numbers: bool, timings: Timings
            ) -> SuiteLayout:
        key = (suite.sha256, fertility, numbers)
        if key not in self._cache:
            t0 = time.perf_counter()
            spans = self._word_spans(suite) if fertility else None
            self._cache[key] = SuiteLayout.build([d.text for d in suite.documents], spans,
                                                 numbers)
            timings.words += time.perf_counter() - t0
        return self._cache[key]

    def _word_spans(self, suite: Suite) -> list[list[tuple[int, int]] | None]:
        from tokbench.words import segment_documents, segmenter_for

        for lang in suite.languages():
            seg = segmenter_for(lang)
            self.segmenters[lang] = f"{seg.name} ({seg.version})" if seg else None
        return segment_documents(suite.documents)


def _encode_all(tok: Tokenizer, texts: list[str], threads: int
                ) -> tuple[list[list[int] | None], list[tuple[int, str]]]:
    """Encode every text; a text the tokenizer raises on is recorded, the rest go on."""
    try:
        return list(tok.encode_batch(texts, threads=threads)), []
    except Exception:  # find the bad documents one by one
        out: list[list[int] | None] = []
        errors: list[tuple[int, str]] = []
        for i, t in enumerate(texts):
            try:
                out.append(tok.encode(t))
            except Exception as e:
                out.append(None)
                errors.append((i, f"{type(e).__name__}: {e}"))
        return out, errors


def _run_unit(tok: Tokenizer, table: TokenTable, suite: Suite, families: list[str],
              settings: Settings, layouts: _Layouts, timings: Timings
              ) -> tuple[list[Row], list[dict[str, Any]]]:
    docs = suite.documents
    texts = [d.text for d in docs]
    t0 = time.perf_counter()
    encodings, errors = _encode_all(tok, texts, settings.threads)
    timings.encode += time.perf_counter() - t0
    failures: list[dict[str, Any]] = [
        {"tokenizer": tok.name, "suite": suite.name, "doc_id": docs[i].id, "kind": "error",
         "error": msg} for i, msg in errors]

    decoded: list[str | None] | None = None
    if "roundtrip" in families:
        t0 = time.perf_counter()
        decoded = []
        for i, e in enumerate(encodings):
            if e is None:
                decoded.append(None)
                continue
            try:
                decoded.append(tok.decode(e))
            except Exception as ex:
                decoded.append(None)
                failures.append({"tokenizer": tok.name, "suite": suite.name,
                                 "doc_id": docs[i].id, "kind": "error",
                                 "error": f"decode: {type(ex).__name__}: {ex}"})
        timings.decode += time.perf_counter() - t0

    layout = layouts.get(suite, "fertility" in families, "numbers" in families, timings)
    counts = measure_documents(table, texts, encodings, decoded, None,
                               numbers="numbers" in families, layout=layout)
    has_unk = tok.unk_id is not None

    if decoded is not None:
        for i in np.flatnonzero(counts.ok & ~counts.roundtrip).tolist():
            got = decoded[i]
            if got is None:
                continue
            detail = classify_roundtrip(texts[i], got, bool(counts.unk[i]))
            failures.append({"tokenizer": tok.name, "suite": suite.name, "doc_id": docs[i].id,
                             "lang": docs[i].lang, **detail})

    subsets = {ALL: np.arange(len(docs))}
    for name, members in _subset_indices(suite).items():
        subsets[name] = members
    rows: list[Row] = []
    for subset, idx in subsets.items():
        values = aggregate(counts, idx, families, tok.vocab_size, has_unk)
        failed = int((~counts.ok[idx]).sum())
        extra = {"failed_docs": failed} if failed else {}
        rows.extend(Row(tok.name, suite.name, subset, m, v, dict(extra))
                    for m, v in values.items() if v is not None)

    if "premium" in families and suite.parallel:
        rows.extend(_premium_rows(tok, suite, counts, settings, timings))
    if "throughput" in families:
        rows.extend(_throughput_rows(tok, suite, subsets, settings, timings))
    return rows, failures


def _subset_indices(suite: Suite) -> dict[str, np.ndarray]:
    groups: dict[str, list[int]] = {}
    for i, d in enumerate(suite.documents):
        groups.setdefault(suite.subset_of(d), []).append(i)
    return {k: np.asarray(v, dtype=np.int64) for k, v in groups.items()}


def _suite_warnings(suites: Sequence[Suite], families: Sequence[str]) -> list[str]:
    """What cannot be measured as asked, said once per suite (the rest is still measured)."""
    out = []
    if "premium" in families:
        for suite in suites:
            if suite.parallel and PIVOT not in suite.languages():
                out.append(f"suite {suite.name!r} has no {PIVOT} documents, so premium is not "
                           f"computed; include English (e.g. ?languages={PIVOT},...) to get it")
    return out


def _premium_rows(tok: Tokenizer, suite: Suite, counts: Any, settings: Settings,
                  timings: Timings) -> list[Row]:
    """Tokens per language over the aligned documents it shares with English."""
    by_lang: dict[str, dict[str, int]] = {}
    for i, d in enumerate(suite.documents):
        if d.align is not None and counts.ok[i]:
            by_lang.setdefault(d.lang, {})[d.align] = i
    pivot = by_lang.get(PIVOT)
    if not pivot:
        return []
    rows = []
    docs = suite.documents
    for lang, members in by_lang.items():
        keys = [k for k in pivot if k in members]  # corpus order, for the joined text
        if not keys:
            continue
        if settings.premium_join:
            t0 = time.perf_counter()
            n_lang = len(tok.encode(" ".join(docs[members[k]].text for k in keys)))
            n_eng = len(tok.encode(" ".join(docs[pivot[k]].text for k in keys)))
            timings.encode += time.perf_counter() - t0
        else:
            n_lang = int(sum(counts.tokens[members[k]] for k in keys))
            n_eng = int(sum(counts.tokens[pivot[k]] for k in keys))
        value = ratio(n_lang, n_eng)
        if value is not None:
            rows.append(Row(tok.name, suite.name, lang, "premium", value))
    return rows


def _throughput_rows(tok: Tokenizer, suite: Suite, subsets: dict[str, np.ndarray],
                     settings: Settings, timings: Timings) -> list[Row]:
    """Throughput of the whole suite (a sample of it) and, for parallel suites, per language."""
    from tokbench.metrics.throughput import CLOCK, measure_throughput

    t0 = time.perf_counter()
    rows = []
    targets = {ALL: _sample(suite, subsets)}
    if settings.throughput_subsets and suite.parallel:
        targets.update({k: v for k, v in subsets.items() if k != ALL})
    for subset, idx in targets.items():
        texts = [suite.documents[i].text for i in idx.tolist()]
        try:
            tp = measure_throughput(tok, texts, repeats=settings.throughput_repeats)
        except Exception:
            tp = None  # a document that fails to encode is already recorded as a failure
        if tp is None:
            continue
        extra = {"spread": tp.spread, "repeats": tp.repeats, "threads": 1, "clock": CLOCK,
                 "samples": list(tp.samples), "bytes": tp.nbytes}
        rows.append(Row(tok.name, suite.name, subset, "throughput_mb_s", tp.mb_s, dict(extra)))
        rows.append(Row(tok.name, suite.name, subset, "throughput_tokens_s", tp.tokens_s,
                        dict(extra)))
    timings.throughput += time.perf_counter() - t0
    return rows


THROUGHPUT_SAMPLE_BYTES = 256 * 1024


def _sample(suite: Suite, subsets: dict[str, np.ndarray]) -> np.ndarray:
    """Documents taken round-robin from every subset, up to ``THROUGHPUT_SAMPLE_BYTES``.

    Deterministic, so two runs time the same text; the mix of subsets is kept.
    """
    groups = [v.tolist() for k, v in subsets.items() if k != ALL] or [subsets[ALL].tolist()]
    picked: list[int] = []
    total = 0
    for round_ in range(max(len(g) for g in groups)):
        for g in groups:
            if round_ < len(g):
                picked.append(g[round_])
                total += len(suite.documents[g[round_]].text.encode("utf-8"))
                if total >= THROUGHPUT_SAMPLE_BYTES:
                    return np.asarray(sorted(picked), dtype=np.int64)
    return np.asarray(sorted(picked), dtype=np.int64)


def _reuse(resume: Results | None, tokenizer: str, suite: str, info: dict[str, Any],
           suite_hash: str | None, settings: Settings) -> list[Row] | None:
    """Rows of a finished unit of an earlier run, if nothing it depends on changed."""
    if resume is None:
        return None
    meta = resume.meta
    if meta.get("tokenizers", {}).get(tokenizer, {}).get("source") != info.get("source"):
        return None
    if suite_hash is not None and meta.get("suites", {}).get(suite, {}).get("sha256") != suite_hash:
        return None
    if meta.get("settings") != settings.to_dict():
        return None
    rows = [r for r in resume.rows if r.tokenizer == tokenizer and r.suite == suite]
    return rows or None


def _timings_dict(t: Timings, wall0: float) -> dict[str, float]:
    t.wall = time.perf_counter() - wall0
    return {"encode_s": t.encode, "decode_s": t.decode, "throughput_s": t.throughput,
            "vocab_s": t.vocab, "words_s": t.words, "load_s": t.load, "wall_s": t.wall}


def _meta(settings: Settings, families: list[str]) -> dict[str, Any]:
    return {
        "tokbench_version": __version__,
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "settings": settings.to_dict(),
        "metric_families": families,
        "complete": False,
    }


def git_commit(cwd: str | Path | None = None) -> str | None:
    """The current git commit (with "-dirty" when the tree has changes), or None."""
    try:
        where = cwd or os.getcwd()
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True,
                             text=True, timeout=5).stdout.strip()
        if not sha:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=where, capture_output=True, text=True, timeout=5).stdout
        return sha + ("-dirty" if dirty.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def machine_info() -> dict[str, Any]:
    return {"hostname": platform.node(), "platform": platform.platform(),
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "processor": platform.processor() or platform.machine()}
