"""Morpheme-boundary alignment: hand-computed precision, recall, F1 and crossing tokens
(byte-level cuts inside a character, SentencePiece's dummy prefix), gold files scored as
MorphScore does, and the analyzers' real boundaries."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._needs import need
from tokbench.adapters.base import Tokenizer
from tokbench.errors import InputError
from tokbench.metrics.base import MetricContext
from tokbench.metrics.compute import SuiteLayout, TokenTable, evaluate, measure_documents
from tokbench.metrics.definitions import BUILTIN_METRICS
from tokbench.metrics.morph import MorphLayout
from tokbench.metrics.morph_score import score_gold
from tokbench.metrics.stats import SubsetStats
from tokbench.record import TokenizerSource
from tokbench.suites.morph_gold import read_gold


class ByteToy(Tokenizer):
    """Greedy longest match over byte pieces (a byte-level BPE's cuts, chosen by hand);
    ``prefix`` adds a dummy-prefix space to the first piece of every text."""

    backend = "toy"

    def __init__(self, pieces: Sequence[bytes], prefix: bool = False) -> None:
        super().__init__("bytetoy", TokenizerSource("builtin", "tests/test_morph.py"))
        self.pieces = [*pieces, b" "]
        self.index = {p: i for i, p in enumerate(self.pieces)}
        self.prefix = prefix

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    @property
    def backend_version(self) -> str:
        return "1"

    def encode(self, text: str) -> list[int]:
        data = text.encode("utf-8")
        ids, i = [], 0
        if self.prefix:
            ids.append(self.index[b" "])
        while i < len(data):
            n = next(n for n in range(len(data) - i, 0, -1) if data[i:i + n] in self.index)
            ids.append(self.index[data[i:i + n]])
            i += n
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        return b"".join(self.pieces[i] for i in ids).decode("utf-8", "replace")

    def token_bytes(self, token_id: int) -> bytes:
        return self.pieces[token_id]


MORPH = [m for m in BUILTIN_METRICS if m.family == "morph"]


def _values(tok: Tokenizer, texts: list[str], gold: list[list[int] | None]) -> dict[str, float]:
    layout = SuiteLayout.build(texts)
    layout.morph = MorphLayout.from_boundaries(texts, {"morph": gold}, {}, layout.data,
                                               layout.offsets, layout.char_base,
                                               layout.byte_base)
    encs = [tok.encode(t) for t in texts]
    c = measure_documents(TokenTable(tok), texts, encs, None, None, layout=layout)
    sums = {k: int(v.sum()) for k, v in c.per_doc.items()}
    sums["ok"] = len(texts)
    return {**sums, **evaluate(SubsetStats(sums), MORPH, MetricContext(tok.vocab_size, False))}


def test_byte_level_cut_inside_a_character() -> None:
    # 言語を使う: gold 言語|を|使う (characters 2 and 3 = bytes 6 and 9). Tokens: 言 | 語's
    # first two bytes | 語's last byte + を | 使う. The cut at byte 5 is inside 語: no
    # boundary. Token boundaries {3, 9}: 9 is a morpheme boundary (P 1/2); gold {6, 9}: 9
    # is cut (R 1/2); F1 2·1/(2+2) = 1/2; the third token holds byte 6: 1 of 4 crosses.
    text = "言語を使う"
    data = text.encode()
    tok = ByteToy([data[0:3], data[3:5], data[5:9], data[9:15]])
    v = _values(tok, [text], [[0, 2, 3, 5]])
    assert (v["morph_cuts"], v["morph_gold"], v["morph_hits"]) == (2, 2, 1)
    assert (v["morph_tokens"], v["morph_crossers"]) == (4, 1)
    assert v["morph_precision"] == 0.5 and v["morph_recall"] == 0.5 and v["morph_f1"] == 0.5
    assert v["morph_crossing"] == 0.25


def test_dummy_prefix_alone_is_no_token_and_no_boundary() -> None:
    # "▁" alone, then 自然|言語 as one token, then 処理: the prefix covers no text; the
    # only cut inside the word is at 自然言語|処理 (char 4), a gold boundary; gold 2 and 4
    text = "自然言語処理"
    tok = ByteToy(["自然言語".encode(), "処理".encode()], prefix=True)
    v = _values(tok, [text], [[0, 2, 4, 6]])
    assert (v["morph_cuts"], v["morph_gold"], v["morph_hits"]) == (1, 2, 1)
    assert (v["morph_tokens"], v["morph_crossers"]) == (2, 1)
    assert v["morph_precision"] == 1.0 and v["morph_recall"] == 0.5
    assert v["morph_f1"] == pytest.approx(2 / 3)


def test_sums_over_documents_and_words_only() -> None:
    # two documents; spaces and punctuation are no words, so their cuts do not count.
    # "cats walked." gold cat|s walk|ed; tokens c|ats| |walk|ed|. -> cuts inside words:
    # c|ats (1), walk|ed (8): 1 hit of 2; "言語" (no analyzer): not counted at all
    texts = ["cats walked.", "言語"]
    tok = ByteToy([b"c", b"ats", b" ", b"walk", b"ed", b".", "言語".encode()])
    v = _values(tok, texts, [[3, 9], None])
    assert (v["morph_docs"], v["morph_cuts"], v["morph_gold"], v["morph_hits"]) == (1, 2, 2, 1)
    # every encoded document must be analyzed for a value (as fertility needs a segmenter)
    assert v["morph_precision"] is None and v["morph_recall"] is None
    one = _values(tok, texts[:1], [[3, 9]])
    assert one["morph_precision"] == 0.5 and one["morph_recall"] == 0.5
    assert (one["morph_tokens"], one["morph_crossers"]) == (4, 1)  # "cats" crosses cat|s


def test_no_cut_inside_words_gives_f1_zero() -> None:
    tok = ByteToy(["言語".encode()])
    v = _values(tok, ["言語"], [[1]])
    assert v["morph_cuts"] == 0 and v["morph_f1"] == 0.0 and v["morph_recall"] == 0.0
    assert v["morph_precision"] is None  # nothing to divide by


def test_gold_file_morphscore(tmp_path) -> None:
    # un|believ|able with tokens un|bel|iev|able: both gold boundaries cut (2/2);
    # walk|ed as one token: excluded from MorphScore, a miss for recall;
    # cat|s with c|ats: 0/1. MorphScore 2/3, precision 2/(3+1), recall 2/4
    f = tmp_path / "en.csv"
    f.write_text("word,segmentation\nunbelievable,un+believ+able\nwalked,walk + ed\n"
                 "cats,cat+s\n", encoding="utf-8")
    gold = read_gold(f)
    assert [w.boundaries for w in gold.words] == [(2, 8), (4,), (3,)]
    tok = ByteToy([b"un", b"bel", b"iev", b"able", b"walked", b"c", b"ats"])
    out = score_gold(tok, [w.word for w in gold.words], [w.boundaries for w in gold.words])
    assert out["ms_hits"].tolist() == [2, 0, 0] and out["ms_gold"].tolist() == [2, 0, 1]
    assert out["ms_single"].tolist() == [0, 1, 0]
    sums = {k: int(v.sum()) for k, v in out.items()} | {"ok": 3}
    metrics = [m for m in BUILTIN_METRICS if m.family == "morph_gold"]
    v = evaluate(SubsetStats(sums), metrics, MetricContext(10, False))
    assert v["morphscore"] == pytest.approx(2 / 3)
    assert v["morph_gold_precision"] == 0.5 and v["morph_gold_recall"] == 0.5
    assert v["morph_gold_single"] == pytest.approx(1 / 3)


def test_gold_file_morphscore_format_and_dummy_prefix(tmp_path) -> None:
    # MorphScore's own columns (with its unnamed index column); a prefix token alone
    # covers nothing, so 書きます after ▁ as one token is a one-token word
    f = tmp_path / "japanese_morph_data.csv"
    f.write_text(",full_word,pt1,rest\n0,書きます,書,きます\n1,読んだ,読,んだ\n2,読む,読む,\n",
                 encoding="utf-8")
    gold = read_gold(f)
    assert [w.boundaries for w in gold.words] == [(1,), (1,), ()]
    tok = ByteToy(["書きます".encode(), "読".encode(), "んだ".encode(), "む".encode()],
                  prefix=True)
    out = score_gold(tok, [w.word for w in gold.words], [w.boundaries for w in gold.words])
    assert out["ms_single"].tolist() == [1, 0, 0] and out["ms_hits"].tolist() == [0, 1, 0]
    # 読む, given without a boundary (empty rest) and cut 読|む, is one miss for MorphScore
    # (as MorphScore's code scores it) and one token boundary that is no gold boundary
    assert out["ms_gold"].tolist() == [0, 1, 1]
    assert out["item_cuts"].tolist() == [0, 1, 1] and out["item_gold"].tolist() == [1, 1, 0]


def test_gold_file_jsonl(tmp_path) -> None:
    f = tmp_path / "g.jsonl"
    f.write_text('{"word": "evler", "segmentation": ["ev", "ler"], "lang": "tur"}\n'
                 '{"word": "kitaplar", "segmentation": "kitap+lar", "lang": "tur"}\n',
                 encoding="utf-8")
    gold = read_gold(f)
    assert [(w.word, w.boundaries, w.lang) for w in gold.words] == [
        ("evler", (2,), "tur"), ("kitaplar", (5,), "tur")]


@pytest.mark.parametrize(("name", "content", "message"), [
    ("a.csv", "word,segmentation\ncats,cat+s\nwalked,walk+d\n",
     "a.csv:3: segmentation 'walk+d' does not spell the word 'walked'"),
    ("b.csv", ",full_word,pt1,rest\n0,書きます,書,きま\n", "b.csv:2: segmentation"),
    ("c.jsonl", '{"word": "cats", "segmentation": "cat++s"}\n', "c.jsonl:1: empty morpheme"),
    ("d.jsonl", '{"word": "cats"\n', "d.jsonl:1: not JSON"),
    ("e.txt", "cats cat+s\n", "unknown gold file type .txt"),
])
def test_bad_gold_lines_name_the_line(tmp_path, name: str, content: str, message: str) -> None:
    f = tmp_path / name
    f.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match="^" + str(tmp_path).replace("\\", "\\\\")) as e:
        read_gold(f)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_analyzers_real_boundaries() -> None:
    from tokbench.suites.morphemes import analyzer_for

    need("morph")
    text = "自然言語処理にディープラーニングを使う"
    mecab = analyzer_for("morph", "jpn_Jpan")
    assert mecab is not None
    assert [text[a:b] for a, b in mecab.morphemes(text)] == [
        "自然", "言語", "処理", "に", "ディープ", "ラーニング", "を", "使う"]
    assert analyzer_for("morph", "eng_Latn") is None
    c = analyzer_for("sudachi_c", "jpn")
    assert c is not None
    assert [text[a:b] for a, b in c.morphemes(text)] == [
        "自然言語処理", "に", "ディープラーニング", "を", "使う"]
    kiwi = analyzer_for("morph", "kor_Hang")
    assert kiwi is not None
    # 먹었다: 먹 + 었 + 다, each its own syllable
    assert kiwi.boundaries("먹었다") == [0, 1, 2, 3]


def test_missing_scheme_is_said_once() -> None:
    from tokbench.suites.morphemes import scheme_warnings

    assert scheme_warnings("morph", ["jpn_Jpan", "kor_Hang"]) == []
    (w,) = scheme_warnings("morph", ["eng_Latn", "jpn_Jpan", "tur_Latn"])
    assert "eng_Latn, tur_Latn" in w and "jpn, kor" in w


def test_layout_counts_are_mergeable() -> None:
    # the statistics of two shards add up to those of one shard holding both
    texts = ["言語を使う", "自然言語処理"]
    gold: list[list[int] | None] = [[2, 3], [2, 4]]
    data = "".join(texts).encode()
    tok = ByteToy([data[0:3], data[3:5], data[5:9], data[9:15], "自然言語".encode(),
                   "処理".encode()])
    both = _values(tok, texts, gold)
    parts = [_values(tok, [t], [g]) for t, g in zip(texts, gold, strict=True)]
    for k in ("morph_cuts", "morph_gold", "morph_hits", "morph_tokens", "morph_crossers"):
        assert both[k] == parts[0][k] + parts[1][k]
    assert np.isclose(both["morph_recall"], 2 / 4)


def test_normalized_offsets_place_nfkc_pieces_on_the_original() -> None:
    from tokbench.adapters.base import normalized_offsets

    # a slow tokenizer that applies NFKC (the Japanese BERT): ﾎﾟｲﾝﾄ -> ポイント, １２ -> 12
    text = "ﾎﾟｲﾝﾄ１２"
    pieces = ["ポイ".encode(), "ント".encode(), b"12"]
    assert normalized_offsets(text, pieces) == [(0, 3), (3, 5), (5, 7)]
    # a piece ending inside a cluster the normalizer joins covers the whole cluster
    assert normalized_offsets("ｶﾞ", ["ガ".encode()]) == [(0, 2)]
    assert normalized_offsets("abc", [b"x"]) is None  # the pieces do not spell it


def test_view_lines_align_cuts_and_mark_crossings() -> None:
    from tokbench.render.segmentation import view_html, view_lines

    text = "言語を使う"
    view = {"analyzer": "mecab-unidic-lite (fugashi 1.5.2)", "morph_cuts": [0, 2, 3, 5],
            "rows": {"a": {"cuts": [0, 1, 2, 3, 5], "crossed": []},
                     "b": {"cuts": [0, 4, 5], "crossed": [2, 3]}}}
    lines = view_lines(text, view)
    assert [(label, line) for label, line, _ in lines] == [
        ("morphemes: mecab-unidic-lite", "言 語│を│使 う"),
        ("a", "言│語│を│使 う"),
        ("b", "言 語×を×使│う")]
    assert lines[2][2] == [(3, 4), (5, 6)]  # the × columns
    html = view_html(text, view)
    assert '<span class="tk">言語<i class="x"' in html and html.count('class="x"') == 2
    assert '<span class="mo">言語</span><span class="mo">を</span>' in html


def test_show_morphemes(capsys: pytest.CaptureFixture[str]) -> None:
    # bytes cuts inside every character (no boundary there) and between characters
    from tokbench.cli import main

    need("morph")
    assert main(["show", "--morphemes", "-t", "bytes,chars", "自然言語を使う"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["morphemes: mecab-unidic-lite  自 然│言 語│を│使 う",
                   "bytes                         自│然│言│語│を│使│う",
                   "chars                         自│然│言│語│を│使│う"]
    assert main(["show", "--morphemes", "-t", "chars", "plain English"]) == 2
    err = capsys.readouterr().err
    assert "--morphemes: no morphological analyzer for this text" in err and "\n" not in \
        err.strip()


def test_run_measures_morph_in_the_encode_pass() -> None:
    # one word of 19 characters; MeCab's boundaries inside it: 自然|言語|処理|に|ディープ|
    # ラーニング|を|使う = 7. Characters cut everywhere (18 boundaries): P 7/18, R 1,
    # F1 2·7/(18+7); bytes cut inside every character too, which are no boundaries: the
    # same values. English has no analyzer: its subset is empty and said once.
    need("morph")
    from tokbench import run
    from tokbench.suites.model import Document, Suite

    docs = [Document("j1", "jpn_Jpan", "x", "自然言語処理にディープラーニングを使う。"),
            Document("e1", "eng_Latn", "x", "Hello world.")]
    res = run(["chars", "bytes"], [Suite("t", "1", docs)], ["morph"], jobs=1)
    got = {(r.tokenizer, r.subset, r.metric): r.value for r in res.rows}
    for tok in ("chars", "bytes"):
        assert got[(tok, "jpn_Jpan", "morph_precision")] == pytest.approx(7 / 18)
        assert got[(tok, "jpn_Jpan", "morph_recall")] == 1.0
        assert got[(tok, "jpn_Jpan", "morph_f1")] == pytest.approx(14 / 25)
        assert got[(tok, "jpn_Jpan", "morph_crossing")] == 0.0
        assert (tok, "eng_Latn", "morph_precision") not in got
        assert (tok, "all", "morph_precision") not in got  # not every document analyzed
    assert res.meta.warnings == [
        "morph: no morphological analyzer for eng_Latn (analyzers exist for jpn, kor), so "
        "its morph metrics are empty"]
    assert (res.meta.segmenters or {})["jpn_Jpan/morph"].startswith("mecab-unidic-lite (")


def test_segmentation_section_of_the_report() -> None:
    from tokbench.render.segmentation import segmentation_section

    view = {"analyzer": "kiwi (kiwipiepy 0.24.1)", "morph_cuts": [0, 1, 2, 3],
            "rows": {"chars": {"cuts": [0, 1, 2, 3], "crossed": []},
                     "x": {"error": "ValueError: no"}}}
    html = segmentation_section({"tokenizers": ["chars", "x"], "suites": [
        {"name": "examples", "samples": [{"doc_id": "example-1", "lang": "kor_Hang",
                                          "text": "먹었다", "morph": view}]},
        {"name": "other", "samples": [{"doc_id": "d", "lang": "eng_Latn", "text": "a"}]}]})
    assert html is not None and "<h3>examples</h3>" in html and "other" not in html
    assert '<span class="tk">먹</span><span class="tk">었</span>' in html
    assert "ValueError: no" in html
    assert segmentation_section({"suites": []}) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl",
                                                                       "Zp"),
                                               blacklist_characters='+,"\\'),
                        min_size=1, max_size=6), min_size=1, max_size=5))
def test_gold_round_trip(tmp_path_factory: pytest.TempPathFactory, morphemes: list[str]) -> None:
    # a word written as its morphemes joined by + reads back as its boundaries, in CSV
    # and JSONL alike
    import json

    word = "".join(morphemes)
    expected, pos = [], 0
    for m in morphemes[:-1]:
        pos += len(m)
        expected.append(pos)
    folder = tmp_path_factory.mktemp("gold")
    (folder / "g.csv").write_text(f"word,segmentation\n{word},{'+'.join(morphemes)}\n",
                                  encoding="utf-8")
    (folder / "g.jsonl").write_text(json.dumps({"word": word, "segmentation": morphemes})
                                    + "\n", encoding="utf-8")
    for name in ("g.csv", "g.jsonl"):
        (w,) = read_gold(folder / name).words
        assert (w.word, list(w.boundaries)) == (word, expected)


def test_sudachi_reads_texts_longer_than_its_input_limit() -> None:
    need("morph")
    from tokbench.suites.morphemes import analyzer_for

    a = analyzer_for("sudachi_a", "jpn_Jpan")
    assert a is not None
    one = "自然言語処理にディープラーニングを使う。"  # 20 characters, 9 morphemes in mode A
    assert a.boundaries(one) == [0, 2, 4, 6, 7, 11, 16, 17, 19, 20]
    long = one * 2000  # 120,000 UTF-8 bytes on one line: analyzed in pieces
    assert len(a.boundaries(long)) == 2000 * 9 + 1


def test_view_marks_only_crossings_inside_words() -> None:
    from tokbench.engine.segview import crossed

    # tokens 한국어 | " 형태소": the morpheme starting 형태소 (4) is a word's edge, which the
    # token taking the space before it does not cross; a boundary inside the word (5) is
    assert crossed([0, 3, 4, 7], [0, 3, 7], "한국어 형태소") == []
    assert crossed([0, 3, 4, 5, 7], [0, 3, 7], "한국어 형태소") == [5]


def test_the_segmentation_views_of_many_texts_read_each_vocabulary_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``morph_view`` keeps each tokenizer's table of token bytes across texts: gpt2's
    table of every token took 45 ms, once per text (1.2 s of a Japanese viewer) before."""
    need("morph")
    from tokbench.engine.segview import morph_view, token_cuts
    from tokbench.loading.loader import load_tokenizer

    gpt2 = load_tokenizer("gpt2")
    calls: list[int] = []
    fill = TokenTable._fill_all

    def counted(self: TokenTable) -> None:  # from the backend or the table cache
        calls.append(1)
        fill(self)

    monkeypatch.setattr(TokenTable, "_fill_all", counted)
    texts = ["自然言語処理にディープラーニングを使う。", "東京は日本の首都です。", "猫が好き。"]
    tables: dict[str, TokenTable] = {}
    views = [morph_view({"gpt2": gpt2}, t, "jpn_Jpan", tables=tables) for t in texts]
    assert len(calls) == 1 and list(tables) == ["gpt2"]
    alone = [morph_view({"gpt2": gpt2}, t, "jpn_Jpan") for t in texts]
    assert views == alone and len(calls) == 1 + len(texts)  # the same view, a table each
    # the cuts are the token edges at character boundaries (a byte token inside a
    # character is no cut)
    for t, v in zip(texts, views, strict=True):
        assert v is not None and v["rows"]["gpt2"]["cuts"] == token_cuts(gpt2, t)
        assert v["rows"]["gpt2"]["cuts"][0] == 0 and v["rows"]["gpt2"]["cuts"][-1] == len(t)


def test_morphemes_of_texts_seen_before_are_read_not_analyzed(
        cache: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """A layout built again over the same texts (the other process of a split run, the
    next run) reads the analyzer's morphemes from the cache: the same gold boundaries, no
    analysis; another analyzer version analyzes again."""
    from tokbench.suites import morphemes

    class Halves(morphemes.Analyzer):
        """Two morphemes per text: its halves."""

        name = "halves"
        calls = 0

        @property
        def version(self) -> str:
            return version

        def load(self) -> None:
            pass

        def _morphemes(self, text: str) -> list[tuple[int, int]]:
            Halves.calls += 1
            return [(0, len(text) // 2), (len(text) // 2, len(text))]

    halves = Halves()
    monkeypatch.setattr(morphemes, "analyzer_for",
                        lambda scheme, lang: halves if lang == "jpn_Jpan" else None)
    texts = ["日本語の文です", "abcd", "もう一つ"]
    langs = ["jpn_Jpan", "eng_Latn", "jpn_Jpan"]
    version = "1"

    def gold() -> list[int]:
        layout = SuiteLayout.build(texts)
        morph = MorphLayout.build(texts, langs, ["morph"], layout.data, layout.offsets,
                                  layout.char_base, layout.byte_base)
        return morph.gold["morph"].tolist()

    first = gold()
    assert Halves.calls == 2
    # the cuts inside documents, as byte offsets of the joined text: 日本語の文です
    # (bytes 0-21) after 3 characters; abcd (22-26) not analyzed; もう一つ (27-39) after 2
    assert first == [9, 33]
    assert gold() == first and Halves.calls == 2
    version = "2"
    assert gold() == first and Halves.calls == 4
