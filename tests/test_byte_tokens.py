"""Byte-token rate: tokens that are not valid UTF-8 alone, per token (issue 10)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tokbench
from tokbench.loading.loader import load_tokenizer
from tokbench.metrics.compute import TokenTable, aggregate, measure_documents


def test_bytes_baseline_by_hand() -> None:
    tok = load_tokenizer("bytes")
    texts = ["aé", "日"]  # 1 + 2 bytes, 3 bytes: tokens a | C3 | A9 and E6 | 97 | A5
    c = measure_documents(TokenTable(tok), texts, [tok.encode(t) for t in texts], None, None)
    assert c.byte_tokens.tolist() == [2, 3]
    v = aggregate(c, np.arange(2), ["unknown"], tok.vocab_size, False)
    assert v["byte_token_rate"] == pytest.approx(5 / 6)
    assert v["byte_fallback"] == 0.0  # the bytes baseline has no byte-fallback pieces


@pytest.mark.needs("flores")
@pytest.mark.real
@pytest.mark.parametrize(("name", "lang", "joined", "per_doc"), [
    # tokscope 0.2.0 byte_token_rate, which encodes the devtest sentences joined by spaces:
    # cl100k_base jpn_Jpan 0.3356, hin_Deva 0.6082; gpt2 zho_Hans 0.9115. Per document (as
    # tokbench encodes) no space stands before each sentence: slightly different values.
    ("cl100k_base", "jpn_Jpan", 0.3356, 0.327103),
    ("cl100k_base", "hin_Deva", 0.6082, 0.607773),
    ("gpt2", "zho_Hans", 0.9115, 0.912364),
])
def test_flores_matches_tokscope(name: str, lang: str, joined: float, per_doc: float,
                                 real_cache: Path) -> None:
    tok = load_tokenizer(name)
    texts = [d.text for d in tokbench.load_suite(
        f"flores200?split=devtest&languages={lang}").documents]
    one = [" ".join(texts)]
    c = measure_documents(TokenTable(tok), one, tok.encode_batch(one), None, None)
    assert c.byte_tokens.sum() / c.tokens.sum() == pytest.approx(joined, abs=5e-5)
    c = measure_documents(TokenTable(tok), texts, tok.encode_batch(texts), None, None)
    assert c.byte_tokens.sum() / c.tokens.sum() == pytest.approx(per_doc, abs=5e-7)
