"""Baselines: one token per UTF-8 byte, and one token per Unicode code point.

Both are lossless and need no library: they are the floor every learned tokenizer's
compression is compared with.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from typing import Any

from tokbench.adapters.base import (
    Encoding,
    Tokenizer,
    check_options,
    out_of_vocab,
)
from tokbench.record import TokenizerSource


class BytesTokenizer(Tokenizer):
    """Token id = UTF-8 byte value (0..255)."""

    backend = "builtin"

    @property
    def vocab_size(self) -> int:
        return 256

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def decode(self, ids: Sequence[int]) -> str:
        """Bytes to text; an incomplete character becomes U+FFFD, as in every byte-level decoder."""
        try:
            return bytes(ids).decode("utf-8", errors="replace")
        except ValueError:
            bad = next(i for i in ids if not 0 <= i < 256)
            raise out_of_vocab(self, bad) from None

    def token_bytes(self, token_id: int) -> bytes:
        if not 0 <= token_id < 256:
            raise out_of_vocab(self, token_id)
        return bytes((token_id,))

    def encode_with_spans(self, text: str) -> Encoding:
        ids = self.encode(text)
        return Encoding(ids, [(k, k + 1) for k in range(len(ids))])

    def backend_version(self) -> str:
        return f"python {platform.python_version()}"


class CharsTokenizer(Tokenizer):
    """Token id = Unicode code point (0..0x10FFFF)."""

    backend = "builtin"

    @property
    def vocab_size(self) -> int:
        return 0x110000

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def decode(self, ids: Sequence[int]) -> str:
        try:
            return "".join(map(chr, ids))
        except (ValueError, OverflowError):
            bad = next(i for i in ids if not 0 <= i < 0x110000)
            raise out_of_vocab(self, bad) from None

    def token_bytes(self, token_id: int) -> bytes:
        if not 0 <= token_id < 0x110000:
            raise out_of_vocab(self, token_id)
        # a lone surrogate has no UTF-8 form; keep its (invalid) 3-byte encoding
        return chr(token_id).encode("utf-8", "surrogatepass")

    def token_str(self, token_id: int) -> str:
        if not 0 <= token_id < 0x110000:
            raise out_of_vocab(self, token_id)
        return chr(token_id)

    def backend_version(self) -> str:
        return f"python {platform.python_version()}"


def load_bytes(path_or_obj: Any = None, *, name: str = "bytes",
               source: TokenizerSource | None = None, **options: Any) -> BytesTokenizer:
    """The UTF-8 byte baseline (``path_or_obj`` is ignored; there are no options)."""
    check_options("bytes", options)
    return BytesTokenizer(name, source or TokenizerSource(kind="builtin", location="utf-8 bytes"))


def load_chars(path_or_obj: Any = None, *, name: str = "chars",
               source: TokenizerSource | None = None, **options: Any) -> CharsTokenizer:
    """The Unicode code point baseline (``path_or_obj`` is ignored; there are no options)."""
    check_options("chars", options)
    return CharsTokenizer(name, source or TokenizerSource(kind="builtin",
                                                          location="unicode code points"))
