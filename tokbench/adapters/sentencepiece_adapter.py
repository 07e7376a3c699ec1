"""SentencePiece adapter (``.model`` files, Llama-2, Mistral v1, T5, XLM-R originals).

``encode`` adds no BOS/EOS. Piece bytes: ``▁`` is a space, ``<0xNN>`` byte pieces are
that byte, control and unknown pieces are empty. The model's settings (byte fallback,
dummy prefix, normalizer) are read from the ModelProto with a small protobuf
wire-format reader, so the ``protobuf`` package is not needed.

``add_dummy_prefix`` makes the first piece start with a ``▁`` that stands for no byte of
the text; ``decode`` removes it, and ``encode_with_spans`` gives it no bytes. Note that
SentencePiece itself decodes control ids to nothing and the unknown id to `` ⁇ ``, and
that a literal ``▁`` in the text decodes as a space.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.adapters.base import (
    EncodedWithOffsets,
    Encoding,
    Tokenizer,
    align_spans,
    check_options,
    first_line,
    out_of_vocab,
    spans_reproduce,
)
from tokbench.errors import CorruptFileError, InputError, require
from tokbench.hashing import sha256_file
from tokbench.record import TokenizerSource

if TYPE_CHECKING:
    import sentencepiece

MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}


# -- protobuf wire format, just enough to read sentencepiece_model.proto -----------------
def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def iter_fields(buf: bytes) -> Iterator[tuple[int, int | bytes]]:
    """``(field number, value)`` of a serialized protobuf message; length-delimited
    values are bytes, varints and fixed-width values are ints."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        value: int | bytes
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = struct.unpack_from("<Q", buf, pos)[0], pos + 8
        elif wire == 2:
            length, pos = _varint(buf, pos)
            if pos + length > len(buf):
                raise ValueError("truncated field")
            value, pos = buf[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = struct.unpack_from("<I", buf, pos)[0], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, value


@dataclass(frozen=True)
class ModelSettings:
    """The ModelProto settings that decide what pieces mean."""

    model_type: str = "unigram"
    byte_fallback: bool = False
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    treat_whitespace_as_suffix: bool = False
    normalizer: str = ""


def read_settings(proto: bytes) -> ModelSettings:
    """Trainer and normalizer settings of a serialized ModelProto (proto2 defaults apply)."""
    values: dict[str, Any] = {}
    for number, value in iter_fields(proto):
        if number == 2 and isinstance(value, bytes):  # trainer_spec
            for n, v in iter_fields(value):
                if n == 3 and isinstance(v, int):
                    values["model_type"] = MODEL_TYPES.get(v, str(v))
                elif n == 35 and isinstance(v, int):
                    values["byte_fallback"] = bool(v)
                elif n == 24 and isinstance(v, int):
                    values["treat_whitespace_as_suffix"] = bool(v)
        elif number == 3 and isinstance(value, bytes):  # normalizer_spec
            for n, v in iter_fields(value):
                if n == 1 and isinstance(v, bytes):
                    values["normalizer"] = v.decode("utf-8", "replace")
                elif n == 3 and isinstance(v, int):
                    values["add_dummy_prefix"] = bool(v)
                elif n == 4 and isinstance(v, int):
                    values["remove_extra_whitespaces"] = bool(v)
    return ModelSettings(**values)


def read_piece_spans(serialized_text: bytes) -> list[tuple[int, int]]:
    """``(begin, end)`` byte offsets of each piece in a serialized SentencePieceText."""
    spans: list[tuple[int, int]] = []
    for number, value in iter_fields(serialized_text):
        if number == 2 and isinstance(value, bytes):  # pieces
            begin = end = 0
            for n, v in iter_fields(value):
                if n == 4 and isinstance(v, int):
                    begin = v
                elif n == 5 and isinstance(v, int):
                    end = v
            spans.append((begin, end))
    return spans


# -- loading ----------------------------------------------------------------------------
def _import_sentencepiece() -> Any:
    return require("sentencepiece", purpose="SentencePiece .model files")


def load(path_or_obj: str | Path | bytes | sentencepiece.SentencePieceProcessor, *, name: str,
         source: TokenizerSource | None = None, **options: Any) -> SentencePieceTokenizer:
    """Load a SentencePiece ``.model`` file, serialized ModelProto bytes or a processor.

    ``fairseq=True`` numbers the pieces as fairseq's dictionary does (XLM-R, the
    original of its ``tokenizer.json``): see :class:`FairseqSentencePieceTokenizer`.
    """
    check_options("sentencepiece", options, ("fairseq",))
    spm = _import_sentencepiece()
    if isinstance(path_or_obj, spm.SentencePieceProcessor):
        proto = path_or_obj.serialized_model_proto()
        source = source or TokenizerSource(kind="object", location=f"SentencePieceProcessor:{name}")
        where = source.location
    elif isinstance(path_or_obj, (bytes, bytearray)):
        proto = bytes(path_or_obj)
        source = source or TokenizerSource(kind="object", location=f"ModelProto:{name}")
        where = source.location
    else:
        path = Path(str(path_or_obj))
        if not path.is_file():
            raise InputError(f"{path}: no such SentencePiece model file; give the path of a "
                             "SentencePiece .model file")
        proto = path.read_bytes()
        source = source or TokenizerSource(kind="file", location=str(path),
                                           sha256=sha256_file(path), path=str(path))
        where = str(path)
    sp = spm.SentencePieceProcessor()
    try:
        sp.LoadFromSerializedProto(proto)
        settings = read_settings(proto)
    except Exception as exc:  # sentencepiece raises RuntimeError/OSError with C++ text
        raise CorruptFileError(f"{where}: not a valid SentencePiece model ({first_line(exc)})"
                               ) from exc
    cls = FairseqSentencePieceTokenizer if options.get("fairseq") else SentencePieceTokenizer
    return cls(name, source, sp, settings)


class SentencePieceTokenizer(Tokenizer):
    """A ``sentencepiece.SentencePieceProcessor`` behind the tokbench interface."""

    backend = "sentencepiece"
    offsets_unit = "byte"

    def __init__(self, name: str, source: TokenizerSource, sp: sentencepiece.SentencePieceProcessor,
                 settings: ModelSettings) -> None:
        super().__init__(name, source)
        self._sp = sp
        self.settings = settings
        self._size = int(sp.get_piece_size())
        unk = int(sp.unk_id())
        self._unk = unk if 0 <= unk < self._size and sp.is_unknown(unk) else None
        self._special = {sp.id_to_piece(i): i for i in range(self._size) if sp.is_control(i)}
        self._bytes_cache: dict[int, bytes] = {}

    @property
    def vocab_size(self) -> int:
        return self._size

    @property
    def unk_id(self) -> int | None:
        return self._unk

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special)

    @property
    def byte_fallback(self) -> bool:
        return self.settings.byte_fallback

    def is_byte_fallback_token(self, token_id: int) -> bool:
        return 0 <= token_id < self._size and bool(self._sp.is_byte(token_id))

    def encode(self, text: str) -> list[int]:
        return list(self._sp.encode(text, out_type=int, add_bos=False, add_eos=False))

    def encode_batch(self, texts: Sequence[str], threads: int = 1) -> list[list[int]]:
        """SentencePiece's own C++ thread pool with ``threads`` workers."""
        if not texts:
            return []
        out = self._sp.encode(list(texts), out_type=int, add_bos=False, add_eos=False,
                              num_threads=max(1, threads))
        return [list(ids) for ids in out]

    @property
    def lossless(self) -> bool:
        """Whether the pieces always spell the text byte for byte (but the dummy prefix):
        no normalization, no whitespace squeezing, no unknown pieces (byte fallback)."""
        s = self.settings
        return s.normalizer == "identity" and s.byte_fallback and not s.remove_extra_whitespaces

    def encode_batch_offsets(self, texts: Sequence[str], threads: int = 1
                             ) -> list[EncodedWithOffsets]:
        """Ids and SentencePiece's own byte offsets (normalization-aware), one encode per
        text; a lossless model gives no offsets (its pieces place themselves)."""
        if self.lossless or not texts:
            return super().encode_batch_offsets(texts, threads)
        out = self._sp.encode(list(texts), return_type="offset_mapping", return_bytes=True,
                              add_bos=False, add_eos=False, num_threads=max(1, threads))
        return [EncodedWithOffsets(o["ids"], o["offsets"]) for o in out]

    def normalize(self, text: str) -> str | None:
        """SentencePiece's normalizer (spaces as spaces, the dummy prefix left out)."""
        out = str(self._sp.normalize(text)).replace("▁", " ")
        s = self.settings
        if s.add_dummy_prefix and out and not text.startswith(" "):
            out = out[:-1] if s.treat_whitespace_as_suffix and out.endswith(" ") else (
                out[1:] if out.startswith(" ") else out)
        return out

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._sp.decode([int(i) for i in ids]))

    def token_str(self, token_id: int) -> str:
        if not 0 <= token_id < self._size:
            raise out_of_vocab(self, token_id)
        return str(self._sp.id_to_piece(token_id))

    def token_bytes(self, token_id: int) -> bytes:
        cached = self._bytes_cache.get(token_id)
        if cached is not None:
            return cached
        if not 0 <= token_id < self._size:
            raise out_of_vocab(self, token_id)
        sp = self._sp
        piece = sp.id_to_piece(token_id)
        if sp.is_unknown(token_id) or sp.is_control(token_id):
            out = b""
        elif sp.is_byte(token_id):
            out = bytes([int(piece[3:5], 16)])
        else:
            out = piece.replace("▁", " ").encode("utf-8")
        self._bytes_cache[token_id] = out
        return out

    def _proto_spans(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """Ids and the backend's byte spans, with byte-fallback runs split byte by byte.

        SentencePiece gives a character's whole span to its last byte piece and empty
        spans to the others; here each byte piece gets its own byte when the text has it.
        """
        ids = self.encode(text)
        raw = self._sp.encode(text, out_type="serialized_proto", add_bos=False, add_eos=False)
        spans = read_piece_spans(raw)
        data = text.encode("utf-8")
        pos = 0
        for k, (tid, (s, e)) in enumerate(zip(ids, spans, strict=True)):
            if self.is_byte_fallback_token(tid):
                start = max(s, pos)
                if data[start:start + 1] == self.token_bytes(tid):
                    s, e = start, start + 1
            spans[k] = (s, e)
            pos = max(pos, e)
        return ids, spans

    def encode_with_spans(self, text: str) -> Encoding:
        """Spans from the token bytes (the dummy-prefix ``▁`` gets none) when they
        reproduce the text, else from SentencePiece's alignment (a normalizer changed it)."""
        ids = self.encode(text)
        pieces = [self.token_bytes(i) for i in ids]
        bare_dummy = False
        if pieces and self.settings.add_dummy_prefix:
            if self.settings.treat_whitespace_as_suffix:
                if pieces[-1].endswith(b" "):
                    pieces[-1] = pieces[-1][:-1]
            elif pieces[0].startswith(b" "):
                pieces[0] = pieces[0][1:]
                bare_dummy = not pieces[0]
        data = text.encode("utf-8")
        if bare_dummy:  # a lone dummy "▁" stands for no byte; it is no unknown token
            spans = [(0, 0), *align_spans(data, pieces[1:])]
        else:
            spans = align_spans(data, pieces)
        if spans_reproduce(data, pieces, spans):
            return Encoding(ids, spans)
        return Encoding(*self._proto_spans(text))

    def backend_version(self) -> str:
        return str(_import_sentencepiece().__version__)

    def describe(self) -> dict[str, Any]:
        s = self.settings
        return {**super().describe(), "model_type": s.model_type, "normalizer": s.normalizer,
                "add_dummy_prefix": s.add_dummy_prefix,
                "remove_extra_whitespaces": s.remove_extra_whitespaces}


#: fairseq's own symbols, in front of the SentencePiece pieces
FAIRSEQ_SPECIALS = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
FAIRSEQ_MASK = "<mask>"


class FairseqSentencePieceTokenizer(SentencePieceTokenizer):
    """A SentencePiece model numbered as fairseq's dictionary numbers it (XLM-RoBERTa).

    fairseq puts ``<s>`` 0, ``<pad>`` 1, ``</s>`` 2, ``<unk>`` 3 first, then piece
    ``i`` of the model at ``i + 1`` (the model's own ``<unk>``, ``<s>``, ``</s>`` at 0-2
    map onto fairseq's), and ``<mask>`` last: ``piece_size + 1`` ids in all.
    """

    def __init__(self, name: str, source: TokenizerSource, sp: sentencepiece.SentencePieceProcessor,
                 settings: ModelSettings) -> None:
        super().__init__(name, source, sp, settings)
        self._sp_size = self._size
        self._mask = self._sp_size + 1
        self._size = self._sp_size + 2
        own = {int(sp.unk_id()): FAIRSEQ_SPECIALS["<unk>"], int(sp.bos_id()): 0,
               int(sp.eos_id()): 2}
        self._from_sp = {i: j for i, j in own.items() if i >= 0}
        self._to_sp = {j: i for i, j in self._from_sp.items()}
        self._unk = FAIRSEQ_SPECIALS["<unk>"]
        self._special = {**FAIRSEQ_SPECIALS, FAIRSEQ_MASK: self._mask}
        self._special.pop("<unk>")

    def _hf(self, sp_id: int) -> int:
        return self._from_sp.get(sp_id, sp_id + 1)

    def _sp_id(self, token_id: int) -> int | None:
        """The model's id of ``token_id``; None for ``<pad>`` and ``<mask>`` (fairseq's own)."""
        if not 0 <= token_id < self._size:
            raise out_of_vocab(self, token_id)
        if token_id in self._to_sp:
            return self._to_sp[token_id]
        if token_id in (FAIRSEQ_SPECIALS["<pad>"], self._mask):
            return None
        return token_id - 1

    def is_byte_fallback_token(self, token_id: int) -> bool:
        sp_id = self._sp_id(token_id) if 0 <= token_id < self._size else None
        return sp_id is not None and bool(self._sp.is_byte(sp_id))

    def encode(self, text: str) -> list[int]:
        return [self._hf(i) for i in super().encode(text)]

    def encode_batch(self, texts: Sequence[str], threads: int = 1) -> list[list[int]]:
        return [[self._hf(i) for i in ids] for ids in super().encode_batch(texts, threads)]

    def decode(self, ids: Sequence[int]) -> str:
        out: list[str] = []
        run: list[int] = []
        for token_id in ids:
            sp_id = self._sp_id(int(token_id))
            if sp_id is None:  # <pad>, <mask>: fairseq's symbols, decoded as their text
                out.append(str(self._sp.decode(run)))
                run = []
                out.append("<pad>" if int(token_id) == 1 else FAIRSEQ_MASK)
            else:
                run.append(sp_id)
        out.append(str(self._sp.decode(run)))
        return "".join(out)

    def token_str(self, token_id: int) -> str:
        sp_id = self._sp_id(token_id)
        if sp_id is None:
            return "<pad>" if token_id == 1 else FAIRSEQ_MASK
        return str(self._sp.id_to_piece(sp_id))

    def token_bytes(self, token_id: int) -> bytes:
        sp_id = self._sp_id(token_id)
        if sp_id is None or token_id in self._to_sp:
            return b""
        return super().token_bytes(sp_id)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "numbering": "fairseq (+1, <s> <pad> </s> <unk> first)"}
