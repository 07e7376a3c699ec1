"""Rényi efficiency against Zouhar et al.'s reference implementation (tokenization-scorer).

``tokenization-scorer -e power=2.5`` on cl100k_base's ids of FLORES-200 eng_Latn devtest
(one line per sentence, ids as words) prints 0.4855658456282682 (denominator: the 6,914
types seen) and, with ``-e power=2.5 vocab=100277``, 0.37279871715802354 (declared
vocabulary). Its default power is 3.0 (0.45718061744297184).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tokbench
from tokbench.loading.loader import load_tokenizer
from tokbench.metrics.compute import renyi_efficiency, renyi_efficiency_seen

pytestmark = [pytest.mark.real, pytest.mark.needs("flores")]


def test_cl100k_flores_english(real_cache: Path) -> None:
    tok = load_tokenizer("cl100k_base")
    suite = tokbench.load_suite("flores200?split=devtest&languages=eng_Latn")
    ids = np.concatenate([np.asarray(e, dtype=np.int64)
                          for e in tok.encode_batch([d.text for d in suite.documents])])
    assert int(np.count_nonzero(np.bincount(ids))) == 6914
    assert renyi_efficiency_seen(ids) == pytest.approx(0.4855658456282682, rel=1e-9)
    assert renyi_efficiency(ids, tok.vocab_size) == pytest.approx(0.37279871715802354, rel=1e-9)
    assert renyi_efficiency_seen(ids, alpha=3.0) == pytest.approx(0.45718061744297184, rel=1e-9)
