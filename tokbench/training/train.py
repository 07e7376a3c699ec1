"""Train a tokenizer on any corpus or suite spec and save it where tokbench can load it.

``train(corpus, config, out)`` trains a BPE, Unigram or WordPiece vocabulary with Hugging
Face ``tokenizers`` or SentencePiece and writes the backend's own file (``tokenizer.json``
or ``.model``) plus a sidecar ``<stem>.train.json`` holding the training config and the
corpus hash. ``load_trained(path)`` loads the result through the adapters; the loader's
``file:PATH`` spec works on it too.

Byte-level BPE (``tokenizers``) is trained with the full 256-byte alphabet and no
``limit_alphabet``; ``derive_bytelevel`` cuts a large run down to a smaller vocabulary by
keeping its first merges, which is exactly what a run to the smaller size learns (see
``bytelevel_prefix_limit`` and tests/test_sweep.py for why).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import re
import time
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.atomic import write_atomic
from tokbench.errors import InputError, TokbenchError, require
from tokbench.hashing import sha256_file
from tokbench.record import TokenizerSource
from tokbench.version import __version__

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.suites.model import Suite
    from tokbench.suites.stream import AnySuite

ALGOS = ("bpe", "unigram", "wordpiece")
BACKENDS = ("tokenizers", "sentencepiece")
NORMALIZATIONS = ("none", "nfc", "nfkc")

#: tiktoken's r50k_base (GPT-2) and cl100k_base splitting patterns, as tiktoken 0.14 has them
GPT2_PATTERN = (r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|"""
                r"""\s+(?!\S)|\s""")
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
                  r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
#: words with the spaces before them attached, runs of spaces alone
WHITESPACE_PATTERN = r""" ?\S+|\s+(?!\S)|\s+"""
PRETOKENIZERS = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN,
                 "whitespace": WHITESPACE_PATTERN, "none": None}

BYTE_ALPHABET = 256
DEFAULT_MIN_FREQUENCY = 2
UNK_BPE = "<unk>"
UNK_WORDPIECE = "[UNK]"
SIDECAR_SCHEMA = "tokbench.trained"
SIDECAR_VERSION = 1
SP_MAX_SENTENCE_BYTES = 1 << 16
SP_CHARACTER_COVERAGE = 0.9995


def onig_pattern(pattern: str) -> str:
    """The pattern for ``tokenizers``' Oniguruma engine.

    Oniguruma reads ``X{1,3}+`` as "``X{1,3}``, one or more times", not as a possessive
    ``{1,3}``; at the end of an alternative possessive and greedy match the same text,
    so the ``+`` is dropped (the split equals tiktoken's; tests/test_train.py checks).
    """
    return re.sub(r"(\{\d+(?:,\d*)?\})\+", r"\1", pattern)


@dataclass(frozen=True)
class TrainConfig:
    """Every setting that changes a trained vocabulary; recorded in the sidecar.

    ``None`` fields take a default that depends on algorithm and backend (``resolved``):
    byte-level for ``tokenizers`` BPE, pre-tokenizer ``cl100k`` for ``tokenizers``
    (``whitespace`` for WordPiece and SentencePiece), min frequency 2 where the trainer
    has one.
    """

    algo: str = "bpe"
    backend: str = "tokenizers"
    vocab_size: int = 32768
    byte_level: bool | None = None
    byte_fallback: bool = False
    split_digits: bool = False
    pretokenizer: str | None = None
    normalization: str = "none"
    special_tokens: tuple[str, ...] = ()
    min_frequency: int | None = None
    seed: int = 0
    threads: int = 2
    max_sentences: int = 2_000_000  # SentencePiece input_sentence_size (sampled when larger)

    def resolved(self) -> TrainConfig:
        """The config with defaults filled in; an impossible combination is an InputError."""
        c = self
        if c.algo not in ALGOS:
            raise InputError(f"unknown --algo {c.algo!r}; choose one of {', '.join(ALGOS)}")
        if c.backend not in BACKENDS:
            raise InputError(f"unknown --backend {c.backend!r}; choose one of "
                             + ", ".join(BACKENDS))
        if c.normalization not in NORMALIZATIONS:
            raise InputError(f"unknown --normalization {c.normalization!r}; choose one of "
                             + ", ".join(NORMALIZATIONS))
        if c.pretokenizer is not None and c.pretokenizer not in PRETOKENIZERS:
            raise InputError(f"unknown --pretokenizer {c.pretokenizer!r}; choose one of "
                             + ", ".join(PRETOKENIZERS))
        if c.vocab_size < 1:
            raise InputError(f"vocabulary size {c.vocab_size} must be positive")
        if c.threads < 1 or c.max_sentences < 1:
            raise InputError("--threads and --max-sentences must be at least 1")
        if len(set(c.special_tokens)) != len(c.special_tokens) or any(
                not s for s in c.special_tokens):
            raise InputError(f"--special-tokens {','.join(c.special_tokens)!r}: give distinct, "
                             "non-empty tokens separated by commas")
        sp = c.backend == "sentencepiece"
        if sp and c.algo == "wordpiece":
            raise InputError("sentencepiece trains bpe or unigram, not wordpiece; use "
                             "--backend tokenizers for wordpiece")
        byte_level = c.byte_level
        if byte_level is None:
            byte_level = c.algo == "bpe" and not sp
        if byte_level and (sp or c.algo != "bpe"):
            raise InputError("--byte-level is for BPE with --backend tokenizers; SentencePiece "
                             "and other algorithms cover unseen bytes with --byte-fallback")
        if c.byte_fallback and byte_level:
            raise InputError("byte-level BPE already has every byte; --byte-fallback is for "
                             "--no-byte-level BPE and sentencepiece")
        if c.byte_fallback and not sp and c.algo != "bpe":
            raise InputError(f"--byte-fallback with {c.algo} needs --backend sentencepiece "
                             "(tokenizers supports it for BPE)")
        pre = c.pretokenizer or ("whitespace" if sp or c.algo == "wordpiece" else "cl100k")
        if sp and pre in ("gpt2", "cl100k"):
            raise InputError(f"sentencepiece cannot split with the {pre} regex; use "
                             "--pretokenizer whitespace (its own whitespace and script "
                             "splitting) or none")
        if c.algo == "wordpiece" and pre != "whitespace":
            raise InputError("wordpiece needs --pretokenizer whitespace (BERT's split on "
                             "spaces and punctuation)")
        if sp and c.normalization == "nfc":
            raise InputError("sentencepiece has no NFC rule; use --normalization none or nfkc")
        min_freq = c.min_frequency
        if sp or c.algo == "unigram":
            if min_freq is not None:
                raise InputError(f"--min-frequency is for tokenizers BPE and WordPiece; the "
                                 f"{c.backend} {c.algo} trainer has no such setting")
        elif min_freq is None:
            min_freq = DEFAULT_MIN_FREQUENCY
        if min_freq is not None and min_freq < 0:
            raise InputError("--min-frequency must be 0 or more")
        return dataclasses.replace(c, byte_level=byte_level, pretokenizer=pre,
                                   min_frequency=min_freq)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["special_tokens"] = list(self.special_tokens)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["special_tokens"] = tuple(kwargs.get("special_tokens", ()))
        return cls(**kwargs)

    @property
    def derivable(self) -> bool:
        """Whether smaller vocabularies can be cut from one run (byte-level BPE)."""
        return self.algo == "bpe" and self.backend == "tokenizers" and bool(self.byte_level)

    def unk_token(self) -> str | None:
        """The unknown token the backend needs (added as the first special token)."""
        if self.backend == "sentencepiece" or self.byte_level:
            return None
        if self.algo == "wordpiece":
            return UNK_WORDPIECE
        if self.algo == "bpe" and self.byte_fallback:
            return None
        return UNK_BPE

    def all_special_tokens(self) -> list[str]:
        """Special tokens in id order: the unknown token (if any), then the user's."""
        unk = self.unk_token()
        return ([unk] if unk and unk not in self.special_tokens else []) + list(
            self.special_tokens)


def parse_special_tokens(text: str | None) -> tuple[str, ...]:
    """``"<s>,</s>"`` -> ``("<s>", "</s>")``."""
    if not text:
        return ()
    return tuple(t.strip() for t in text.split(",") if t.strip())


# -- corpora --------------------------------------------------------------------------------


class TextStream:
    """A corpus's texts, read again on every pass (a streaming suite from disk, shard by
    shard): training never needs the whole corpus in memory as Python strings."""

    def __init__(self, suites: Sequence[AnySuite]) -> None:
        self.suites = list(suites)

    def __iter__(self) -> Iterator[str]:
        for suite in self.suites:
            for doc in suite:
                yield doc.text

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None


@dataclass
class Corpus:
    """Training text: documents of one or more suites, with a content hash."""

    specs: list[str]
    suites: list[AnySuite]
    sha256: str

    @property
    def texts(self) -> TextStream:
        return TextStream(self.suites)

    @property
    def label(self) -> str:
        return " + ".join(self.specs)

    def describe(self) -> dict[str, Any]:
        documents = size = 0
        for text in self.texts:
            documents += 1
            size += len(text.encode("utf-8"))
        return {"specs": list(self.specs), "sha256": self.sha256, "documents": documents,
                "bytes": size}


def load_corpus(specs: str | Sequence[str | Suite]) -> Corpus:
    """Load the training corpus from suite specs (``text:PATH``, ``flores200?split=dev``...)."""
    from tokbench.suites import load_suite

    items = [specs] if isinstance(specs, str) else list(specs)
    if not items:
        raise InputError("no training corpus; pass --corpus SPEC (e.g. text:corpus.txt)")
    suites = [load_suite(s) if isinstance(s, str) else s for s in items]
    names = [s if isinstance(s, str) else s.name for s in items]
    if len(suites) == 1:
        digest = suites[0].sha256
    else:
        digest = hashlib.sha256("\n".join(s.sha256 for s in suites).encode()).hexdigest()
    return Corpus(names, suites, digest)


def corpus_from_texts(texts: Sequence[str], label: str = "<texts>",
                      sha256: str | None = None) -> Corpus:
    """A corpus of plain texts (hashed here unless ``sha256`` is given)."""
    from tokbench.suites.model import Document, Suite

    docs = [Document(str(i), "und_Zyyy", "text", t) for i, t in enumerate(texts)]
    suite = Suite("texts", "memory", docs, source="memory")
    return Corpus([label], [suite], sha256 or suite.sha256)


def _as_corpus(corpus: Corpus | Sequence[str]) -> Corpus:
    return corpus if isinstance(corpus, Corpus) else corpus_from_texts(corpus)


def alphabet_size(texts: Iterable[str], normalization: str = "none") -> int:
    """Distinct characters of ``texts`` after normalization (the floor of a char vocabulary)."""
    chars: set[str] = set()
    for t in texts:
        if normalization == "nfc":
            t = unicodedata.normalize("NFC", t)
        elif normalization == "nfkc":
            t = unicodedata.normalize("NFKC", t)
        chars.update(t)
    return len(chars)


def minimum_vocab(config: TrainConfig, texts: Iterable[str] | None = None) -> int:
    """The smallest vocabulary the config can have on ``texts``: every byte (byte-level)
    or every character, plus special, unknown and byte-fallback pieces."""
    c = config.resolved()
    specials = len(c.all_special_tokens())
    if c.byte_level:
        return BYTE_ALPHABET + specials
    extra = BYTE_ALPHABET if c.byte_fallback else 0
    if c.backend == "sentencepiece":
        specials += 1  # <unk>
        return specials + extra  # required characters depend on coverage; checked by spm
    return specials + extra + (alphabet_size(texts, c.normalization) if texts is not None else 0)


class CorpusTooSmallError(InputError):
    """The corpus cannot support the requested vocabulary (too few pairs or pieces)."""

    def __init__(self, message: str, max_vocab: int, merges: int | None = None) -> None:
        super().__init__(message)
        self.max_vocab = max_vocab
        self.merges = merges


def too_small(corpus_label: str, config: TrainConfig, reached: int, wanted: Sequence[int],
              base: int | None = None) -> CorpusTooSmallError:
    """The one-line error for sizes a corpus cannot reach."""
    sizes = ", ".join(f"{w:,}" for w in wanted)
    if base is not None:
        merges = reached - base
        why = (f"only {merges:,} merges were possible, then no pair occurred "
               f"{max(config.min_frequency or 1, 1)}+ times (vocabulary {reached:,} = {base:,} "
               f"alphabet and special tokens + {merges:,} merges)")
        fix = "give more text, lower the vocabulary size or --min-frequency"
    else:
        merges = None
        why = f"the trainer could build only {reached:,} pieces"
        fix = "give more text or lower the vocabulary size"
    return CorpusTooSmallError(f"corpus {corpus_label} is too small for vocabulary size "
                               f"{sizes}: {why}; {fix}", reached, merges)


# -- training -------------------------------------------------------------------------------


@dataclass
class TrainedModel:
    """A trained vocabulary in memory: a ``tokenizer.json`` dict or a SentencePiece proto."""

    config: TrainConfig
    json_spec: dict[str, Any] | None = None
    sp_proto: bytes | None = None
    seconds: float = 0.0
    library: str = ""
    library_version: str = ""

    @property
    def vocab_size(self) -> int:
        if self.json_spec is not None:
            return json_vocab_size(self.json_spec)
        assert self.sp_proto is not None
        from tokbench.adapters.sentencepiece_adapter import load

        return load(self.sp_proto, name="size").vocab_size

    def payload(self) -> bytes:
        if self.json_spec is not None:
            return (json.dumps(self.json_spec, ensure_ascii=False, indent=1) + "\n").encode()
        assert self.sp_proto is not None
        return self.sp_proto


def json_vocab_size(spec: dict[str, Any]) -> int:
    """Ids in a ``tokenizer.json`` (model vocabulary plus added tokens)."""
    model = spec.get("model") or {}
    vocab = model.get("vocab") or {}
    ids = set(vocab.values()) if isinstance(vocab, dict) else set(range(len(vocab)))
    ids.update(int(t["id"]) for t in spec.get("added_tokens") or [])
    return len(ids)


def _tokenizers() -> Any:
    return require("tokenizers", purpose="training tokenizers")


def _sentencepiece() -> Any:
    return require("sentencepiece", purpose="training SentencePiece models")


def hf_pipeline(config: TrainConfig) -> tuple[Any, Any]:
    """An untrained ``tokenizers.Tokenizer`` and its trainer for a resolved config."""
    tk = _tokenizers()
    from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

    c = config
    specials = c.all_special_tokens()
    pattern = PRETOKENIZERS[c.pretokenizer or "none"]
    steps: list[Any] = []
    if c.algo == "wordpiece":
        steps.append(pre_tokenizers.BertPreTokenizer())
    elif pattern is not None:
        steps.append(pre_tokenizers.Split(tk.Regex(onig_pattern(pattern)), behavior="isolated"))
    if c.split_digits:
        steps.append(pre_tokenizers.Digits(individual_digits=True))
    if c.byte_level:
        steps.append(pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False))

    model: Any
    trainer: Any
    decoder: Any
    if c.algo == "bpe":
        model = models.BPE(unk_token=c.unk_token(), byte_fallback=c.byte_fallback)
        size = c.vocab_size - (BYTE_ALPHABET if c.byte_fallback else 0)
        # No limit_alphabet: it drops characters of equal count in hash-map order, so two
        # runs could keep different alphabets. Byte-level: all 256 bytes, always.
        trainer = trainers.BpeTrainer(
            vocab_size=max(size, 1), min_frequency=c.min_frequency or 0,
            special_tokens=specials, show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if c.byte_level else [])
        decoder = decoders.ByteLevel() if c.byte_level else (
            decoders.Sequence([decoders.ByteFallback(), decoders.Fuse()]) if c.byte_fallback
            else decoders.Fuse())
    elif c.algo == "unigram":
        model = models.Unigram()
        trainer = trainers.UnigramTrainer(vocab_size=c.vocab_size, special_tokens=specials,
                                          unk_token=c.unk_token(), show_progress=False)
        decoder = decoders.Fuse()
    else:
        model = models.WordPiece(unk_token=UNK_WORDPIECE, continuing_subword_prefix="##")
        trainer = trainers.WordPieceTrainer(vocab_size=c.vocab_size,
                                            min_frequency=c.min_frequency or 0,
                                            special_tokens=specials, show_progress=False,
                                            continuing_subword_prefix="##")
        decoder = decoders.WordPiece(prefix="##")
    tok = tk.Tokenizer(model)
    norm = {"nfc": normalizers.NFC, "nfkc": normalizers.NFKC}.get(c.normalization)
    if norm is not None:
        tok.normalizer = norm()
    if steps:
        tok.pre_tokenizer = steps[0] if len(steps) == 1 else pre_tokenizers.Sequence(steps)
    tok.decoder = decoder
    return tok, trainer


def _add_byte_pieces(spec: dict[str, Any]) -> dict[str, Any]:
    """Insert the 256 byte-fallback pieces ``<0x00>``..``<0xFF>`` after the special tokens."""
    model = spec["model"]
    vocab: dict[str, int] = model["vocab"]
    specials = {int(t["id"]) for t in spec.get("added_tokens") or [] if t.get("special")}
    order = sorted(vocab, key=vocab.__getitem__)
    head = [t for t in order if vocab[t] in specials]
    rest = [t for t in order if vocab[t] not in specials]
    pieces = [f"<0x{b:02X}>" for b in range(BYTE_ALPHABET)]
    new_order = head + [p for p in pieces if p not in vocab] + rest
    new_vocab = {t: i for i, t in enumerate(new_order)}
    added = [{**t, "id": new_vocab[t["content"]]} if t["content"] in new_vocab else t
             for t in spec.get("added_tokens") or []]
    return {**spec, "added_tokens": added, "model": {**model, "vocab": new_vocab}}


def _documents_for_sentencepiece(texts: Iterable[str]) -> Iterator[str]:
    for t in texts:
        for line in t.split("\n"):
            if line.strip():
                yield line


_SP_TOO_HIGH = re.compile(r"Vocabulary size too high \((\d+)\)\. Please set it to a value <= (\d+)")
_SP_TOO_LOW = re.compile(r"smaller than required_chars\. (\d+) vs (\d+)")


def train_model(corpus: Corpus | Sequence[str], config: TrainConfig, *,
                require_size: bool = True) -> TrainedModel:
    """Train in memory. The corpus must support ``config.vocab_size``, else an InputError
    says how large a vocabulary it supports (``require_size=False``: return the smaller
    vocabulary instead; SentencePiece always raises)."""
    c = config.resolved()
    corp = _as_corpus(corpus)
    texts = corp.texts
    if not texts:
        raise InputError(f"corpus {corp.label} has no text to train on")
    floor = minimum_vocab(c, texts)
    if c.vocab_size < floor:
        what = "256 bytes" if c.byte_level else "its characters"
        raise InputError(f"vocabulary size {c.vocab_size:,} is below the alphabet of corpus "
                         f"{corp.label}: {what} and special pieces need {floor:,}; use at "
                         f"least {floor:,}")
    t0 = time.perf_counter()
    if c.backend == "sentencepiece":
        model = _train_sentencepiece(texts, c, corp.label)
    else:
        model = _train_tokenizers(texts, c, corp.label, require_size)
    model.seconds = time.perf_counter() - t0
    return model


def base_vocab(config: TrainConfig) -> int:
    """Ids of a byte-level BPE before its first merge: special tokens and 256 bytes."""
    return BYTE_ALPHABET + len(config.resolved().all_special_tokens())


def _train_tokenizers(texts: Iterable[str], c: TrainConfig, label: str,
                      require_size: bool) -> TrainedModel:
    tk = _tokenizers()
    tok, trainer = hf_pipeline(c)
    tok.train_from_iterator(iter(texts), trainer)
    spec = json.loads(tok.to_str())
    if c.algo == "bpe" and c.byte_fallback:
        spec = _add_byte_pieces(spec)
    got = json_vocab_size(spec)
    if got < c.vocab_size and require_size:
        raise too_small(label, c, got, [c.vocab_size], base_vocab(c) if c.byte_level else None)
    return TrainedModel(c, json_spec=spec, library="tokenizers", library_version=tk.__version__)


def _train_sentencepiece(texts: Iterable[str], c: TrainConfig, label: str) -> TrainedModel:
    spm = _sentencepiece()
    specials = [s for s in c.special_tokens if s != "<unk>"]
    writer = io.BytesIO()
    spm.set_random_generator_seed(c.seed)
    options: dict[str, Any] = dict(
        model_type=c.algo, vocab_size=c.vocab_size, byte_fallback=c.byte_fallback,
        split_digits=c.split_digits, split_by_whitespace=c.pretokenizer != "none",
        normalization_rule_name="identity" if c.normalization == "none" else "nfkc",
        remove_extra_whitespaces=False, character_coverage=SP_CHARACTER_COVERAGE,
        unk_id=0, bos_id=-1, eos_id=-1, pad_id=-1, control_symbols=specials,
        input_sentence_size=c.max_sentences, shuffle_input_sentence=True,
        max_sentence_length=SP_MAX_SENTENCE_BYTES, num_threads=c.threads, minloglevel=2)
    try:
        spm.SentencePieceTrainer.train(sentence_iterator=_documents_for_sentencepiece(texts),
                                       model_writer=writer, **options)
    except RuntimeError as exc:
        text = str(exc)
        high = _SP_TOO_HIGH.search(text)
        if high:
            raise too_small(label, c, int(high.group(2)), [c.vocab_size]) from None
        low = _SP_TOO_LOW.search(text)
        if low:
            raise InputError(f"vocabulary size {c.vocab_size:,} is below the alphabet of corpus "
                             f"{label}: sentencepiece needs {int(low.group(2)):,} pieces for "
                             "its characters and special pieces; raise the size") from None
        raise TokbenchError(f"sentencepiece training failed on corpus {label}: "
                            f"{text.strip().splitlines()[-1][:300]}") from None
    return TrainedModel(c, sp_proto=writer.getvalue(), library="sentencepiece",
                        library_version=spm.__version__)


# -- byte-level BPE: smaller vocabularies from the first merges ------------------------------


def _pair(merge: Any) -> tuple[str, str]:
    if isinstance(merge, str):
        a, _, b = merge.partition(" ")
        return a, b
    return str(merge[0]), str(merge[1])


def bytelevel_layout(spec: dict[str, Any]) -> tuple[int, list[tuple[str, str]]]:
    """``(base, merges)`` of a byte-level BPE ``tokenizer.json``: ids below ``base`` are the
    special tokens and the 256 byte symbols; merge ``k`` should create id ``base + k``."""
    model = spec.get("model") or {}
    if model.get("type") != "BPE":
        raise InputError("not a BPE tokenizer.json; only byte-level BPE can be cut down")
    specials = sum(1 for t in spec.get("added_tokens") or [] if t.get("special"))
    return specials + BYTE_ALPHABET, [_pair(m) for m in model.get("merges") or []]


def bytelevel_prefix_limit(spec: dict[str, Any]) -> int:
    """The largest vocabulary size whose run the first merges of this run reproduce.

    The ``tokenizers`` BPE trainer takes pairs from a max-heap ordered by (count, then the
    smaller pair of ids); ids are given in creation order and the vocabulary size is only
    the stopping test, so two runs make the same merges in the same order until one stops.
    One case breaks this: a merge whose string is already in the vocabulary (two pairs
    spelling the same token) gets no new id, the trainer then keeps a second heap entry
    for a pair and pops equal entries in hash-map order. This returns the vocabulary size
    reached before the first such merge (the whole vocabulary when there is none): every
    size up to it is exact.
    """
    base, merges = bytelevel_layout(spec)
    vocab: dict[str, int] = spec["model"]["vocab"]
    for k, (a, b) in enumerate(merges):
        if vocab.get(a + b) != base + k:
            return base + k
    return min(base + len(merges), len(vocab))


def derive_bytelevel(spec: dict[str, Any], vocab_size: int) -> dict[str, Any]:
    """A smaller byte-level BPE: the special tokens, the 256 bytes and the first merges.

    Exact (equal to training to ``vocab_size`` directly) for sizes up to
    ``bytelevel_prefix_limit(spec)``; larger sizes raise InputError.
    """
    base, _ = bytelevel_layout(spec)
    limit = bytelevel_prefix_limit(spec)
    if vocab_size < base:
        raise InputError(f"vocabulary size {vocab_size:,} is below the alphabet "
                         f"({base:,} = 256 bytes + special tokens)")
    if vocab_size > limit:
        raise InputError(f"vocabulary size {vocab_size:,} cannot be cut from this run: its "
                         f"first {limit - base:,} merges are exact, up to {limit:,}")
    model = spec["model"]
    vocab = {t: i for t, i in model["vocab"].items() if i < vocab_size}
    kept = model["merges"][:vocab_size - base]
    return {**spec, "model": {**model, "vocab": vocab, "merges": kept}}


# -- saving and loading ---------------------------------------------------------------------


def sidecar_path(model_path: str | Path) -> Path:
    """``tokenizer.json`` -> ``tokenizer.train.json``; ``x.model`` -> ``x.train.json``."""
    p = Path(model_path)
    return p.with_name(p.stem + ".train.json")


def output_path(out: str | Path, backend: str) -> Path:
    """The model file for ``--out``: a ``.json``/``.model`` path as given, else a folder
    holding ``tokenizer.json`` / ``tokenizer.model``."""
    p = Path(out)
    want = ".json" if backend == "tokenizers" else ".model"
    if p.suffix in (".json", ".model"):
        if p.suffix != want:
            raise InputError(f"--out {p}: a {backend} tokenizer is saved as a {want} file")
        return p
    return p / f"tokenizer{want}"


@dataclass
class Trained:
    """A trained tokenizer on disk: its file, sidecar and what the sidecar says."""

    path: Path
    sidecar: Path
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def vocab_size(self) -> int:
        return int(self.info["vocab_size"])

    @property
    def config(self) -> TrainConfig:
        return TrainConfig.from_dict(self.info["config"])

    def load(self, name: str | None = None) -> Tokenizer:
        return load_trained(self.path, name=name)


def save_model(model: TrainedModel, path: str | Path, corpus: dict[str, Any],
               extra: dict[str, Any] | None = None) -> Trained:
    """Write the model file, then its sidecar (the sidecar last: its presence means done)."""
    p = Path(path)
    data = model.payload()
    write_atomic(p, data)
    info = {
        "schema": SIDECAR_SCHEMA, "schema_version": SIDECAR_VERSION,
        "file": p.name, "sha256": hashlib.sha256(data).hexdigest(),
        "vocab_size": model.vocab_size,
        "config": model.config.to_dict(), "corpus": corpus,
        "trainer": {"library": model.library, "version": model.library_version,
                    "seconds": round(model.seconds, 3)},
        "tokbench_version": __version__,
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **(extra or {}),
    }
    side = sidecar_path(p)
    write_atomic(side, (json.dumps(info, ensure_ascii=False, indent=1) + "\n").encode())
    return Trained(p, side, info)


def train(corpus: Corpus | Sequence[str], config: TrainConfig, out: str | Path) -> Trained:
    """Train on ``corpus`` and save to ``out`` (file or folder) with its sidecar."""
    c = config.resolved()
    corp = _as_corpus(corpus)
    path = output_path(out, c.backend)
    model = train_model(corp, c)
    return save_model(model, path, corp.describe())


def read_sidecar(path: str | Path) -> dict[str, Any] | None:
    """The sidecar of a trained model file, or None when there is none (or it is not ours)."""
    side = sidecar_path(path)
    if not side.is_file():
        return None
    try:
        info = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return info if isinstance(info, dict) and info.get("schema") == SIDECAR_SCHEMA else None


def find_model_file(path: str | Path) -> Path:
    """The model file of ``path`` (a file, or a folder holding tokenizer.json/.model)."""
    p = Path(path)
    if p.is_dir():
        for name in ("tokenizer.json", "tokenizer.model"):
            if (p / name).is_file():
                return p / name
        raise InputError(f"{p}: no tokenizer.json or tokenizer.model in this folder")
    if not p.is_file():
        raise InputError(f"{p}: no such trained tokenizer file")
    return p


def load_trained(path: str | Path, name: str | None = None) -> Tokenizer:
    """Load a trained tokenizer (file or folder) through its adapter; source kind "trained"."""
    p = find_model_file(path)
    info = read_sidecar(p)
    label = name or (p.parent.name if p.stem == "tokenizer" else p.stem)
    source = TokenizerSource(kind="trained", location=str(p), sha256=sha256_file(p), path=str(p))
    if info is not None and info.get("sha256") not in (None, source.sha256):
        raise InputError(f"{p}: the file changed after training (sha256 differs from "
                         f"{sidecar_path(p).name}); retrain it or delete the sidecar")
    if p.suffix == ".model":
        from tokbench.adapters.sentencepiece_adapter import load as load_sp

        return load_sp(p, name=label, source=source)
    from tokbench.adapters.hf_tokenizers import load as load_hf

    return load_hf(p, name=label, source=source)
