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

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tokbench.metrics.compute import SuiteLayout, TokenTable, token_spans
from tokbench.metrics.stats import robust_stat_names
from tokbench.suites.variants import VARIANTS, Variant

if TYPE_CHECKING:
    from tokbench.adapters.base import EncodedWithOffsets, Tokenizer

def edit_distance(a: Sequence[int], b: Sequence[int]) -> int:
    """Levenshtein distance between two id sequences (insert, delete, substitute: 1)."""
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    j = 0
    while j < len(a) - i and j < len(b) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    x = np.asarray(a[i:len(a) - j], dtype=np.int64)
    y = np.asarray(b[i:len(b) - j], dtype=np.int64)
    if x.size == 0 or y.size == 0:
        return int(max(x.size, y.size))
    idx = np.arange(y.size + 1, dtype=np.int64)
    row = idx.copy()
    for k in range(x.size):
        cand = np.empty_like(row)
        cand[0] = k + 1
        cand[1:] = np.minimum(row[1:] + 1, row[:-1] + (y != x[k]))
        # the insertions along the row: row[j] = min over l <= j of cand[l] + (j - l)
        row = np.minimum.accumulate(cand - idx) + idx
    return int(row[-1])


def boundaries(tok: Tokenizer, table: TokenTable, texts: Sequence[str],
               encoded: Sequence[EncodedWithOffsets]) -> list[set[int]]:
    """Character offsets of every text's token boundaries (ends of tokens covering text,
    at a character boundary)."""
    layout = SuiteLayout.build(texts)
    ntok = np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(encoded))
    ids = np.fromiter((i for e in encoded for i in e.ids), dtype=np.int64,
                      count=int(ntok.sum()))
    table.ensure(ids)
    if ids.size == 0:
        return [set() for _ in texts]
    starts, ends = token_spans(table, layout, ids, ntok, [e.offsets for e in encoded],
                               tok.offsets_unit)
    doc = np.repeat(np.arange(len(texts)), ntok)
    out: list[set[int]] = [set() for _ in texts]
    keep = ends > starts
    for pos, d in ((starts[keep], doc[keep]), (ends[keep], doc[keep])):
        char = np.searchsorted(layout.offsets, pos)
        exact = layout.offsets[np.minimum(char, layout.offsets.size - 1)] == pos
        rel = char - layout.char_base[d]
        for dd, r in zip(d[exact].tolist(), rel[exact].tolist(), strict=True):
            out[dd].add(int(r))
    return out


def unchanged_runs(variant: Variant) -> list[tuple[int, int, int]]:
    """Maximal runs of unchanged text: ``(old_start, old_end, new_start)``."""
    runs: list[tuple[int, int, int]] = []
    for a, b, na, _nb, changed in variant.segments:
        if changed or b == a:
            continue
        if runs and runs[-1][1] == a and runs[-1][2] + (a - runs[-1][0]) == na:
            runs[-1] = (runs[-1][0], b, runs[-1][2])
        else:
            runs.append((a, b, na))
    return runs


def _moved(old: set[int], new: set[int], variant: Variant) -> bool:
    """Whether a token boundary strictly inside an unchanged run appears or disappears."""
    for a, b, na in unchanged_runs(variant):
        nb = na + (b - a)
        if {p - a + na for p in old if a < p < b} != {q for q in new if na < q < nb}:
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
