"""The GGUF container and its tokenizer metadata (``tokenizer.ggml.*``), read without
the ``gguf`` package.

The format is a header and a list of typed key/values. ``gguf.GGUFReader`` is not used: it
wraps every array element in its own numpy view and takes 13 s for Llama-3's 128k
tokens and 280k merges, against 0.25 s here, and it reads the tensor index of a model
file that the tokenizer never needs.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokbench.adapters.base import is_utf8
from tokbench.errors import CorruptFileError, InputError, TokbenchError

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)

# GGUF metadata value types
_STRING, _ARRAY = 8, 9
_SCALAR_FORMATS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?",
                   10: "Q", 11: "q", 12: "d"}

# Token types (llama.cpp's llama_token_type; the same numbers as SentencePiece's piece types)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

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
