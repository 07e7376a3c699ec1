"""The wordpiece adapter (a BERT vocab.txt) and spans of word-level tokenizers that
normalize (NFKC) and drop spaces, on small hand-made vocabularies (no network)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokbench.adapters.hf_tokenizers import HFTokenizersTokenizer
from tokbench.adapters.transformers_adapter import nfkc_spans
from tokbench.adapters.wordpiece import load

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "Hello", "world", "##s", "!", "日",
         "本", "é", "Ü", "##ber", "hello"]


@pytest.fixture
def tok(tmp_path: Path) -> HFTokenizersTokenizer:
    path = tmp_path / "vocab.txt"
    path.write_text("".join(f"{p}\n" for p in VOCAB), encoding="utf-8")
    return load(path, name="tiny-bert")


def test_ids_pieces_and_facts(tok: HFTokenizersTokenizer) -> None:
    assert tok.encode("Hello worlds!") == [5, 6, 7, 8]
    assert tok.encode("日本") == [9, 10]  # CJK characters split apart
    assert tok.encode("Über") == [12, 13]  # cased: no lowercasing, no accent stripping
    assert tok.encode("hello HELLO") == [14, 1]
    assert tok.encode("[MASK]") == [1, 1, 1]  # text, not id 4: "[", "MASK", "]", each unknown
    assert (tok.vocab_size, tok.unk_id) == (15, 1)
    assert tok.special_tokens == {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    assert [tok.token_bytes(i) for i in (7, 13, 1)] == [b"s", b"ber", b""]
    assert tok.decode([5, 6, 7, 8]) == "Hello worlds !"  # no clean-up of the space before "!"


def test_spans(tok: HFTokenizersTokenizer) -> None:
    text = "Hello  worlds!"
    assert tok.encode_with_spans(text).spans == [(0, 5), (7, 12), (12, 13), (13, 14)]


def test_lowercase_option(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text("[UNK]\nhello\nuber\n", encoding="utf-8")
    tok = load(path, name="uncased", lowercase=True)
    assert tok.encode("HELLO Über") == [1, 2]


@pytest.mark.parametrize("text,pieces,expected", [
    # full-width letters and digits normalized to ASCII pieces map back to their characters
    ("ＡＢ １２", [b"AB", b"12"], ["ＡＢ", "１２"]),
    # half-width katakana and dropped spaces
    ("ｱｲ  ｳ", ["アイ".encode(), "ウ".encode()], ["ｱｲ", "ｳ"]),
    # one character normalized to several pieces: the first gets it, the rest nothing
    ("x㈱y", [b"x", b"(", "株".encode(), b")", b"y"], ["x", "㈱", "", "", "y"]),
])
def test_nfkc_spans(text: str, pieces: list[bytes], expected: list[str]) -> None:
    spans = nfkc_spans(text, pieces)
    assert spans is not None
    data = text.encode()
    assert [data[s:e].decode() for s, e in spans] == expected


def test_nfkc_spans_give_up_on_pieces_of_another_text() -> None:
    assert nfkc_spans("abc", [b"xyz"]) is None
