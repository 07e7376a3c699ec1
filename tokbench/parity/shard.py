"""One shard of a parity run, in a worker: the reference and every implementation encode
each document once; what comes back is counts, class tallies and a few kept examples.

Each implementation's encode runs under a per-document time limit: a call that raises
is that document's failure, one that does not return within the limit is abandoned
(its thread left to finish) and recorded as timed out, and the run goes on. A library
stuck in native code that holds the GIL cannot be interrupted from Python; the process
executors' shard retries are the remedy then.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tokbench.constants import ALL
from tokbench.parity.diff import describe, matched_tokens
from tokbench.record import Failure

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.engine.work import ShardResult, ShardTask, Toolkit

#: the per-(implementation, subset) counts, all plain sums
COUNTS = ("documents", "bytes", "identical", "reference_tokens", "tokens", "matched_tokens",
          "decode_equal", "roundtrip", "reference_roundtrip", "failed")
#: differing documents kept per implementation and shard (the totals are exact regardless)
EXAMPLES_PER_SHARD = 8
#: per-document time limit (seconds) for one implementation's calls, unless the task says
TIME_LIMIT = 10.0


@dataclass
class ParityStats:
    """Mergeable statistics of one or more shards."""

    counts: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    classes: dict[str, dict[str, int]] = field(default_factory=dict)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)

    def add(self, impl: str, subset: str, key: str, n: int = 1) -> None:
        sub = self.counts.setdefault(impl, {}).setdefault(subset, dict.fromkeys(COUNTS, 0))
        sub[key] = sub.get(key, 0) + n

    def merge(self, other: ParityStats, keep: int) -> None:
        for impl, subs in other.counts.items():
            for subset, c in subs.items():
                for k, v in c.items():
                    self.add(impl, subset, k, v)
        for impl, cls in other.classes.items():
            mine = self.classes.setdefault(impl, {})
            for k, v in cls.items():
                mine[k] = mine.get(k, 0) + v
        for impl, ex in other.examples.items():
            self.examples[impl] = spread(self.examples.get(impl, []) + ex, keep)
        self.failures = (self.failures + other.failures)[:keep * 4]

    def to_dict(self) -> dict[str, Any]:
        return {"counts": self.counts, "classes": self.classes, "examples": self.examples,
                "failures": [f.to_dict() for f in self.failures]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ParityStats:
        return cls(d.get("counts", {}), d.get("classes", {}), d.get("examples", {}),
                   [Failure.from_dict(f) for f in d.get("failures", [])])


def spread(examples: list[dict[str, Any]], keep: int) -> list[dict[str, Any]]:
    """At most ``keep`` examples, every class represented before any class gets a second
    (then a third...), each class's in their order."""
    by: dict[str, list[dict[str, Any]]] = {}
    for e in examples:
        by.setdefault(str(e.get("klass")), []).append(e)
    out: list[dict[str, Any]] = []
    depth = 0
    while len(out) < keep and any(depth < len(v) for v in by.values()):
        out.extend(v[depth] for v in by.values() if depth < len(v))
        depth += 1
    return out[:keep]


class Guard:
    """Runs one implementation's calls with a time limit per call."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._pool: ThreadPoolExecutor | None = None

    def __call__(self, fn: Callable[[Any], Any], arg: Any) -> Any:
        if self.seconds <= 0:
            return fn(arg)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="tokbench-parity")
        fut = self._pool.submit(fn, arg)
        try:
            return fut.result(timeout=self.seconds)
        except FutureTimeout:
            self._pool.shutdown(wait=False)  # abandon the stuck call's thread
            self._pool = None
            raise TimeoutError(f"no answer within {self.seconds:g} s") from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)


def _call(guard: Guard, fn: Callable[[Any], Any], arg: Any) -> tuple[Any, str | None]:
    try:
        return guard(fn, arg), None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # pyo3 panics derive from BaseException
        text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        return None, f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def compare_documents(ref_name: str, ref: Tokenizer, impls: Sequence[tuple[str, Tokenizer]],
                      suite: str, docs: Sequence[Any], groups: Mapping[str, Iterable[Any]],
                      time_limit: float, keep: int = EXAMPLES_PER_SHARD) -> ParityStats:
    """Parity statistics of ``docs`` (``groups``: subset -> document indices)."""
    out = ParityStats()
    subsets_of: dict[int, list[str]] = {}
    for subset, idx in groups.items():
        for i in idx:
            subsets_of.setdefault(int(i), []).append(subset)
    ref_ids: list[list[int] | None] = []
    ref_dec: list[str | None] = []
    for d in docs:
        try:
            ids = ref.encode(d.text)
            ref_ids.append(ids)
            ref_dec.append(ref.decode(ids))
        except Exception as exc:
            ref_ids.append(None)
            ref_dec.append(None)
            out.failures.append(Failure(tokenizer=ref_name, suite=suite, doc_id=d.id,
                                        lang=d.lang, kind="error",
                                        error=f"{type(exc).__name__}: {exc}"[:200]))
    for name, tok in impls:
        guard = Guard(time_limit)
        by_class: dict[str, list[dict[str, Any]]] = {}
        try:
            for i, d in enumerate(docs):
                subsets = subsets_of.get(i, [ALL])
                want, want_text = ref_ids[i], ref_dec[i]
                if want is None:
                    continue
                ids, err = _call(guard, tok.encode, d.text)
                dec = rt = None
                if err is None:
                    dec, err = _call(guard, tok.decode, want)
                if err is None:
                    rt, err = _call(guard, tok.decode, ids)
                for subset in subsets:
                    out.add(name, subset, "documents")
                    out.add(name, subset, "bytes", len(d.text.encode("utf-8", "surrogatepass")))
                    out.add(name, subset, "reference_roundtrip", int(want_text == d.text))
                if err is not None:
                    for subset in subsets:
                        out.add(name, subset, "failed")
                    kind = "timeout" if err.startswith("TimeoutError") else "error"
                    out.failures.append(Failure(tokenizer=name, suite=suite, doc_id=d.id,
                                                lang=d.lang, kind=kind, error=err,
                                                reference=ref_name))
                    continue
                ids = [int(x) for x in ids]
                same = ids == want
                matched = len(want) if same else matched_tokens(want, ids)
                for subset in subsets:
                    out.add(name, subset, "reference_tokens", len(want))  # compared docs only
                    out.add(name, subset, "tokens", len(ids))
                    out.add(name, subset, "identical", int(same))
                    out.add(name, subset, "matched_tokens", matched)
                    out.add(name, subset, "decode_equal", int(dec == want_text))
                    out.add(name, subset, "roundtrip", int(rt == d.text))
                if not same:
                    diff = describe(suite, subsets[-1], d.id, d.lang, d.text, want, ids, ref)
                    cls = out.classes.setdefault(name, {})
                    cls[diff.klass] = cls.get(diff.klass, 0) + 1
                    kept = by_class.setdefault(diff.klass, [])
                    if len(kept) < keep:  # per class, so a rare class is not crowded out
                        kept.append(diff.to_dict())
        finally:
            guard.close()
        if by_class:
            out.examples[name] = spread([e for v in by_class.values() for e in v], keep)
    return out


def process_parity_shard(task: ShardTask, toolkit: Toolkit) -> ShardResult:
    """The engine's entry point for a parity shard: the first tokenizer of the task is
    the reference, the others the implementations."""
    from tokbench.engine.work import ShardResult, _groups

    t0 = time.perf_counter()
    docs, counts = task.source.read()
    read = time.perf_counter() - t0
    ref_name, *names = task.tokenizers
    toks = toolkit.tokenizers
    stats = compare_documents(ref_name, toks[ref_name], [(n, toks[n]) for n in names],
                              task.suite, docs, _groups(docs, task.subset_by),
                              float(dict(task.options).get("time_limit", TIME_LIMIT)),
                              int(dict(task.options).get("keep", EXAMPLES_PER_SHARD)))
    return ShardResult(task.suite, task.index, task.nbytes, {}, counts,
                       sorted({d.lang for d in docs}), {},
                       {"read": read, "parity": time.perf_counter() - t0 - read},
                       platform.node(), payload=stats.to_dict())

