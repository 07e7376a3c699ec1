"""Every metric on small cases whose values are computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests._toy import ToyTokenizer, histogram_metric, metric_values
from tokbench.adapters.base import char_to_byte_offsets
from tokbench.engine.runner import run
from tokbench.metrics import resolve_families
from tokbench.metrics.compute import (
    TokenTable,
    classify_roundtrip,
    measure_documents,
)
from tokbench.metrics.tokenizer_facts import vocabulary_facts
from tokbench.suites.model import Document, Suite

ALL_FAMILIES = resolve_families(None)


def measure(tok, texts, words=None, numbers=False):
    enc = [tok.encode(t) for t in texts]
    dec = [tok.decode(e) for e in enc]
    c = measure_documents(TokenTable(tok), texts, enc, dec, words, numbers=numbers)
    return metric_values(c, np.arange(len(texts)), ALL_FAMILIES, tok.vocab_size,
                         tok.unk_id is not None)


def test_compression_is_a_ratio_of_sums_not_a_mean_of_ratios():
    tok = ToyTokenizer(["aa", "a", "b", "é"])
    # "aaaa" -> [aa, aa]: 4 bytes, 2 tokens; "b" -> [b]: 1 byte, 1 token; "é" 2 bytes 1 token
    v = measure(tok, ["aaaa", "b", "é"])
    assert v["tokens"] == 4
    assert v["bytes_per_token"] == pytest.approx(7 / 4)  # mean of ratios would be 5/3
    assert v["chars_per_token"] == pytest.approx(6 / 4)


def test_fertility_and_continued_words_from_token_spans():
    tok = ToyTokenizer(["hel", "lo", " ", "world", "!"])
    text = "hello world!"
    # tokens: hel|lo| |world|!  -> 5 tokens; words: "hello" (0,5) split in 2, "world" (6,11) whole
    v = measure(tok, [text], words=[[(0, 5), (6, 11)]])
    assert v["tokens"] == 5
    assert v["fertility"] == pytest.approx(5 / 2)
    assert v["continued_words"] == pytest.approx(1 / 2)


def test_continued_words_with_multibyte_characters():
    tok = ToyTokenizer(["日本", "語", "を", "話す"])
    text = "日本語を話す"
    # words: 日本語 (0,3) -> 2 tokens (continued); を (3,4); 話す (4,6)
    v = measure(tok, [text], words=[[(0, 3), (3, 4), (4, 6)]])
    assert v["fertility"] == pytest.approx(4 / 3)
    assert v["continued_words"] == pytest.approx(1 / 3)


def test_fertility_is_empty_when_any_document_has_no_segmenter():
    tok = ToyTokenizer(["a", " "])
    v = measure(tok, ["a a", "a"], words=[[(0, 1), (2, 3)], None])
    assert "fertility" not in v and "continued_words" not in v


def test_unknown_tokens_and_characters():
    tok = ToyTokenizer(["a", "b", " "])
    # "ab xy" -> a b ' ' <unk> <unk>: 5 tokens, 2 unknown covering 2 of 5 chars
    v = measure(tok, ["ab xy", "ab"])
    assert v["tokens"] == 7
    assert v["unk_rate"] == pytest.approx(2 / 7)
    assert v["unk_chars"] == pytest.approx(2 / 7)
    assert v["roundtrip"] == pytest.approx(1 / 2)


def test_vocab_used_and_renyi_efficiency_by_hand():
    tok = ToyTokenizer(["a", "b", "c"], unk=False)
    v = measure(tok, ["abab"])
    assert v["vocab_used"] == pytest.approx(2 / 3)
    # p = (1/2, 1/2): H_2.5 = log(2 * 0.5**2.5) / (1 - 2.5) = log 2
    assert v["renyi_efficiency_vocab"] == pytest.approx(math.log(2) / math.log(3))
    vocab = "renyi_efficiency_vocab"
    assert histogram_metric(vocab, np.array([0, 0, 1, 1]), 4) == pytest.approx(0.5)
    # a single token type has zero entropy
    assert histogram_metric(vocab, np.array([3, 3, 3]), 8) == pytest.approx(0.0)


@pytest.mark.parametrize(("pieces", "expected"), [
    (["1", "2", "3", "4", "5", "6", "7"], "digits_single"),
    (["123", "456", "7"], "digits_l2r3"),
    (["1", "234", "567"], "digits_r2l3"),
    (["12", "34", "567"], "digits_other"),
])
def test_digit_chunking(pieces, expected):
    tok = ToyTokenizer(pieces, unk=False)
    v = measure(tok, ["1234567"], numbers=True)
    assert v[expected] == 1.0
    assert v["tokens_per_digit"] == pytest.approx(len(tok.encode("1234567")) / 7)


@pytest.mark.parametrize(("pieces", "text", "expected"), [
    # a length that is a multiple of 3: left and right groups of 3 are the same cut
    (["123", "456"], "123456", "digits_groups3"),
    (["1", "2", "3", "4", "5", "6"], "123456", "digits_single"),
    (["12", "3456"], "123456", "digits_other"),
    # a run left whole (GPT-2's "2020") is its own class, not "other"
    (["2020"], "2020", "digits_whole"),
    ([" 2020", "s"], " 2020s", "digits_whole"),  # a token reaching outside the run
    (["20", "20"], "2020", "digits_other"),
    (["202", "0"], "2020", "digits_l2r3"),
])
def test_digit_classes_cover_every_run_of_four_or_more(pieces, text, expected):
    from tokbench.metrics.compute import DIGIT_CLASSES

    tok = ToyTokenizer(pieces, unk=False)
    c = measure_documents(TokenTable(tok), [text], [tok.encode(text)], None, None, numbers=True)
    assert dict(zip(DIGIT_CLASSES, c.runs.sum(axis=0).tolist(), strict=True)) == {
        k: int(k == expected) for k in DIGIT_CLASSES}


def test_runs_shorter_than_four_have_no_class():
    tok = ToyTokenizer(["1", "2", "3", " "], unk=False)
    c = measure_documents(TokenTable(tok), ["123 1"], [tok.encode("123 1")], None, None,
                          numbers=True)
    assert c.runs.sum() == 0 and c.digits.tolist() == [4] and c.digit_tokens.tolist() == [4]


def test_tokens_per_digit_counts_tokens_overlapping_digit_runs():
    tok = ToyTokenizer(["x1", "23", " ", "4"], unk=False)
    # "x123 4": runs "123" (tokens x1, 23) and "4" (token 4) -> 3 tokens / 4 digits
    v = measure(tok, ["x123 4"], numbers=True)
    assert v["tokens_per_digit"] == pytest.approx(3 / 4)


def test_char_to_byte_offsets():
    assert char_to_byte_offsets("aé日😀").tolist() == [0, 1, 3, 6, 10]
    assert char_to_byte_offsets("abc").tolist() == [0, 1, 2, 3]
    # a lone surrogate (text read with surrogateescape) counts 3 bytes, as surrogatepass
    assert char_to_byte_offsets("a\ud800b").tolist() == [0, 1, 4, 5]


@pytest.mark.parametrize(("original", "decoded", "unk", "kind", "offset"), [
    ("ae\u0301c", "a\u00e9c", False, "normalization", 1),
    ("a  b", "a b", False, "whitespace", 2),
    ("abc", "abd", False, "other", 2),
    ("ｶﾀ  ｶﾅ", "カタ カナ", False, "normalization", 0),
    ("aΩb", "a\ufffdb", True, "unknown_token", 1),
])
def test_roundtrip_failure_classification(original, decoded, unk, kind, offset):
    got = classify_roundtrip(original, decoded, unk)
    assert got["kind"] == kind
    assert got["offset"] == offset


def _parallel_suite():
    docs = [
        Document("e1", "eng_Latn", "d", "ab", "1"), Document("e2", "eng_Latn", "d", "ab", "2"),
        Document("x1", "xxx_Latn", "d", "aaa", "1"), Document("x2", "xxx_Latn", "d", "aaa", "2"),
        Document("x3", "xxx_Latn", "d", "aaaaaa", "3"),  # no English counterpart: not counted
    ]
    return Suite("par", "1", docs, parallel=True, subset_by="lang")


def test_premium_over_aligned_documents_only():
    tok = ToyTokenizer(["a", "b", " "], unk=False)
    res = run([tok], [_parallel_suite()], ["premium", "compression"])
    assert res.value("toy", "par", "xxx_Latn", "premium") == pytest.approx(6 / 4)
    assert res.value("toy", "par", "eng_Latn", "premium") == pytest.approx(1.0)
    assert res.value("toy", "par", "xxx_Latn", "tokens") == 12
    assert res.value("toy", "par", "all", "tokens") == 16


def test_premium_join_counts_the_joined_text():
    tok = ToyTokenizer(["a", "b", " ", "aaa aaa"], unk=False)
    res = run([tok], [_parallel_suite()], ["premium"], premium_join=True)
    # "aaa aaa" is one token; English "ab ab" is 5 tokens
    assert res.value("toy", "par", "xxx_Latn", "premium") == pytest.approx(1 / 5)


def test_premium_without_english_pivot_is_absent_but_other_metrics_remain():
    docs = [Document("x1", "xxx_Latn", "d", "aa", "1")]
    tok = ToyTokenizer(["a"], unk=False)
    res = run([tok], [Suite("p", "1", docs, parallel=True)], ["premium", "compression"])
    assert not [r for r in res.rows if r.metric == "premium"]
    assert res.value("toy", "p", "all", "tokens") == 2
    (warning,) = res.meta.warnings or []
    assert "suite 'p' has no eng_Latn documents, so premium is not computed" in warning


def test_a_document_the_tokenizer_raises_on_is_a_failure_and_the_run_goes_on():
    tok = ToyTokenizer(["a"], unk=False)
    docs = [Document("ok", "eng_Latn", "d", "aa"), Document("bad", "eng_Latn", "d", "ab")]
    res = run([tok], [Suite("s", "1", docs)], ["compression", "roundtrip"])
    assert res.value("toy", "s", "all", "tokens") == 2
    assert res.value("toy", "s", "all", "roundtrip") == 1.0
    (failure,) = res.failures
    assert failure.doc_id == "bad" and failure.kind == "error"
    assert "cannot encode 'b'" in (failure.error or "")


def test_roundtrip_failure_is_recorded_with_document_and_offset():
    tok = ToyTokenizer(["a", "b"], unk=False, lossy={"b": "B"})
    docs = [Document("d1", "eng_Latn", "d", "aab"), Document("d2", "eng_Latn", "d", "aa")]
    res = run([tok], [Suite("s", "1", docs)], ["roundtrip"])
    assert res.value("toy", "s", "all", "roundtrip") == 0.5
    (f,) = res.failures
    assert (f.doc_id, f.kind, f.offset) == ("d1", "other", 2)


def test_vocabulary_facts():
    # "b" decodes to "a", and "a" encodes to the piece "a": "b" cannot be reached from text.
    # The unknown token is not tested (unreachable by design).
    tok = ToyTokenizer(["a", "b", "c", "ab", "abc"], unk=True, lossy={"b": "a"})
    facts = vocabulary_facts(tok)
    assert facts == {"vocab_size": 6, "special_tokens": 0, "utf8_fragment_tokens": 0,
                     "single_byte_tokens": 0,
                     "unreachable_tokens": 1}


class DummyPrefixToy(ToyTokenizer):
    """Like SentencePiece: a space is prepended before encoding and dropped when decoding."""

    def encode(self, text):
        return super().encode(" " + text)

    def decode(self, ids):
        out = super().decode(ids)
        return out[1:] if out.startswith(" ") else out


def test_unreachable_with_a_dummy_prefix_is_tested_inside_a_word():
    # Pieces without the prefix space cannot start a text ("he" alone encodes to " he"), yet
    # each is what "\n" + piece encodes to after the separator "\n" (which no other piece
    # holds); the bare " " is the dummy prefix of "llo". Only "q", which decodes to "l", is
    # unreachable; encode(decode([t])) alone would call 7 of 9 unreachable ("\n", " ",
    # "llo", "he", "l", "o", "q").
    tok = DummyPrefixToy(["\n", " \n", " ", " he", "llo", "he", "l", "o", "q"], unk=False,
                         lossy={"q": "l"})
    facts = vocabulary_facts(tok)
    assert facts["unreachable_tokens"] == 1


def test_dummy_prefix_space_belongs_to_no_word():
    tok = DummyPrefixToy([" he", "llo", " wor", "ld", "!"], unk=False)
    # " hello world!" -> [" he", "llo", " wor", "ld", "!"]; both words are split
    v = measure(tok, ["hello world!", "hello"], words=[[(0, 5), (6, 11)], [(0, 5)]])
    assert v["tokens"] == 7
    assert v["continued_words"] == pytest.approx(3 / 3)
    assert v["bytes_per_token"] == pytest.approx(17 / 7)
    assert v["roundtrip"] == 1.0


def test_failed_and_empty_documents_in_the_middle_and_at_the_end():
    tok = ToyTokenizer(["ab", "a", "b", " "], unk=False)
    texts = ["ab a", "zz", "", "a b", "zz"]
    enc = [tok.encode(t) if "z" not in t else None for t in texts]
    c = measure_documents(TokenTable(tok), texts, enc, None,
                          [[(0, 2), (3, 4)], None, [], [(0, 1), (2, 3)], None])
    assert c.tokens.tolist() == [3, 0, 0, 3, 0]
    assert c.continued.tolist() == [0, 0, 0, 0, 0]
    assert c.words.tolist() == [2, -1, 0, 2, -1]
    v = metric_values(c, np.arange(5), ["compression", "fertility"], tok.vocab_size, False)
    assert v["tokens"] == 6
    assert v["bytes_per_token"] == pytest.approx(7 / 6)


def test_digit_runs_are_assigned_to_their_documents():
    tok = ToyTokenizer(["1", "2", "3", "4", "5", "123", "45", " ", "a"], unk=False)
    texts = ["a 12345", "54321 a 1234", "a"]
    enc = [tok.encode(t) for t in texts]
    c = measure_documents(TokenTable(tok), texts, enc, None, None, numbers=True)
    # "12345" -> 123|45 (l2r); "54321" -> single digits; "1234" -> 123|4 (l2r)
    assert c.digits.tolist() == [5, 9, 0]
    assert c.digit_tokens.tolist() == [2, 7, 0]
    assert c.runs.tolist() == [[0, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]


class CountingToy(ToyTokenizer):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.calls = 0

    def encode(self, text):
        self.calls += 1
        return super().encode(text)


def test_finished_units_are_checkpointed_and_reused_on_resume():
    suites = [Suite("s1", "1", [Document("a", "eng_Latn", "d", "ab")]),
              Suite("s2", "1", [Document("b", "eng_Latn", "d", "ba")])]
    checkpoints = []
    first = run([CountingToy(["a", "b"])], suites, ["compression"],
                on_unit=lambda r: checkpoints.append(len(r.rows)))
    assert checkpoints == [6, 12]  # results handed over after each (tokenizer, suite) unit
    tok = CountingToy(["a", "b"])
    again = run([tok], suites, ["compression"], resume=first)
    assert tok.calls == 0
    assert [r.to_dict() for r in again.sorted_rows()] == [r.to_dict() for r in first.sorted_rows()]
    changed = [suites[0], Suite("s2", "1", [Document("b", "eng_Latn", "d", "bab")])]
    tok = CountingToy(["a", "b"])
    third = run([tok], changed, ["compression"], resume=first)
    assert tok.calls == 1  # only the suite whose content changed is measured again
    assert third.value("toy", "s2", "all", "tokens") == 3


def test_unknown_token_after_a_bare_dummy_prefix_covers_its_character():
    # SentencePiece: "The city" -> "▁", <unk> (for "T"), "h", "e", "▁c", "it", "y"; the byte
    # lengths add up to the text's by coincidence (1 + 0 = 1), which must not fool the spans
    tok = DummyPrefixToy([" ", "h", "e", " c", "it", "y"], unk=True)
    v = measure(tok, ["The city"], words=[[(0, 3), (4, 8)]])
    assert v["unk_chars"] == pytest.approx(1 / 8)
    assert v["continued_words"] == pytest.approx(2 / 2)


def test_renyi_both_denominators_by_hand():
    # p = (1/2, 1/4, 1/4): Σ p^2.5 = 0.1767767 + 2 * 0.03125 = 0.2392767,
    # H_2.5 = ln(0.2392767) / (1 - 2.5) = -1.4301347 / -1.5 = 0.9534231 nats
    ids = np.array([0, 0, 1, 2])
    vocab, seen = "renyi_efficiency_vocab", "renyi_efficiency_seen"
    assert histogram_metric(vocab, ids, 10) == pytest.approx(0.9534231 / math.log(10), rel=1e-6)
    assert histogram_metric(seen, ids, 10) == pytest.approx(0.9534231 / math.log(3), rel=1e-6)
    assert histogram_metric(seen, np.array([5, 5]), 10) is None  # one type: log 1 = 0
