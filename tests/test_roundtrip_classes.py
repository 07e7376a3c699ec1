"""Round-trip failure classes with the tokenizer's own normalizer (issue 10, fix 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tokbench
from tokbench.loading.loader import load_tokenizer
from tokbench.metrics.compute import classify_roundtrip


def zwj_to_space(text: str) -> str:
    """A normalizer NFKC does not stand in for: U+200D becomes a space, runs of spaces
    and newlines one space (what XLM-R's precompiled map and Replace do)."""
    import re

    return re.sub(r"[ \n]{2,}", " ", text.replace("\u200d", " ").replace("\n", " "))


def test_own_normalizer_explains_what_nfkc_does_not() -> None:
    original, decoded = "a\u200db", "a b"
    assert classify_roundtrip(original, decoded, False)["kind"] == "other"  # NFKC: no
    assert classify_roundtrip(original, decoded, False, zwj_to_space)["kind"] == "normalization"


def test_unknown_token_offset_skips_what_the_normalizer_changed() -> None:
    original = "Hi\n\nthere 🍱 ok"
    decoded = "Hi there <unk> ok"  # newlines collapsed by the normalizer, 🍱 unknown
    got = classify_roundtrip(original, decoded, True, zwj_to_space)
    assert (got["kind"], got["offset"], original[got["offset"]]) == ("unknown_token", 10, "🍱")
    assert got["got"].endswith("<unk> ok")
    # without the normalizer the first difference is the collapsed newline
    assert classify_roundtrip(original, decoded, True)["offset"] == 2


def test_no_normalizer_exposed_falls_back_to_nfkc() -> None:
    got = classify_roundtrip("ｗ", "w", False, lambda s: None)
    assert (got["kind"], got["offset"]) == ("normalization", 0)


@pytest.mark.real
def test_xlmr_japanese_suite(real_cache: Path) -> None:
    tok = load_tokenizer("xlm-roberta")
    docs = {d.id: d.text for d in tokbench.load_suite("japanese").documents}
    out = {}
    for doc_id in ("social-031", "social-045", "social-056", "mixed-045", "social-054"):
        ids = tok.encode(docs[doc_id])
        r = classify_roundtrip(docs[doc_id], tok.decode(ids), tok.unk_id in ids, tok.normalize)
        out[doc_id] = (r["kind"], docs[doc_id][r["offset"]])
    # U+200D → space was "other"; the offsets pointed at a collapsed "\n" (offset 7)
    assert out == {"social-031": ("normalization", "？"), "social-045": ("normalization", "\u200d"),
                   "social-056": ("normalization", "！"), "mixed-045": ("unknown_token", "🍱"),
                   "social-054": ("unknown_token", "🥐")}


@pytest.mark.real
@pytest.mark.parametrize(("name", "expected"), [
    ("llama-2", "Héllo  Wörld\n\u200d x"),  # identity; the dummy prefix is no part of it
    # BERT's: lower-cased, accents stripped, "\n" a space, ZWJ (a format character) dropped
    ("bert-base-uncased", "hello  world  x"),
    ("cl100k_base", "Héllo  Wörld\n\u200d x"),  # tiktoken has no normalizer
])
def test_normalizers(name: str, expected: str, real_cache: Path) -> None:
    assert load_tokenizer(name).normalize("Héllo  Wörld\n\u200d x") == expected
