"""Choosing a vocabulary size: train one tokenizer per size, evaluate them all, recommend one.

``sweep(corpus, eval_suites, config, out)`` trains a tokenizer at each size, evaluates
every size with ``tokbench.engine.runner.run`` on held-out suites, and recommends a size by a
stated rule next to its cost (embedding and output-layer parameters against the sequence
length saved). Everything it finds goes into ``sweep.json`` (the Results schema: one
tokenizer per size, named like ``bpe-8k``, and ``meta.sweep``); ``tokbench.render.sweep``
draws the tables and plots from that file.

Byte-level BPE is trained once, at the largest size; each smaller vocabulary is cut from
it (``tokbench.training.train.derive_bytelevel``). Other algorithms are trained per size, two sizes
at a time in worker processes. Finished sizes are kept in ``OUT/tokenizers/<name>/`` under
a key of corpus hash, settings, size and trainer version, and reused by the next run; the
evaluation is checkpointed to ``OUT/sweep.json`` after every (size, suite) unit.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
import math
import os
import re
import unicodedata
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.constants import ALL
from tokbench.errors import InputError
from tokbench.events import Overlap, Progress, SizeDone, SizeFailed, SizeStarted, ignore
from tokbench.hashing import sha256_file
from tokbench.results import Results, round_value
from tokbench.training.train import (
    Corpus,
    CorpusTooSmallError,
    TrainConfig,
    Trained,
    TrainedModel,
    base_vocab,
    bytelevel_prefix_limit,
    derive_bytelevel,
    json_vocab_size,
    minimum_vocab,
    read_sidecar,
    save_model,
    too_small,
    train_model,
)

if TYPE_CHECKING:
    from tokbench.suites.stream import AnySuite
    from tokbench.training.law import VocabLawSettings

SWEEP_METRICS = ("compression", "fertility", "premium", "roundtrip", "unknown", "vocab_use")
DEFAULT_SIZES = tuple(1024 << k for k in range(7))  # 1k .. 64k
DEFAULT_WITHIN = 0.02
DEFAULT_D_MODEL = 4096
MIN_OVERLAP_LINE = 32  # characters; shorter lines ("}", "1.") match by chance
RESULTS_FILE = "sweep.json"


_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([kKmM]?)$")


def parse_size(text: str) -> int:
    """``"8k"`` -> 8192, ``"1m"`` -> 1048576, ``"32000"`` -> 32000 (k = 1024, so sizes
    double exactly)."""
    m = _SIZE.match(text.strip())
    if not m:
        raise InputError(f"vocabulary size {text.strip()!r} is not a number like 8k or 32000")
    value = float(m.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[m.group(2).lower()]
    if value != int(value) or value < 1:
        raise InputError(f"vocabulary size {text.strip()!r} is not a whole number of tokens")
    return int(value)


def parse_sizes(text: str) -> list[int]:
    """``"1k,2k,4k"`` -> ``[1024, 2048, 4096]``."""
    items = [t for t in text.split(",") if t.strip()]
    if not items:
        raise InputError("--sizes is empty; give sizes like 1k,2k,4k,8k")
    return [parse_size(t) for t in items]


def size_label(size: int) -> str:
    """``8192`` -> ``"8k"``; sizes that are not whole multiples of 1024 stay digits."""
    return f"{size // 1024}k" if size % 1024 == 0 else str(size)


def tokenizer_name(algo: str, size: int) -> str:
    return f"{algo}-{size_label(size)}"


def check_sizes(sizes: Sequence[int], floor: int, what: str = "the alphabet") -> None:
    """Sizes must increase and none may be below ``floor`` (one-line InputError naming it)."""
    if not sizes:
        raise InputError("no vocabulary sizes; give --sizes like 1k,2k,4k")
    for prev, cur in itertools.pairwise(sizes):
        if cur <= prev:
            raise InputError(f"--sizes must increase: {size_label(cur)} ({cur:,}) comes after "
                             f"{size_label(prev)} ({prev:,})")
    for s in sizes:
        if s < floor:
            raise InputError(f"vocabulary size {size_label(s)} ({s:,}) is below {what} "
                             f"({floor:,}); use sizes of at least {floor:,}")


@dataclass(frozen=True)
class SweepConfig:
    """What to train, what to measure, and how to choose."""

    sizes: tuple[int, ...] = DEFAULT_SIZES
    train: TrainConfig = field(default_factory=TrainConfig)
    within: float = DEFAULT_WITHIN
    d_model: int = DEFAULT_D_MODEL
    tied: bool = False
    metrics: tuple[str, ...] = SWEEP_METRICS
    workers: int = 2
    vocab_law: VocabLawSettings | None = None  # --model-params: the compute-optimal section
    d_model_source: str = "given"

    def rule(self) -> str:
        return (f"the smallest size whose bytes per token is within {_pct(self.within)} of the "
                "best size's for every language (every subset of every evaluation suite)")

    def to_dict(self) -> dict[str, Any]:
        out = {"sizes": list(self.sizes), "train": self.train.to_dict(),
               "within": self.within, "d_model": self.d_model,
               "d_model_source": self.d_model_source, "tied": self.tied,
               "metrics": list(self.metrics)}
        if self.vocab_law is not None:
            out["scaling"] = self.vocab_law.resolved()
        return out


def _pct(x: float) -> str:
    return f"{x * 100:g}%"


# -- overlap between training and evaluation text ---------------------------------------------


def normalize_for_overlap(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: the same sentence re-typed matches."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).digest()


def overlap_report(train_texts: Iterable[str], suites: Sequence[AnySuite]
                   ) -> list[dict[str, Any]]:
    """Per evaluation suite: how many of its documents also occur in the training text.

    A document overlaps when its normalized text equals a training document or a
    training line, or one of its lines of at least ``MIN_OVERLAP_LINE`` characters
    equals one (content hashes, so a 20 MB corpus costs seconds).
    """
    seen: set[bytes] = set()
    for t in train_texts:
        seen.add(_digest(normalize_for_overlap(t)))
        if "\n" in t:
            for line in t.split("\n"):
                n = normalize_for_overlap(line)
                if len(n) >= MIN_OVERLAP_LINE:
                    seen.add(_digest(n))
    out = []
    for suite in suites:
        hits = []
        for d in suite.documents:
            whole = normalize_for_overlap(d.text)
            found = _digest(whole) in seen
            if not found and "\n" in d.text:
                for line in d.text.split("\n"):
                    n = normalize_for_overlap(line)
                    if len(n) >= MIN_OVERLAP_LINE and _digest(n) in seen:
                        found = True
                        break
            if found:
                hits.append(d.id)
        out.append({"suite": suite.name, "documents": len(suite.documents),
                    "overlapping": len(hits), "examples": hits[:3]})
    return out


# -- training every size ----------------------------------------------------------------------


@dataclass
class SizeResult:
    """One size of a sweep on disk; ``how`` is "trained", "derived" or "reused"."""

    size: int
    name: str
    trained: Trained
    how: str


def cache_key(corpus_sha256: str, config: TrainConfig, size: int) -> str:
    """What a trained size depends on: corpus, settings (but the size), size, trainer version."""
    c = config.resolved()
    settings = {k: v for k, v in c.to_dict().items() if k not in ("vocab_size", "threads")}
    blob = json.dumps({"corpus": corpus_sha256, "settings": settings, "size": size,
                       "trainer": _trainer_version(c.backend)}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _trainer_version(backend: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{backend}=={version(backend)}"
    except PackageNotFoundError:
        return backend


def size_dir(out: Path, name: str) -> Path:
    return out / "tokenizers" / name


def _model_file(out: Path, name: str, backend: str) -> Path:
    return size_dir(out, name) / ("tokenizer.json" if backend == "tokenizers"
                                  else "tokenizer.model")


def _cached(path: Path, key: str) -> Trained | None:
    """The finished size at ``path`` if its sidecar has ``key`` and the file is intact."""
    info = read_sidecar(path)
    if info is None or info.get("cache_key") != key or not path.is_file():
        return None
    if sha256_file(path) != info.get("sha256"):
        return None
    return Trained(path, path.with_name(path.stem + ".train.json"), info)


def train_sizes(corpus: Corpus, config: SweepConfig, out: str | Path,
                progress: Progress | None = None) -> list[SizeResult]:
    """Train (or reuse) every size of ``config.sizes`` into ``OUT/tokenizers/``.

    Finished sizes are saved as they finish; sizes the corpus cannot reach raise
    ``CorpusTooSmallError`` after the reachable ones are saved.
    """
    notify = progress or ignore
    out_dir = Path(out)
    base = config.train.resolved()
    sizes = list(config.sizes)
    texts = corpus.texts
    floor = minimum_vocab(base, texts)
    check_sizes(sizes, floor, "the alphabet (256 bytes and special tokens)" if base.byte_level
                else "the alphabet (every character of the corpus and special pieces)")
    corpus_info = corpus.describe()
    done: dict[int, SizeResult] = {}
    keys = {s: cache_key(corpus.sha256, base, s) for s in sizes}
    for s in sizes:
        name = tokenizer_name(base.algo, s)
        hit = _cached(_model_file(out_dir, name, base.backend), keys[s])
        if hit is not None:
            done[s] = SizeResult(s, name, hit, "reused")
            notify(SizeDone(size=s, name=name, how="reused"))
    missing = [s for s in sizes if s not in done]
    if missing and base.derivable:
        _derive_sizes(corpus, base, sizes, missing, keys, out_dir, corpus_info, done, notify)
    elif missing:
        _train_in_workers(corpus, base, config.workers, missing, keys, out_dir, corpus_info,
                          done, notify)
    return [done[s] for s in sizes]


def _save_size(model: TrainedModel, out_dir: Path, size: int, key: str,
               corpus_info: dict[str, Any], extra: dict[str, Any] | None = None) -> Trained:
    name = tokenizer_name(model.config.algo, size)
    path = _model_file(out_dir, name, model.config.backend)
    return save_model(model, path, corpus_info, {"cache_key": key, **(extra or {})})


def _derive_sizes(corpus: Corpus, base: TrainConfig, sizes: list[int], missing: list[int],
                  keys: dict[int, str], out_dir: Path, corpus_info: dict[str, Any],
                  done: dict[int, SizeResult], notify: Progress) -> None:
    """Byte-level BPE: train once at the largest size, cut the others from it."""
    top = sizes[-1]
    top_name = tokenizer_name(base.algo, top)
    if top in done:
        spec = json.loads(done[top].trained.path.read_text(encoding="utf-8"))
        seconds, version = 0.0, str(done[top].trained.info["trainer"].get("version", ""))
    else:
        notify(SizeStarted(size=top, name=top_name))
        model = train_model(corpus, dataclasses.replace(base, vocab_size=top),
                            require_size=False)
        spec, seconds, version = model.json_spec or {}, model.seconds, model.library_version
        if model.vocab_size >= top:
            trained = _save_size(model, out_dir, top, keys[top], corpus_info)
            done[top] = SizeResult(top, top_name, trained, "trained")
            notify(SizeDone(size=top, name=top_name, how="trained", seconds=model.seconds))
    got = json_vocab_size(spec)
    limit = bytelevel_prefix_limit(spec)
    unreachable = [s for s in sizes if s > got]
    source = ({"vocab_size": top, "sha256": done[top].trained.info["sha256"]} if top in done
              else {"vocab_size": got, "sha256": None})
    for s in missing:
        if s in done or s in unreachable:
            continue
        name = tokenizer_name(base.algo, s)
        if s <= limit:
            cut = derive_bytelevel(spec, s)
            model = TrainedModel(dataclasses.replace(base, vocab_size=s), json_spec=cut,
                                 library="tokenizers", library_version=version)
            trained = _save_size(model, out_dir, s, keys[s], corpus_info, {
                "derived_from": {**source, "trainer_seconds": round(seconds, 3)}})
            done[s] = SizeResult(s, name, trained, "derived")
            notify(SizeDone(size=s, name=name, how="derived"))
        else:  # beyond the exact prefix (never seen in practice): train this size directly
            notify(SizeStarted(size=s, name=name))
            model = train_model(corpus, dataclasses.replace(base, vocab_size=s))
            trained = _save_size(model, out_dir, s, keys[s], corpus_info)
            done[s] = SizeResult(s, name, trained, "trained")
            notify(SizeDone(size=s, name=name, how="trained", seconds=model.seconds))
    if unreachable:
        raise too_small(corpus.label, base, got, unreachable, base_vocab(base))


# worker processes: the corpus is sent once per worker, not once per size
_WORKER_CORPUS: Corpus | None = None


def _init_worker(corpus: Corpus, threads: int) -> None:
    global _WORKER_CORPUS
    _WORKER_CORPUS = corpus
    # tokenizers sizes its thread pool from this when first used (not yet in a new process);
    # the workers share the cores
    os.environ["RAYON_NUM_THREADS"] = str(threads)


def _train_worker(config: dict[str, Any], size: int, key: str, out_dir: str,
                  corpus_info: dict[str, Any], label: str) -> dict[str, Any]:
    """Train one size in a worker and save it; returns the sidecar (or the error)."""
    cfg = TrainConfig.from_dict(config)
    corp = _WORKER_CORPUS
    assert corp is not None, "the worker was started without its corpus"
    try:
        model = train_model(corp, dataclasses.replace(cfg, vocab_size=size))
    except CorpusTooSmallError as e:
        return {"error": str(e), "max_vocab": e.max_vocab}
    trained = _save_size(model, Path(out_dir), size, key, corpus_info)
    return trained.info


def _train_in_workers(corpus: Corpus, base: TrainConfig, workers: int, missing: list[int],
                      keys: dict[int, str], out_dir: Path, corpus_info: dict[str, Any],
                      done: dict[int, SizeResult], notify: Progress) -> None:
    """Train each missing size in its own process, ``workers`` at a time."""
    import multiprocessing

    per_worker = dataclasses.replace(base, threads=max(1, base.threads // max(workers, 1)))
    failed: dict[int, int] = {}
    ctx = multiprocessing.get_context("spawn")  # never fork a process that ran Rayon/spm threads
    pool = ProcessPoolExecutor(max_workers=max(1, min(workers, len(missing))), mp_context=ctx,
                               initializer=_init_worker,
                               initargs=(corpus, per_worker.threads))
    try:
        futures: dict[Future[dict[str, Any]], int] = {}
        for s in missing:
            name = tokenizer_name(base.algo, s)
            notify(SizeStarted(size=s, name=name))
            futures[pool.submit(_train_worker, per_worker.to_dict(), s, keys[s], str(out_dir),
                                corpus_info, corpus.label)] = s
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                s = futures[fut]
                info = fut.result()
                name = tokenizer_name(base.algo, s)
                if "error" in info:
                    failed[s] = int(info["max_vocab"])
                    notify(SizeFailed(size=s, name=name, error=info["error"]))
                    continue
                path = _model_file(out_dir, name, base.backend)
                trained = Trained(path, path.with_name(path.stem + ".train.json"), info)
                done[s] = SizeResult(s, name, trained, "trained")
                notify(SizeDone(size=s, name=name, how="trained",
                                     seconds=info["trainer"]["seconds"]))
    except BaseException:
        _stop_pool(pool)
        raise
    pool.shutdown(wait=True)
    if failed:
        raise too_small(corpus.label, base, min(failed.values()), sorted(failed))


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel queued sizes and end running workers (an interrupted sweep keeps only the
    sizes that were saved; a worker left running would still write its size later)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        terminate()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.terminate()
    for proc in processes:
        proc.join(timeout=5)


# -- evaluation and the recommendation --------------------------------------------------------


def load_sizes(sizes: Sequence[SizeResult]) -> list[Any]:
    """The trained sizes as picklable tokenizer factories, named like ``bpe-8k`` (worker
    processes load each one themselves)."""
    from tokbench.training.train import load_trained

    return [functools.partial(load_trained, s.trained.path, name=s.name) for s in sizes]


def evaluate(sizes: Sequence[SizeResult], suites: Sequence[AnySuite], config: SweepConfig,
             out: str | Path, progress: Progress | None = None) -> Results:
    """Run every size on ``suites`` (checkpointed to ``OUT/sweep.json``; finished units of an
    earlier run with the same files and suites are reused)."""
    from tokbench.engine.runner import Settings, run
    from tokbench.engine.state import STATE_FILE

    target = Path(out) / RESULTS_FILE
    resume = None
    if target.is_file():
        try:
            resume = Results.load(target)
        except InputError:
            resume = None
    return run(load_sizes(sizes), list(suites), list(config.metrics), settings=Settings(),
               on_unit=lambda r: r.save(target), progress=progress,
               resume=resume, jobs=config.workers, state=Path(out) / STATE_FILE)


def groups_of(results: Results) -> list[tuple[str, str]]:
    """(suite, subset) pairs the rule looks at: every subset but "all" (or "all" alone)."""
    pairs: list[tuple[str, str]] = []
    for suite in results.meta.suites:
        subs = sorted({r.subset for r in results.rows if r.suite == suite
                       and r.metric == "bytes_per_token"} - {ALL})
        pairs += [(suite, s) for s in subs] or [(suite, ALL)]
    return pairs


def metric_by_size(results: Results, names: dict[str, int], metric: str
                   ) -> dict[tuple[str, str], dict[int, float]]:
    """``{(suite, subset): {size: value}}`` for one metric."""
    out: dict[tuple[str, str], dict[int, float]] = {}
    for r in results.rows:
        if r.metric == metric and r.tokenizer in names and isinstance(r.value, (int, float)):
            out.setdefault((r.suite, r.subset), {})[names[r.tokenizer]] = float(r.value)
    return out


def gains(values: dict[int, float], sizes: Sequence[int]) -> dict[int, float]:
    """% change of a metric from the previous size (first size: none)."""
    out = {}
    for prev, cur in itertools.pairwise(sizes):
        if prev in values and cur in values and values[prev]:
            out[cur] = (values[cur] / values[prev] - 1.0) * 100.0
    return out


def recommend(bpt: dict[tuple[str, str], dict[int, float]], groups: Sequence[tuple[str, str]],
              sizes: Sequence[int], within: float) -> dict[str, Any]:
    """The smallest size within ``within`` of each group's best bytes per token.

    Returns the size, the groups that rule out the next smaller size (with how far below
    their best they are there) and each size's worst group. If no size meets the rule
    for every group (a curve that falls again), the size with the smallest worst
    shortfall is returned and ``met`` is False.
    """
    best = {g: max(bpt[g].values()) for g in groups if bpt.get(g)}
    shortfall: dict[int, dict[tuple[str, str], float]] = {}
    for s in sizes:
        shortfall[s] = {g: (1.0 - bpt[g][s] / best[g]) for g in best if s in bpt[g]}
    chosen = next((s for s in sizes if shortfall[s]
                   and all(v <= within + 1e-12 for v in shortfall[s].values())), None)
    met = chosen is not None
    if chosen is None:
        chosen = min(sizes, key=lambda s: max(shortfall[s].values(), default=math.inf))
    idx = list(sizes).index(chosen)
    binding: list[dict[str, Any]] = []
    if met and idx > 0:
        prev = sizes[idx - 1]
        binding = [{"suite": g[0], "subset": g[1], "size": prev,
                    "below_best_pct": round(v * 100, 3)}
                   for g, v in sorted(shortfall[prev].items(), key=lambda kv: -kv[1])
                   if v > within + 1e-12]
    worst = {s: (max(shortfall[s].items(), key=lambda kv: kv[1]) if shortfall[s] else None)
             for s in sizes}
    return {
        "size": chosen, "met": met, "within": within, "binding": binding,
        "worst": {str(s): ({"suite": w[0][0], "subset": w[0][1],
                            "below_best_pct": round(w[1] * 100, 3)} if w else None)
                  for s, w in worst.items()},
    }


def cost_table(results: Results, names: dict[str, int], sizes: Sequence[int], d_model: int,
               tied: bool) -> list[dict[str, Any]]:
    """Per size: embedding (+ output layer unless tied) parameters against tokens per
    1M bytes of all evaluation text, and what each size saves against the smallest."""
    suite_bytes = {s: d.bytes or 0 for s, d in results.meta.suites.items()}
    tokens: dict[int, int] = {}
    for r in results.rows:
        if r.metric == "tokens" and r.subset == ALL and r.tokenizer in names \
                and isinstance(r.value, (int, float)):
            tokens[names[r.tokenizer]] = tokens.get(names[r.tokenizer], 0) + int(r.value)
    total_bytes = sum(suite_bytes.values())
    matrices = 1 if tied else 2
    rows = []
    first = sizes[0]
    for i, s in enumerate(sizes):
        if s not in tokens or not total_bytes:
            continue
        per_m = tokens[s] * 1e6 / total_bytes
        first_per_m = tokens.get(first, 0) * 1e6 / total_bytes
        prev_per_m = tokens.get(sizes[i - 1], 0) * 1e6 / total_bytes if i else None
        rows.append({
            "size": s, "name": tokenizer_name_from(names, s),
            "params": s * d_model * matrices,
            "extra_params": (s - first) * d_model * matrices,
            "tokens_per_mb": per_m,
            "saved_vs_smallest_pct": (1 - per_m / first_per_m) * 100 if first_per_m else None,
            "saved_vs_previous_pct": (1 - per_m / prev_per_m) * 100 if prev_per_m else None,
        })
    return rows


def tokenizer_name_from(names: dict[str, int], size: int) -> str:
    return next(n for n, s in names.items() if s == size)


def tokens_per_char(results: Results, names: dict[str, int]) -> dict[str, dict[int, float]]:
    """f(V) of every size: tokens per character, ``"all"`` and each language (subset),
    pooled over the evaluation suites as a ratio of sums."""
    from tokbench.training.law import pooled_tokens_per_char

    by_tok = pooled_tokens_per_char(r for r in results.rows if r.tokenizer in names)
    out: dict[str, dict[int, float]] = {}
    for tok, groups in by_tok.items():
        for g, v in groups.items():
            out.setdefault(g, {})[names[tok]] = v
    return {g: dict(sorted(out[g].items())) for g in sorted(out, key=lambda g: (g != ALL, g))}


def check_vocab_law(config: SweepConfig) -> None:
    """--model-params needs 3 sizes, the compression metrics and sane numbers."""
    if config.vocab_law is None:
        return
    config.vocab_law.check()
    if len(config.sizes) < 3:
        raise InputError(f"--model-params fits f(V) over the swept sizes and needs at least 3; "
                         f"--sizes has {len(config.sizes)}, e.g. --sizes 1k,2k,4k,8k")
    if "compression" not in config.metrics:
        raise InputError("--model-params needs tokens per character: add compression to "
                         "--metrics")


def analyze(results: Results, config: SweepConfig, names: dict[str, int]) -> dict[str, Any]:
    """The recommendation and the cost view (and the compute-optimal section), from the
    rows."""
    sizes = [s for s in config.sizes if s in names.values()]
    bpt = metric_by_size(results, names, "bytes_per_token")
    rec = recommend(bpt, groups_of(results), sizes, config.within)
    rec["name"] = tokenizer_name_from(names, rec["size"])
    out: dict[str, Any] = {"recommendation": rec,
                           "cost": cost_table(results, names, sizes, config.d_model,
                                              config.tied)}
    section: dict[str, Any] | None = None
    if config.vocab_law is not None:
        from tokbench.training.law import analyze as analyze_vocab_law

        section = analyze_vocab_law(config.vocab_law, tokens_per_char(results, names))
        section["nearest_size"] = _nearest(sizes, section)
        out["scaling"] = section
    out["answer"] = reconcile(rec, sizes, section)
    return out


def round_size(v: float) -> int:
    """The one rounding of a vocabulary size anywhere tokbench prints or stores one: to the
    nearest integer (an optimum is not known to more than that)."""
    return math.floor(v + 0.5)


def _doubled(size: int, times: int = 2) -> str:
    return ",".join(size_label(size * 2 ** k) for k in range(1, times + 1))


def edge(rec: dict[str, Any], sizes: Sequence[int]) -> dict[str, Any] | None:
    """Whether the sweep's pick sits at the edge of the sizes tried, and what to extend."""
    size = int(rec["size"])
    worst = (rec.get("worst") or {}).get(str(size)) or {}
    if size == sizes[-1] and len(sizes) > 1:
        return {"at": "largest", "extend": _doubled(size),
                "text": f"{size_label(size)} is the largest size tried: larger sizes may "
                        f"still gain more than {_pct(rec['within'])}; add "
                        f"{_doubled(size)} to --sizes (or loosen --within)"}
    if size == sizes[0] and rec.get("met", True) and len(sizes) > 1 and size > 256:
        smaller = size_label(max(256, size // 2))
        return {"at": "smallest", "extend": smaller,
                "text": f"{size_label(size)} is the smallest size tried and already meets "
                        f"the rule ({worst.get('subset', 'every language')} is "
                        f"{worst.get('below_best_pct', 0):.1f}% below its best): a smaller "
                        f"size may too; add {smaller} to --sizes"}
    return None


def reconcile(rec: dict[str, Any], sizes: Sequence[int],
              scaling: dict[str, Any] | None) -> dict[str, Any]:
    """One recommended vocabulary size with its reasons, reconciling the sweep's pick (the
    smallest size within X% of the best compression) with the compute-optimal size of
    Tao et al. (when --model-params is given).

    Without a model size the pick is the answer. With one, the answer is the
    compute-optimal size with this corpus's f(V) (approach 2; the paper's own approach 2
    when the corpus's cannot be calibrated): it weighs the compression the sweep measures
    against what a larger embedding costs a model of that size, which the pick alone does
    not. Either way the answer says where it stands against the sizes tried and what to
    extend.
    """
    pick = int(rec["size"])
    at_edge = edge(rec, sizes)
    reasons = [f"the sweep's rule picks {size_label(pick)} ({pick:,}): the smallest size "
               f"whose bytes per token is within {_pct(rec['within'])} of the best size's "
               "for every language" if rec.get("met", True) else
               f"no size meets the sweep's rule; {size_label(pick)} ({pick:,}) comes "
               "closest"]
    extend: list[str] = []
    if at_edge is not None:
        reasons.append(at_edge["text"])
        extend.append(at_edge["extend"])
    if scaling is None:
        return {"size": pick, "source": "sweep", "reasons": reasons, "edge": at_edge,
                "extend": _unique_sizes(extend)}
    group = scaling["groups"].get(scaling["overall"]) or {}
    v = group.get("approach2")
    source = "approach 2 with this corpus's f(V)"
    if v is None:
        v, source = scaling["paper"]["approach2"], "the paper's approach 2 (its f(V))"
        if group.get("gamma_reason"):
            reasons.append(f"this corpus's f(V) could not be calibrated: "
                           f"{group['gamma_reason']}")
    size = round_size(v)
    n = scaling["settings"]["model_params"]
    lo, hi = sizes[0], sizes[-1]
    compare = ("larger than" if size > pick else "smaller than" if size < pick else "equal to")
    reasons.insert(0, f"compute-optimal for N_nv = {n:.3g} (Tao et al. 2024, {source}): "
                      f"{size:,}")
    if size > pick and at_edge is not None and at_edge["at"] == "largest":
        reasons.append(f"it is {compare} the sweep's pick, which is only the largest size "
                       "tried: both point above the sizes measured")
    elif size > pick:
        reasons.append(f"it is {compare} the sweep's pick: beyond {size_label(pick)} each "
                       f"language gains under {_pct(rec['within'])} bytes per token, but for "
                       "this model the fewer tokens still save more compute than the larger "
                       "embedding costs")
    elif size < pick:
        reasons.append(f"it is {compare} the sweep's pick: the extra compression of "
                       f"{size_label(pick)} costs this model more compute (a larger "
                       "embedding) than its fewer tokens save")
    if size > hi:
        target = size_label(1 << math.ceil(math.log2(size)))
        reasons.append(f"{size:,} lies beyond the largest size tried ({size_label(hi)}): "
                       f"f(V) is extrapolated there; add sizes up to {target} to --sizes to "
                       "measure it")
        extend.append(target)
    elif size < lo:
        target = size_label(max(256, 1 << math.floor(math.log2(size))))
        reasons.append(f"{size:,} lies below the smallest size tried ({size_label(lo)}); add "
                       f"{target} to --sizes to measure it")
        extend.append(target)
    return {"size": size, "source": "compute-optimal", "pick": pick, "reasons": reasons,
            "edge": at_edge, "extend": _unique_sizes(extend)}


def _unique_sizes(labels: Sequence[str]) -> list[str]:
    """``["64k,128k", "64k"]`` -> ``["64k", "128k"]``: each size once, smallest first."""
    sizes = {parse_size(x) for item in labels for x in item.split(",") if x}
    return [size_label(x) for x in sorted(sizes)]


def _nearest(sizes: Sequence[int], section: dict[str, Any]) -> dict[str, Any] | None:
    """The swept size closest (in log) to approach 2 with the corpus's own f(V)."""
    v = section["groups"].get(section["overall"], {}).get("approach2")
    if not v or not sizes:
        return None
    best = min(sizes, key=lambda s: abs(math.log(s / v)))
    return {"size": best, "ratio": v / best}


# -- the whole sweep --------------------------------------------------------------------------


@dataclass
class SweepRun:
    """A finished sweep: the results (with ``meta.sweep``) and the trained sizes."""

    results: Results
    sizes: list[SizeResult]
    overlap: list[dict[str, Any]]
    path: Path


def sweep(corpus: Corpus, eval_suites: Sequence[AnySuite], config: SweepConfig, out: str | Path,
          progress: Progress | None = None) -> SweepRun:
    """Train every size, evaluate on ``eval_suites``, recommend; writes ``OUT/sweep.json``."""
    notify = progress or ignore
    out_dir = Path(out)
    if config.within < 0 or config.within >= 1:
        raise InputError(f"--within {_pct(config.within)} must be between 0% and 100%")
    if config.d_model < 1:
        raise InputError("--d-model must be at least 1")
    check_vocab_law(config)
    overlap = overlap_report(corpus.texts, eval_suites)
    for item in overlap:
        if item["overlapping"]:
            notify(Overlap(suite=item["suite"], documents=item["documents"],
                           overlapping=item["overlapping"]))
    trained = train_sizes(corpus, config, out_dir, notify)
    results = evaluate(trained, eval_suites, config, out_dir, notify)
    for r in results.rows:  # analysed as sweep.json stores them: recommend --sweep, which
        r.value = round_value(r.value)  # reads that file, finds the same sizes
    names = {t.name: t.size for t in trained}
    base = config.train.resolved()
    meta = {
        "sizes": [t.size for t in trained], "names": [t.name for t in trained],
        "algo": base.algo, "backend": base.backend,
        "corpus_sha256": corpus.sha256, "corpus": corpus.describe(),
        "config": config.to_dict(),
        "rule": config.rule(),
        "trained": {t.name: {"how": t.how, "file": str(t.trained.path),
                             "sha256": t.trained.info.get("sha256"),
                             "vocab_size": t.trained.info.get("vocab_size"),
                             "seconds": t.trained.info.get("trainer", {}).get("seconds")}
                    for t in trained},
        "overlap": overlap,
        **analyze(results, config, names),
    }
    results.meta.sweep = meta
    path = results.save(out_dir / RESULTS_FILE)
    return SweepRun(results, trained, overlap, path)
