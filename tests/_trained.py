"""Small tokenizers trained on the fly for the adapter tests (no downloads).

Each helper trains once per test session into one temporary folder and returns the
path of the file (or folder) it wrote. The corpus is a handful of sentences written
for these tests.
"""

from __future__ import annotations

import atexit
import base64
import functools
import json
import shutil
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer

CORPUS = [
    "the quick brown fox jumps over the lazy dog",
    "a tokenizer splits text into tokens and maps each token to an id",
    "the cat sat on the mat and the dog sat on the log",
    "numbers like 12 and 345 are split into digits",
    "the weather is nice today so we walk to the park",
    "café au lait, crème brûlée et déjà vu",
    "hello world, hello tokens, hello again!",
    "she sells sea shells by the sea shore.",
    "東京は日本の首都です",
    "こんにちは世界",
    "the end of the story is near the end of the book",
    "reading and writing are tokens of learning",
]
SPECIALS_BPE = ["<|endoftext|>"]
SPECIALS_UNIGRAM = ["<unk>", "<s>", "</s>"]
SPECIALS_WORDPIECE = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


@functools.cache
def workdir() -> Path:
    """One temporary folder per test session, removed at exit."""
    path = Path(tempfile.mkdtemp(prefix="tokbench-trained-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


@functools.cache
def hf_bpe_bytelevel() -> Path:
    """Byte-level BPE (GPT-2 style), 300 ids, ``<|endoftext|>`` = 0."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=SPECIALS_BPE,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    path = workdir() / "bpe-bytelevel.json"
    tok.save(str(path))
    return path


@functools.cache
def hf_unigram_metaspace() -> Path:
    """Unigram with NFKC and Metaspace (XLM-R style), ``<unk>`` = 0, no byte fallback."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=150, special_tokens=SPECIALS_UNIGRAM,
                                      unk_token="<unk>", show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    path = workdir() / "unigram-metaspace.json"
    tok.save(str(path))
    return path


@functools.cache
def hf_wordpiece() -> Path:
    """Lower-casing BERT-style WordPiece with ``[UNK]`` and ``##`` continuations."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()  # cleanup=True, as BERT's tokenizer.json has
    trainer = trainers.WordPieceTrainer(vocab_size=200, special_tokens=SPECIALS_WORDPIECE,
                                        show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    path = workdir() / "wordpiece.json"
    tok.save(str(path))
    return path


def _train_sentencepiece(prefix: str, **options: Any) -> Path:
    import sentencepiece as spm

    model_prefix = workdir() / prefix
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS * 5),
                                   model_prefix=str(model_prefix), character_coverage=1.0,
                                   minloglevel=2, num_threads=1, **options)
    return model_prefix.with_suffix(".model")


@functools.cache
def sp_bpe_byte_fallback() -> Path:
    """SentencePiece BPE, byte fallback, identity normalization (so it is lossless)."""
    return _train_sentencepiece("sp-bpe", model_type="bpe", vocab_size=400, byte_fallback=True,
                                normalization_rule_name="identity",
                                remove_extra_whitespaces=False)


@functools.cache
def sp_unigram() -> Path:
    """SentencePiece Unigram with the default nmt_nfkc normalizer and no byte fallback."""
    return _train_sentencepiece("sp-unigram", model_type="unigram", vocab_size=120,
                                hard_vocab_limit=False)


# A hand-written tiktoken rank file: the 256 single bytes (rank = byte value), then
# merges in priority order. " abc ab" splits (r50k pattern) into " abc" and " ab";
# " abc" -> [32, a, b, c] -> ab (256) -> abc (258, before " ab" 259) -> [32, 258];
# " ab" -> [32, a, b] -> ab (256) -> " ab" (259) -> [259].
TIKTOKEN_MERGES = [b"ab", b"bc", b"abc", b" ab"]  # ranks 256..259
TIKTOKEN_SPECIALS = {"<|endoftext|>": 260}


@functools.cache
def tiktoken_rank_file() -> Path:
    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    lines += [base64.b64encode(m) + b" %d" % (256 + k) for k, m in enumerate(TIKTOKEN_MERGES)]
    path = workdir() / "tiny.tiktoken"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


TEKKEN_SPECIALS = ["<unk>", "<s>", "</s>"]
TEKKEN_NUM_SPECIAL = 5  # two unnamed fillers <SPECIAL_3>, <SPECIAL_4>


@functools.cache
def tekken_file() -> Path:
    """A Tekken JSON with the same ranks as ``tiktoken_rank_file`` after 5 special ids."""
    from tokbench.adapters.tiktoken_adapter import R50K_PAT_STR

    tokens = [bytes([b]) for b in range(256)] + TIKTOKEN_MERGES
    spec = {
        "config": {"pattern": R50K_PAT_STR, "num_vocab_tokens": len(tokens),
                   "default_vocab_size": TEKKEN_NUM_SPECIAL + len(tokens),
                   "default_num_special_tokens": TEKKEN_NUM_SPECIAL, "version": "v7"},
        "vocab": [{"rank": r, "token_bytes": base64.b64encode(t).decode("ascii"),
                   "token_str": t.decode("utf-8", "replace")} for r, t in enumerate(tokens)],
        "special_tokens": [{"rank": r, "token_str": s, "is_control": True}
                           for r, s in enumerate(TEKKEN_SPECIALS)],
    }
    path = workdir() / "tekken-tiny.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _save_transformers(tokenizer_json: Path, folder: str, **special: str) -> Path:
    from transformers import PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_json), **special)
    out = workdir() / folder
    tok.save_pretrained(str(out))
    return out


@functools.cache
def transformers_wordpiece_dir() -> Path:
    """``save_pretrained`` folder of the WordPiece tokenizer (a BERT-like fast tokenizer)."""
    return _save_transformers(hf_wordpiece(), "tf-wordpiece", unk_token="[UNK]",
                              cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]",
                              mask_token="[MASK]")


@functools.cache
def transformers_bpe_dir() -> Path:
    """``save_pretrained`` folder of the byte-level BPE tokenizer."""
    return _save_transformers(hf_bpe_bytelevel(), "tf-bpe", eos_token="<|endoftext|>")


# -- loaded adapters, one per kind, shared by the test modules ----------------------------
LOSSLESS = ("bytes", "chars", "tiktoken", "tekken", "hf-bpe", "sp-bpe", "tf-bpe")
LOSSY = ("hf-unigram", "hf-wordpiece", "sp-unigram", "tf-wordpiece")
ALL = LOSSLESS + LOSSY


@functools.cache
def adapter(kind: str) -> Tokenizer:
    """A loaded adapter of one kind (see ``ALL``), once per session."""
    from tokbench.adapters import baselines, hf_tokenizers, sentencepiece_adapter
    from tokbench.adapters import tiktoken_adapter as tt
    from tokbench.adapters import transformers_adapter as tf

    loaders: dict[str, Callable[[], Tokenizer]] = {
        "bytes": lambda: baselines.load_bytes(name="bytes"),
        "chars": lambda: baselines.load_chars(name="chars"),
        "tiktoken": lambda: tt.load(tiktoken_rank_file(), name="tiny-tiktoken",
                                    pat_str=tt.R50K_PAT_STR, special_tokens=TIKTOKEN_SPECIALS,
                                    explicit_n_vocab=261),
        "tekken": lambda: tt.load_tekken(tekken_file(), name="tiny-tekken"),
        "hf-bpe": lambda: hf_tokenizers.load(hf_bpe_bytelevel(), name="hf-bpe"),
        "hf-unigram": lambda: hf_tokenizers.load(hf_unigram_metaspace(), name="hf-unigram"),
        "hf-wordpiece": lambda: hf_tokenizers.load(hf_wordpiece(), name="hf-wordpiece"),
        "sp-bpe": lambda: sentencepiece_adapter.load(sp_bpe_byte_fallback(), name="sp-bpe"),
        "sp-unigram": lambda: sentencepiece_adapter.load(sp_unigram(), name="sp-unigram"),
        "tf-bpe": lambda: tf.load(transformers_bpe_dir(), name="tf-bpe"),
        "tf-wordpiece": lambda: tf.load(transformers_wordpiece_dir(), name="tf-wordpiece"),
    }
    return loaders[kind]()


def bert_pretokens(text: str) -> list[tuple[str, int]]:
    """BERT's basic pre-tokenization by hand, with each word's character offset.

    Splits on whitespace and on punctuation (ASCII non-alphanumerics and Unicode
    ``P*``, each its own word); other symbols such as ``€`` stay inside words. Control
    characters and CJK ideographs (handled specially by BERT) are not covered.
    """
    def punct(c: str) -> bool:
        cp = ord(c)
        return (33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126
                or unicodedata.category(c).startswith("P"))

    words: list[tuple[str, int]] = []
    k = 0
    while k < len(text):
        if text[k].isspace():
            k += 1
        elif punct(text[k]):
            words.append((text[k], k))
            k += 1
        else:
            start = k
            while k < len(text) and not text[k].isspace() and not punct(text[k]):
                k += 1
            words.append((text[start:k], start))
    return words
