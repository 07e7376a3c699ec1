"""The one interface every tokenizer is loaded behind.

An adapter wraps a backend tokenizer (tiktoken, sentencepiece, ...) and exposes
exactly what the metrics need, with every behaviour explicit:

* ``encode`` adds no special tokens (no BOS/EOS, no template) and treats text that
  looks like a special token (``<|endoftext|>``, ``<s>``) as plain text;
* ``decode`` neither skips special tokens nor cleans up spaces;
* ``token_bytes`` gives the exact UTF-8 bytes a token stands for.
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from tokbench.errors import InputError
from tokbench.record import TokenizerSource

if TYPE_CHECKING:
    import numpy as np


def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8 on its own (a whole token, not a fragment)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@dataclass
class Encoding:
    """Ids of one text with the byte span each token covers in the text's UTF-8.

    ``spans[i]`` is ``(start, end)`` in bytes; a token that stands for no text
    byte (a SentencePiece dummy-prefix ``▁``) has an empty span ``(k, k)``.
    """

    ids: list[int]
    spans: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class EncodedWithOffsets:
    """Ids of one text and, where the backend gives them in the same encode call, the
    backend's own position of each token in the text (in ``Tokenizer.offsets_unit``).

    ``offsets`` is None when the backend gives none, or when the adapter knows the token
    bytes always spell the text exactly (then spans follow from the bytes alone).
    """

    ids: list[int]
    offsets: Sequence[tuple[int, int]] | None = None


T = TypeVar("T")


def in_threads(encode: Callable[[Sequence[str]], list[T]], texts: Sequence[str],
               threads: int) -> list[T]:
    """``encode`` over ``texts`` cut into a few contiguous parts per thread, on ``threads``
    threads; the results in the texts' order. One hand-off per part, not per text: per
    text, a pool's hand-off costs more than encoding a sentence (tiktoken's own
    ``encode_ordinary_batch`` on 2 threads took 2.7x a plain loop over FLORES sentences;
    parts of a loop took 0.8x)."""
    size = max(1, -(-len(texts) // (threads * 4)))
    parts = [texts[i:i + size] for i in range(0, len(texts), size)]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return [x for got in pool.map(encode, parts) for x in got]


class Tokenizer(ABC):
    r"""A loaded tokenizer. Subclasses implement the abstract methods.

    The UTF-8 baseline shows the interface (every adapter behaves the same way):

    >>> from tokbench import load_tokenizer
    >>> tok = load_tokenizer("bytes")
    >>> tok.encode("aé")  # no special tokens are ever added
    [97, 195, 169]
    >>> tok.decode([97, 195, 169])
    'aé'
    >>> tok.token_bytes(195)  # half of "é": not valid UTF-8 alone
    b'Ã'
    >>> tok.encode_with_spans("aé").spans  # UTF-8 byte span of each token
    [(0, 1), (1, 2), (2, 3)]
    >>> tok.vocab_size, tok.unk_id, tok.byte_fallback
    (256, None, False)
    """

    #: short backend name, e.g. "tiktoken", "sentencepiece", "tokenizers", "transformers", "gguf"
    backend: str = ""
    #: whether ``encode_batch`` on threads runs a whole batch in the library's own code,
    #: outside the GIL (``tokenizers``): a run that stays in one process then gives it the
    #: free cores (``ShardTask.native_threads``). Not tiktoken: it releases the GIL per
    #: text, and on FLORES sentences 2 threads saved 5% of the encode time for 20% more CPU
    native_threads: bool = False
    #: whether the per-text encode (``_encode_one``) runs outside the GIL (tiktoken), so
    #: that threads which only count tokens overlap (``count_batch``): on FLORES sentences
    #: 2 threads counting as they go took 0.65x the time of a loop (paired per shard),
    #: where handing every text's ids back took 0.7-1.2x
    gil_free_encode: bool = False
    #: what ``EncodedWithOffsets.offsets`` count: "char" (code points) or "byte" (UTF-8 bytes)
    offsets_unit: str = "char"

    def __init__(self, name: str, source: TokenizerSource) -> None:
        self.name = name
        self.source = source

    # -- required ---------------------------------------------------------------
    @property
    @abstractmethod
    def vocab_size(self) -> int:
        """Declared vocabulary size, special tokens included."""

    @abstractmethod
    def encode(self, text: str) -> list[int]:
        """Ids for ``text`` with no special tokens added; special-looking text is plain text."""

    @abstractmethod
    def decode(self, ids: Sequence[int]) -> str:
        """Text for ``ids``, skipping nothing and cleaning nothing up."""

    @abstractmethod
    def token_bytes(self, token_id: int) -> bytes:
        """The exact UTF-8 bytes token ``token_id`` stands for in text.

        SentencePiece ``▁`` is a space, a byte-fallback piece ``<0xNN>`` is that byte,
        a WordPiece continuation ``##x`` is ``x``; special and unknown tokens give b"".
        """

    @abstractmethod
    def backend_version(self) -> str:
        """Version of the backend library."""

    # -- optional, with honest defaults ----------------------------------------------
    @property
    def unk_id(self) -> int | None:
        """Id of the unknown token, or None when the tokenizer has none."""
        return None

    @property
    def special_tokens(self) -> dict[str, int]:
        """Special (control) tokens: text form -> id."""
        return {}

    @property
    def byte_fallback(self) -> bool:
        """Whether unknown characters are encoded as byte pieces ``<0xNN>``."""
        return False

    def is_byte_fallback_token(self, token_id: int) -> bool:
        """Whether ``token_id`` is a byte-fallback piece."""
        return False

    def all_token_bytes(self) -> list[bytes] | None:
        """``token_bytes`` of every id at once, where the backend can list them faster than
        one id at a time (None: ask ``token_bytes`` per id)."""
        return None

    def token_str(self, token_id: int) -> str:
        """The token's piece as the backend spells it (for display)."""
        return self.token_bytes(token_id).decode("utf-8", errors="backslashreplace")

    def encode_batch(self, texts: Sequence[str], threads: int = 1) -> list[list[int]]:
        """``encode`` over many texts (``_encode_one``); ``threads`` > 1 uses a thread pool
        (``in_threads``)."""
        encode = self._encode_one()
        if threads <= 1 or len(texts) < 2:
            return [encode(t) for t in texts]
        return in_threads(lambda part: [encode(t) for t in part], texts, threads)

    def count_batch(self, texts: Sequence[str], threads: int = 1) -> list[int]:
        """How many tokens ``encode`` gives each text. On threads, each thread counts its
        own part as it encodes, so no text's ids outlive their count.

        >>> from tokbench import load_tokenizer
        >>> load_tokenizer("bytes").count_batch(["aé", "", "abc"], threads=2)
        [3, 0, 3]
        """
        if threads <= 1 or len(texts) < 2 or self.native_threads:
            return [len(ids) for ids in self.encode_batch(texts, threads=threads)]
        encode = self._encode_one()
        return in_threads(lambda part: [len(encode(t)) for t in part], texts, threads)

    def _encode_one(self) -> Callable[[str], list[int]]:
        """What ``encode_batch`` calls per text: ``encode``, or a cheaper call giving the
        same ids."""
        return self.encode

    def encode_batch_offsets(self, texts: Sequence[str], threads: int = 1
                             ) -> list[EncodedWithOffsets]:
        """``encode_batch`` plus the backend's offsets, from the same encode call.

        The default has no offsets: token spans then come from the token bytes, exact for
        tokenizers whose tokens spell the text byte for byte (tiktoken, byte-level BPE).
        Adapters whose backend normalizes text or has unknown tokens override this.
        """
        return [EncodedWithOffsets(ids) for ids in self.encode_batch(texts, threads=threads)]

    def normalize(self, text: str) -> str | None:
        """``text`` as the tokenizer's own normalizer leaves it (None: the backend exposes
        no normalizer, or has none that could be run alone)."""
        return None

    def encode_with_spans(self, text: str) -> Encoding:
        """Ids plus the UTF-8 byte span of each token, aligned from ``token_bytes``."""
        ids = self.encode(text)
        return Encoding(ids, align_spans(text.encode("utf-8"), [self.token_bytes(i) for i in ids]))

    def describe(self) -> dict[str, Any]:
        """What this tokenizer is, for results: backend, version, source, hash, sizes."""
        return {
            "name": self.name,
            "backend": self.backend,
            "backend_version": self.backend_version(),
            "source": self.source.to_dict(),
            "vocab_size": self.vocab_size,
            "unk_id": self.unk_id,
            "byte_fallback": self.byte_fallback,
            "special_tokens": dict(sorted(self.special_tokens.items(), key=lambda kv: kv[1])),
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} vocab={self.vocab_size}>"


def align_spans(text: bytes, pieces: Sequence[bytes]) -> list[tuple[int, int]]:
    """Byte span of each piece in ``text``.

    Pieces are matched in order. A piece that is not found where expected (an
    unknown token's empty bytes, a dummy-prefix space, WordPiece's dropped
    whitespace) is resolved by skipping whitespace in the text or, for pieces with
    no bytes, by covering the text up to the next piece's match.
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    n = len(text)
    pending: list[int] = []  # indices of empty pieces (unknown tokens) awaiting their extent
    for i, piece in enumerate(pieces):
        if not piece:
            pending.append(i)
            spans.append((pos, pos))
            continue
        start = pos
        if text.startswith(piece, pos):
            end = pos + len(piece)
        else:
            # A leading space the text does not have (SentencePiece dummy prefix). A bare
            # space piece right after an unknown token is a real space further on.
            stripped = piece.lstrip(b" ")
            if stripped != piece and text.startswith(stripped, pos) and (stripped or not pending):
                end = pos + len(stripped)
            else:
                found = text.find(stripped or piece, pos)
                if found < 0:
                    spans.append((pos, pos))
                    continue
                start_gap = pos
                # skip whitespace silently; anything else belongs to pending unknown tokens
                gap = text[start_gap:found]
                if pending and gap.strip():
                    _close_pending(spans, pending, start_gap, found, text)
                start = found
                end = found + len(stripped or piece)
        if pending:
            _close_pending(spans, pending, pos, start)
        spans.append((start, end))
        pos = end
    if pending:
        _close_pending(spans, pending, pos, n, text)
    return spans


def normalized_offsets(text: str, pieces: Sequence[bytes],
                       form: Literal["NFC", "NFD", "NFKC", "NFKD"] = "NFKC"
                       ) -> list[tuple[int, int]] | None:
    """Character offsets of ``pieces`` placed on ``text`` as a normalizer that applies
    Unicode ``form`` (and maybe lower-casing) left it, mapped back to ``text``; None when
    the pieces do not spell that form either.

    The text is normalized one cluster at a time (characters the normalizer joins, so
    か + ゙ and ﾎ + ﾟ still become が and ポ), which gives every normalized character the
    cluster it came from; a piece covers the clusters its characters came from.
    """
    clusters: list[tuple[int, int]] = []
    for i, ch in enumerate(text):
        # a character the normalizer joins to what precedes it (a mark composing with its
        # base, half-width ﾞ ﾟ, Hangul jamo) stays in the preceding cluster
        if clusters:
            a = clusters[-1][0]
            joined = unicodedata.normalize(form, text[a:i + 1])
            if joined != unicodedata.normalize(form, text[a:i]) + unicodedata.normalize(form, ch):
                clusters[-1] = (a, i + 1)
                continue
        clusters.append((i, i + 1))
    for fold in (False, True):
        norm: list[str] = []
        origin: list[tuple[int, int]] = []
        for a, b in clusters:
            piece = unicodedata.normalize(form, text[a:b])
            if fold:
                piece = piece.lower()
            norm.append(piece)
            origin += [(a, b)] * len(piece)
        ntext = "".join(norm)
        nbytes = ntext.encode("utf-8", "surrogatepass")
        spans = align_spans(nbytes, pieces)
        if not spans_reproduce(nbytes, pieces, spans):
            continue
        # byte offsets in the normalized text -> its characters -> the original clusters
        starts: list[int] = []  # the character holding each byte
        for k, c in enumerate(ntext):
            starts += [k] * len(c.encode("utf-8", "surrogatepass"))
        starts.append(len(ntext))
        out = []
        for s, e in spans:
            if e <= s:
                a = origin[starts[s]][0] if starts[s] < len(origin) else len(text)
                out.append((a, a))
                continue
            first, last = starts[s], starts[e - 1]
            out.append((origin[first][0], origin[last][1]))
        return out
    return None


def spans_reproduce(text: bytes, pieces: Sequence[bytes], spans: Sequence[tuple[int, int]]) -> bool:
    """Whether ``spans`` (from ``align_spans``) place every piece on its own bytes.

    True when the spans are in order without overlap, each non-empty piece equals the
    text under its span (less a leading space the text does not have; only a dummy
    prefix at the very start stands for no byte at all) and every byte no span covers
    is whitespace. False means the tokenizer's normalizer changed the text
    (lower-casing, NFKC) and the pieces cannot be placed by their bytes; use the
    backend's offsets then.
    """
    covered = bytearray(len(text))
    prev_end = 0
    for piece, (start, end) in zip(pieces, spans, strict=True):
        if start < prev_end:
            return False
        if piece:
            under = text[start:end]
            if under not in (piece, piece.lstrip(b" ")) or (not under and start != 0):
                return False
        covered[start:end] = b"\x01" * (end - start)
        prev_end = max(prev_end, end)
    return all(c or text[i:i + 1].isspace() for i, c in enumerate(covered))


def char_to_byte_offsets(text: str) -> np.ndarray:
    """``offsets[k]`` is the UTF-8 byte offset of character ``k`` (``offsets[len(text)]``
    the end); a lone surrogate counts 3 bytes, as ``surrogatepass`` encodes it."""
    import numpy as np

    out = np.zeros(len(text) + 1, dtype=np.int64)
    if text.isascii():
        out[1:] = np.arange(1, len(text) + 1)
        return out
    try:
        cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    except UnicodeEncodeError:  # lone surrogates
        cps = np.fromiter(map(ord, text), dtype=np.uint32, count=len(text))
    widths = 1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000)
    np.cumsum(widths, out=out[1:])
    return out


def char_spans_to_byte_spans(text: str,
                             offsets: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Character offsets (as backends give them) to UTF-8 byte spans of ``text``."""
    index = char_to_byte_offsets(text).tolist()
    return [(index[s], index[e]) for s, e in offsets]


def first_line(exc: BaseException) -> str:
    """An exception's first message line (at most 200 characters), or its type name."""
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def check_options(adapter: str, options: dict[str, Any], accepted: Sequence[str] = ()) -> None:
    """Refuse adapter options the adapter does not know, naming the ones it does."""
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        known = ", ".join(accepted) if accepted else "none"
        raise InputError(f"{adapter} adapter: unknown option(s) {', '.join(unknown)}; "
                         f"accepted: {known}")


def out_of_vocab(tokenizer: Tokenizer, token_id: int) -> InputError:
    """The error for a token id the tokenizer does not have."""
    return InputError(f"token id {token_id} is not in the vocabulary of tokenizer "
                      f"{tokenizer.name!r} (ids 0..{tokenizer.vocab_size - 1}); "
                      "pass ids this tokenizer produced")


def _close_pending(spans: list[tuple[int, int]], pending: list[int], start: int, end: int,
                   text: bytes | None = None) -> None:
    """Give the text between ``start`` and ``end`` to the first pending empty piece.

    When ``text`` is given and the gap holds more than whitespace, the whitespace
    around it is left out: an unknown token stands for the word, not the spaces that
    the pre-tokenizer dropped around it.
    """
    if text is not None and text[start:end].strip():
        while start < end and text[start:start + 1].isspace():
            start += 1
        while end > start and text[end - 1:end].isspace():
            end -= 1
    if end > start:
        first = pending[0]
        spans[first] = (start, end)
        for j in pending[1:]:
            spans[j] = (end, end)
    pending.clear()
