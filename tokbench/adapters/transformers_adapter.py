"""``transformers`` adapter: ``AutoTokenizer`` from a local folder or a hub id.

``encode`` calls the tokenizer with ``add_special_tokens=False`` and
``split_special_tokens=True`` (``<s>`` in text is text); ``decode`` passes
``skip_special_tokens=False, clean_up_tokenization_spaces=False``, and for a fast
tokenizer the backend decoder's own ``cleanup`` (WordPiece) is switched off too.
Token bytes come from ``convert_ids_to_tokens`` and the piece rules shared with the
``tokenizers`` adapter (``hf_tokenizers.piece_to_bytes``): from the backend's
``tokenizer.json`` for a fast tokenizer; for a slow one from its kind (a GPT-2 byte
encoder, a SentencePiece model, a WordPiece vocabulary).

A local folder loads with ``local_files_only=True``; a hub id needs the Hugging Face
hub (``revision`` pins it; ``HF_HUB_OFFLINE=1`` uses the local cache only). The
tokenizer is loaded (or, when an object is given, deep-copied) and then adjusted, so
the caller's object is never changed.
"""

from __future__ import annotations

import copy
import json
import threading
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokbench.adapters.base import (
    EncodedWithOffsets,
    Encoding,
    Tokenizer,
    align_spans,
    first_line,
    normalized_offsets,
    out_of_vocab,
    spans_reproduce,
)
from tokbench.adapters.hf_tokenizers import (
    BYTE_PIECE,
    PieceRules,
    decoder_from_json,
    piece_to_bytes,
    prepare_json,
    rules_from_json,
    spans_from,
    special_pieces_reachable,
    text_blind_model,
)
from tokbench.errors import InputError, SourceError, require
from tokbench.hashing import sha256_file
from tokbench.paths import user_path
from tokbench.record import TokenizerSource

# the file whose hash identifies a tokenizer folder, most specific first
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "spiece.model",
                   "sentencepiece.bpe.model", "vocab.json", "vocab.txt")


#: transformers' switch for its advisory warnings (read when it logs one)
_NO_ADVICE = "TRANSFORMERS_NO_ADVISORY_WARNINGS"


def _import_transformers() -> Any:
    """``transformers``, imported without its advisory "PyTorch was not found" line (a
    tokenizer needs no PyTorch; printed in every worker it would land inside the progress
    display). Only the import is quietened: the variable is restored right after, and
    transformers' own logging settings are left as the user has them."""
    import os

    before = os.environ.get(_NO_ADVICE)
    os.environ[_NO_ADVICE] = "1"
    try:
        return require("transformers", purpose="Hugging Face tokenizers by folder or hub id")
    finally:
        if before is None:
            os.environ.pop(_NO_ADVICE, None)
        else:
            os.environ[_NO_ADVICE] = before


def load(path_or_obj: Any, *, name: str, source: TokenizerSource | None = None,
         revision: str | None = None, use_fast: bool = True, trust_remote_code: bool = False,
         **kwargs: Any) -> TransformersTokenizer:
    """Load with ``AutoTokenizer.from_pretrained`` (a local folder or hub id) or wrap a
    ``PreTrainedTokenizerBase``.

    ``revision`` pins a hub revision; ``use_fast=False`` asks for the slow (Python)
    tokenizer where the installed transformers still has one; other keyword arguments go
    to ``from_pretrained``.
    """
    tf = _import_transformers()
    if isinstance(path_or_obj, tf.PreTrainedTokenizerBase):
        tok = copy.deepcopy(path_or_obj)
        src = source or TokenizerSource(kind="object", location=f"{type(tok).__name__}:{name}")
        return TransformersTokenizer(name, src, tok)
    ident = str(path_or_obj)
    local = user_path(ident)
    if not local.is_dir() and (isinstance(path_or_obj, Path) or local.is_absolute()
                               or ident.startswith((".", "~")) or local.exists()):
        raise InputError(f"{ident}: no such tokenizer folder; give a folder written by "
                         "save_pretrained (with tokenizer_config.json) or a Hugging Face hub "
                         "id (org/name)")
    options = dict(kwargs, use_fast=use_fast, trust_remote_code=trust_remote_code,
                   split_special_tokens=True)
    if local.is_dir():
        options["local_files_only"] = True
    elif revision is not None:
        options["revision"] = revision
    try:
        tok = tf.AutoTokenizer.from_pretrained(str(local) if local.is_dir() else ident,
                                               **options)
    except Exception as exc:  # transformers/huggingface_hub raise many kinds; all mean "cannot"
        where = "the folder" if local.is_dir() else "the Hugging Face hub (is it reachable?)"
        raise SourceError(f"transformers could not load tokenizer {ident!r} from {where}: "
                          f"{first_line(exc)}") from exc
    if source is None:
        source = _source_of(ident, local, revision)
    return TransformersTokenizer(name, source, tok)


def _source_of(ident: str, local: Path, revision: str | None) -> TokenizerSource:
    if local.is_dir():
        main = next((local / f for f in TOKENIZER_FILES if (local / f).is_file()), None)
        return TokenizerSource(kind="file", location=str(local),
                               sha256=sha256_file(main) if main else None,
                               path=str(main) if main else str(local))
    cached: Path | None = None
    try:
        from huggingface_hub import try_to_load_from_cache

        for f in TOKENIZER_FILES:
            hit = try_to_load_from_cache(ident, f, revision=revision)
            if isinstance(hit, str):
                cached = Path(hit)
                break
    except ImportError:  # huggingface_hub comes with transformers; stay safe anyway
        pass
    return TokenizerSource(kind="hub", location=f"{ident}@{revision or 'main'}",
                           sha256=sha256_file(cached) if cached else None,
                           path=str(cached) if cached else None)


def slow_rules(tok: Any) -> PieceRules:
    """Piece rules of a slow (Python) tokenizer, from what it is built on."""
    if hasattr(tok, "byte_encoder"):  # GPT-2 style byte-level BPE
        return PieceRules(byte_level=True)
    sp = getattr(tok, "sp_model", None)
    if sp is not None:
        has_bytes = bool(sp.is_byte(sp.piece_to_id("<0x00>")))
        return PieceRules(byte_fallback=has_bytes, replacements=(("▁", " "),))
    wp = getattr(tok, "wordpiece_tokenizer", None)
    # BertJapaneseTokenizer keeps its WordPiece as ``subword_tokenizer``
    if wp is not None or getattr(tok, "subword_tokenizer_type", None) == "wordpiece":
        return PieceRules(continuing_prefix="##")
    return PieceRules()


def nfkc_spans(text: str, pieces: Sequence[bytes]) -> list[tuple[int, int]] | None:
    """Byte spans of pieces cut from the NFKC form of ``text`` (a word splitter such as
    BertJapaneseTokenizer's MeCab normalizes first), mapped back onto ``text``.

    Each character is normalized on its own, so a normalized byte maps back to the
    character it came from; None when the pieces do not fit that form either.
    """
    norm = bytearray()
    owner: list[tuple[int, int]] = []  # normalized byte -> (start, end) of its source char
    pos = 0
    for ch in text:
        raw = ch.encode("utf-8", "surrogatepass")
        out = unicodedata.normalize("NFKC", ch).encode("utf-8", "surrogatepass")
        norm += out
        owner += [(pos, pos + len(raw))] * len(out)
        pos += len(raw)
    data = bytes(norm)
    spans = align_spans(data, pieces)
    if not spans_reproduce(data, pieces, spans):
        return None
    mapped: list[tuple[int, int]] = []
    for s, e in spans:
        if e > s:
            mapped.append((owner[s][0], owner[e - 1][1]))
        else:
            at = owner[s][0] if s < len(owner) else pos
            mapped.append((at, at))
    # a character split over two pieces (NFKC of "㈱" is "(株)") gives both its span;
    # keep spans in order without overlap
    prev = 0
    for k, (s, e) in enumerate(mapped):
        s = max(s, prev)
        mapped[k] = (s, max(s, e))
        prev = mapped[k][1]
    return mapped


class TransformersTokenizer(Tokenizer):
    """A ``transformers`` tokenizer (fast or slow) behind the tokbench interface."""

    backend = "transformers"

    def __init__(self, name: str, source: TokenizerSource, tok: Any) -> None:
        super().__init__(name, source)
        tok.split_special_tokens = True  # "<s>" in text is text
        self._tok = tok
        self._reachable = False
        self._blind: Any = None
        self._lock = threading.Lock()
        self._size = len(tok)
        special_ids = {int(i) for i in tok.all_special_ids}
        added = dict(getattr(tok, "added_tokens_decoder", {}) or {})
        special_ids |= {int(i) for i, t in added.items() if getattr(t, "special", False)}
        self._special_ids = frozenset(special_ids)
        self._added_plain = {int(i): str(t) if isinstance(t, str) else str(t.content)
                             for i, t in added.items() if not getattr(t, "special", False)}
        self._unk = tok.unk_token_id if getattr(tok, "unk_token", None) is not None else None
        self.is_fast = bool(getattr(tok, "is_fast", False)) and hasattr(tok, "backend_tokenizer")
        if self.is_fast:
            spec = json.loads(tok.backend_tokenizer.to_str())
            self.rules = rules_from_json(spec)
            self._make_plain(spec)
        else:
            self.rules = slow_rules(tok)
        self._bytes_cache: dict[int, bytes] = {}

    def _make_plain(self, spec: dict[str, Any]) -> None:
        """Backend decoder without ``cleanup``; special pieces of the model kept from text."""
        backend = self._tok.backend_tokenizer
        if '"cleanup"' in json.dumps(spec.get("decoder")):
            backend.decoder = decoder_from_json(prepare_json(spec)["decoder"])
        self._reachable = special_pieces_reachable(spec)

    def _blind_tokenizer(self) -> Any:
        """A copy whose model cannot segment text as a special piece (see
        ``hf_tokenizers.text_blind_model``), for the rare texts that need it."""
        with self._lock:
            if self._blind is None:
                blind = copy.deepcopy(self._tok)
                backend = blind.backend_tokenizer
                backend.model = text_blind_model(backend)
                self._blind = blind
            return self._blind

    @property
    def vocab_size(self) -> int:
        return self._size

    @property
    def unk_id(self) -> int | None:
        return int(self._unk) if self._unk is not None else None

    @property
    def special_tokens(self) -> dict[str, int]:
        ids = sorted(self._special_ids)
        return dict(zip(self._tok.convert_ids_to_tokens(ids), ids, strict=True))

    @property
    def byte_fallback(self) -> bool:
        return self.rules.byte_fallback

    def is_byte_fallback_token(self, token_id: int) -> bool:
        if not self.rules.byte_fallback or not 0 <= token_id < self._size:
            return False
        piece = self._tok.convert_ids_to_tokens(token_id)
        return isinstance(piece, str) and BYTE_PIECE.fullmatch(piece) is not None

    def _call(self, text: str, offsets: bool = False) -> Any:
        out = self._run(self._tok, text, offsets)
        if self._reachable and not self._special_ids.isdisjoint(out["input_ids"]):
            out = self._run(self._blind_tokenizer(), text, offsets)
        return out

    @staticmethod
    def _run(tok: Any, text: str | list[str], offsets: bool = False) -> Any:
        return tok(text, add_special_tokens=False, return_offsets_mapping=offsets,
                   return_attention_mask=False, return_token_type_ids=False, verbose=False)

    def encode(self, text: str) -> list[int]:
        return [int(i) for i in self._call(text)["input_ids"]]

    def encode_batch(self, texts: Sequence[str], threads: int = 1) -> list[list[int]]:
        """A fast tokenizer's native batch (Rayon pool, see the ``tokenizers`` adapter) when
        ``threads`` > 1; a slow one uses a Python thread pool."""
        if not self.is_fast or threads <= 1 or len(texts) < 2:
            return super().encode_batch(texts, threads)
        out = [[int(i) for i in ids] for ids in self._run(self._tok, list(texts))["input_ids"]]
        if self._reachable:
            for k, ids in enumerate(out):
                if not self._special_ids.isdisjoint(ids):
                    out[k] = self.encode(texts[k])
        return out

    def encode_batch_offsets(self, texts: Sequence[str], threads: int = 1
                             ) -> list[EncodedWithOffsets]:
        """A fast tokenizer's ids and character offsets from one call per text. A slow one
        has no offsets: where its pieces do not spell the text (its normalizer changed it,
        e.g. the Japanese BERT's NFKC), they are placed on the text's NFKC form and mapped
        back (``normalized_offsets``); else the pieces' bytes place them."""
        if not self.is_fast:
            out = super().encode_batch_offsets(texts, threads)
            for t, enc in zip(texts, out, strict=True):
                pieces = [self.token_bytes(i) for i in enc.ids]
                data = t.encode("utf-8")
                if not spans_reproduce(data, pieces, align_spans(data, pieces)):
                    enc.offsets = normalized_offsets(t, pieces)
            return out
        out = []
        for t in texts:
            r = self._call(t, offsets=True)
            out.append(EncodedWithOffsets([int(i) for i in r["input_ids"]], r["offset_mapping"]))
        return out

    def normalize(self, text: str) -> str | None:
        """A fast tokenizer's normalizer (a slow one exposes none)."""
        if not self.is_fast:
            return None
        norm = self._tok.backend_tokenizer.normalizer
        return text if norm is None else str(norm.normalize_str(text))

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._tok.decode([int(i) for i in ids], skip_special_tokens=False,
                                    clean_up_tokenization_spaces=False))

    def token_str(self, token_id: int) -> str:
        if not 0 <= token_id < self._size:
            raise out_of_vocab(self, token_id)
        return str(self._tok.convert_ids_to_tokens(token_id))

    def token_bytes(self, token_id: int) -> bytes:
        cached = self._bytes_cache.get(token_id)
        if cached is not None:
            return cached
        if not 0 <= token_id < self._size:
            raise out_of_vocab(self, token_id)
        if token_id in self._special_ids or token_id == self._unk:
            out = b""
        elif token_id in self._added_plain:
            out = self._added_plain[token_id].encode("utf-8")
        else:
            piece = self._tok.convert_ids_to_tokens(token_id)
            if piece is None:
                raise out_of_vocab(self, token_id)
            out = piece_to_bytes(str(piece), self.rules)
        self._bytes_cache[token_id] = out
        return out

    def encode_with_spans(self, text: str) -> Encoding:
        if not self.is_fast:
            ids = self.encode(text)
            data = text.encode("utf-8")
            pieces = [self.token_bytes(i) for i in ids]
            spans = align_spans(data, pieces)
            if not spans_reproduce(data, pieces, spans):
                spans = nfkc_spans(text, pieces) or spans
            return Encoding(ids, spans)
        out = self._call(text, offsets=True)
        ids = [int(i) for i in out["input_ids"]]
        offsets = [(int(s), int(e)) for s, e in out["offset_mapping"]]
        return Encoding(ids, spans_from(text, [self.token_bytes(i) for i in ids], offsets))

    def backend_version(self) -> str:
        return str(_import_transformers().__version__)

    def describe(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"class": type(self._tok).__name__, "fast": self.is_fast,
                                 "piece_rules": self.rules.describe()}
        if self.is_fast:
            import tokenizers

            extra["tokenizers_version"] = tokenizers.__version__
        return {**super().describe(), **extra}
