"""GGUF adapter on tiny GGUF files written here with ``gguf.GGUFWriter``; ids computed by hand.

Byte-level ids follow GPT-2's byte table, the order the tiny BPE vocabulary lists its
256 byte tokens in: printable ``!``..``~`` are ids 0..93 (``h`` = 104 - 33 = 71),
``¡``..``¬`` 94..105, ``®``..``ÿ`` 106..187, then the other bytes in order from 188
(space = 188 + 32 = 220).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gguf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokbench.adapters import ADAPTERS
from tokbench.adapters.gguf_adapter import GGUFTokenizer, load
from tokbench.adapters.gguf_byte_bpe import PRE_TOKENIZERS
from tokbench.adapters.gguf_reader import UnsupportedGGUFError, read_metadata, read_vocab
from tokbench.adapters.gguf_sentencepiece import sentencepiece_proto
from tokbench.adapters.gguf_wordpiece import wordpiece_vocab
from tokbench.adapters.sentencepiece_adapter import iter_fields, read_settings
from tokbench.errors import CorruptFileError, InputError
from tokbench.hashing import sha256_file

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, BYTE = 1, 2, 3, 4, 6


def write_gguf(path: Path, fill: Callable[[gguf.GGUFWriter], None], *,
               big_endian: bool = False) -> Path:
    """A vocab-only GGUF file (no tensors) with the key/values ``fill`` adds."""
    endian = gguf.GGUFEndian.BIG if big_endian else gguf.GGUFEndian.LITTLE
    writer = gguf.GGUFWriter(path, "llama", endianess=endian)
    fill(writer)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    return path


# -- llama: SentencePiece BPE with byte fallback ------------------------------------------------

SPM_PIECES: list[tuple[str, float, int]] = [
    ("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL),
    *[(f"<0x{b:02X}>", 0.0, BYTE) for b in range(256)],  # byte b is id 3 + b
    ("▁", 0.0, NORMAL),  # 259
    ("h", 0.0, NORMAL), ("e", 0.0, NORMAL), ("l", 0.0, NORMAL), ("o", 0.0, NORMAL),  # 260-263
    # merged pieces: the higher score merges first
    ("▁h", -1.0, NORMAL),  # 264
    ("ll", -2.0, NORMAL),  # 265
    ("▁he", -3.0, NORMAL),  # 266
    ("llo", -4.0, NORMAL),  # 267
    ("▁hello", -5.0, NORMAL),  # 268
    ("<tag>", 0.0, USER_DEFINED),  # 269
    ("[PAD270]", 0.0, UNKNOWN),  # 270: llama.cpp pads vocabularies with UNKNOWN-typed tokens
]


def spm_file(path: Path, *, add_space_prefix: bool | None = None,
             big_endian: bool = False) -> Path:
    def fill(w: gguf.GGUFWriter) -> None:
        w.add_tokenizer_model("llama")
        w.add_tokenizer_pre("default")
        w.add_token_list([p for p, _, _ in SPM_PIECES])
        w.add_token_scores([s for _, s, _ in SPM_PIECES])
        w.add_token_types([t for _, _, t in SPM_PIECES])
        w.add_bos_token_id(1)
        w.add_eos_token_id(2)
        w.add_unk_token_id(0)
        w.add_add_bos_token(True)
        if add_space_prefix is not None:
            w.add_add_space_prefix(add_space_prefix)

    return write_gguf(path, fill, big_endian=big_endian)


@pytest.fixture(scope="module")
def spm(tmp_path_factory: pytest.TempPathFactory) -> GGUFTokenizer:
    path = spm_file(tmp_path_factory.mktemp("spm") / "spm.gguf")
    return load(path, name="tiny-spm")


@pytest.mark.parametrize(("text", "ids"), [
    # "▁hello": ▁h (-1), ll (-2), ▁he (-3), llo (-4), ▁hello (-5)
    ("hello", [268]),
    ("hello hello", [268, 268]),
    # é is no piece: its UTF-8 bytes C3 A9 as byte pieces 3 + 0xC3, 3 + 0xA9
    ("hé", [264, 198, 172]),
    # a user-defined piece is cut out first
    ("h<tag>", [264, 269]),
    # control text is plain text: "▁" then bytes '<' 0x3C, 's' 0x73, '>' 0x3E
    ("<s>", [259, 63, 118, 65]),
    ("", []),
])
def test_spm_ids(spm: GGUFTokenizer, text: str, ids: list[int]) -> None:
    assert spm.encode(text) == ids


def test_spm_model_proto(tmp_path: Path) -> None:
    proto = sentencepiece_proto(read_vocab(spm_file(tmp_path / "p.gguf")))
    pieces = [dict(iter_fields(value)) for number, value in iter_fields(proto)
              if number == 1 and isinstance(value, bytes)]
    assert len(pieces) == 271
    assert pieces[268][1] == "▁hello".encode()
    assert struct.unpack("<f", struct.pack("<I", pieces[268][2]))[0] == -5.0
    # proto types: 2 UNKNOWN, 3 CONTROL, 6 BYTE, 4 USER_DEFINED, 5 UNUSED; NORMAL (1) is
    # the proto2 default and still written
    assert [pieces[i][3] for i in (0, 1, 3, 259, 269, 270)] == [2, 3, 6, 1, 4, 5]
    settings = read_settings(proto)
    assert (settings.model_type, settings.byte_fallback, settings.normalizer) == \
        ("bpe", True, "identity")
    assert (settings.add_dummy_prefix, settings.remove_extra_whitespaces) == (True, False)


def test_spm_without_space_prefix(tmp_path: Path) -> None:
    tok = load(spm_file(tmp_path / "p.gguf", add_space_prefix=False), name="no-prefix")
    # h e l l o: ll (-2), then llo (-4); no ▁ so no ▁h / ▁he
    assert tok.encode("hello") == [260, 261, 267]
    assert tok.inner.describe()["add_dummy_prefix"] is False


def test_spm_user_defined_space_runs(tmp_path: Path) -> None:
    """llama.cpp stores user-defined pieces with spaces where the model has "▁" (Gemma's
    runs of whitespace): they match the escaped text again and stand for those spaces."""
    pieces = [*SPM_PIECES, ("  ", 0.0, USER_DEFINED)]  # 271

    def fill(w: gguf.GGUFWriter) -> None:
        w.add_tokenizer_model("llama")
        w.add_token_list([p for p, _, _ in pieces])
        w.add_token_scores([s for _, s, _ in pieces])
        w.add_token_types([t for _, _, t in pieces])
        w.add_unk_token_id(0)
        w.add_add_space_prefix(False)

    tok = load(write_gguf(tmp_path / "ws.gguf", fill), name="ws")
    assert tok.encode("h  e") == [260, 271, 261]
    assert tok.token_bytes(271) == b"  " and tok.token_str(271) == "▁▁"
    assert tok.encode_with_spans("h  e").spans == [(0, 1), (1, 3), (3, 4)]


def test_spm_big_endian_file_gives_the_same_ids(tmp_path: Path) -> None:
    tok = load(spm_file(tmp_path / "be.gguf", big_endian=True), name="be")
    assert tok.encode("hello hé") == [268, 264, 198, 172]


def test_spm_pieces_decode_and_facts(spm: GGUFTokenizer) -> None:
    assert spm.decode([268, 264, 198, 172]) == "hello hé"
    assert spm.token_bytes(268) == b" hello"
    assert spm.token_bytes(198) == b"\xc3"
    assert spm.token_bytes(269) == b"<tag>"
    assert spm.token_bytes(1) == b""
    assert spm.token_bytes(0) == b""
    assert spm.vocab_size == 271
    assert spm.unk_id == 0
    assert spm.byte_fallback is True
    assert spm.is_byte_fallback_token(198) and not spm.is_byte_fallback_token(268)
    assert spm.special_tokens == {"<s>": 1, "</s>": 2}
    assert spm.token_type(270) == UNKNOWN
    assert spm.model == "llama"


def test_spm_spans(spm: GGUFTokenizer) -> None:
    # the dummy-prefix "▁" of the first piece stands for no byte; é's two byte pieces
    # get one byte each
    enc = spm.encode_with_spans("hello hé")
    assert enc.ids == [268, 264, 198, 172]
    assert enc.spans == [(0, 5), (5, 7), (7, 8), (8, 9)]


def test_spm_describe_records_source_and_gguf_facts(spm: GGUFTokenizer) -> None:
    d = spm.describe()
    assert d["backend"] == "gguf"
    assert d["engine"] == "sentencepiece"
    assert d["backend_version"].startswith("sentencepiece ")
    assert d["source"]["sha256"] == sha256_file(d["source"]["path"])
    assert d["vocab_size"] == 271
    assert d["unk_id"] == 0
    assert d["byte_fallback"] is True
    assert d["special_tokens"] == {"<s>": 1, "</s>": 2}
    assert d["gguf"]["model"] == "llama"
    assert d["gguf"]["special_ids"] == {"bos": 1, "eos": 2, "unk": 0}
    assert d["gguf"]["flags"] == {"add_bos": True}


# -- t5: SentencePiece Unigram ------------------------------------------------------------------

UNIGRAM_PIECES: list[tuple[str, float, int]] = [
    ("<pad>", 0.0, CONTROL), ("</s>", 0.0, CONTROL), ("<unk>", 0.0, UNKNOWN),  # 0-2
    ("▁", -2.0, NORMAL), ("a", -3.0, NORMAL), ("b", -3.0, NORMAL),  # 3-5
    ("▁a", -2.5, NORMAL), ("ab", -2.0, NORMAL), ("▁ab", -6.0, NORMAL),  # 6-8
]


def unigram_file(path: Path, **flags: bool) -> Path:
    def fill(w: gguf.GGUFWriter) -> None:
        w.add_tokenizer_model("t5")
        w.add_token_list([p for p, _, _ in UNIGRAM_PIECES])
        w.add_token_scores([s for _, s, _ in UNIGRAM_PIECES])
        w.add_token_types([t for _, _, t in UNIGRAM_PIECES])
        w.add_unk_token_id(2)
        w.add_eos_token_id(1)
        w.add_pad_token_id(0)
        for key, value in flags.items():
            w.add_bool(f"tokenizer.ggml.{key}", value)

    return write_gguf(path, fill)


def test_unigram_ids(tmp_path: Path) -> None:
    tok = load(unigram_file(tmp_path / "t5.gguf", add_space_prefix=True,
                            remove_extra_whitespaces=True), name="tiny-t5")
    # "▁ab": ▁ + ab = -4.0 beats ▁a + b = -5.5, ▁ab = -6.0 and ▁ + a + b = -8.0
    assert tok.encode("ab") == [3, 7]
    assert tok.encode("  ab   ") == [3, 7]  # extra whitespace removed
    assert tok.encode("abc") == [3, 7, 2]  # no byte pieces: c is unknown
    assert tok.unk_id == 2
    assert tok.byte_fallback is False
    assert tok.special_tokens == {"<pad>": 0, "</s>": 1}
    assert tok.describe()["model_type"] == "unigram"


def test_unigram_defaults_follow_llama_cpp(tmp_path: Path) -> None:
    # without the flags: no dummy prefix (llama.cpp's default for t5), whitespace kept
    tok = load(unigram_file(tmp_path / "t5.gguf"), name="tiny-t5")
    assert tok.encode("ab") == [7]
    assert tok.encode("ab ab") == [7, 3, 7]


# -- bert: WordPiece -------------------------------------------------------------------------

# llama.cpp's phantom-space spelling: "▁word" starts a word, "piece" continues one (##piece)
BERT_PIECES: list[tuple[str, int]] = [
    ("[PAD]", CONTROL), ("[UNK]", CONTROL), ("[CLS]", CONTROL), ("[SEP]", CONTROL),
    ("[MASK]", CONTROL),  # 0-4
    ("▁hello", NORMAL), ("▁world", NORMAL), ("s", NORMAL),  # 5-7
    ("▁un", NORMAL), ("aff", NORMAL), ("able", NORMAL),  # 8-10
    ("▁!", NORMAL), ("▁cafe", NORMAL), ("▁日", NORMAL),  # 11-13
    ("[unused0]", NORMAL),  # 14: older converters left bracketed pieces alone
]


def bert_file(path: Path, *, lowercase: bool | None = None) -> Path:
    def fill(w: gguf.GGUFWriter) -> None:
        w.add_tokenizer_model("bert")
        w.add_tokenizer_pre("default")
        w.add_token_list([p for p, _ in BERT_PIECES])
        w.add_token_types([t for _, t in BERT_PIECES])
        w.add_unk_token_id(1)
        w.add_pad_token_id(0)
        w.add_sep_token_id(3)
        w.add_uint32("tokenizer.ggml.cls_token_id", 2)
        if lowercase is not None:
            w.add_bool("tokenizer.ggml.normalizer.lowercase", lowercase)

    return write_gguf(path, fill)


@pytest.fixture(scope="module")
def bert(tmp_path_factory: pytest.TempPathFactory) -> GGUFTokenizer:
    return load(bert_file(tmp_path_factory.mktemp("bert") / "bert.gguf"), name="tiny-bert")


def test_wordpiece_pieces_come_back_from_phantom_spelling(tmp_path: Path) -> None:
    pieces = wordpiece_vocab(read_vocab(bert_file(tmp_path / "b.gguf")))
    assert pieces == {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "hello": 5,
                      "world": 6, "##s": 7, "un": 8, "##aff": 9, "##able": 10, "!": 11,
                      "cafe": 12, "日": 13, "[unused0]": 14}


@pytest.mark.parametrize(("text", "ids"), [
    ("Hello worlds!", [5, 6, 7, 11]),  # lower-cased; world ##s; "!" split off
    ("unaffable", [8, 9, 10]),  # un ##aff ##able
    ("Café", [12]),  # accents stripped with lower-casing
    ("xyz", [1]),  # no pieces: [UNK]
    ("日本", [13, 1]),  # CJK characters are words of their own
    ("[CLS]", [1, 1, 1]),  # special-looking text is text: "[", "cls", "]"
])
def test_wordpiece_ids(bert: GGUFTokenizer, text: str, ids: list[int]) -> None:
    assert bert.encode(text) == ids


def test_wordpiece_lowercase_flag_off(tmp_path: Path) -> None:
    tok = load(bert_file(tmp_path / "cased.gguf", lowercase=False), name="cased")
    assert tok.encode("Hello hello") == [1, 5]


def test_wordpiece_pieces_and_facts(bert: GGUFTokenizer) -> None:
    assert bert.token_bytes(7) == b"s"
    assert bert.token_bytes(5) == b"hello"
    assert bert.token_bytes(2) == b""
    assert bert.unk_id == 1
    assert bert.byte_fallback is False
    assert bert.special_tokens == {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    assert bert.vocab_size == 15
    assert bert.describe()["engine"] == "tokenizers"


# -- gpt2: byte-level BPE -----------------------------------------------------------------------


def byte_table() -> list[str]:
    """GPT-2's byte -> character table, in vocabulary order (see the module docstring)."""
    keep = [*range(33, 127), *range(161, 173), *range(174, 256)]
    rest = [b for b in range(256) if b not in keep]
    chars = {b: chr(b) for b in keep}
    chars.update({b: chr(256 + k) for k, b in enumerate(rest)})
    return [chars[b] for b in keep + rest]


BPE_MERGES = ["h e", "l l", "he ll", "hell o", "Ġ hello", "1 2", "12 3", "123 4"]
BPE_EXTRA: list[tuple[str, int]] = [
    ("he", NORMAL), ("ll", NORMAL), ("hell", NORMAL), ("hello", NORMAL),  # 256-259
    ("Ġhello", NORMAL), ("12", NORMAL), ("123", NORMAL), ("1234", NORMAL),  # 260-263
    ("<|endoftext|>", CONTROL),  # 264
    ("  ", USER_DEFINED),  # 265: raw text, as llama.cpp stores added tokens
    ("lo", NORMAL),  # 266: in the vocabulary, but no merge makes it
]


def bpe_file(path: Path, pre: str | None) -> Path:
    tokens = byte_table() + [t for t, _ in BPE_EXTRA]
    types = [NORMAL] * 256 + [t for _, t in BPE_EXTRA]

    def fill(w: gguf.GGUFWriter) -> None:
        w.add_tokenizer_model("gpt2")
        if pre is not None:
            w.add_tokenizer_pre(pre)
        w.add_token_list(tokens)
        w.add_token_types(types)
        w.add_token_merges(BPE_MERGES)
        w.add_bos_token_id(264)
        w.add_eos_token_id(264)

    return write_gguf(path, fill)


@pytest.fixture(scope="module")
def bpe_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bpe")
    return {pre: bpe_file(folder / f"{pre}.gguf", pre) for pre in ("gpt-2", "llama-bpe", "qwen2")}


@pytest.fixture(scope="module")
def bpe(bpe_files: dict[str, Path]) -> dict[str, GGUFTokenizer]:
    return {pre: load(path, name=f"tiny-{pre}") for pre, path in bpe_files.items()}


def test_byte_table_matches_gpt2_ids() -> None:
    table = byte_table()
    assert table.index("h") == 71
    assert table.index("Ġ") == 220


@pytest.mark.parametrize(("pre", "text", "ids"), [
    # "hello" and " hello" are pre-tokens in every pattern; h e > he, l l > ll, ...
    ("gpt-2", "hello hello", [259, 260]),
    ("llama-bpe", "hello hello", [259, 260]),
    ("qwen2", "hello hello", [259, 260]),
    # digits: GPT-2 keeps a run, Llama 3 cuts runs of three, Qwen2 single digits
    ("gpt-2", "1234", [263]),
    ("llama-bpe", "1234", [262, 19]),
    ("qwen2", "1234", [16, 17, 18, 19]),
    ("gpt-2", " 1234", [220, 263]),
    ("llama-bpe", " 1234", [220, 262, 19]),
    ("qwen2", " 1234", [220, 16, 17, 18, 19]),
    # contractions are their own pre-tokens: "'" = 39 - 33 = 6, "s" = 115 - 33 = 82
    ("gpt-2", "hello's", [259, 6, 82]),
    # the user-defined "  " is cut out before pre-tokenizing ("a" 64, "b" 65)
    ("gpt-2", "a  b", [64, 265, 65]),
    # Llama 3 ignores merges for a pre-token that is a vocabulary entry ("lo" = 266)
    ("llama-bpe", "lo", [266]),
    ("gpt-2", "lo", [75, 78]),
    # Qwen2 normalizes to NFC: e + U+0301 -> é = C3 A9 -> ids 127, 102;
    # GPT-2 does not: e (68), then U+0301 = CC 81 -> ids 136, 223
    ("qwen2", "e\u0301", [127, 102]),
    ("gpt-2", "e\u0301", [68, 136, 223]),
])
def test_byte_bpe_ids(bpe: dict[str, GGUFTokenizer], pre: str, text: str, ids: list[int]) -> None:
    assert bpe[pre].encode(text) == ids


def test_byte_bpe_spans(bpe: dict[str, GGUFTokenizer]) -> None:
    enc = bpe["gpt-2"].encode_with_spans("hello hello é")
    # é = C3 A9: two byte-level tokens, one byte each
    assert enc.ids == [259, 260, 220, 127, 102]
    assert enc.spans == [(0, 5), (5, 11), (11, 12), (12, 13), (13, 14)]


def test_byte_bpe_control_text_is_plain_text(bpe: dict[str, GGUFTokenizer]) -> None:
    # "<|" "endoftext" "|>", byte by byte (no merge applies): < | e n d o f t e x t | >
    assert bpe["gpt-2"].encode("<|endoftext|>") == [27, 91, 68, 77, 67, 78, 69, 83, 68, 87,
                                                    83, 91, 29]


def test_byte_bpe_pieces_and_facts(bpe: dict[str, GGUFTokenizer]) -> None:
    tok = bpe["gpt-2"]
    assert tok.decode([259, 260]) == "hello hello"
    assert tok.decode([64, 265, 65]) == "a  b"
    assert tok.token_bytes(260) == b" hello"
    assert tok.token_bytes(127) == b"\xc3"
    assert tok.token_bytes(265) == b"  "
    assert tok.token_bytes(264) == b""
    assert tok.special_tokens == {"<|endoftext|>": 264}
    assert tok.unk_id is None
    assert tok.byte_fallback is False
    assert tok.vocab_size == 267
    assert tok.describe()["gguf"]["pre"] == "gpt-2"


def test_unsupported_pre_names_it_and_the_supported_ones(tmp_path: Path) -> None:
    path = bpe_file(tmp_path / "odd.gguf", "made-up-pre")
    with pytest.raises(UnsupportedGGUFError) as err:
        load(path, name="odd")
    msg = str(err.value)
    assert "'made-up-pre'" in msg and "llama-bpe" in msg and "qwen2" in msg and "gpt-2" in msg
    assert str(path) in msg and "\n" not in msg


def test_missing_pre_is_an_error_and_the_option_overrides_it(tmp_path: Path) -> None:
    path = bpe_file(tmp_path / "nopre.gguf", None)
    with pytest.raises(UnsupportedGGUFError, match="pre=NAME"):
        load(path, name="nopre")
    assert load(path, name="nopre", pre="qwen2").encode("1234") == [16, 17, 18, 19]


def test_every_known_pre_builds(bpe_files: dict[str, Path]) -> None:
    for pre in PRE_TOKENIZERS:
        tok = load(bpe_files["gpt-2"], name=pre, pre=pre)
        assert tok.decode(tok.encode("hello 1234 a  b")) == "hello 1234 a  b"


# -- bad files ------------------------------------------------------------------------------------


def _one_line_naming(err: BaseException, path: Path) -> None:
    assert str(path) in str(err)
    assert "\n" not in str(err)


def test_not_a_gguf_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.gguf"
    path.write_bytes(b"this is not a GGUF file at all, only text")
    with pytest.raises(CorruptFileError, match="not a GGUF file") as err:
        load(path, name="x")
    _one_line_naming(err.value, path)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.gguf"
    path.write_bytes(b"")
    with pytest.raises(CorruptFileError, match="too short") as err:
        load(path, name="x")
    _one_line_naming(err.value, path)


@pytest.mark.parametrize("keep", [30, 200, 3000])
def test_truncated_file(tmp_path: Path, keep: int) -> None:
    whole = spm_file(tmp_path / "whole.gguf").read_bytes()
    path = tmp_path / "cut.gguf"
    path.write_bytes(whole[:keep])
    with pytest.raises(CorruptFileError, match="truncated") as err:
        load(path, name="x")
    _one_line_naming(err.value, path)


def test_absurd_counts_are_refused_without_allocating(tmp_path: Path) -> None:
    data = bytearray(spm_file(tmp_path / "whole.gguf").read_bytes())
    data[16:24] = struct.pack("<Q", 2**60)  # key/value count
    path = tmp_path / "absurd.gguf"
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptFileError, match="truncated"):
        read_metadata(path)


def test_unsupported_version(tmp_path: Path) -> None:
    data = bytearray(spm_file(tmp_path / "whole.gguf").read_bytes())
    data[4:8] = struct.pack("<I", 1)
    path = tmp_path / "v1.gguf"
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptFileError, match="version 1 is not supported") as err:
        load(path, name="x")
    _one_line_naming(err.value, path)


def test_inconsistent_token_types(tmp_path: Path) -> None:
    def fill(w: gguf.GGUFWriter) -> None:
        w.add_tokenizer_model("llama")
        w.add_token_list(["<unk>", "a", "b"])
        w.add_token_types([UNKNOWN, NORMAL])

    path = write_gguf(tmp_path / "types.gguf", fill)
    with pytest.raises(CorruptFileError, match="token_type has 2 entries for 3 tokens") as err:
        load(path, name="x")
    _one_line_naming(err.value, path)


def test_bad_merge(tmp_path: Path) -> None:
    def fill(w: gguf.GGUFWriter) -> None:
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("gpt-2")
        w.add_token_list(byte_table())
        w.add_token_merges(["h e", "nospace"])

    path = write_gguf(tmp_path / "merge.gguf", fill)
    with pytest.raises(CorruptFileError, match=r"merges\[1\] 'nospace'") as err:
        load(path, name="x")
    _one_line_naming(err.value, path)


def test_file_without_a_tokenizer(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "weights.gguf", lambda w: w.add_uint32("llama.block_count", 2))
    with pytest.raises(InputError, match="holds no tokenizer") as err:
        load(path, name="x")
    _one_line_naming(err.value, path)


def test_unsupported_tokenizer_model(tmp_path: Path) -> None:
    def fill(w: gguf.GGUFWriter) -> None:
        w.add_tokenizer_model("rwkv")
        w.add_token_list(["a", "b"])

    path = write_gguf(tmp_path / "rwkv.gguf", fill)
    with pytest.raises(UnsupportedGGUFError, match="model 'rwkv' is not supported") as err:
        load(path, name="x")
    _one_line_naming(err.value, path)
    assert "llama (SentencePiece BPE)" in str(err.value)


def test_missing_file_and_unknown_option(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such GGUF file"):
        load(tmp_path / "nope.gguf", name="x")
    with pytest.raises(InputError, match=r"unknown option.*colour"):
        load(spm_file(tmp_path / "s.gguf"), name="x", colour="red")


def test_registered_as_gguf_adapter() -> None:
    assert ADAPTERS.get("gguf") is load


# -- the container reader against the official writer ---------------------------------------------

_keys = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FFF, codec="utf-8"),
                min_size=1, max_size=12)
_text = st.text(st.characters(codec="utf-8"), max_size=20)
_int32 = st.integers(-(2**31), 2**31 - 1)
_values = st.one_of(
    _text.filter(bool), _int32,  # GGUFWriter skips empty strings and empty arrays st.booleans(),
    st.floats(width=32, allow_nan=False),
    st.lists(_text.filter(bool), min_size=1, max_size=6),
    st.lists(_int32, min_size=1, max_size=6),
)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kv=st.dictionaries(_keys, _values, max_size=6), big=st.booleans())
def test_reader_reads_what_gguf_writer_writes(tmp_path: Path, kv: dict[str, Any],
                                              big: bool) -> None:
    def fill(w: gguf.GGUFWriter) -> None:
        for key, value in kv.items():
            if isinstance(value, bool):
                w.add_bool(key, value)
            elif isinstance(value, int):
                w.add_int32(key, value)
            elif isinstance(value, float):
                w.add_float32(key, value)
            elif isinstance(value, str):
                w.add_string(key, value)
            else:
                w.add_array(key, value)

    path = write_gguf(tmp_path / f"kv{'-be' if big else ''}.gguf", fill, big_endian=big)
    meta = read_metadata(path)
    for key, value in kv.items():
        got = meta[key]
        if isinstance(value, list) and isinstance(value[0], str):
            got = [b.decode("utf-8") for b in got]
        assert got == value, key
        assert type(got) is type(value)


def _strings(values: Sequence[bytes]) -> list[str]:
    return [v.decode("utf-8") for v in values]


def test_reader_agrees_with_gguf_reader(tmp_path: Path) -> None:
    path = bpe_file(tmp_path / "x.gguf", "gpt-2")
    ours = read_metadata(path)
    theirs = gguf.GGUFReader(path)
    assert ours["tokenizer.ggml.model"] == theirs.fields["tokenizer.ggml.model"].contents()
    assert _strings(ours["tokenizer.ggml.tokens"]) == \
        theirs.fields["tokenizer.ggml.tokens"].contents()
    assert _strings(ours["tokenizer.ggml.merges"]) == \
        theirs.fields["tokenizer.ggml.merges"].contents()
    assert ours["tokenizer.ggml.token_type"] == \
        theirs.fields["tokenizer.ggml.token_type"].contents()
    assert ours["tokenizer.ggml.bos_token_id"] == 264
