"""Word spans of dictionary segmenters (MeCab, jieba, PyThaiNLP, ICU), and morpheme spans
of morphological analyzers (MeCab, Sudachi, Kiwi: ``morphemes.cached_morphemes``), kept
on disk.

Segmenting a corpus with a dictionary segmenter costs seconds (loading the dictionary,
then the lattice per sentence) and gives the same spans for the same text and
segmenter every time, so a run over a corpus seen before reads them instead. An entry
is keyed by the sha256 of the texts and of everything the spans depend on: the
segmenter's name and library/dictionary versions and the source of the module that
segments. Entries live in ``$TOKBENCH_CACHE/words/``, written atomically; an entry that
cannot be read, or whose arrays do not fit the texts (a span outside its text, counts
that do not add up), is ignored and segmented again. A cache that cannot be written is
skipped.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from tokbench.hashing import module_sha256

FORMAT = 1

Span = tuple[int, int]


def spans_key(identity: Sequence[str], module: str, texts: Sequence[str]) -> str | None:
    """The cache key of segmenting ``texts`` with a segmenter described by ``identity``
    (name, versions) implemented in ``module``; None when its code cannot be hashed."""
    code = module_sha256(module) or ""
    if not code:
        return None
    h = hashlib.sha256(f"{FORMAT}\0{code}\0{chr(0).join(identity)}\0".encode())
    for t in texts:
        data = t.encode("utf-8", errors="surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _path(key: str) -> Path:
    from tokbench.paths import cache_dir

    return cache_dir() / "words" / key[:2] / f"{key}.npz"


def read_spans(key: str, texts: Sequence[str]) -> list[list[Span]] | None:
    """The cached spans of ``texts`` under ``key``, or None when absent or not fitting."""
    try:
        with np.load(_path(key), allow_pickle=False) as z:
            counts, flat, stored = z["counts"], z["spans"], str(z["key"])
    except Exception:  # absent, torn, not an npz, a member missing or damaged
        return None
    if stored != key or counts.shape != (len(texts),) or flat.ndim != 2 \
            or flat.shape[1] != 2 or int(counts.sum()) != flat.shape[0] or (counts < 0).any():
        return None
    lengths = np.repeat(np.fromiter(map(len, texts), np.int64, len(texts)), counts)
    if flat.size and ((flat[:, 0] < 0).any() or (flat[:, 0] > flat[:, 1]).any()
                      or (flat[:, 1] > lengths).any()):
        return None
    pairs = [tuple(p) for p in flat.tolist()]
    out, at = [], 0
    for n in counts.tolist():
        out.append(pairs[at:at + n])
        at += n
    return out


def write_spans(key: str, spans: Sequence[Sequence[Span]]) -> None:
    """Store ``spans`` under ``key`` atomically; skipped when the cache cannot be written."""
    from tokbench.atomic import atomic_open

    counts = np.fromiter(map(len, spans), np.int64, len(spans))
    flat = np.asarray([p for s in spans for p in s], dtype=np.int64).reshape(-1, 2)
    buf = io.BytesIO()
    np.savez(buf, counts=counts, spans=flat, key=np.array(key))
    try:
        with atomic_open(_path(key)) as f:
            f.write(buf.getvalue())
    except OSError:
        pass


def cached_spans(identity: Sequence[str], module: str, texts: Sequence[str],
                 segment: Callable[[str], list[Span]]) -> list[list[Span]]:
    """``[segment(t) for t in texts]``, read from the cache when it holds them."""
    key = spans_key(identity, module, texts)
    if key is not None:
        hit = read_spans(key, texts)
        if hit is not None:
            return hit
    out = [segment(t) for t in texts]
    if key is not None:
        write_spans(key, out)
    return out
