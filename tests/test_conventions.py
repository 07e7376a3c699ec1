"""Fertility conventions (what a word is, how its tokens are counted), by hand and on FLORES."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests._toy import ToyTokenizer
from tokbench.errors import InputError
from tokbench.metrics.conventions import (
    FertilityConvention,
    count_alone,
    whitespace_spans,
    with_punctuation,
    word_spans,
)


def test_parse_and_name() -> None:
    assert str(FertilityConvention.parse("alone/whitespace")) == "alone/whitespace"
    assert str(FertilityConvention.parse("alone_space")) == "alone_space/words"
    assert str(FertilityConvention.parse("/words+punct")) == "context/words+punct"
    with pytest.raises(InputError, match="ENCODING one of context, alone, alone_space"):
        FertilityConvention.parse("isolated/words")


def test_word_definitions() -> None:
    text = "Hi, you! ok"
    assert whitespace_spans(text) == [(0, 3), (4, 8), (9, 11)]  # "Hi," "you!" "ok"
    words = [(0, 2), (4, 7), (9, 11)]  # the segmenter's "Hi" "you" "ok"
    assert with_punctuation(text, words) == [(0, 2), (2, 3), (4, 7), (7, 8), (9, 11)]
    conv = FertilityConvention.parse("context/words+punct")
    assert word_spans(conv, [text, "x"], [words, None]) == [
        [(0, 2), (2, 3), (4, 7), (7, 8), (9, 11)], None]


def test_count_alone_by_hand() -> None:
    tok = ToyTokenizer(["he", "llo", "hello", " hello", " ", "!", "a"], unk=False)
    texts = ["hello hello!", "a"]
    spans = [whitespace_spans(t) for t in texts]  # "hello", "hello!" | "a"
    bare = count_alone(tok, texts, spans, leading_space=False)
    # "hello" -> [hello] (1), "hello!" -> [hello, !] (2), "a" -> 1
    assert (bare.words.tolist(), bare.tokens.tolist()) == ([2, 1], [3, 1])
    assert (bare.continued.tolist(), bare.single.tolist()) == ([1, 0], [1, 1])
    spaced = count_alone(tok, texts, spans, leading_space=True)
    # " hello" -> [ hello] (1), " hello!" -> [ hello, !] (2), " a" -> [" ", a] (2)
    assert spaced.tokens.tolist() == [3, 2] and spaced.single.tolist() == [1, 0]
    none = count_alone(tok, ["x"], [None], leading_space=False)
    assert none.words.tolist() == [-1]


# -- peers' published conventions reproduced on FLORES-200 devtest --------------------------

@pytest.mark.needs("flores")
@pytest.mark.real
@pytest.mark.parametrize(("conv", "lang", "fertility", "continued"), [
    # glotscope 0.1.0 analyze qwen tokenizer.json --corpus flores_plus --split devtest
    # --segmenter whitespace --no-leading-space / --leading-space: fertility, p_continued
    ("alone/whitespace", "eng_Latn", 1.4607552166567737, 0.31898086845349527),
    ("alone/whitespace", "hin_Deva", 4.268221346956285, 0.995047381351636),
    ("alone_space/whitespace", "eng_Latn", 1.2571572074334505, 0.17519747956714304),
    ("alone_space/whitespace", "hin_Deva", 4.782552743438755, 0.9974651951799711),
])
def test_glotscope_fertility_qwen2(conv: str, lang: str, fertility: float, continued: float,
                                   real_cache: Path) -> None:
    import tokbench
    from tokbench.loading.loader import load_tokenizer

    tok = load_tokenizer("qwen2")
    texts = [d.text for d in tokbench.load_suite(
        f"flores200?split=devtest&languages={lang}").documents]
    c = FertilityConvention.parse(conv)
    got = count_alone(tok, texts, word_spans(c, texts, None), c.encoding == "alone_space")
    words = int(np.sum(got.words))
    assert got.tokens.sum() / words == pytest.approx(fertility, rel=1e-12)
    assert got.continued.sum() / words == pytest.approx(continued, rel=1e-12)


@pytest.mark.parametrize(("conv", "fertility", "strr"), [
    # "hello hello!" / segmenter words: hello, hello | whitespace: "hello", "hello!"
    # context: tokens [hello, " hello", "!"] (3) over 2 words; each word one token
    ("context/words", 3 / 2, 1.0),
    # words+punct: "!" is a word too: 3 tokens / 3 words
    ("context/words+punct", 3 / 3, 1.0),
    # alone: "hello" -> 1, "hello!" -> [hello, !] 2: 3 / 2, one word of two
    ("alone/whitespace", 3 / 2, 1 / 2),
    # alone after a space: " hello" -> 1, " hello!" -> 2
    ("alone_space/whitespace", 3 / 2, 1 / 2),
])
def test_run_records_and_applies_the_convention(conv: str, fertility: float, strr: float) -> None:
    from tokbench.engine.runner import run
    from tokbench.suites.model import Document, Suite

    tok = ToyTokenizer(["hello", " hello", "!", " ", "he", "llo"], unk=False)
    suite = Suite("s", "1", [Document("d", "eng_Latn", "x", "hello hello!")])
    res = run([tok], [suite], ["fertility"], fertility=conv)
    assert res.meta.settings["fertility"] == conv
    assert res.value("toy", "s", "all", "fertility") == pytest.approx(fertility)
    assert res.value("toy", "s", "all", "strr") == pytest.approx(strr)


def test_bad_convention_is_one_line() -> None:
    from tokbench.engine.runner import Settings

    with pytest.raises(InputError, match="fertility convention 'alone/sentences'"):
        Settings(fertility="alone/sentences")


@pytest.mark.needs("flores")
@pytest.mark.real
def test_toklens_and_tokscope_on_flores_english(real_cache: Path) -> None:
    """toklens 0.1.2 (compute_all on the devtest sentences joined by spaces) reports XLM-R's
    English STRR 0.721063 and fertility 1.399982 (each whitespace word alone); tokscope 0.2.0
    fertility 1.4 (the joined text's 30,661 tokens over 21,901 whitespace words)."""
    from tokbench.engine.runner import run

    suite = "flores200?split=devtest&languages=eng_Latn"
    alone = run(["xlm-roberta"], [suite], ["fertility"], fertility="alone/whitespace")
    key = ("xlm-roberta", "flores200-devtest", "eng_Latn")
    assert alone.value(*key, "strr") == pytest.approx(0.721063, abs=5e-7)
    assert alone.value(*key, "fertility") == pytest.approx(1.399982, abs=5e-7)
    ctx = run(["xlm-roberta"], [suite], ["fertility"], fertility="context/whitespace")
    assert ctx.value(*key, "fertility") == pytest.approx(30661 / 21901)
