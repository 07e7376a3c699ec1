"""Vocabulary facts of real tokenizers against published counts (issue 10, fixes 4 and 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokbench.loading.loader import load_tokenizer
from tokbench.metrics.tokenizer_facts import vocabulary_facts

pytestmark = pytest.mark.real


@pytest.mark.parametrize(("name", "fragments"), [("gpt2", 216), ("cl100k_base", 645),
                                                 ("o200k_base", 1434)])
def test_fragments_and_single_bytes_apart(name: str, fragments: int, real_cache: Path) -> None:
    facts = vocabulary_facts(load_tokenizer(name))
    # was one number, fragments + 128 (344, 773, 1562)
    assert (facts["utf8_fragment_tokens"], facts["single_byte_tokens"]) == (fragments, 128)


@pytest.mark.parametrize("name", ["llama-2", "mistral-v1"])
def test_sentencepiece_pieces_inside_words_are_reachable(name: str, real_cache: Path) -> None:
    facts = vocabulary_facts(load_tokenizer(name))
    # encode(decode([t])) adds the dummy prefix: 15,333 (llama-2) and 15,980 (mistral-v1)
    # pieces without "▁" were called unreachable; inside a word every piece is reached
    assert facts["unreachable_tokens"] == 0
    assert (facts["utf8_fragment_tokens"], facts["single_byte_tokens"]) == (0, 128)
