"""GGUF adapter: the tokenizer stored in a llama.cpp GGUF file (a vocab-only file or a model).

A GGUF file carries its tokenizer as metadata (``tokenizer.ggml.*``: model kind, pieces,
scores, token types, merges, pre-tokenizer name, special ids). This adapter rebuilds the
original tokenizer from it and runs it with the library the original used:

* ``llama`` (SentencePiece BPE: Llama 2, Mistral v1, Phi-3): a SentencePiece ModelProto
  (BPE, byte fallback when the file has ``<0xNN>`` pieces, dummy prefix unless the file
  says otherwise, identity normalizer) built in memory and loaded by the sentencepiece
  adapter; ``t5`` (SentencePiece Unigram: T5, XLM-R based models) the same way, with the
  file's precompiled normalization map;
* ``bert`` (WordPiece): a ``tokenizers`` WordPiece with BERT's normalizer and
  pre-tokenizer, loaded by the ``tokenizers`` adapter. llama.cpp stores WordPiece pieces
  in "phantom space" form (``▁word`` starts a word, ``piece`` continues one); they are
  turned back into ``word`` / ``##piece``;
* ``gpt2`` (byte-level BPE with merges): a ``tokenizers`` BPE with the pre-tokenizer and
  normalizer of the original ``tokenizer.json``, chosen by ``tokenizer.ggml.pre``
  (:data:`PRE_TOKENIZERS`); an unknown or missing name is an error, not a guess.

``USER_DEFINED`` tokens are matched in the text before anything else, as llama.cpp and
``tokenizers`` do; ``CONTROL`` tokens are special tokens and, like every special token
here, are plain text when they appear in the input.

The file is read by ``gguf_reader``; the vocabularies are rebuilt by
``gguf_sentencepiece``, ``gguf_wordpiece`` and ``gguf_byte_bpe`` (through
``gguf_tokenizers``); this module chooses the rebuild and is the adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tokbench.adapters.base import (
    EncodedWithOffsets,
    Encoding,
    Tokenizer,
    out_of_vocab,
)
from tokbench.adapters.gguf_byte_bpe import PRE_TOKENIZERS, build_byte_bpe, supported_pre
from tokbench.adapters.gguf_reader import GGUFVocab, UnsupportedGGUFError, read_vocab
from tokbench.adapters.gguf_sentencepiece import load_as_sentencepiece
from tokbench.adapters.gguf_tokenizers import load_as_tokenizers
from tokbench.adapters.gguf_wordpiece import build_wordpiece
from tokbench.errors import InputError
from tokbench.hashing import sha256_file
from tokbench.record import TokenizerSource

MODELS = {"llama": "SentencePiece BPE", "t5": "SentencePiece Unigram", "bert": "WordPiece",
          "gpt2": "byte-level BPE"}
OPTIONS = ("pre",)


def load(path: str | Path, *, name: str, source: TokenizerSource | None = None,
         **options: Any) -> GGUFTokenizer:
    """Load the tokenizer of a GGUF file.

    ``pre`` overrides ``tokenizer.ggml.pre`` for byte-level BPE files (old files lack it).
    """
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InputError(f"gguf adapter: unknown option(s) {', '.join(unknown)}; accepted: "
                         f"{', '.join(OPTIONS)}")
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such GGUF file; give the path of a .gguf file")
    vocab = read_vocab(path)
    source = source or TokenizerSource(kind="file", location=str(path), path=str(path))
    if source.path is None:
        source = replace(source, path=str(path))
    inner: Tokenizer
    if vocab.model in ("llama", "t5"):
        inner = load_as_sentencepiece(vocab, name, source)
    elif vocab.model == "bert":
        backend = build_wordpiece(vocab)
        model = {"type": "WordPiece", "unk_token": backend.model.unk_token,
                 "continuing_subword_prefix": "##", "max_input_chars_per_word": 100}
        inner = load_as_tokenizers(backend, model, name, source)
    elif vocab.model == "gpt2":
        pre = options.get("pre") or vocab.pre
        if not pre or pre == "default":
            raise UnsupportedGGUFError(
                f"{path}: the file does not name its pre-tokenizer (tokenizer.ggml.pre is "
                f"{'missing' if not vocab.pre else repr(vocab.pre)}), so its byte-level BPE "
                f"cannot be reproduced exactly; pass pre=NAME, one of: {supported_pre()}")
        spec = PRE_TOKENIZERS.get(str(pre))
        model = {"type": "BPE", "unk_token": None, "byte_fallback": False,
                 "ignore_merges": bool(spec and spec.ignore_merges)}
        inner = load_as_tokenizers(build_byte_bpe(vocab, str(pre)), model, name, source)
        vocab = replace(vocab, pre=str(pre))
    else:
        raise UnsupportedGGUFError(
            f"{path}: GGUF tokenizer model {vocab.model!r} is not supported; supported: "
            + ", ".join(f"{k} ({v})" for k, v in MODELS.items()))
    return GGUFTokenizer(name, source, inner, vocab)


class GGUFTokenizer(Tokenizer):
    """A GGUF vocabulary, run by the SentencePiece or ``tokenizers`` adapter it was rebuilt as.

    Everything is delegated to that inner tokenizer; ``describe()`` adds what the GGUF
    file says (model kind, pre-tokenizer, special ids, BOS/EOS flags) and the engine.
    """

    backend = "gguf"

    def __init__(self, name: str, source: TokenizerSource, inner: Tokenizer,
                 vocab: GGUFVocab) -> None:
        super().__init__(name, source)
        self.inner = inner
        self.gguf = vocab.info()
        self._n_tokens = len(vocab.tokens)
        self._token_types = vocab.token_types

    # -- what the file says ------------------------------------------------------------------
    @property
    def model(self) -> str:
        """``tokenizer.ggml.model``: "llama", "t5", "bert" or "gpt2"."""
        return str(self.gguf["model"])

    def token_type(self, token_id: int) -> int:
        """The GGUF token type of ``token_id`` (1 normal, 2 unknown, 3 control,
        4 user-defined, 5 unused, 6 byte)."""
        if not 0 <= token_id < len(self._token_types):
            raise out_of_vocab(self, token_id)
        return self._token_types[token_id]

    # -- delegated ---------------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return self._n_tokens

    @property
    def unk_id(self) -> int | None:
        return self.inner.unk_id

    @property
    def special_tokens(self) -> dict[str, int]:
        return self.inner.special_tokens

    @property
    def byte_fallback(self) -> bool:
        return self.inner.byte_fallback

    def is_byte_fallback_token(self, token_id: int) -> bool:
        return self.inner.is_byte_fallback_token(token_id)

    def encode(self, text: str) -> list[int]:
        return self.inner.encode(text)

    def encode_batch(self, texts: Sequence[str], threads: int = 1) -> list[list[int]]:
        return self.inner.encode_batch(texts, threads)

    def encode_batch_offsets(self, texts: Sequence[str], threads: int = 1
                             ) -> list[EncodedWithOffsets]:
        return self.inner.encode_batch_offsets(texts, threads)

    @property
    def offsets_unit(self) -> str:  # type: ignore[override]
        return self.inner.offsets_unit

    def normalize(self, text: str) -> str | None:
        return self.inner.normalize(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self.inner.decode(ids)

    def token_bytes(self, token_id: int) -> bytes:
        return self.inner.token_bytes(token_id)

    def token_str(self, token_id: int) -> str:
        return self.inner.token_str(token_id)

    def encode_with_spans(self, text: str) -> Encoding:
        return self.inner.encode_with_spans(text)

    def backend_version(self) -> str:
        return f"{self.inner.backend} {self.inner.backend_version()}"

    def describe(self) -> dict[str, Any]:
        """The inner tokenizer's description, this file's source (sha256 computed on first
        use: model files are large) and the GGUF metadata."""
        if self.source.sha256 is None and self.source.path:
            self.source = replace(self.source, sha256=sha256_file(self.source.path))
        return {**self.inner.describe(), **super().describe(), "engine": self.inner.backend,
                "gguf": self.gguf}
