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

The metadata is read by :func:`read_metadata`, a small reader of the GGUF container (the
format is a header and a list of typed key/values). ``gguf.GGUFReader`` is not used: it
wraps every array element in its own numpy view and takes 13 s for Llama-3's 128k
tokens and 280k merges, against 0.25 s here, and it reads the tensor index of a model
file that the tokenizer never needs.
"""

from __future__ import annotations

import json
import mmap
import struct
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.adapters.base import (
    EncodedWithOffsets,
    Encoding,
    SourceInfo,
    Tokenizer,
    is_utf8,
    out_of_vocab,
    sha256_file,
)
from tokbench.errors import (
    CorruptFileError,
    InputError,
    TokbenchError,
    require,
)

if TYPE_CHECKING:
    import tokenizers

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)

# GGUF metadata value types
_STRING, _ARRAY = 8, 9
_SCALAR_FORMATS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?",
                   10: "Q", 11: "q", 12: "d"}

# Token types (llama.cpp's llama_token_type; the same numbers as SentencePiece's piece types)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

_PHANTOM = "\u2581"  # "▁", llama.cpp's word-start mark in WordPiece vocabularies

_SPECIAL_ID_KEYS = {
    "bos": "tokenizer.ggml.bos_token_id",
    "eos": "tokenizer.ggml.eos_token_id",
    "unk": "tokenizer.ggml.unknown_token_id",
    "sep": "tokenizer.ggml.seperator_token_id",  # sic: the key is spelled so in GGUF
    "pad": "tokenizer.ggml.padding_token_id",
    "cls": "tokenizer.ggml.cls_token_id",
    "mask": "tokenizer.ggml.mask_token_id",
}
_FLAG_KEYS = {
    "add_bos": "tokenizer.ggml.add_bos_token",
    "add_eos": "tokenizer.ggml.add_eos_token",
    "add_sep": "tokenizer.ggml.add_sep_token",
    "add_space_prefix": "tokenizer.ggml.add_space_prefix",
    "remove_extra_whitespaces": "tokenizer.ggml.remove_extra_whitespaces",
    "lowercase": "tokenizer.ggml.normalizer.lowercase",
    "strip_accents": "tokenizer.ggml.normalizer.strip_accents",
}


class UnsupportedGGUFError(TokbenchError):
    """A readable GGUF file whose tokenizer this adapter cannot reproduce exactly."""


# -- the GGUF container -------------------------------------------------------------------


class _Truncated(Exception):
    """The metadata runs past the end of the file."""


class _Cursor:
    """Sequential little- or big-endian reads from a buffer, with bounds checks."""

    def __init__(self, buf: memoryview, order: str) -> None:
        self.buf = buf
        self.pos = 0
        self.order = order
        self._u32 = struct.Struct(order + "I")
        self._u64 = struct.Struct(order + "Q")

    def need(self, n: int) -> None:
        if n < 0 or self.pos + n > len(self.buf):
            raise _Truncated()

    def u32(self) -> int:
        self.need(4)
        (v,) = self._u32.unpack_from(self.buf, self.pos)
        self.pos += 4
        return int(v)

    def u64(self) -> int:
        self.need(8)
        (v,) = self._u64.unpack_from(self.buf, self.pos)
        self.pos += 8
        return int(v)

    def raw_string(self) -> bytes:
        n = self.u64()
        self.need(n)
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def string_array(self, count: int) -> list[bytes]:
        """``count`` strings; the hot loop of a vocabulary (hundreds of thousands), inlined."""
        self.need(8 * count)  # at least the lengths: guards absurd counts
        buf, pos, end = self.buf, self.pos, len(self.buf)
        unpack = self._u64.unpack_from
        out: list[bytes] = []
        append = out.append
        for _ in range(count):
            if pos + 8 > end:
                raise _Truncated()
            (n,) = unpack(buf, pos)
            pos += 8
            if pos + n > end:
                raise _Truncated()
            append(bytes(buf[pos:pos + n]))
            pos += n
        self.pos = pos
        return out

    def scalars(self, fmt: str, count: int) -> list[Any]:
        size = struct.calcsize(fmt) * count
        self.need(size)
        values = list(struct.unpack_from(f"{self.order}{count}{fmt}", self.buf, self.pos))
        self.pos += size
        return values

    def value(self, vtype: int, key: str) -> Any:
        if vtype == _STRING:
            return self.raw_string().decode("utf-8", "replace")
        if vtype == _ARRAY:
            etype, count = self.u32(), self.u64()
            if etype == _STRING:
                return self.string_array(count)
            if etype == _ARRAY:
                self.need(12 * count)
                return [self.value(_ARRAY, key) for _ in range(count)]
            if etype not in _SCALAR_FORMATS:
                raise ValueError(f"unknown array element type {etype} for key {key!r}")
            return self.scalars(_SCALAR_FORMATS[etype], count)
        if vtype not in _SCALAR_FORMATS:
            raise ValueError(f"unknown value type {vtype} for key {key!r}")
        return self.scalars(_SCALAR_FORMATS[vtype], 1)[0]


def read_metadata(path: str | Path) -> dict[str, Any]:
    """All metadata key/values of a GGUF file (v2 or v3, either byte order).

    Strings come back as ``str``; arrays of strings as lists of raw ``bytes`` (decoded
    where they are used, so a bad token can be named); numbers as Python numbers. The
    format version is added as ``GGUF.version``, as ``gguf.GGUFReader`` does.
    Raises ``CorruptFileError`` naming the file if it is not a readable GGUF file.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if size < 24:
            raise CorruptFileError(f"{path}: not a GGUF file ({size} bytes, too short for the "
                                   "GGUF header)")
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            buf = memoryview(mm)
            try:
                return _parse(buf, path)
            finally:
                buf.release()
    except OSError as e:
        raise InputError(f"{path}: cannot read the file ({e.strerror or e})") from e


def _parse(buf: memoryview, path: Path) -> dict[str, Any]:
    magic = bytes(buf[:4])
    if magic != GGUF_MAGIC:
        raise CorruptFileError(f"{path}: not a GGUF file (starts with {magic!r}, expected "
                               f"{GGUF_MAGIC!r})")
    order = "<"
    (version,) = struct.unpack_from("<I", buf, 4)
    if version & 0xFFFF == 0:  # written on a big-endian machine
        order = ">"
        (version,) = struct.unpack_from(">I", buf, 4)
    if version not in SUPPORTED_VERSIONS:
        raise CorruptFileError(f"{path}: GGUF version {version} is not supported (supported: "
                               f"{', '.join(map(str, SUPPORTED_VERSIONS))}); convert the model "
                               "again with a current llama.cpp")
    cur = _Cursor(buf, order)
    cur.pos = 8
    key = "<header>"
    try:
        cur.u64()  # tensor count: tensors are not needed
        n_kv = cur.u64()
        cur.need(12 * n_kv)  # each key/value takes at least 12 bytes
        out: dict[str, Any] = {"GGUF.version": version}
        for _ in range(n_kv):
            key = cur.raw_string().decode("utf-8", "replace")
            out[key] = cur.value(cur.u32(), key)
    except _Truncated:
        where = "the header" if key == "<header>" else f"key {key!r}"
        raise CorruptFileError(f"{path}: truncated or corrupt GGUF file (the metadata runs past "
                               f"the end of the file at {where})") from None
    except (ValueError, struct.error, OverflowError, MemoryError) as e:
        raise CorruptFileError(f"{path}: corrupt GGUF metadata at key {key!r} ({e})") from None
    return out


# -- the tokenizer metadata ---------------------------------------------------------------------


@dataclass(frozen=True)
class GGUFVocab:
    """The ``tokenizer.ggml.*`` metadata of a GGUF file, checked for consistency."""

    path: str
    version: int
    model: str  # tokenizer.ggml.model: "llama", "bert", "gpt2", ...
    pre: str | None  # tokenizer.ggml.pre
    tokens: list[str]
    token_types: list[int]
    scores: list[float] | None
    merges: list[str] | None
    special_ids: dict[str, int]  # "bos", "eos", "unk", ... as the file gives them
    flags: dict[str, bool]  # "add_bos", "add_space_prefix", "lowercase", ... as given
    charsmap: bytes | None = None  # tokenizer.ggml.precompiled_charsmap (t5)
    architecture: str | None = None
    general_name: str | None = None

    def info(self) -> dict[str, Any]:
        """What the file says about its tokenizer (for ``describe()``), without the lists."""
        return {"gguf_version": self.version, "model": self.model, "pre": self.pre,
                "architecture": self.architecture, "general_name": self.general_name,
                "n_tokens": len(self.tokens), "n_merges": len(self.merges or ()),
                "special_ids": dict(self.special_ids), "flags": dict(self.flags)}


def _strings(values: Any, key: str, path: str) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, bytes) for v in values):
        raise CorruptFileError(f"{path}: {key} is not an array of strings")
    try:
        return [v.decode("utf-8") for v in values]
    except UnicodeDecodeError:
        bad = next(i for i, v in enumerate(values) if not is_utf8(v))
        raise CorruptFileError(f"{path}: {key}[{bad}] is not valid UTF-8 "
                               f"({values[bad][:40]!r})") from None


def read_vocab(path: str | Path) -> GGUFVocab:
    """The tokenizer metadata of the GGUF file at ``path``."""
    path = Path(path)
    where = str(path)
    meta = read_metadata(path)
    model = meta.get("tokenizer.ggml.model")
    if not isinstance(model, str):
        raise InputError(f"{where}: this GGUF file holds no tokenizer (no tokenizer.ggml.model "
                         "key); use a GGUF file converted with its vocabulary")
    if "tokenizer.ggml.tokens" not in meta:
        raise CorruptFileError(f"{where}: tokenizer.ggml.tokens is missing")
    tokens = _strings(meta["tokenizer.ggml.tokens"], "tokenizer.ggml.tokens", where)
    n = len(tokens)
    types = meta.get("tokenizer.ggml.token_type")
    if types is None:
        types = [NORMAL] * n
    scores = meta.get("tokenizer.ggml.scores")
    for key, values in (("tokenizer.ggml.token_type", types), ("tokenizer.ggml.scores", scores)):
        if values is not None and (not isinstance(values, list) or len(values) != n):
            got = len(values) if isinstance(values, list) else type(values).__name__
            raise CorruptFileError(f"{where}: {key} has {got} entries for {n} tokens")
    merges = meta.get("tokenizer.ggml.merges")
    special_ids = {}
    for name, key in _SPECIAL_ID_KEYS.items():
        value = meta.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n:
            special_ids[name] = value
    flags = {name: bool(meta[key]) for name, key in _FLAG_KEYS.items() if key in meta}
    pre = meta.get("tokenizer.ggml.pre")
    charsmap = meta.get("tokenizer.ggml.precompiled_charsmap")
    if charsmap is not None and not (isinstance(charsmap, list)
                                     and all(isinstance(b, int) for b in charsmap)):
        raise CorruptFileError(f"{where}: tokenizer.ggml.precompiled_charsmap is not bytes")
    arch = meta.get("general.architecture")
    gname = meta.get("general.name")
    return GGUFVocab(
        path=where, version=int(meta["GGUF.version"]), model=model,
        pre=pre if isinstance(pre, str) else None, tokens=tokens,
        token_types=[int(t) for t in types],
        scores=[float(s) for s in scores] if scores is not None else None,
        merges=_strings(merges, "tokenizer.ggml.merges", where) if merges is not None else None,
        special_ids=special_ids, flags=flags,
        charsmap=bytes(b & 0xFF for b in charsmap) if charsmap is not None else None,
        architecture=arch if isinstance(arch, str) else None,
        general_name=gname if isinstance(gname, str) else None)


# -- llama and t5: SentencePiece BPE and Unigram ------------------------------------------------


def _pb_varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int32 fields are sent as 10-byte varints
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _pb_bytes(number: int, payload: bytes) -> bytes:
    return _pb_varint(number << 3 | 2) + _pb_varint(len(payload)) + payload


def _pb_int(number: int, value: int) -> bytes:
    return _pb_varint(number << 3) + _pb_varint(value)


def _pb_float(number: int, value: float) -> bytes:
    return _pb_varint(number << 3 | 5) + struct.pack("<f", value)


def sentencepiece_proto(vocab: GGUFVocab) -> bytes:
    """A serialized SentencePiece ModelProto equivalent to a ``llama`` or ``t5`` GGUF vocabulary.

    ``llama``: BPE over the pieces and scores; ``t5``: Unigram. Byte fallback when the
    file has byte pieces; the dummy prefix and extra-whitespace removal as the file says,
    else llama.cpp's defaults (prefix on for llama, off for t5; removal off); whitespace
    escaped as ``▁``; the file's precompiled normalization map (T5, XLM-R) if it has one,
    else the identity (no NFKC). User-defined pieces get their ``▁`` back (llama.cpp
    stores them with spaces). SentencePiece wants exactly one UNKNOWN piece: the file's
    unknown id (else the first UNKNOWN piece, else id 0 as llama.cpp assumes) is that
    piece, other UNKNOWN-typed pieces (llama.cpp's padding) become UNUSED.
    """
    n = len(vocab.tokens)
    types = vocab.token_types
    unk = vocab.special_ids.get("unk")
    if unk is None:
        unk = next((i for i, t in enumerate(types) if t == UNKNOWN), 0)
    scores = vocab.scores if vocab.scores is not None else [0.0] * n
    parts = []
    for i, (piece, score, ttype) in enumerate(zip(vocab.tokens, scores, types, strict=True)):
        if i == unk:
            ttype = UNKNOWN
        elif ttype == UNKNOWN:
            ttype = UNUSED
        elif ttype not in (NORMAL, CONTROL, USER_DEFINED, UNUSED, BYTE):
            ttype = NORMAL  # 0 (undefined) in old files
        if ttype == USER_DEFINED and " " in piece:
            # llama.cpp writes user-defined pieces with "▁" as spaces (Gemma's runs of
            # whitespace, ids 138-167); SentencePiece matches them on the escaped text
            piece = piece.replace(" ", "\u2581")
        parts.append(_pb_bytes(1, _pb_bytes(1, piece.encode("utf-8")) + _pb_float(2, score)
                               + _pb_int(3, ttype)))
    byte_fallback = BYTE in types
    bos = vocab.special_ids.get("bos", -1)
    eos = vocab.special_ids.get("eos", -1)
    pad = vocab.special_ids.get("pad", -1)
    unigram = vocab.model == "t5"
    trainer = (_pb_int(3, 1 if unigram else 2)  # model_type UNIGRAM or BPE
               + _pb_int(4, n)  # vocab_size
               + _pb_int(35, int(byte_fallback))
               + _pb_int(40, unk) + _pb_int(41, bos) + _pb_int(42, eos) + _pb_int(43, pad))
    charsmap = bytes(vocab.charsmap or b"")
    normalizer = (_pb_bytes(1, b"precompiled" if charsmap else b"identity")
                  + (_pb_bytes(2, charsmap) if charsmap else b"")
                  + _pb_int(3, int(vocab.flags.get("add_space_prefix", not unigram)))
                  + _pb_int(4, int(vocab.flags.get("remove_extra_whitespaces", False)))
                  + _pb_int(5, 1))  # escape whitespaces as "▁"
    return b"".join(parts) + _pb_bytes(2, trainer) + _pb_bytes(3, normalizer)


def _load_sentencepiece(vocab: GGUFVocab, name: str, source: SourceInfo) -> Tokenizer:
    from tokbench.adapters.sentencepiece_adapter import load as load_sentencepiece

    return load_sentencepiece(sentencepiece_proto(vocab), name=name, source=source)


# -- bert: WordPiece ---------------------------------------------------------------------------


def _import_tokenizers() -> Any:
    return require("tokenizers", purpose="GGUF WordPiece and BPE vocabularies")


def wordpiece_vocab(vocab: GGUFVocab) -> dict[str, int]:
    """BERT's own pieces back from llama.cpp's phantom-space spelling.

    ``▁word`` -> ``word``, control tokens and bracketed ``[unused0]`` (older converters
    left those alone) as they are, any other piece ``x`` -> ``##x``. A file without
    any ``▁`` piece was written before the phantom spelling and is used as it is.
    """
    phantom = any(t.startswith(_PHANTOM) for t in vocab.tokens)
    out: dict[str, int] = {}
    for i, (tok, ttype) in enumerate(zip(vocab.tokens, vocab.token_types, strict=True)):
        if not phantom:
            piece = tok
        elif tok.startswith(_PHANTOM):
            piece = tok[1:]
        elif ttype == CONTROL or (tok.startswith("[") and tok.endswith("]")):
            piece = tok
        else:
            piece = "##" + tok
        out.setdefault(piece, i)
    return out


def _added_tokens(tk: Any, pieces: Sequence[str], token_types: Sequence[int]) -> list[Any]:
    """CONTROL tokens as special added tokens (plain text in the input, since the
    ``tokenizers`` adapter turns special-token matching off) and USER_DEFINED ones as
    plain added tokens, matched in the raw text before anything else."""
    out = []
    for piece, ttype in zip(pieces, token_types, strict=True):
        if piece and ttype in (CONTROL, USER_DEFINED):
            out.append(tk.AddedToken(piece, special=ttype == CONTROL, normalized=False))
    return out


def _add_tokens(backend: tokenizers.Tokenizer, added: list[Any]) -> None:
    special = [t for t in added if t.special]
    plain = [t for t in added if not t.special]
    if special:
        backend.add_special_tokens(special)
    if plain:
        backend.add_tokens(plain)


def build_wordpiece(vocab: GGUFVocab) -> tokenizers.Tokenizer:
    """A ``tokenizers`` WordPiece tokenizer equivalent to a ``bert`` GGUF vocabulary.

    Lower-casing and accent stripping follow ``tokenizer.ggml.normalizer.*`` with
    llama.cpp's defaults (lower-case on, strip accents as lower-case), as BERT's
    ``strip_accents=None`` does; Chinese characters are split; ``[UNK]`` for words with
    no pieces; words over 100 characters are unknown, as in BERT.
    """
    tk = _import_tokenizers()
    pieces = wordpiece_vocab(vocab)
    unk_id = vocab.special_ids.get("unk", 100 if len(vocab.tokens) > 100 else None)
    if unk_id is None:
        raise CorruptFileError(f"{vocab.path}: WordPiece vocabulary without an unknown token "
                               "(no tokenizer.ggml.unknown_token_id)")
    by_id = {i: p for p, i in pieces.items()}
    lowercase = vocab.flags.get("lowercase", True)
    strip_accents = vocab.flags.get("strip_accents", lowercase)
    model = tk.models.WordPiece(pieces, unk_token=by_id.get(unk_id, "[UNK]"),
                                max_input_chars_per_word=100)
    backend: tokenizers.Tokenizer = tk.Tokenizer(model)
    backend.normalizer = tk.normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=strip_accents,
        lowercase=lowercase)
    backend.pre_tokenizer = tk.pre_tokenizers.BertPreTokenizer()
    backend.decoder = tk.decoders.WordPiece(prefix="##", cleanup=False)
    by_id_all = [by_id.get(i, "") for i in range(len(vocab.tokens))]
    _add_tokens(backend, _added_tokens(tk, by_id_all, vocab.token_types))
    return backend


# -- gpt2: byte-level BPE --------------------------------------------------------------------------

_CONTRACTIONS_CI = "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
LLAMA3_PATTERN = (_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                  r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_PATTERN = (_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
                 r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN35_PATTERN = (_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"
                  r"| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_CJK_RUNS = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
_DEEPSEEK_LLM_LETTERS = (
    "\\s?[A-Za-z\xb5\xc0-\xd6\xd8-\xf6\xf8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af"
    "\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1"
    "\u03a3-\u03f5\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5"
    "\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a"
    "\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57\u1f59\u1f5b\u1f5d"
    "\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-\u1fd3"
    "\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107\u210a-\u2113\u2115"
    "\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f"
    "\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3"
    "\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf"
    "\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f"
    "\U000104b0-\U000104d3\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2"
    "\U000118a0-\U000118df\U0001e900-\U0001e943]+")
_DEEPSEEK_LLM_PUNCT = "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+"

# A pre-tokenizer step: ("split", regex) isolates every match; ("digits", individual);
# ("punct",) isolates punctuation runs; ("bytelevel", use_gpt2_regex) is always last.
_Step = tuple[Any, ...]


@dataclass(frozen=True)
class BytePreTokenizer:
    """How an original byte-level BPE ``tokenizer.json`` normalizes and splits text."""

    steps: tuple[_Step, ...]
    nfc: bool = False
    ignore_merges: bool = False  # a pre-token that is a whole vocabulary entry is kept whole
    models: str = ""


_GPT2 = BytePreTokenizer((("bytelevel", True),), models="GPT-2")
_LLAMA3 = BytePreTokenizer((("split", LLAMA3_PATTERN), ("bytelevel", False)),
                           ignore_merges=True, models="Llama 3")
#: ``tokenizer.ggml.pre`` values this adapter knows, each checked against the ids of the
#: original tokenizer (llama.cpp's ``ggml-vocab-*.gguf.inp/.out`` test pairs).
PRE_TOKENIZERS: dict[str, BytePreTokenizer] = {
    "gpt-2": _GPT2,
    "llama-bpe": _LLAMA3,
    "llama3": _LLAMA3,  # older names llama.cpp gave the same pre-tokenizer
    "llama-v3": _LLAMA3,
    "qwen2": BytePreTokenizer((("split", QWEN2_PATTERN), ("bytelevel", False)), nfc=True,
                              models="Qwen 1.5 / 2 / 2.5"),
    "qwen35": BytePreTokenizer((("split", QWEN35_PATTERN), ("bytelevel", False)),
                               models="Qwen 3.5"),
    "mpt": BytePreTokenizer((("bytelevel", True),), nfc=True, models="MPT (GPT-NeoX)"),
    "starcoder": BytePreTokenizer((("digits", True), ("bytelevel", True)), models="StarCoder"),
    "refact": BytePreTokenizer((("digits", True), ("bytelevel", True)), models="Refact"),
    "command-r": BytePreTokenizer((("digits", True), ("bytelevel", True)), nfc=True,
                                  models="Command-R"),
    "falcon": BytePreTokenizer((("punct",), ("bytelevel", True), ("digits", False),
                                ("split", "[0-9][0-9][0-9]")), models="Falcon"),
    "deepseek-coder": BytePreTokenizer(
        (("split", "[\r\n]"), ("split", r"\s?\p{L}+"), ("split", r"\s?\p{P}+"),
         ("split", _CJK_RUNS), ("digits", True), ("bytelevel", False)),
        models="DeepSeek Coder"),
    "deepseek-llm": BytePreTokenizer(
        (("split", "[\r\n]"), ("split", _DEEPSEEK_LLM_LETTERS), ("split", _DEEPSEEK_LLM_PUNCT),
         ("split", r"\s+$"), ("split", _CJK_RUNS), ("digits", False), ("bytelevel", False)),
        models="DeepSeek LLM"),
}


def _pre_tokenizer(spec: BytePreTokenizer) -> Any:
    tk = _import_tokenizers()
    pre = tk.pre_tokenizers
    steps = []
    for step in spec.steps:
        if step[0] == "split":
            steps.append(pre.Split(tk.Regex(step[1]), behavior="isolated", invert=False))
        elif step[0] == "digits":
            steps.append(pre.Digits(individual_digits=step[1]))
        elif step[0] == "punct":
            steps.append(pre.Punctuation(behavior="contiguous"))
        else:
            steps.append(pre.ByteLevel(add_prefix_space=False, use_regex=step[1]))
    return steps[0] if len(steps) == 1 else pre.Sequence(steps)


def supported_pre() -> str:
    """The known ``tokenizer.ggml.pre`` values, for messages."""
    return ", ".join(sorted(PRE_TOKENIZERS))


def bpe_merges(vocab: GGUFVocab) -> list[tuple[str, str]]:
    """``tokenizer.ggml.merges`` as pairs (split at the first space after the first character,
    as llama.cpp does)."""
    if not vocab.merges:
        raise CorruptFileError(f"{vocab.path}: byte-level BPE vocabulary without "
                               "tokenizer.ggml.merges")
    out = []
    for i, merge in enumerate(vocab.merges):
        cut = merge.find(" ", 1)
        if cut < 0:
            raise CorruptFileError(f"{vocab.path}: tokenizer.ggml.merges[{i}] {merge[:40]!r} is "
                                   "not two pieces separated by a space")
        out.append((merge[:cut], merge[cut + 1:]))
    return out


def build_byte_bpe(vocab: GGUFVocab, pre: str) -> tokenizers.Tokenizer:
    """A ``tokenizers`` byte-level BPE equivalent to a ``gpt2`` GGUF vocabulary."""
    spec = PRE_TOKENIZERS.get(pre)
    if spec is None:
        raise UnsupportedGGUFError(
            f"{vocab.path}: unsupported GGUF pre-tokenizer {pre!r}; supported: "
            f"{supported_pre()} (pass pre=NAME if the model uses one of these)")
    tk = _import_tokenizers()
    pieces: dict[str, int] = {}
    for i, tok in enumerate(vocab.tokens):
        pieces.setdefault(tok, i)
    try:
        model = tk.models.BPE(pieces, bpe_merges(vocab), ignore_merges=spec.ignore_merges)
    except Exception as e:  # tokenizers names the merge whose pieces are not in the vocab
        raise CorruptFileError(f"{vocab.path}: inconsistent BPE merges "
                               f"({str(e).splitlines()[0][:200]})") from e
    backend: tokenizers.Tokenizer = tk.Tokenizer(model)
    if spec.nfc:
        backend.normalizer = tk.normalizers.NFC()
    backend.pre_tokenizer = _pre_tokenizer(spec)
    backend.decoder = tk.decoders.ByteLevel()
    _add_tokens(backend, _added_tokens(tk, vocab.tokens, vocab.token_types))
    return backend


def _component(obj: Any) -> Any:
    """A ``tokenizers`` normalizer / pre-tokenizer / decoder as its ``tokenizer.json`` node."""
    return None if obj is None else json.loads(obj.__getstate__())


def _load_tokenizers(backend: tokenizers.Tokenizer, model: dict[str, Any], name: str,
                     source: SourceInfo) -> Tokenizer:
    """The ``tokenizers`` adapter's tokenizer around ``backend``.

    Its ``load`` would serialize the whole vocabulary to JSON and parse it back (1.4 s
    for Llama-3) to switch off truncation, padding and decoder clean-up, none of which a
    tokenizer built here has; the adapter class is given the ``tokenizer.json`` nodes it
    reads (``model`` without the vocabulary) instead.
    """
    from tokbench.adapters.hf_tokenizers import HFTokenizersTokenizer

    spec = {"truncation": None, "padding": None, "model": model,
            "normalizer": _component(backend.normalizer),
            "pre_tokenizer": _component(backend.pre_tokenizer),
            "decoder": _component(backend.decoder)}
    return HFTokenizersTokenizer(name, source, backend, spec)


# -- the adapter --------------------------------------------------------------------------------

MODELS = {"llama": "SentencePiece BPE", "t5": "SentencePiece Unigram", "bert": "WordPiece",
          "gpt2": "byte-level BPE"}
OPTIONS = ("pre",)


def load(path: str | Path, *, name: str, source: SourceInfo | None = None,
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
    source = source or SourceInfo(kind="file", location=str(path), path=str(path))
    if source.path is None:
        source = replace(source, path=str(path))
    inner: Tokenizer
    if vocab.model in ("llama", "t5"):
        inner = _load_sentencepiece(vocab, name, source)
    elif vocab.model == "bert":
        backend = build_wordpiece(vocab)
        model = {"type": "WordPiece", "unk_token": backend.model.unk_token,
                 "continuing_subword_prefix": "##", "max_input_chars_per_word": 100}
        inner = _load_tokenizers(backend, model, name, source)
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
        inner = _load_tokenizers(build_byte_bpe(vocab, str(pre)), model, name, source)
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

    def __init__(self, name: str, source: SourceInfo, inner: Tokenizer, vocab: GGUFVocab) -> None:
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
