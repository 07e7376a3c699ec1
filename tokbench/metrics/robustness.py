"""Robustness to text variants: how much a tokenization changes when the text does a little.

For every variant of ``tokbench.suites.variants`` and every document it changes, the
variant is encoded once (the original's encoding is the run's own) and summed per document:

- ``docs``: documents the variant changed (and the tokenizer encoded both ways);
- ``tokens``/``vtokens``: tokens of the original and of the variant (inflation is their
  ratio of sums);
- ``edit``: Levenshtein distance between the two token-id sequences (normalized by the
  original's tokens over the corpus);
- ``moved``: documents where a token boundary inside an unchanged part of the text
  appears or disappears (a boundary inside a character is no boundary; the edges of the
  changed parts are not looked at).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tokbench.metrics.compute import SuiteLayout, TokenTable, token_spans
from tokbench.metrics.stats import robust_stat_names
from tokbench.suites.variants import VARIANTS, Variant

if TYPE_CHECKING:
    from tokbench.adapters.base import EncodedWithOffsets, Tokenizer

def edit_distance(a: Sequence[int], b: Sequence[int]) -> int:
    """Levenshtein distance between two id sequences (insert, delete, substitute: 1).

    Bit-parallel (Myers 1999, as Hyyro 2003 gives it for the edit distance): one column of
    the dynamic programme per id of the longer sequence, the shorter one's cells held as
    the bits of two Python integers, so a column is a dozen integer operations whatever
    its length (the japanese preset's 23,520 variant pairs: 17.6 s with a NumPy row per
    id before). The common head and tail are cut off first."""
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    j = 0
    while j < len(a) - i and j < len(b) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    x, y = a[i:len(a) - j], b[i:len(b) - j]
    if len(x) > len(y):
        x, y = y, x
    m = len(x)
    if m == 0:
        return len(y)
    peq: dict[int, int] = {}  # each id of x: the bits of the positions it holds
    for k, c in enumerate(x):
        peq[c] = peq.get(c, 0) | (1 << k)
    full, top = (1 << m) - 1, 1 << (m - 1)
    vp, vn, dist = full, 0, m
    for c in y:
        eq = peq.get(c, 0)
        d0 = ((((eq & vp) + vp) ^ vp) | eq | vn) & full
        hp = (vn | ~(d0 | vp)) & full
        hn = d0 & vp
        if hp & top:
            dist += 1
        elif hn & top:
            dist -= 1
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = (hn | ~(d0 | hp)) & full
        vn = hp & d0
    return dist


def boundaries(tok: Tokenizer, table: TokenTable, texts: Sequence[str],
               encoded: Sequence[EncodedWithOffsets]) -> list[list[int]]:
    """Character offsets of every text's token boundaries (ends of tokens covering text,
    at a character boundary), sorted."""
    layout = SuiteLayout.build(texts)
    ntok = np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(encoded))
    ids = np.fromiter((i for e in encoded for i in e.ids), dtype=np.int64,
                      count=int(ntok.sum()))
    table.ensure(ids)
    if ids.size == 0:
        return [[] for _ in texts]
    starts, ends = token_spans(table, layout, ids, ntok, [e.offsets for e in encoded],
                               tok.offsets_unit)
    doc = np.repeat(np.arange(len(texts)), ntok)
    keep = ends > starts
    pos = np.concatenate([starts[keep], ends[keep]])
    docs = np.concatenate([doc[keep], doc[keep]])
    char = np.searchsorted(layout.offsets, pos)
    exact = layout.offsets[np.minimum(char, layout.offsets.size - 1)] == pos
    docs = docs[exact]
    rel = char[exact] - layout.char_base[docs]
    width = int(rel.max()) + 1 if rel.size else 1
    key = np.sort(docs * width + rel)  # by document, then offset
    key = key[np.concatenate(([True], key[1:] != key[:-1]))]  # each once
    cuts = np.searchsorted(key // width, np.arange(1, len(texts)))
    return [part.tolist() for part in np.split(key % width, cuts)]


def _moved(old: list[int], new: list[int], variant: Variant) -> bool:
    """Whether a token boundary strictly inside an unchanged run appears or disappears
    (``old`` and ``new``: the sorted boundaries of the original and of the variant)."""
    for a, b, na in variant.unchanged:
        nb = na + (b - a)
        lo, hi = bisect_right(old, a), bisect_left(old, b)
        nlo, nhi = bisect_right(new, na), bisect_left(new, nb)
        if hi - lo != nhi - nlo or any(old[lo + k] - a + na != new[nlo + k]
                                       for k in range(hi - lo)):
            return True
    return False


def variant_stats(tok: Tokenizer, table: TokenTable, texts: Sequence[str],
                  encoded: Sequence[EncodedWithOffsets | None],
                  variants: dict[str, list[Variant | None]], threads: int = 1
                  ) -> dict[str, np.ndarray]:
    """Per-document statistics (``robust_stat_names``) of ``tok`` on the ``variants`` of
    ``texts``, given the originals' ``encoded`` form (None: it failed to encode)."""
    n = len(texts)
    out = {name: np.zeros(n, dtype=np.int64) for name in robust_stat_names()}
    todo = {v: [d for d, var in enumerate(made) if var is not None and encoded[d] is not None]
            for v, made in variants.items()}
    docs = sorted({d for ds in todo.values() for d in ds})
    if not docs:
        return out
    orig = dict(zip(docs, boundaries(tok, table, [texts[d] for d in docs],
                                     [encoded[d] for d in docs]),  # type: ignore[misc]
                    strict=True))
    for v, ds in todo.items():
        if not ds:
            continue
        made = [variants[v][d] for d in ds]
        vtexts = [m.text for m in made if m is not None]
        try:
            venc = tok.encode_batch_offsets(vtexts, threads=threads)
        except Exception:  # a variant the tokenizer refuses: measured one by one
            venc = []
            for t in vtexts:
                try:
                    venc.append(tok.encode_batch_offsets([t])[0])
                except Exception:
                    venc.append(None)  # type: ignore[arg-type]
        ok = [k for k, e in enumerate(venc) if e is not None]
        vb = boundaries(tok, table, [vtexts[k] for k in ok], [venc[k] for k in ok])
        for k, bset in zip(ok, vb, strict=True):
            d, var, e = ds[k], made[k], venc[k]
            assert var is not None
            base = encoded[d]
            assert base is not None
            out[f"rob_{v}_docs"][d] = 1
            out[f"rob_{v}_tokens"][d] = len(base.ids)
            out[f"rob_{v}_vtokens"][d] = len(e.ids)
            out[f"rob_{v}_edit"][d] = edit_distance(base.ids, e.ids)
            out[f"rob_{v}_moved"][d] = _moved(orig[d], bset, var)
    return out


def make_variants(texts: Sequence[str], langs: Sequence[str], keys: Sequence[str]
                  ) -> dict[str, list[Variant | None]]:
    """Every variant of every document (tokenizer-independent: made once per shard)."""
    from tokbench.suites.variants import make_variant

    return {v: [make_variant(v, t, lang, key) for t, lang, key in zip(texts, langs, keys,
                                                                         strict=True)]
            for v in VARIANTS}
