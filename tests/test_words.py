"""Word segmentation: exact spans per segmenter, the rule's definition, real FLORES text."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokbench.errors import MissingDependencyError
from tokbench.paths import flores_dir
from tokbench.suites.model import Document
from tokbench.suites.words import (
    IcuSegmenter,
    JiebaSegmenter,
    MecabSegmenter,
    RuleSegmenter,
    ThaiSegmenter,
    icu_available,
    is_word,
    segment_documents,
    segmenter_for,
    segmenters,
)


def words(lang: str, text: str) -> list[str]:
    seg = segmenter_for(lang)
    assert seg is not None
    return [text[a:b] for a, b in seg.spans(text)]


def test_english_sentence_spans_by_hand() -> None:
    text = "Don't panic: the e-mail costs $3.14 (1,000 U.S. dollars)!"
    seg = segmenter_for("eng_Latn")
    assert seg is not None and seg.name == "unicode-whitespace-punct"
    assert seg.spans(text) == [(0, 5), (6, 11), (13, 16), (17, 23), (24, 29), (31, 35),
                               (37, 42), (43, 44), (45, 46), (48, 55)]
    assert seg.count(text) == 10


@pytest.mark.parametrize(("text", "expected"), [
    ("'quoted' -dash- end.", ["quoted", "dash", "end"]),      # joiners only inside words
    ("l’homme, l·l, rock-'n'-roll", ["l’homme", "l·l", "rock", "n", "roll"]),
    ("v1.2 3. .5 1.000,50 12:30", ["v1.2", "3", "5", "1.000,50", "12", "30"]),
    ("a.b 2023-01-05", ["a", "b", "2023-01-05"]),              # . joins digits only
    ("C++ & C# — 😀 👩‍💻 ½", ["C", "C", "½"]),                   # No is a digit category
    ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),                              # marks stay in words
    ("می\u200cخواهم بروم", ["می\u200cخواهم", "بروم"]),          # ZWNJ inside a word
    ("٣٫١٤ و ١٬٠٠٠", ["٣٫١٤", "و", "١٬٠٠٠"]),                   # Arabic separators
    ("צה״ל ו־ג׳", ["צה״ל", "ו", "ג"]),                          # gershayim inside, maqaf splits
    ("under_score\tnew\nline\u3000x", ["under", "score", "new", "line", "x"]),
    ("", []),
    ("... !!! ---", []),
])
def test_rule_definition(text: str, expected: list[str]) -> None:
    assert words("eng_Latn", text) == expected


_JOINERS = set("'\u2019\u02bc-\u2010\u2011\u00b7\u05f3\u05f4\u00ad\u200c\u200d")


def _wordy(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LMN"


# Code points unassigned in Python's Unicode database may be letters in the newer Unicode of
# the regex module, so they are left out.
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1 .,'-_\u00b7\u200cé́ 😀\u3000٫"))
               | st.characters(exclude_categories=["Cn", "Cs"]), max_size=40))
def test_rule_properties(text: str) -> None:
    """Spans are ordered, start and end on a word character, cover every word character,
    and two spans are never separated by a single joiner (they would be one word)."""
    spans = RuleSegmenter().spans(text)
    covered: set[int] = set()
    for i, (a, b) in enumerate(spans):
        assert 0 <= a < b <= len(text)
        assert _wordy(text[a]) and _wordy(text[b - 1])
        covered.update(range(a, b))
        if i:
            gap = text[spans[i - 1][1]:a]
            assert gap, "adjacent spans"
            assert not (len(gap) == 1 and gap in _JOINERS)
            digits = text[spans[i - 1][1] - 1].isdecimal() and text[a].isdecimal()
            assert not (len(gap) == 1 and gap in ".,٫٬" and digits)
    assert all(i in covered for i, ch in enumerate(text) if _wordy(ch))


def test_mecab_unidic_lite_japanese() -> None:
    seg = segmenter_for("jpn_Jpan")
    assert isinstance(seg, MecabSegmenter) and seg.name == "mecab-unidic-lite"
    text = "東京都に住んでいます。"
    assert seg.spans(text) == [(0, 2), (2, 3), (3, 4), (4, 6), (6, 7), (7, 8), (8, 10)]
    assert seg.words(text) == ["東京", "都", "に", "住ん", "で", "い", "ます"]
    assert seg.words("吾輩は猫である。名前はまだ無い。") == [
        "吾輩", "は", "猫", "で", "ある", "名前", "は", "まだ", "無い"]
    assert "unidic-lite 1.0.8" in seg.version


def test_mecab_offsets_survive_whitespace_and_nul() -> None:
    # MeCab skips spaces and newlines, and would stop at NUL: offsets must still be exact.
    text = "今日は 晴れ\n\0です。"
    seg = segmenter_for("jpn_Jpan")
    assert seg is not None
    assert seg.spans(text) == [(0, 2), (2, 3), (4, 6), (8, 10)]


def test_jieba_chinese() -> None:
    seg = segmenter_for("zho_Hans")
    assert isinstance(seg, JiebaSegmenter) and seg.name == "jieba"
    assert seg.spans("我爱北京天安门。") == [(0, 1), (1, 2), (2, 4), (4, 7)]
    assert seg.words("我来到北京清华大学") == ["我", "来到", "北京", "清华大学"]
    assert segmenter_for("zho_Hant") is seg and segmenter_for("yue_Hant") is seg


def test_pythainlp_newmm_thai() -> None:
    seg = segmenter_for("tha_Thai")
    assert isinstance(seg, ThaiSegmenter) and seg.name == "pythainlp-newmm"
    assert seg.spans("ฉันรักภาษาไทย  มาก") == [(0, 3), (3, 6), (6, 13), (15, 18)]
    assert seg.words("ฉันรักภาษาไทย  มาก") == ["ฉัน", "รัก", "ภาษาไทย", "มาก"]


def test_icu_for_khmer_lao_burmese() -> None:
    text = "😀ខ្ញុំស្រឡាញ់ភាសាខ្មែរ"  # the emoji is 2 UTF-16 units: offsets must be characters
    if icu_available():
        seg = segmenter_for("khm_Khmr")
        assert isinstance(seg, IcuSegmenter) and seg.name == "icu"
        assert seg.spans(text) == [(1, 6), (6, 13), (13, 22)]
        assert seg.words(text) == ["ខ្ញុំ", "ស្រឡាញ់", "ភាសាខ្មែរ"]
        assert segmenters(["lao_Laoo", "mya_Mymr"]) == {"lao_Laoo": "icu", "mya_Mymr": "icu"}
    else:
        assert segmenters(["khm_Khmr", "lao_Laoo", "mya_Mymr"]) == {
            "khm_Khmr": None, "lao_Laoo": None, "mya_Mymr": None}
        with pytest.raises(MissingDependencyError, match="pip install PyICU"):
            IcuSegmenter("km").spans(text)


def test_segmenter_choice_per_language() -> None:
    assert segmenters(["eng_Latn", "kor_Hang", "vie_Latn", "arb_Arab", "hin_Deva",
                       "amh_Ethi", "jpn_Jpan", "bod_Tibt", "dzo_Tibt", "shn_Mymr",
                       "zxx_Zyyy", "und_Zyyy", "mul_Zyyy", "code"]) == {
        "eng_Latn": "unicode-whitespace-punct", "kor_Hang": "unicode-whitespace-punct",
        "vie_Latn": "unicode-whitespace-punct", "arb_Arab": "unicode-whitespace-punct",
        "hin_Deva": "unicode-whitespace-punct", "amh_Ethi": "unicode-whitespace-punct",
        "jpn_Jpan": "mecab-unidic-lite", "bod_Tibt": None, "dzo_Tibt": None,
        "shn_Mymr": None, "zxx_Zyyy": None, "und_Zyyy": None, "mul_Zyyy": None,
        "code": None}
    assert segmenter_for("jpn_Jpan") is segmenter_for("jpn_Jpan")  # shared, cached


def test_a_plain_install_leaves_fertility_empty_with_one_warning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21.3: without the words extra (fugashi and jieba missing here) a parallel suite
    with Japanese and Chinese runs; their fertility is empty, said in one warning, and the
    other languages keep theirs."""
    from tests._toy import ToyTokenizer
    from tokbench.engine.runner import run
    from tokbench.suites import words as words_module
    from tokbench.suites.model import Suite

    for module in ("fugashi", "jieba"):
        monkeypatch.setitem(sys.modules, module, None)  # import -> ImportError, no spec
    monkeypatch.setattr(words_module, "_AVAILABLE", {})
    assert words_module.missing_segmenters(["jpn_Jpan", "zho_Hans", "eng_Latn", "khm_Khmr"]) \
        == {"jpn_Jpan": 'pip install "tokbench[words]"',
            "zho_Hans": 'pip install "tokbench[words]"'}
    docs = [Document("e", "eng_Latn", "x", "the cat sat"), Document("j", "jpn_Jpan", "x", "日本語"),
            Document("z", "zho_Hans", "x", "我爱北京")]
    tok = ToyTokenizer(["the", " cat", " sat", "日本", "語", "我", "爱", "北京"], unk=False)
    res = run([tok], [Suite("p", "1", docs, parallel=True)], ["fertility", "compression"])
    fertility = {r.subset: r.value for r in res.rows if r.metric == "fertility"}
    assert fertility == {"eng_Latn": 1.0}  # 3 tokens over 3 words; no 'all': not every
    assert res.value("toy", "p", "jpn_Jpan", "tokens") == 2  # language has words
    assert res.meta.segmenters is not None
    assert (res.meta.segmenters["jpn_Jpan"], res.meta.segmenters["zho_Hans"]) == (None, None)
    assert res.meta.warnings == [
        "fertility, continued_words and strr are left empty for jpn_Jpan, zho_Hans: no word "
        'segmenter installed for them (pip install "tokbench[words]")']


def test_a_missing_dependency_error_keeps_its_message_across_processes() -> None:
    """Issue 21.3: a worker's MissingDependencyError reached the terminal wrapped twice
    ("the Python package 'the Python package \\'fugashi\\' ..."): pickling rebuilt it from
    its message. Every tokbench error crosses a process boundary unchanged."""
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    from tokbench.errors import UnknownNameError

    with ProcessPoolExecutor(1) as pool:
        for error in (MissingDependencyError("fugashi", extra="words",
                                             purpose="Japanese word segmentation"),
                      UnknownNameError("metric", "tokns", ["tokens"])):
            back = pool.submit(pickle.loads, pickle.dumps(error)).result()
            assert (type(back), str(back)) == (type(error), str(error))
    assert str(back) == "unknown metric 'tokns'; did you mean 'tokens'?"
    error = MissingDependencyError("fugashi", extra="words", purpose="Japanese word segmentation")
    assert str(pickle.loads(pickle.dumps(error))) == (
        "the Python package 'fugashi' is not installed (needed for Japanese word segmentation); "
        'run: pip install "tokbench[words]"')


def test_missing_library_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jieba", None)  # import jieba -> ImportError
    with pytest.raises(MissingDependencyError, match=r'pip install "tokbench\[words\]"'):
        JiebaSegmenter().spans("我爱北京")
    monkeypatch.setitem(sys.modules, "fugashi", None)
    with pytest.raises(MissingDependencyError, match="Japanese word segmentation"):
        MecabSegmenter().spans("日本語")


def test_spans_are_cached_copies() -> None:
    seg = RuleSegmenter()
    first = seg.spans("one two")
    first.append((9, 9))
    assert seg.spans("one two") == [(0, 3), (4, 7)]


def test_segment_documents() -> None:
    docs = [Document("a", "eng_Latn", "d", "Hello, world"),
            Document("b", "zxx_Zyyy", "d", "x = 1"),
            Document("c", "zho_Hans", "d", "我爱北京天安门")]
    assert segment_documents(docs) == [[(0, 5), (7, 12)], None, [(0, 1), (1, 2), (2, 4), (4, 7)]]


@pytest.mark.needs("flores")
@pytest.mark.real  # FLORES-200
@pytest.mark.parametrize("lang", ["eng_Latn", "jpn_Jpan", "zho_Hans", "zho_Hant", "tha_Thai",
                                  "khm_Khmr", "kor_Hang", "hin_Deva", "arb_Arab"])
def test_flores_spans_are_words_and_cover_all_letters(lang: str) -> None:
    """On real text every segmenter returns ordered words that hold every letter/digit."""
    root = flores_dir()
    assert root is not None  # needs("flores")
    seg = segmenter_for(lang)
    if seg is None:  # khm_Khmr without PyICU: checked in test_icu_for_khmer_lao_burmese
        assert lang == "khm_Khmr" and not icu_available()
        return
    lines = (root / "dev" / f"{lang}.dev").read_text(encoding="utf-8").split("\n")[:200]
    total = 0
    for text in filter(None, lines):
        spans = seg.spans(text)
        covered = set()
        end = 0
        for a, b in spans:
            assert end <= a < b and is_word(text[a:b])
            covered.update(range(a, b))
            end = b
        # Every letter and digit is in a word (ICU may leave out a stray combining mark).
        assert all(i in covered for i, ch in enumerate(text)
                   if unicodedata.category(ch)[0] in "LN"), text
        total += len(spans)
    chars = sum(len(t) for t in lines)
    assert total > chars / 15  # a word every 15 characters at most: no whole-line "words"
