"""Robustness to text variants: the variants themselves, and hand-computed inflation, moved
documents and token edit distance."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_morph import ByteToy
from tokbench.metrics.base import MetricContext
from tokbench.metrics.compute import TokenTable, evaluate
from tokbench.metrics.definitions import BUILTIN_METRICS
from tokbench.metrics.robustness import edit_distance, variant_stats
from tokbench.metrics.stats import SubsetStats
from tokbench.suites.variants import Variant, applies, make_variant


@pytest.mark.parametrize(("a", "b", "d"), [
    ([1, 2, 3], [1, 4, 3], 1), ([1, 2, 3, 4], [2, 3, 4, 5], 2), ([], [1, 2], 2),
    ([1, 2], [], 2), ([5, 1, 2, 3, 5], [5, 1, 2, 3, 5], 0),
    (list(b"kitten"), list(b"sitting"), 3), (list(b"flaw"), list(b"lawn"), 2),
    (list(b"intention"), list(b"execution"), 5),
])
def test_edit_distance(a: list[int], b: list[int], d: int) -> None:
    assert edit_distance(a, b) == d


def _levenshtein(a: list[int], b: list[int]) -> int:
    """The textbook dynamic programme, cell by cell."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=90), st.lists(st.integers(0, 5), max_size=90))
def test_edit_distance_is_the_textbook_one(a: list[int], b: list[int]) -> None:
    """Any lengths (past 64 ids too: the bit vectors are Python integers) and alphabets."""
    assert edit_distance(a, b) == edit_distance(b, a) == _levenshtein(a, b)


def test_variants_and_where_they_apply() -> None:
    def text(name: str, s: str, lang: str = "jpn_Jpan") -> str | None:
        v = make_variant(name, s, lang, "doc-1")
        return None if v is None else v.text

    assert text("halfwidth", "ガパＡ１、") == "ｶﾞﾊﾟA1､"
    assert text("fullwidth", "A1!") == "Ａ１！"
    assert text("katakana", "ひらがなとカナ") == "ヒラガナトカナ"
    assert text("hiragana", "カタカナ漢字") == "かたかな漢字"
    assert text("nfkc", "ｶﾞ①") == "ガ1" and text("nfd", "が") == "か\u3099"
    assert text("space_add", "a,b", "eng_Latn") == "a , b"
    assert text("space_remove", "a , b .", "eng_Latn") == "a,b."
    assert text("lower", "Hello", "eng_Latn") == "hello"
    assert text("lower", "ABCかな") is None  # Japanese is no cased script
    assert text("katakana", "ひら", "eng_Latn") is None
    assert not applies("fullwidth", "eng_Latn") and applies("fullwidth", "kor_Hang")
    assert applies("upper", "rus_Cyrl") and not applies("upper", "arb_Arab")
    assert text("nfkc", "plain") is None  # unchanged: no variant
    typo = make_variant("typo", "abcd efgh", "eng_Latn", "doc-1")
    assert typo == make_variant("typo", "abcd efgh", "eng_Latn", "doc-1")  # seeded
    assert typo is not None and sorted(typo.text) == sorted("abcd efgh") != list(typo.text)
    # the map of what changed: ｶﾞ is one piece that became ガ, ① one that became 1
    assert make_variant("nfkc", "xｶﾞ①", "jpn_Jpan").segments == (  # type: ignore[union-attr]
        (0, 1, 0, 1, False), (1, 3, 1, 2, True), (3, 4, 2, 3, True))


def test_inflation_moved_and_edit_by_hand() -> None:
    # "ab.cd" -> ab|.|c|d (4 tokens); space_add "ab . cd" -> ab| |.| |c|d (6): inflation
    # 6/4, two insertions, the cut c|d inside the unchanged "cd" stays.
    # "abcd" -> ab|c|d; a typo "bacd" -> b|acd keeps the text "cd" but loses its cut: moved;
    # ab c d -> b acd: two substitutions and a deletion, distance 3.
    tok = ByteToy([b"ab", b".", b"c", b"d", b"b", b"acd"])
    texts = ["ab.cd", "abcd"]
    encoded = tok.encode_batch_offsets(texts)
    space = make_variant("space_add", texts[0], "eng_Latn")
    typo = Variant("typo", "bacd", ((0, 2, 0, 2, True), (2, 4, 2, 4, False)))
    out = variant_stats(tok, TokenTable(tok), texts, encoded,
                        {"space_add": [space, None], "typo": [None, typo]})
    assert out["rob_space_add_docs"].tolist() == [1, 0]
    assert (out["rob_space_add_tokens"][0], out["rob_space_add_vtokens"][0]) == (4, 6)
    assert out["rob_space_add_edit"][0] == 2 and out["rob_space_add_moved"][0] == 0
    assert (out["rob_typo_tokens"][1], out["rob_typo_vtokens"][1]) == (3, 2)
    assert out["rob_typo_edit"][1] == 3 and out["rob_typo_moved"][1] == 1
    sums = {k: int(v.sum()) for k, v in out.items()}
    metrics = [m for m in BUILTIN_METRICS if m.family == "robustness"]
    v = evaluate(SubsetStats(sums), metrics, MetricContext(7, False))
    assert v["robust_space_add_inflation"] == 1.5 and v["robust_space_add_edit"] == 0.5
    assert v["robust_typo_moved"] == 1.0 and v["robust_typo_edit"] == 1.0
    # pooled over both variants: (6 + 2) / (4 + 3), moved 1 of 2, edit (2 + 3) / 7
    assert v["robust_inflation"] == pytest.approx(8 / 7)
    assert v["robust_moved"] == 0.5 and v["robust_edit"] == pytest.approx(5 / 7)
    assert v["robust_nfkc_inflation"] is None  # no document changed by it
