"""Training tokenizers: exact merges on hand-checkable corpora, options, files, reloading."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tokbench.errors import InputError
from tokbench.training.train import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    CorpusTooSmallError,
    TrainConfig,
    hf_pipeline,
    load_corpus,
    load_trained,
    minimum_vocab,
    read_sidecar,
    train,
    train_model,
)

WIKI = ["aaabdaaabac"]  # the BPE example of Wikipedia and of karpathy/minbpe


def _hf(spec: dict) -> object:
    from tokenizers import Tokenizer

    return Tokenizer.from_str(json.dumps(spec))


def test_bytelevel_bpe_learns_the_wikipedia_merges() -> None:
    """"aaabdaaabac" with no pre-tokenizer, 3 merges.

    Pairs: aa 4 (aaa counts twice, twice) -> merge 1 "aa"; the text becomes
    aa·a·b·d·aa·a·b·a·c; now (aa, a) and (a, b) both occur twice: the trainer breaks the
    tie by the smaller pair of ids. tokenizers numbers the 256 byte symbols by their
    GPT-2 character (``!``..``~`` are 0..93, so ``a`` = 0x61 - 0x21 = 64, b 65, c 66,
    d 67) and merged tokens from 256 on, so (a, b) = (64, 65) < (aa, a) = (256, 64):
    merge 2 "ab". Then (aa, ab) occurs twice: merge 3 "aaab" = 258. Encoding gives
    aaab·d·aaab·a·c (Wikipedia's "XdXac").
    """
    model = train_model(WIKI, TrainConfig(vocab_size=259, pretokenizer="none"))
    spec = model.json_spec
    assert spec is not None
    assert spec["model"]["merges"] == [["a", "a"], ["a", "b"], ["aa", "ab"]]
    vocab = spec["model"]["vocab"]
    assert [vocab[t] for t in ("a", "b", "c", "d", "aa", "ab", "aaab")] == \
        [64, 65, 66, 67, 256, 257, 258]
    assert len(vocab) == 259
    ids = _hf(spec).encode("aaabdaaabac").ids  # type: ignore[attr-defined]
    assert ids == [258, 67, 258, 64, 66]


def test_special_tokens_come_first_and_shift_ids() -> None:
    model = train_model(WIKI, TrainConfig(vocab_size=261, pretokenizer="none",
                                          special_tokens=("<s>", "</s>")))
    spec = model.json_spec
    assert spec is not None
    assert [(t["id"], t["content"], t["special"]) for t in spec["added_tokens"]] == \
        [(0, "<s>", True), (1, "</s>", True)]
    assert _hf(spec).encode("aaabdaaabac").ids == [260, 69, 260, 66, 68]  # type: ignore


def test_min_frequency_one_merges_down_to_one_token() -> None:
    """With min frequency 1 the count-1 pairs merge too, ties again by smaller ids.

    After the three merges above the pairs (aaab, d), (d, aaab), (aaab, a), (a, c) all
    occur once; ids a=64, c=66, d=67, aaab=258: (a, c) is smallest -> "ac" 259; then
    (d, aaab) = (67, 258) -> "daaab" 260; then (aaab, daaab) -> 261, then the whole text
    262: 7 merges, vocabulary 263, and one token for the text.
    """
    model = train_model(WIKI, TrainConfig(vocab_size=263, pretokenizer="none", min_frequency=1))
    spec = model.json_spec
    assert spec is not None
    assert spec["model"]["merges"][3:] == [["a", "c"], ["d", "aaab"], ["aaab", "daaab"],
                                           ["aaabdaaab", "ac"]]
    assert _hf(spec).encode("aaabdaaabac").ids == [262]  # type: ignore[attr-defined]


def test_corpus_too_small_says_how_many_merges_were_possible() -> None:
    with pytest.raises(CorpusTooSmallError) as err:
        train_model(WIKI, TrainConfig(vocab_size=300, pretokenizer="none"))
    assert err.value.max_vocab == 259 and err.value.merges == 3
    msg = str(err.value)
    assert "\n" not in msg
    assert "300" in msg and "only 3 merges" in msg and "vocabulary 259" in msg
    with pytest.raises(CorpusTooSmallError) as err:
        train_model(WIKI, TrainConfig(vocab_size=264, pretokenizer="none", min_frequency=1))
    assert err.value.max_vocab == 263 and err.value.merges == 7


@pytest.mark.parametrize("name,pattern", [("gpt2", GPT2_PATTERN), ("cl100k", CL100K_PATTERN)],
                         ids=["gpt2", "cl100k"])
def test_pretokenizer_presets_split_like_tiktoken(name: str, pattern: str) -> None:
    """The byte-level pipeline splits exactly where tiktoken's pattern does (Python
    ``regex``) on the code, unicode and numbers suites; Oniguruma needs ``{1,3}+`` rewritten."""
    import regex

    from tokbench.adapters.hf_tokenizers import unicode_to_bytes
    from tokbench.suites import load_suite

    tok, _ = hf_pipeline(TrainConfig(pretokenizer=name).resolved())
    to_byte = unicode_to_bytes()
    compiled = regex.compile(pattern)
    texts = [d.text for s in ("code", "unicode", "numbers") for d in load_suite(s).documents]
    texts += ["x  \ny", "I'M 12345678 ok\r\n\r\n  end  "]
    assert len(texts) > 200
    for text in texts:
        got = [bytes(to_byte[c] for c in piece).decode("utf-8")
               for piece, _ in tok.pre_tokenizer.pre_tokenize_str(text)]
        assert got == compiled.findall(text), text[:60]
    assert [bytes(to_byte[c] for c in p).decode() for p, _ in
            tok.pre_tokenizer.pre_tokenize_str("in 1234567 days")] == (
        ["in", " 1234567", " days"] if name == "gpt2" else
        ["in", " ", "123", "456", "7", " days"])


def test_sidecar_and_reload_give_the_same_ids(tmp_path: Path) -> None:
    import tokbench
    from tokbench.adapters.hf_tokenizers import load as load_hf

    corpus = load_corpus("multilingual?languages=eng_Latn,deu_Latn,jpn_Jpan&limit=60")
    config = TrainConfig(vocab_size=600, special_tokens=("<|endoftext|>",), seed=7)
    trained = train(corpus, config, tmp_path / "tok")
    assert trained.path == tmp_path / "tok" / "tokenizer.json"
    side = read_sidecar(trained.path)
    assert side is not None and side == trained.info
    assert side["sha256"] == hashlib.sha256(trained.path.read_bytes()).hexdigest()
    assert side["corpus"]["sha256"] == corpus.suites[0].sha256
    assert side["corpus"]["documents"] == 180
    assert side["config"]["vocab_size"] == 600 and side["config"]["byte_level"] is True
    assert side["config"]["pretokenizer"] == "cl100k" and side["config"]["min_frequency"] == 2
    assert side["vocab_size"] == 600 and side["trainer"]["library"] == "tokenizers"

    text = "Tokenizers learn merges; 東京 2024 年 — ça va? <|endoftext|>"
    backend = _hf(json.loads(trained.path.read_text(encoding="utf-8")))
    want = backend.encode(text, add_special_tokens=False).ids  # type: ignore[attr-defined]
    # text that looks like the special token is plain text for tokbench adapters
    special = 0
    mine = load_trained(trained.path)
    assert mine.source.kind == "trained" and mine.name == "tok"
    assert mine.vocab_size == 600 and mine.special_tokens == {"<|endoftext|>": special}
    plain = mine.encode(text)
    assert special not in plain and mine.decode(plain) == text
    for other in (load_hf(trained.path, name="x"),
                  tokbench.load_tokenizer(f"file:{trained.path.parent}")):
        assert other.encode(text) == plain
    assert want[:-1] == plain[:len(want) - 1]  # backend matches the special id at the end
    assert want[-1] == special


def test_sentencepiece_model_and_sidecar(tmp_path: Path) -> None:
    import sentencepiece as spm

    from tokbench.adapters.sentencepiece_adapter import load as load_sp

    corpus = load_corpus("multilingual?languages=eng_Latn,deu_Latn&limit=80")
    config = TrainConfig(algo="unigram", backend="sentencepiece", vocab_size=700,
                         byte_fallback=True, split_digits=True, special_tokens=("<s>", "</s>"))
    trained = train(corpus, config, tmp_path / "sp.model")
    assert trained.path.suffix == ".model" and trained.sidecar.name == "sp.train.json"
    assert trained.info["vocab_size"] == 700
    tok = load_trained(trained.path)
    sp = spm.SentencePieceProcessor(model_file=str(trained.path))
    text = "Zahlen 2024 und ☃ snow"
    assert tok.encode(text) == sp.encode(text)
    assert tok.decode(tok.encode(text)) == text  # identity normalization, byte fallback
    assert tok.special_tokens == {"<s>": 1, "</s>": 2} and tok.unk_id == 0
    digits = [tok.token_bytes(i) for i in tok.encode("2024")]
    assert b"".join(digits).strip() == b"2024" and len([d for d in digits if d.strip()]) == 4
    assert load_sp(trained.path, name="x").encode(text) == tok.encode(text)
    import tokbench

    assert tokbench.load_tokenizer(f"file:{trained.path}").encode(text) == tok.encode(text)


def test_options_change_the_vocabulary() -> None:
    """Split digits, NFKC, byte fallback, unigram and wordpiece each do what they say."""
    texts = ["the year 2024 and 1999 were numbers 12345 " * 3, "ｶﾀｶﾅ カタカナ café " * 3,
             "hello world, hello tokens " * 4]
    split = train_model(texts, TrainConfig(vocab_size=300, split_digits=True)).json_spec
    assert split is not None
    assert not any(t.isdigit() and len(t) > 1 for t in split["model"]["vocab"])
    tok = _hf(split)
    assert tok.encode("2024").tokens == ["2", "0", "2", "4"]  # type: ignore[attr-defined]

    nfkc = _hf(train_model(texts, TrainConfig(vocab_size=300, normalization="nfkc")).json_spec
               or {})
    assert nfkc.encode("ｶﾀｶﾅ").ids == nfkc.encode("カタカナ").ids  # type: ignore[attr-defined]

    cfg = TrainConfig(vocab_size=330, byte_level=False, byte_fallback=True)
    fb = train_model(texts, cfg).json_spec
    assert fb is not None and fb["model"]["byte_fallback"] is True
    assert fb["model"]["vocab"]["<0x00>"] == 0 and fb["model"]["vocab"]["<0xFF>"] == 255
    assert len(fb["model"]["vocab"]) == 330
    enc = _hf(fb).encode("☃")  # unseen: three UTF-8 bytes  # type: ignore[attr-defined]
    assert enc.tokens == ["<0xE2>", "<0x98>", "<0x83>"]  # type: ignore[attr-defined]
    assert _hf(fb).decode(enc.ids) == "☃"  # type: ignore[attr-defined]

    english = load_corpus("multilingual?languages=eng_Latn&limit=100")
    uni = train_model(english, TrainConfig(algo="unigram", vocab_size=300)).json_spec
    assert uni is not None and uni["model"]["type"] == "Unigram"
    assert uni["added_tokens"][0]["content"] == "<unk>" and uni["model"]["unk_id"] == 0

    wp = train_model(english, TrainConfig(algo="wordpiece", vocab_size=300)).json_spec
    assert wp is not None and wp["model"]["type"] == "WordPiece"
    assert wp["model"]["vocab"]["[UNK]"] == 0
    assert any(t.startswith("##") for t in wp["model"]["vocab"])


@pytest.mark.parametrize("config,words", [
    (TrainConfig(algo="wordpiece", backend="sentencepiece"), "wordpiece"),
    (TrainConfig(byte_fallback=True), "byte-level"),
    (TrainConfig(backend="sentencepiece", pretokenizer="gpt2"), "gpt2"),
    (TrainConfig(backend="sentencepiece", normalization="nfc"), "NFC"),
    (TrainConfig(algo="unigram", byte_level=True), "--byte-level"),
    (TrainConfig(algo="unigram", byte_fallback=True), "sentencepiece"),
    (TrainConfig(algo="unigram", min_frequency=3), "--min-frequency"),
    (TrainConfig(algo="wordpiece", pretokenizer="gpt2"), "whitespace"),
    (TrainConfig(special_tokens=("<s>", "<s>")), "distinct"),
])
def test_impossible_combinations_are_one_line_errors(config: TrainConfig, words: str) -> None:
    with pytest.raises(InputError) as err:
        config.resolved()
    assert words in str(err.value) and "\n" not in str(err.value)


def test_vocabulary_below_the_alphabet_names_the_size() -> None:
    assert minimum_vocab(TrainConfig(special_tokens=("<s>",))) == 257
    with pytest.raises(InputError, match=r"vocabulary size 200 is below .* use at least 256$"):
        train_model(WIKI, TrainConfig(vocab_size=200))
    texts = ["abcdefg hij"]  # 11 characters with the space, plus <unk>
    assert minimum_vocab(TrainConfig(byte_level=False), texts) == 12
    with pytest.raises(InputError, match="use at least 12"):
        train_model(texts, TrainConfig(vocab_size=11, byte_level=False))


def test_train_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tokbench.cli import main

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest wider\n" * 20, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["train", "--corpus", f"text:{corpus}", "--vocab-size", "270",
                 "--pretokenizer", "gpt2", "--out", str(out)]) == 0
    assert (out / "tokenizer.json").is_file() and (out / "tokenizer.train.json").is_file()
    assert "vocabulary 270" in capsys.readouterr().out
    assert main(["train", "--corpus", f"text:{corpus}", "--vocab-size", "100k",
                 "--out", str(tmp_path / "big")]) == 2
    err = capsys.readouterr().err
    assert "too small for vocabulary size 102,400" in err and "merges" in err
    assert not (tmp_path / "big").exists()
