"""A gold segmentation file scored per tokenizer: MorphScore and boundary P/R/F1.

See ``score_gold``; the gold words come from ``tokbench.suites.morph_gold``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tokbench.metrics.compute import SuiteLayout, TokenTable, token_spans
from tokbench.metrics.morph import MorphLayout

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer


def score_gold(tok: Tokenizer, words: Sequence[str], bounds: Sequence[Sequence[int]]
               ) -> dict[str, np.ndarray]:
    """Per-word statistics (``GOLD_STATS``) of ``tok`` on gold segmentations.

    Each word is encoded alone, without a leading space, without special tokens, as
    MorphScore does (Arnett & Bergen 2024). A gold boundary scores 1 when a token
    boundary falls on it (other token boundaries do not matter), 0 when not; words left
    in one token (``ms_single``) are excluded from MorphScore, and a word given without a
    boundary counts one boundary never found once it is split (as MorphScore's code
    scores it). A token that covers no
    character of the word (a dummy prefix ``▁`` alone) is not counted as a token, where
    MorphScore, comparing decoded pieces, would count it; a cut inside a character is
    no boundary, as in MorphScore (a decoded piece of a character never equals a part).
    """
    texts = list(words)
    layout = SuiteLayout.build(texts)
    enc = tok.encode_batch_offsets(texts)
    ntok = np.fromiter((len(e.ids) for e in enc), dtype=np.int64, count=len(enc))
    ids = np.fromiter((i for e in enc for i in e.ids), dtype=np.int64, count=int(ntok.sum()))
    table = TokenTable(tok)
    table.ensure(ids)
    starts, ends = token_spans(table, layout, ids, ntok, [e.offsets for e in enc],
                               tok.offsets_unit)
    gold = MorphLayout.from_boundaries(
        texts, {"item": [list(b) for b in bounds]}, {}, layout.data, layout.offsets,
        layout.char_base, layout.byte_base, whole=True)
    out = gold.count(starts, ends, np.repeat(np.arange(len(texts)), ntok), len(texts))
    several = out["item_tokens"] >= 2
    # a word without a gold boundary scores 0 once split, as in MorphScore's own code
    out["ms_gold"] = np.where(several, np.maximum(out["item_gold"], 1), 0)
    out["ms_hits"] = np.where(several, out["item_hits"], 0)
    out["ms_single"] = (~several).astype(np.int64)
    return out
