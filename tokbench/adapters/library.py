"""A vocabulary run by another library: the adapter every ``NAME@IMPL`` spec loads.

The library encodes and decodes; what a token *is* (its bytes, the special and unknown
ids, the declared size) is the vocabulary's, so it comes from the reference adapter of
the same file (``donor``), which is the same for every library. Parity is then judged on
ids and decoded text only, never on a library's own view of its pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokbench.adapters.base import Tokenizer
from tokbench.record import TokenizerSource


class CannotReadError(Exception):
    """A library cannot read a vocabulary of this kind (carried up as a one-line error)."""


@dataclass
class VocabFiles:
    """One vocabulary in the file kinds tokbench can give a library.

    ``kind`` is the kind the vocabulary came as (``tiktoken``, ``tokenizers``,
    ``sentencepiece``, ``wordpiece``, ``gguf``, ``tekken``); ``path(kind)`` gives a file of
    another kind where tokbench can convert it exactly (``convert``), else raises
    ``CannotReadError``. ``reference`` is the vocabulary's own adapter (the donor).
    """

    kind: str
    reference: Tokenizer
    files: dict[str, Path] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # preset, fairseq, ...
    convert: Callable[[str], Path] | None = None

    def path(self, kind: str) -> Path:
        if kind not in self.files:
            if self.convert is None:
                raise CannotReadError(kind)
            self.files[kind] = self.convert(kind)
        return self.files[kind]

    def first(self, *kinds: str) -> tuple[str, Path]:
        """The first of ``kinds`` available (the vocabulary's own kind preferred)."""
        ordered = sorted(kinds, key=lambda k: k != self.kind)
        for kind in ordered:
            try:
                return kind, self.path(kind)
            except CannotReadError:
                continue
        raise CannotReadError(" or ".join(kinds))

    @property
    def fairseq(self) -> bool:
        return bool(self.options.get("fairseq"))

    @property
    def pattern(self) -> str:
        """The split pattern of a tiktoken vocabulary (from the reference's encoding)."""
        return str(self.reference.encoding._pat_str)  # type: ignore[attr-defined]

    @property
    def tiktoken_specials(self) -> dict[str, int]:
        return dict(self.reference.encoding._special_tokens)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Calls:
    """What one library does with a vocabulary: its encode and decode calls, named."""

    encode: Callable[[str], Sequence[int]]
    decode: Callable[[list[int]], str]
    call: str  # e.g. "Tokenizer.encode_raw" (recorded: which call was compared)
    encode_batch: Callable[[list[str]], Sequence[Sequence[int]]] | None = None
    id_map: Callable[[int], int] | None = None  # the library's ids -> the vocabulary's
    id_unmap: Callable[[int], int] | None = None


class LibraryTokenizer(Tokenizer):
    """A vocabulary encoded and decoded by ``library``; token facts from the reference."""

    def __init__(self, name: str, source: TokenizerSource, library: str, version: str, calls: Calls,
                 donor: Tokenizer, load_seconds: float, kind: str) -> None:
        super().__init__(name, source)
        self.backend = library
        self._version = version
        self.calls = calls
        self.donor = donor
        self.load_seconds = load_seconds
        self.kind = kind

    @property
    def vocab_size(self) -> int:
        return self.donor.vocab_size

    @property
    def unk_id(self) -> int | None:
        return self.donor.unk_id

    @property
    def special_tokens(self) -> dict[str, int]:
        return self.donor.special_tokens

    @property
    def byte_fallback(self) -> bool:
        return self.donor.byte_fallback

    def is_byte_fallback_token(self, token_id: int) -> bool:
        return self.donor.is_byte_fallback_token(token_id)

    def all_token_bytes(self) -> list[bytes] | None:
        return self.donor.all_token_bytes()

    def token_bytes(self, token_id: int) -> bytes:
        return self.donor.token_bytes(token_id)

    def token_str(self, token_id: int) -> str:
        return self.donor.token_str(token_id)

    def encode(self, text: str) -> list[int]:
        ids = self.calls.encode(text)
        m = self.calls.id_map
        if m is not None:
            return [m(int(i)) for i in ids]
        return ids if type(ids) is list else [int(i) for i in ids]  # no copy on the hot path

    def encode_batch(self, texts: Sequence[str], threads: int = 1) -> list[list[int]]:
        batch = self.calls.encode_batch
        if threads <= 1 or batch is None or len(texts) < 2:
            return super().encode_batch(texts, threads)
        m = self.calls.id_map
        return [[m(int(i)) for i in ids] if m else [int(i) for i in ids]
                for ids in batch(list(texts))]

    def decode(self, ids: Sequence[int]) -> str:
        u = self.calls.id_unmap
        return self.calls.decode([u(int(i)) for i in ids] if u else [int(i) for i in ids])

    def backend_version(self) -> str:
        return self._version

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "library": self.backend, "call": self.calls.call,
                "file_kind": self.kind, "load_seconds": round(self.load_seconds, 4),
                "vocabulary_of": self.donor.name}
