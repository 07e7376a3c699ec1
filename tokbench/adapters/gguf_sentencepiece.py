"""GGUF ``llama`` and ``t5`` vocabularies rebuilt as a SentencePiece ModelProto (BPE or
Unigram), written in memory with a minimal protobuf encoder and loaded by the
sentencepiece adapter."""

from __future__ import annotations

import struct

from tokbench.adapters.base import Tokenizer
from tokbench.adapters.gguf_reader import (
    BYTE,
    CONTROL,
    NORMAL,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    GGUFVocab,
)
from tokbench.record import TokenizerSource


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


def load_as_sentencepiece(vocab: GGUFVocab, name: str, source: TokenizerSource) -> Tokenizer:
    from tokbench.adapters.sentencepiece_adapter import load as load_sentencepiece

    return load_sentencepiece(sentencepiece_proto(vocab), name=name, source=source)
