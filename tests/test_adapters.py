"""Adapters: exact ids, piece bytes, special tokens as text, spans, errors.

Every tokenizer here is hand-written or trained on the fly (tests/_trained.py); ids
are checked against values worked out by hand or by an independent implementation
(WordPiece's greedy longest match, BPE merges on a hand-written rank table).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from tests._trained import (
    ALL,
    TEKKEN_NUM_SPECIAL,
    TIKTOKEN_SPECIALS,
    adapter,
    bert_pretokens,
    hf_bpe_bytelevel,
    hf_unigram_metaspace,
    hf_wordpiece,
    sp_bpe_byte_fallback,
    sp_unigram,
    tekken_file,
    tiktoken_rank_file,
    transformers_wordpiece_dir,
    workdir,
)
from tokbench.adapters import base
from tokbench.adapters.base import (
    align_spans,
    char_spans_to_byte_spans,
    spans_reproduce,
)
from tokbench.errors import (
    CorruptFileError,
    InputError,
    MissingDependencyError,
    UnknownNameError,
)

SAMPLES = ["", "the cat sat on the mat", "Hello, world!", "  two  spaces ", "東京は日本の首都です",
           "café crème", "emoji 😀 ok", "tab\tand\nnewline", "numbers 12345 and 6.78",
           "Ωmega ☃ snow"]
SPECIAL_LOOKING = "<|endoftext|> <s> </s> [CLS] [SEP] <unk> [UNK] <pad> [MASK] [INST]"


# -- import cost ------------------------------------------------------------------------
def test_import_tokbench_loads_no_tokenizer_library() -> None:
    code = ("import sys, tokbench, tokbench.adapters, tokbench.adapters.tiktoken_adapter, "
            "tokbench.adapters.sentencepiece_adapter, tokbench.adapters.hf_tokenizers, "
            "tokbench.adapters.transformers_adapter, tokbench.adapters.baselines\n"
            "heavy = {'transformers', 'sentencepiece', 'tokenizers', 'tiktoken'}\n"
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


# -- baselines ----------------------------------------------------------------------------
def test_bytes_baseline() -> None:
    tok = adapter("bytes")
    assert tok.vocab_size == 256
    assert tok.encode("aé") == [97, 195, 169]
    assert tok.decode([97, 195, 169]) == "aé"
    assert tok.decode([195]) == "\ufffd"  # half a character
    assert tok.token_bytes(195) == b"\xc3"
    assert tok.token_str(195) == "\\xc3"
    assert tok.encode_with_spans("aé").spans == [(0, 1), (1, 2), (2, 3)]
    assert tok.encode_batch_offsets(["aé"])[0].offsets is None  # spans come from the bytes
    assert tok.unk_id is None and tok.special_tokens == {} and not tok.byte_fallback
    with pytest.raises(InputError, match="256"):
        tok.token_bytes(256)
    with pytest.raises(InputError, match="300"):
        tok.decode([97, 300])


def test_chars_baseline() -> None:
    tok = adapter("chars")
    assert tok.vocab_size == 0x110000
    assert tok.encode("aé€😀") == [97, 233, 8364, 128512]
    assert tok.decode([97, 233, 8364, 128512]) == "aé€😀"
    assert tok.token_bytes(8364) == b"\xe2\x82\xac"
    assert tok.token_bytes(128512) == b"\xf0\x9f\x98\x80"
    assert tok.encode_with_spans("aé€").spans == [(0, 1), (1, 3), (3, 6)]
    assert tok.describe()["source"]["kind"] == "builtin"
    with pytest.raises(InputError):
        tok.token_bytes(0x110000)


# -- tiktoken -----------------------------------------------------------------------------
def test_tiktoken_hand_written_ranks() -> None:
    tok = adapter("tiktoken")
    # " abc ab" -> " abc" | " ab"; " abc": a+b (256) first, then ab+c (258) beats " "+ab (259)
    assert tok.encode(" abc ab") == [32, 258, 259]
    assert tok.encode("abc") == [258]
    assert tok.encode("bc") == [257]
    assert tok.encode("abcab") == [258, 256]  # both ab merge (256), then ab+c (258)
    assert tok.encode("é") == [195, 169]
    assert tok.token_bytes(259) == b" ab"
    assert tok.token_bytes(195) == b"\xc3" and tok.token_str(195) == "\\xc3"
    assert tok.vocab_size == 261
    assert tok.special_tokens == TIKTOKEN_SPECIALS
    assert tok.unk_id is None and not tok.byte_fallback and not tok.is_byte_fallback_token(97)
    # the special token's text is plain text; the id decodes to its text, has no bytes
    assert tok.encode("<|endoftext|>") == list(b"<|endoftext|>")
    assert tok.token_bytes(260) == b"" and tok.token_str(260) == "<|endoftext|>"
    assert tok.decode([97, 260]) == "a<|endoftext|>"
    assert tok.encode_with_spans(" abc ab").spans == [(0, 1), (1, 4), (4, 7)]
    with pytest.raises(InputError, match="261"):
        tok.token_bytes(261)
    info = tok.describe()
    assert info["backend"] == "tiktoken"
    assert info["source"]["sha256"] == hashlib.sha256(tiktoken_rank_file().read_bytes()).hexdigest()


def test_tiktoken_from_encoding_object_and_gzip() -> None:
    import tiktoken

    from tokbench.adapters import tiktoken_adapter as tt

    ranks, digest = tt.read_rank_file(tiktoken_rank_file())
    enc = tiktoken.Encoding(name="tiny", pat_str=tt.R50K_PAT_STR, mergeable_ranks=ranks,
                            special_tokens=TIKTOKEN_SPECIALS)
    tok = tt.load(enc, name="tiny-object")
    assert tok.encode(" abc ab") == [32, 258, 259]
    assert tok.source.kind == "tiktoken"
    gz = workdir() / "tiny.tiktoken.gz"
    gz.write_bytes(gzip.compress(tiktoken_rank_file().read_bytes()))
    zipped = tt.load(gz, name="tiny-gz", pat_str=tt.R50K_PAT_STR)
    assert zipped.encode(" abc ab") == [32, 258, 259]
    assert zipped.source.sha256 == digest  # hash of the rank data, as tiktoken pins it


def test_tiktoken_bad_input(tmp_path: Path) -> None:
    from tokbench.adapters import tiktoken_adapter as tt

    bad = tmp_path / "bad.tiktoken"
    bad.write_bytes(b"YQ== 0\nYg== 1\nnot base64 at all\n")
    with pytest.raises(CorruptFileError, match=r"bad\.tiktoken:3:"):
        tt.load(bad, name="bad", pat_str=tt.R50K_PAT_STR)
    with pytest.raises(InputError, match="preset="):
        tt.load(tiktoken_rank_file(), name="no-pattern")
    with pytest.raises(CorruptFileError, match="50257"):  # gpt2 declares 50257 ids
        tt.load(tiktoken_rank_file(), name="wrong", preset="gpt2")
    with pytest.raises(UnknownNameError, match="cl100k_base"):
        tt.load(tiktoken_rank_file(), name="typo", preset="cl100k_bas")
    with pytest.raises(UnknownNameError, match="cl100k_base"):
        tt.load("cl100k_bas", name="typo")  # not a file: a tiktoken encoding name
    with pytest.raises(InputError, match="no such"):
        tt.load(tmp_path / "missing.tiktoken", name="missing")
    with pytest.raises(InputError, match="no such"):
        tt.load("missing.tiktoken", name="missing")  # a file name, not an encoding name
    with pytest.raises(InputError, match=r"pat_strr; accepted: preset, pat_str"):
        tt.load(tiktoken_rank_file(), name="typo", pat_strr=tt.R50K_PAT_STR)


def test_tiktoken_rank_lines_read_in_bulk_or_checked_line_by_line(tmp_path: Path) -> None:
    from tokbench.adapters import tiktoken_adapter as tt

    good = tmp_path / "good.tiktoken"
    good.write_bytes(b"YQ== 0\n\n= 2\r\nYWI= 1\n")  # a blank line, "=" the empty token
    ranks, digest = tt.read_rank_file(good)
    assert list(ranks.items()) == [(b"a", 0), (b"", 2), (b"ab", 1)]
    assert digest == hashlib.sha256(good.read_bytes()).hexdigest()
    for data, says in ((b"YQ== 0\nYWI= 1\nYQ== 2\n", r":3: token b'a' is listed twice"),
                       (b"YQ== 0\nYg== -1\n", r":2: rank -1 is negative"),
                       (b"YQ== 0\nYg=== 1\n", r":2: not a tiktoken rank line"),
                       (b"YQ== 0\nYg== 1 2\n", r":2: not a tiktoken rank line"),
                       (b"YQ== 0\nYg== 9000\n", r":2: id 9,000 is far beyond the 2 tokens"),
                       (b"\n\n", r"empty tiktoken rank file")):
        bad = tmp_path / "bad.tiktoken"
        bad.write_bytes(data)
        assert tt._well_formed_ranks(data) is None
        with pytest.raises(CorruptFileError, match=says):
            tt.read_rank_file(bad)


def test_tiktoken_presets_are_tiktokens_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Special tokens and sizes equal tiktoken_ext's; split patterns split alike."""
    import regex
    from tiktoken_ext import openai_public

    from tokbench.adapters import tiktoken_adapter as tt

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {})
    monkeypatch.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", lambda *a, **k: {})
    texts = ["it's I'LL we'D", "a\r\n\r\nb  ", "x   \n  y", "12345 6789", "東京は 日本",
             "emoji😀😀!!", "  leading", "trailing   ", "CamelCaseWord's", "don't\t\tstop\n",
             "path/to/file\n\n"]
    for name in ("gpt2", "r50k_base", "p50k_base", "cl100k_base", "o200k_base"):
        ref = getattr(openai_public, name)()
        preset = tt.PRESETS[tt.PRESET_ALIASES.get(name, name)]
        assert preset.special_tokens(0) == ref["special_tokens"], name
        assert preset.explicit_n_vocab == ref.get("explicit_n_vocab"), name
        ours, theirs = regex.compile(preset.pat_str), regex.compile(ref["pat_str"])
        for text in texts:
            assert ours.findall(text) == theirs.findall(text), (name, text)


def test_llama3_special_tokens() -> None:
    from tokbench.adapters import tiktoken_adapter as tt

    specials = tt.llama3_special_tokens()
    assert len(specials) == 256 and sorted(specials.values()) == list(range(128000, 128256))
    assert specials["<|begin_of_text|>"] == 128000
    assert specials["<|end_of_text|>"] == 128001
    assert specials["<|start_header_id|>"] == 128006
    assert specials["<|end_header_id|>"] == 128007
    assert specials["<|eot_id|>"] == 128009
    assert specials["<|image|>"] == 128011
    assert specials["<|reserved_special_token_2|>"] == 128012
    assert specials["<|reserved_special_token_245|>"] == 128255
    assert tt.PRESETS["llama-3"].explicit_n_vocab == 128256
    assert tt.LLAMA3_PAT_STR == tt.CL100K_PAT_STR


def test_tekken() -> None:
    from tokbench.adapters import tiktoken_adapter as tt

    tok = adapter("tekken")
    assert tok.vocab_size == TEKKEN_NUM_SPECIAL + 260
    assert tok.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2, "<SPECIAL_3>": 3,
                                  "<SPECIAL_4>": 4}
    assert tok.unk_id == 0
    assert tok.encode(" abc ab") == [32 + 5, 258 + 5, 259 + 5]  # ranks shifted by 5 specials
    assert tok.token_bytes(5) == b"\x00" and tok.token_bytes(0) == b""
    assert tok.encode("<s>") == [ord("<") + 5, ord("s") + 5, ord(">") + 5]
    assert tt.load(tekken_file(), name="by-suffix").encode("abc") == [263]
    # an old file without a special-token list gets mistral-common's legacy names
    spec = json.loads(tekken_file().read_text(encoding="utf-8"))
    del spec["special_tokens"]
    spec["config"].update(default_num_special_tokens=22, default_vocab_size=22 + 260)
    legacy = workdir() / "tekken-legacy.json"
    legacy.write_text(json.dumps(spec), encoding="utf-8")
    old = tt.load_tekken(legacy)
    assert old.special_tokens["[INST]"] == 3 and old.special_tokens["[TOOL_CONTENT]"] == 19
    assert old.special_tokens["<SPECIAL_21>"] == 21
    assert old.encode("abc") == [258 + 22]


# -- SentencePiece --------------------------------------------------------------------------
def _sp():  # the raw processor, to look pieces up
    import sentencepiece

    return sentencepiece.SentencePieceProcessor(model_file=str(sp_bpe_byte_fallback()))


def test_sentencepiece_bpe_byte_fallback() -> None:
    tok, sp = adapter("sp-bpe"), _sp()
    pid = sp.piece_to_id
    assert tok.vocab_size == 400 and tok.unk_id == 0
    assert tok.special_tokens == {"<s>": 1, "</s>": 2}
    assert tok.byte_fallback  # read from the ModelProto's trainer_spec
    e3 = pid("<0xE3>")
    assert tok.token_bytes(e3) == b"\xe3" and tok.is_byte_fallback_token(e3)
    assert tok.token_bytes(pid("▁the")) == b" the" and not tok.is_byte_fallback_token(pid("▁the"))
    assert tok.token_bytes(0) == b"" and tok.token_bytes(1) == b""
    assert tok.encode("the") == [pid("▁the")]
    assert tok.encode("Ω") == [pid("▁"), pid("<0xCE>"), pid("<0xA9>")]  # not in the corpus
    # "<s>" is text: '<' and '>' are not in the corpus, so they fall back to bytes
    assert tok.encode("<s>") == [pid("▁"), pid("<0x3C>"), pid("s"), pid("<0x3E>")]
    assert tok.decode(tok.encode("<s> Ω")) == "<s> Ω"
    sentence = "the quick brown fox jumps over the lazy dog"
    assert tok.encode(sentence) == [pid(p) for p in sp.encode(sentence, out_type=str)]
    with pytest.raises(InputError):
        tok.token_bytes(400)


def test_sentencepiece_literal_metaspace_decodes_as_space() -> None:
    tok = adapter("sp-bpe")
    assert tok.decode(tok.encode("a▁b")) == "a b"  # SentencePiece cannot tell them apart


def test_sentencepiece_spans_and_dummy_prefix() -> None:
    tok, sp = adapter("sp-bpe"), _sp()
    pid = sp.piece_to_id
    enc = tok.encode_with_spans(" the")  # dummy "▁" first, then the text's own space
    assert enc.ids == [pid("▁"), pid("▁the")]
    assert enc.spans == [(0, 0), (0, 4)]
    enc = tok.encode_with_spans("the Ω")
    assert enc.ids == [pid("▁the"), pid("▁"), pid("<0xCE>"), pid("<0xA9>")]
    assert enc.spans == [(0, 3), (3, 4), (4, 5), (5, 6)]
    assert tok.encode_batch_offsets(["the Ω"])[0].offsets is None  # lossless: spans as above
    # align_spans on the raw token bytes gives the dummy-prefixed piece the same bytes
    assert align_spans(b"the", [b" the"]) == [(0, 3)]
    assert align_spans("Ω".encode(), [b" ", b"\xce", b"\xa9"]) == [(0, 0), (0, 1), (1, 2)]


def test_sentencepiece_unigram_unknown_and_normalizer() -> None:
    from tokbench.adapters import sentencepiece_adapter as sa

    tok = adapter("sp-unigram")
    assert tok.unk_id == 0 and not tok.byte_fallback
    settings = sa.read_settings(sp_unigram().read_bytes())
    assert settings == sa.ModelSettings(model_type="unigram", byte_fallback=False,
                                        add_dummy_prefix=True, remove_extra_whitespaces=True,
                                        normalizer="nmt_nfkc")
    enc = tok.encode_with_spans("the Ω dog")
    assert enc.ids.count(0) == 1
    assert enc.spans[enc.ids.index(0)] == (4, 6)  # exactly the bytes of "Ω"
    assert tok.token_bytes(0) == b""
    assert tok.decode(tok.encode("the Ω dog")) == "the  ⁇  dog"
    # NFKC turns the ligature into "fi": spans come from SentencePiece's own alignment
    text = "the ﬁne dog"
    spans = tok.encode_with_spans(text).spans
    assert spans[-1][1] == len(text.encode()) and all(a <= b for a, b in spans)
    assert tok.decode(tok.encode(text)) == unicodedata.normalize("NFKC", text)


def test_sentencepiece_load_variants(tmp_path: Path) -> None:
    import sentencepiece

    from tokbench.adapters import sentencepiece_adapter as sa

    proto = sp_bpe_byte_fallback().read_bytes()
    from_bytes = sa.load(proto, name="bytes")
    from_proc = sa.load(sentencepiece.SentencePieceProcessor(model_proto=proto), name="proc")
    expected = adapter("sp-bpe").encode("the Ω dog")
    assert from_bytes.encode("the Ω dog") == expected == from_proc.encode("the Ω dog")
    assert from_bytes.source.kind == "object"
    assert adapter("sp-bpe").source.sha256 == hashlib.sha256(proto).hexdigest()
    assert list(sa.iter_fields(b"\x08\x96\x01\x12\x02hi")) == [(1, 150), (2, b"hi")]
    bad = tmp_path / "bad.model"
    bad.write_bytes(b"\x0a\x05trunc")
    with pytest.raises(CorruptFileError, match=r"bad\.model"):
        sa.load(bad, name="bad")
    with pytest.raises(InputError, match="no such"):
        sa.load(tmp_path / "missing.model", name="missing")
    with pytest.raises(InputError, match="unknown option"):
        sa.load(proto, name="x", add_bos=True)


# -- piece -> bytes rules ----------------------------------------------------------------------
def test_gpt2_byte_table() -> None:
    from tokbench.adapters.hf_tokenizers import bytes_to_unicode, unicode_to_bytes

    table = bytes_to_unicode()
    assert len(set(table.values())) == 256
    assert table[32] == "Ġ" and table[10] == "Ċ" and table[0] == "Ā"
    assert table[127] == "ġ" and table[173] == "Ń"
    assert table[ord("a")] == "a" and table[255] == "ÿ"
    assert all(unicode_to_bytes()[c] == b for b, c in table.items())


@pytest.mark.parametrize(("piece", "rules", "expected"), [
    ("Ġhello", {"byte_level": True}, b" hello"),
    ("Ã©", {"byte_level": True}, b"\xc3\xa9"),
    ("ĊĠ", {"byte_level": True}, b"\n "),
    ("▁hello", {"replacements": (("▁", " "),)}, b" hello"),
    ("<0xE3>", {"byte_fallback": True, "replacements": (("▁", " "),)}, b"\xe3"),
    ("<0xE3>", {}, b"<0xE3>"),
    ("##ing", {"continuing_prefix": "##"}, b"ing"),
    ("##", {"continuing_prefix": "##"}, b"##"),
    ("hello", {"continuing_prefix": "##"}, b"hello"),
    ("hello</w>", {"end_of_word_suffix": "</w>"}, b"hello"),
    # a character outside the byte table (a space, CJK): the piece is plain UTF-8 text
    ("a b", {"byte_level": True}, b"a b"),
    ("Ġ日本", {"byte_level": True}, "Ġ日本".encode()),
    ("", {"byte_level": True}, b""),
])
def test_piece_to_bytes(piece: str, rules: dict[str, object], expected: bytes) -> None:
    from tokbench.adapters.hf_tokenizers import PieceRules, piece_to_bytes

    assert piece_to_bytes(piece, PieceRules(**rules)) == expected  # type: ignore[arg-type]


def test_rules_from_tokenizer_json() -> None:
    from tokbench.adapters.hf_tokenizers import PieceRules, rules_from_json

    llama2 = {"model": {"type": "BPE", "byte_fallback": True},
              "decoder": {"type": "Sequence", "decoders": [
                  {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                  {"type": "ByteFallback"}, {"type": "Fuse"},
                  {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}}
    assert rules_from_json(llama2) == PieceRules(byte_fallback=True, replacements=(("▁", " "),))
    xlmr = {"model": {"type": "Unigram"},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁"}]},
            "decoder": {"type": "Metaspace", "replacement": "▁"}}
    assert rules_from_json(xlmr) == PieceRules(replacements=(("▁", " "),))
    bert = {"model": {"type": "WordPiece", "continuing_subword_prefix": "##"},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True}}
    assert rules_from_json(bert) == PieceRules(continuing_prefix="##")
    gpt2 = {"model": {"type": "BPE"}, "pre_tokenizer": {"type": "ByteLevel"},
            "decoder": {"type": "ByteLevel"}}
    assert rules_from_json(gpt2) == PieceRules(byte_level=True)
    clip = {"model": {"type": "BPE", "end_of_word_suffix": "</w>"},
            "decoder": {"type": "BPEDecoder", "suffix": "</w>"}}
    assert rules_from_json(clip) == PieceRules(end_of_word_suffix="</w>")


# -- Hugging Face tokenizers ----------------------------------------------------------------------
def _vocab(path: Path) -> dict[str, int]:
    from tokenizers import Tokenizer

    return dict(Tokenizer.from_file(str(path)).get_vocab())


def test_tokenizers_byte_level_bpe() -> None:
    tok, vocab = adapter("hf-bpe"), _vocab(hf_bpe_bytelevel())
    assert tok.vocab_size == 300 and tok.unk_id is None
    assert tok.special_tokens == {"<|endoftext|>": 0}
    assert tok.encode(" the") == [vocab["Ġthe"]]
    assert tok.token_bytes(vocab["Ġthe"]) == b" the"
    ids = tok.encode("<|endoftext|>")
    assert 0 not in ids and b"".join(map(tok.token_bytes, ids)) == b"<|endoftext|>"
    text = "héllo wörld 😀"
    ids = tok.encode(text)
    assert b"".join(map(tok.token_bytes, ids)) == text.encode()
    assert tok.decode(ids) == text
    assert tok.token_bytes(0) == b""
    with pytest.raises(InputError):
        tok.token_bytes(300)


def test_tokenizers_object_truncation_is_switched_off() -> None:
    from tokenizers import Tokenizer

    from tokbench.adapters import hf_tokenizers

    obj = Tokenizer.from_file(str(hf_bpe_bytelevel()))
    obj.enable_truncation(max_length=3)
    tok = hf_tokenizers.load(obj, name="truncating")
    assert len(tok.encode("the cat sat on the mat")) > 3
    text = "the cat sat on the mat"
    assert tok.encode(text) == adapter("hf-bpe").encode(text)
    assert obj.truncation is not None and obj.truncation["max_length"] == 3  # caller's untouched


def test_tokenizers_unigram_metaspace() -> None:
    from tokenizers import Tokenizer

    tok = adapter("hf-unigram")
    raw = Tokenizer.from_file(str(workdir() / "unigram-metaspace.json"))
    vocab = raw.get_vocab()
    assert tok.unk_id == 0 and tok.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2}
    # "<s>" is text: "▁", unknown "<", "s", unknown ">" (the raw backend gives the piece <s>)
    assert tok.encode("<s>") == [vocab["▁"], 0, vocab["s"], 0]
    assert 1 in raw.encode("<s>", add_special_tokens=False).ids
    assert tok.decode(tok.encode("<s>")) == "<unk>s<unk>"
    assert tok.token_bytes(vocab["▁"]) == b" "
    enc = tok.encode_with_spans("the Ωx dog")
    assert enc.spans[enc.ids.index(0)] == (4, 6)  # the unknown token is "Ω"
    assert enc.spans[0] == (0, 0) and tok.token_bytes(enc.ids[0]) == b" "  # dummy "▁"
    assert tok.encode_batch(["<s> x", "a </s>"], threads=2) == [tok.encode("<s> x"),
                                                               tok.encode("a </s>")]


def test_a_tokenizer_json_loads_again_from_its_facts_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second load of a file reads the adapter's facts from the cache (no Python
    parse of the file) and is the same tokenizer; a damaged entry is parsed again; a
    file loaded changed (a WordPiece decoder's clean-up switched off) is always parsed."""
    from tokbench.adapters import hf_tokenizers

    monkeypatch.setenv("TOKBENCH_CACHE", str(tmp_path))
    hf_tokenizers.load(hf_wordpiece(), name="w")
    assert not (tmp_path / "hf-facts").exists()
    path = hf_unigram_metaspace()
    first = hf_tokenizers.load(path, name="t")
    [entry] = (tmp_path / "hf-facts").glob("*/*.json")
    assert '"vocab"' not in entry.read_text(encoding="utf-8")
    texts = ["the <s> cat [CLS] sat", "Ωx café", "[UNK] </s>"]

    def same(tok: hf_tokenizers.HFTokenizersTokenizer) -> None:
        assert tok.describe() == first.describe()
        assert (tok.unk_id, tok.special_tokens) == (first.unk_id, first.special_tokens)
        assert [tok.encode(t) for t in texts] == [first.encode(t) for t in texts]
        assert tok._reachable is first._reachable

    real_loads = json.loads
    parsed: list[str | bytes] = []

    def loads(text: str | bytes, *a: object, **k: object) -> object:
        parsed.append(text)
        return real_loads(text, *a, **k)  # type: ignore[arg-type]

    whole = path.read_text(encoding="utf-8")
    with monkeypatch.context() as m:
        m.setattr(hf_tokenizers.json, "loads", loads)
        same(hf_tokenizers.load(path, name="t"))
        assert parsed and whole not in parsed  # the cache entry only
        parsed.clear()
        entry.write_text('{"spec": [], "reachable": 1}', encoding="utf-8")
        same(hf_tokenizers.load(path, name="t"))
        assert whole in parsed


def test_a_rank_file_loads_again_from_its_checked_ranks_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second read of a rank file takes its checked ranks from the cache (no base64
    decoded) and gives the same tokenizer; a damaged entry, or one that reads as the
    wrong data, is ignored and the file read again; ``cache=False`` neither reads nor
    writes an entry."""
    import marshal

    from tokbench.adapters import tiktoken_adapter as tt

    monkeypatch.setenv("TOKBENCH_CACHE", str(tmp_path))
    path = tiktoken_rank_file()
    first, digest = tt.read_rank_file(path, cache=False)
    assert not (tmp_path / "tiktoken-ranks").exists()
    assert tt.read_rank_file(path) == (first, digest)
    [entry] = (tmp_path / "tiktoken-ranks").glob("*/*.marshal")
    real = tt._well_formed_ranks
    decoded: list[bytes] = []

    def well_formed(data: bytes) -> dict[bytes, int] | None:
        decoded.append(data)
        return real(data)

    monkeypatch.setattr(tt, "_well_formed_ranks", well_formed)
    ranks, again = tt.read_rank_file(path)
    assert (ranks, again, decoded) == (first, digest, [])  # from the entry
    tok = tt.load(path, name="tiny", pat_str=tt.R50K_PAT_STR)
    assert tok.encode(" abc ab") == [32, 258, 259] and decoded == []
    for damaged in (b"\x00garbage", marshal.dumps({"abc": 1}), marshal.dumps([1, 2])):
        entry.write_bytes(damaged)
        assert tt.read_rank_file(path) == (first, digest)
        assert decoded == [path.read_bytes()]
        decoded.clear()
    assert marshal.loads(entry.read_bytes()) == first  # written again
    not_a_folder = tmp_path / "cache-file"
    not_a_folder.write_text("x")
    monkeypatch.setenv("TOKBENCH_CACHE", str(not_a_folder))
    assert tt.read_rank_file(path) == (first, digest)  # no cache: read, nothing written


@pytest.mark.parametrize("kind", ["unigram", "wordpiece"])
def test_the_text_blind_model_renames_pieces_in_place_as_parsing_would(kind: str) -> None:
    """Renaming the special pieces in the model's JSON text (no parse of a 250k-piece
    vocabulary) gives the model the parsed and renamed JSON gives."""
    from tokenizers import Tokenizer

    from tokbench.adapters import hf_tokenizers as hf

    backend = Tokenizer.from_file(str(hf_unigram_metaspace() if kind == "unigram"
                                      else hf_wordpiece()))
    special = {t.content for t in backend.get_added_tokens_decoder().values() if t.special}
    state = backend.model.__getstate__()
    fast = hf._renamed(state, backend.model, special)
    assert fast is not None
    parsed = hf._hide_special_pieces(json.loads(state), special)
    assert parsed is not None and json.loads(fast) == parsed
    hidden = {p for p in special if backend.model.token_to_id(p) is not None}
    hidden -= {"[UNK]"}  # WordPiece's unknown piece stays
    assert hidden and all(hf.HIDDEN + p + hf.HIDDEN in fast.decode("utf-8") for p in hidden)
    assert json.loads(hf.text_blind_model(backend).__getstate__()) == parsed


def _wordpiece_greedy(text: str, vocab: dict[str, int]) -> tuple[list[int], list[tuple[int, int]]]:
    """BERT by hand: lower-case, split on spaces and punctuation, greedy longest match."""
    words = bert_pretokens(text)
    ids: list[int] = []
    spans: list[tuple[int, int]] = []
    for word, at in words:
        lower, pieces, pos = word.lower(), [], 0
        while pos < len(lower):
            end = len(lower)
            while end > pos and (("##" if pos else "") + lower[pos:end]) not in vocab:
                end -= 1
            if end == pos:
                pieces = [(vocab["[UNK]"], 0, len(word))]
                break
            pieces.append((vocab[("##" if pos else "") + lower[pos:end]], pos, end))
            pos = end
        for tid, s, e in pieces:
            ids.append(tid)
            spans.append((len(text[:at + s].encode()), len(text[:at + e].encode())))
    return ids, spans


def test_tokenizers_wordpiece() -> None:
    tok, vocab = adapter("hf-wordpiece"), _vocab(hf_wordpiece())
    unk = vocab["[UNK]"]
    assert tok.unk_id == unk
    for text in ["Hello world, tokens!", "the xωy dog", "[CLS] hello [SEP]", "Tokenizer splits"]:
        ids, spans = _wordpiece_greedy(text, vocab)
        assert tok.encode(text) == ids, text
        assert tok.encode_with_spans(text).spans == spans, text
    assert tok.encode("the xωy dog")[1] == unk  # one [UNK] for the whole word
    assert vocab["[CLS]"] not in tok.encode("[CLS]")
    cont = next(i for p, i in vocab.items() if p.startswith("##") and len(p) > 2)
    assert tok.token_bytes(cont) == tok.token_str(cont)[2:].encode()
    assert tok.token_bytes(unk) == b""
    # no clean-up: the backend's WordPiece decoder would glue "," to "hello"
    from tokenizers import Tokenizer

    ids = tok.encode("hello, world")
    assert tok.decode(ids) == "hello , world"
    assert Tokenizer.from_file(str(hf_wordpiece())).decode(ids) == "hello, world"


def test_tokenizers_bad_input(tmp_path: Path) -> None:
    from tokbench.adapters import hf_tokenizers

    with pytest.raises(InputError, match="no such"):
        hf_tokenizers.load(tmp_path / "missing.json", name="x")
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "Nope"}}', encoding="utf-8")
    with pytest.raises(CorruptFileError, match=r"tokenizer\.json"):
        hf_tokenizers.load(tmp_path, name="x")  # a folder holding tokenizer.json


# -- transformers ------------------------------------------------------------------------------
@pytest.mark.parametrize(("tf_kind", "hf_kind"), [("tf-wordpiece", "hf-wordpiece"),
                                                  ("tf-bpe", "hf-bpe")])
def test_transformers_fast_equals_tokenizers(tf_kind: str, hf_kind: str) -> None:
    tf, hf = adapter(tf_kind), adapter(hf_kind)
    assert tf.vocab_size == hf.vocab_size and tf.unk_id == hf.unk_id
    assert tf.special_tokens == hf.special_tokens
    for text in [*SAMPLES, SPECIAL_LOOKING, "hello, world"]:
        assert tf.encode(text) == hf.encode(text), text
        assert tf.decode(tf.encode(text)) == hf.decode(hf.encode(text)), text
        assert tf.encode_with_spans(text) == hf.encode_with_spans(text), text
        assert tf.encode_batch_offsets([text]) == hf.encode_batch_offsets([text]), text
    assert [tf.token_bytes(i) for i in range(tf.vocab_size)] == \
        [hf.token_bytes(i) for i in range(hf.vocab_size)]


def test_transformers_wordpiece_no_specials_no_cleanup() -> None:
    tok = adapter("tf-wordpiece")
    vocab = _vocab(hf_wordpiece())
    assert tok.encode("hello") == _wordpiece_greedy("hello", vocab)[0]  # no [CLS]/[SEP]
    assert tok.decode(tok.encode("hello, world")) == "hello , world"
    info = tok.describe()
    assert info["fast"] is True and info["source"]["kind"] == "file"
    assert info["source"]["sha256"] == hashlib.sha256(
        (transformers_wordpiece_dir() / "tokenizer.json").read_bytes()).hexdigest()


def test_transformers_object_is_copied() -> None:
    from transformers import AutoTokenizer

    from tokbench.adapters import transformers_adapter

    obj = AutoTokenizer.from_pretrained(str(transformers_wordpiece_dir()), local_files_only=True)
    tok = transformers_adapter.load(obj, name="copy")
    assert tok.encode("hello, world") == adapter("hf-wordpiece").encode("hello, world")
    assert obj.split_special_tokens is False  # the caller's tokenizer is unchanged
    assert obj.decode(obj.encode("hello, world", add_special_tokens=False)) == "hello, world"


def test_transformers_slow_sentencepiece() -> None:
    from transformers import BertGenerationTokenizer

    from tokbench.adapters import transformers_adapter

    slow = BertGenerationTokenizer(vocab_file=str(sp_bpe_byte_fallback()))
    tok, sp = transformers_adapter.load(slow, name="slow"), adapter("sp-bpe")
    assert not tok.describe()["fast"] and tok.encode_batch_offsets(["x"])[0].offsets is None
    assert tok.byte_fallback and tok.unk_id == 0
    for text in ["the Ω", "hello world", "<s> x </s>", "東京 x"]:
        assert tok.encode(text) == sp.encode(text), text
    assert [tok.token_bytes(i) for i in range(400)] == [sp.token_bytes(i) for i in range(400)]
    assert tok.decode(tok.encode("hello world")) == "hello world"
    assert tok.encode_with_spans("the Ω").spans == [(0, 3), (3, 4), (4, 5), (5, 6)]


def test_transformers_missing_sources(tmp_path: Path) -> None:
    from tokbench.adapters import transformers_adapter

    with pytest.raises(InputError, match="no such tokenizer folder"):
        transformers_adapter.load(tmp_path / "nothing-here", name="x")
    code = ("from tokbench.adapters import transformers_adapter as t\n"
            "from tokbench.errors import SourceError\n"
            "try:\n    t.load('nobody-xyz/no-such-tokenizer', name='x')\n"
            "except SourceError as e:\n    print('SourceError', e)\n")
    env = {"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True)
    assert out.stdout.startswith("SourceError transformers could not load tokenizer "
                                 "'nobody-xyz/no-such-tokenizer' from the Hugging Face hub")
    assert len(out.stdout.strip().splitlines()) == 1


@pytest.mark.parametrize(("module", "library", "argument"), [
    ("tiktoken_adapter", "tiktoken", "x.tiktoken"),
    ("sentencepiece_adapter", "sentencepiece", "x.model"),
    ("hf_tokenizers", "tokenizers", "tokenizer.json"),
    ("transformers_adapter", "transformers", "org/name"),
])
def test_missing_library_names_the_pip_command(module: str, library: str, argument: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    loader = importlib.import_module(f"tokbench.adapters.{module}").load
    monkeypatch.setitem(sys.modules, library, None)  # "import library" now fails
    with pytest.raises(MissingDependencyError, match=f"pip install {library}"):
        loader(argument, name="x")


# -- every adapter ----------------------------------------------------------------------------
@pytest.mark.parametrize("threads", [2, 3, 8])
@pytest.mark.parametrize("n", [2, 7, 100])
def test_in_threads_encodes_contiguous_parts_in_order(n: int, threads: int) -> None:
    from tokbench.adapters.base import in_threads

    texts = [f"t{i}" for i in range(n)]
    parts: list[list[str]] = []
    got = in_threads(lambda part: parts.append(list(part)) or [t.upper() for t in part],
                     texts, threads)
    assert got == [t.upper() for t in texts]
    assert len(parts) <= threads * 4 and sorted(parts) == sorted(
        texts[i:i + len(p)] for i, p in zip(_starts(parts, texts), parts, strict=True))


def _starts(parts: list[list[str]], texts: list[str]) -> list[int]:
    return [texts.index(p[0]) for p in parts]


@pytest.mark.parametrize("kind", ALL)
def test_encode_batch_equals_encode(kind: str) -> None:
    tok = adapter(kind)
    one_by_one = [tok.encode(t) for t in SAMPLES]
    assert tok.encode_batch(SAMPLES, threads=2) == one_by_one
    assert tok.encode_batch(SAMPLES, threads=1) == one_by_one
    assert tok.encode_batch([], threads=2) == []
    counts = [len(ids) for ids in one_by_one]
    assert tok.count_batch(SAMPLES, threads=2) == counts
    assert tok.count_batch(SAMPLES, threads=1) == counts
    assert tok.count_batch([], threads=2) == []


@pytest.mark.parametrize("kind", ALL)
def test_special_looking_text_is_plain_text(kind: str) -> None:
    tok = adapter(kind)
    specials = set(tok.special_tokens.values()) - {tok.unk_id}
    ids = tok.encode(SPECIAL_LOOKING)
    assert not specials & set(ids)
    assert all(tok.token_bytes(i) == b"" for i in specials)


@pytest.mark.parametrize("kind", ALL)
def test_describe_names_backend_version_and_hash(kind: str) -> None:
    tok = adapter(kind)
    info = tok.describe()
    assert info["backend"] == tok.backend and info["backend_version"] == tok.backend_version()
    assert info["vocab_size"] == tok.vocab_size
    if tok.source.path is not None:
        main = Path(tok.source.path)
        main = main / "tokenizer.json" if main.is_dir() else main
        if not main.name.endswith(".gz"):
            assert info["source"]["sha256"] == hashlib.sha256(main.read_bytes()).hexdigest()


# -- span helpers in base.py ---------------------------------------------------------------------
def test_align_spans_cases() -> None:
    # WordPiece: dropped spaces are skipped
    assert align_spans(b"hello world", [b"hello", b"wor", b"ld"]) == [(0, 5), (6, 9), (9, 11)]
    # an unknown word gets its own bytes, not the spaces around it
    assert align_spans(b"the xy dog", [b"the", b"", b"dog"]) == [(0, 3), (4, 6), (7, 10)]
    # an unknown token followed by a bare space piece: the space is a real one further on
    assert align_spans(b"x> y", [b" x", b"", b" ", b"y"]) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert spans_reproduce(b"x> y", [b" x", b"", b" ", b"y"], [(0, 1), (1, 2), (2, 3), (3, 4)])
    assert not spans_reproduce(b"Hello", [b"hello"], align_spans(b"Hello", [b"hello"]))


def test_span_conversions() -> None:
    assert char_spans_to_byte_spans("aé€", [(0, 1), (1, 2), (2, 3)]) == [(0, 1), (1, 3), (3, 6)]
    assert base.first_line(ValueError("one\ntwo")) == "one"


def test_tiktoken_rank_file_helper_roundtrip() -> None:
    from tokbench.adapters import tiktoken_adapter as tt

    ranks, _ = tt.read_rank_file(tiktoken_rank_file())
    assert len(ranks) == 260 and ranks[b"abc"] == 258 and ranks[b"\x00"] == 0
    assert base64.b64encode(b" ab") in tiktoken_rank_file().read_bytes()


def test_sentencepiece_unknown_after_a_bare_dummy_prefix_gets_the_character() -> None:
    tok = adapter("sp-unigram")
    enc = tok.encode_with_spans("Zebra")  # "Z" is not in the tiny model's alphabet
    pieces = [tok.token_str(i) for i in enc.ids]
    assert pieces[:2] == ["▁", "<unk>"]
    assert enc.spans[:2] == [(0, 0), (0, 1)]


def test_all_token_bytes_of_tiktoken_equals_token_bytes() -> None:
    tok = adapter("tiktoken")
    everything = tok.all_token_bytes()
    assert everything is not None and len(everything) == tok.vocab_size
    assert everything == [tok.token_bytes(t) for t in range(tok.vocab_size)]
