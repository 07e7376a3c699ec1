"""Hugging Face ``tokenizers`` adapter (``tokenizer.json``), and the piece -> bytes rules.

The rules that turn a vocabulary piece into the UTF-8 bytes it stands for live here
once (``PieceRules``, ``piece_to_bytes``, the GPT-2 byte table) and are shared with
the ``transformers`` adapter:

* byte-level BPE (GPT-2, RoBERTa, Llama-3 and Qwen ``tokenizer.json``): every character
  of a piece is one byte through the GPT-2 byte-to-unicode table (``Ġ`` = space);
* Metaspace / SentencePiece style (Llama-2, XLM-R, T5): ``▁`` is a space;
* byte fallback: ``<0xNN>`` is the byte ``NN``;
* WordPiece: the continuation prefix ``##`` is dropped and a word-initial piece gets no
  space (the pre-tokenizer dropped it); a BPE end-of-word suffix (``</w>``) is dropped;
* special and unknown tokens stand for no bytes.

Loading makes a private copy of the tokenizer with truncation and padding off, special
tokens matched as plain text (``encode_special_tokens``) and the decoder's ``cleanup``
switched off (WordPiece would otherwise glue punctuation to words), so that ``encode``
adds nothing and ``decode`` cleans nothing up. A Unigram or WordPiece model could still
segment the text ``<s>`` as its special piece ``<s>``; such a text is encoded again with
a copy of the model that cannot (``text_blind_model``), as SentencePiece would.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.adapters.base import (
    EncodedWithOffsets,
    Encoding,
    Tokenizer,
    align_spans,
    char_spans_to_byte_spans,
    check_options,
    first_line,
    out_of_vocab,
    spans_reproduce,
)
from tokbench.adapters.hf_facts import read_facts, write_facts
from tokbench.errors import CorruptFileError, InputError, require
from tokbench.hashing import sha256_file
from tokbench.record import TokenizerSource

if TYPE_CHECKING:
    import tokenizers

BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character table used by byte-level BPE.

    Printable Latin-1 bytes stand for themselves; the other 68 bytes (controls, space,
    0x7F-0xA0, 0xAD) are shifted to U+0100 upwards in byte order, so space is ``Ġ``.
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in keep}
    shift = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + shift)
            shift += 1
    return table


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    """Inverse of ``bytes_to_unicode``."""
    return {c: b for b, c in bytes_to_unicode().items()}


@lru_cache(maxsize=1)
def _byte_level_translation() -> dict[int, int]:
    """``str.translate`` table: a character of ``bytes_to_unicode`` becomes the code point
    of its byte (so Latin-1 encodes it); any other below U+0100 becomes U+0100, which
    Latin-1 cannot encode, as cannot any character left above it."""
    table = {ord(c): b for c, b in unicode_to_bytes().items()}
    return {**{x: 0x100 for x in range(256)}, **table}


@dataclass(frozen=True)
class PieceRules:
    """How a tokenizer spells the bytes of its pieces (see the module docstring)."""

    byte_level: bool = False
    byte_fallback: bool = False
    replacements: tuple[tuple[str, str], ...] = ()  # e.g. (("▁", " "),) for Metaspace
    continuing_prefix: str | None = None  # "##" for WordPiece
    end_of_word_suffix: str | None = None  # "</w>" for CLIP-style BPE

    def describe(self) -> str:
        parts = []
        if self.byte_level:
            parts.append("byte-level")
        if self.byte_fallback:
            parts.append("byte-fallback")
        parts += [f"{a!r}->{b!r}" for a, b in self.replacements]
        if self.continuing_prefix:
            parts.append(f"prefix {self.continuing_prefix!r}")
        if self.end_of_word_suffix:
            parts.append(f"suffix {self.end_of_word_suffix!r}")
        return ", ".join(parts) or "plain UTF-8"


def piece_to_bytes(piece: str, rules: PieceRules) -> bytes:
    """The UTF-8 bytes a (non-special, known) vocabulary ``piece`` stands for."""
    if rules.byte_fallback:
        m = BYTE_PIECE.fullmatch(piece)
        if m:
            return bytes([int(m.group(1), 16)])
    if rules.continuing_prefix and piece.startswith(rules.continuing_prefix) \
            and len(piece) > len(rules.continuing_prefix):
        piece = piece[len(rules.continuing_prefix):]
    if rules.end_of_word_suffix and piece.endswith(rules.end_of_word_suffix) \
            and len(piece) > len(rules.end_of_word_suffix):
        piece = piece[:-len(rules.end_of_word_suffix)]
    if rules.byte_level:
        try:  # every character one of the table's: each is a byte
            return piece.translate(_byte_level_translation()).encode("latin-1")
        except UnicodeEncodeError:
            pass
    for old, new in rules.replacements:
        piece = piece.replace(old, new)
    return piece.encode("utf-8")


def _components(node: Any) -> Iterator[dict[str, Any]]:
    """Every component dict of a normalizer / pre-tokenizer / decoder, Sequences flattened."""
    if isinstance(node, dict):
        yield node
        for key in ("normalizers", "pretokenizers", "decoders"):
            for child in node.get(key) or ():
                yield from _components(child)


def rules_from_json(spec: dict[str, Any]) -> PieceRules:
    """Piece rules from a parsed ``tokenizer.json``."""
    model = spec.get("model") or {}
    pre = list(_components(spec.get("pre_tokenizer")))
    dec = list(_components(spec.get("decoder")))
    byte_level = any(c.get("type") == "ByteLevel" for c in pre + dec)
    replacements: list[tuple[str, str]] = []
    for c in dec + pre:
        if c.get("type") == "Metaspace":
            rep = c.get("replacement") or "▁"
            if (rep, " ") not in replacements:
                replacements.append((rep, " "))
    for c in dec:
        if c.get("type") == "Replace":
            pattern = c.get("pattern") or {}
            pair = (str(pattern.get("String") or ""), str(c.get("content") or ""))
            if pair[0] and pair not in replacements:
                replacements.append(pair)
    byte_fallback = bool(model.get("byte_fallback")) or any(
        c.get("type") == "ByteFallback" for c in dec)
    prefix = model.get("continuing_subword_prefix")
    if not prefix:
        prefix = next((c.get("prefix") for c in dec if c.get("type") == "WordPiece"), None)
    suffix = model.get("end_of_word_suffix") or next(
        (c.get("suffix") for c in dec if c.get("type") == "BPEDecoder"), None)
    return PieceRules(byte_level=byte_level, byte_fallback=byte_fallback,
                      replacements=tuple(replacements), continuing_prefix=prefix or None,
                      end_of_word_suffix=suffix or None)


def _without_cleanup(node: Any) -> Any:
    """A copy of a component tree with every ``cleanup`` flag set to False."""
    if isinstance(node, dict):
        return {k: (False if k == "cleanup" else _without_cleanup(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_without_cleanup(v) for v in node]
    return node


def prepare_json(spec: dict[str, Any]) -> dict[str, Any]:
    """``tokenizer.json`` made to encode and decode plainly: no truncation, no padding,
    no decoder clean-up."""
    spec = dict(spec)
    spec["truncation"] = None
    spec["padding"] = None
    spec["decoder"] = _without_cleanup(spec.get("decoder"))
    return spec


def decoder_from_json(node: dict[str, Any]) -> Any:
    """A ``tokenizers`` decoder object from its ``tokenizer.json`` node."""
    tk = _import_tokenizers()
    spec: dict[str, Any] = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": node,
        "model": {"type": "WordLevel", "vocab": {}, "unk_token": "<unk>"}}
    return tk.Tokenizer.from_str(json.dumps(spec)).decoder


HIDDEN = "\uffff"  # a noncharacter: marks special pieces so no text can match them


def _special_pieces(model: dict[str, Any], special: set[str]) -> set[str]:
    """The special tokens that are also pieces a Unigram or WordPiece model can produce."""
    if model.get("type") == "Unigram":
        return {p for p, _ in model.get("vocab") or [] if p in special}
    if model.get("type") == "WordPiece":
        # WordPiece names its unknown piece
        return (special - {model.get("unk_token")}) & set(model.get("vocab") or {})
    return set()  # BPE merges never build a special piece


def _hide_special_pieces(model: dict[str, Any], special: set[str]) -> dict[str, Any] | None:
    """The model node with its special pieces renamed, or None when it has none to hide."""
    hide = _special_pieces(model, special)
    if not hide:
        return None
    if model.get("type") == "Unigram":
        return {**model, "vocab": [[HIDDEN + p + HIDDEN if p in hide else p, score]
                                   for p, score in model["vocab"]]}
    return {**model, "vocab": {HIDDEN + p + HIDDEN if p in hide else p: i
                               for p, i in model["vocab"].items()}}


def special_pieces_reachable(spec: dict[str, Any]) -> bool:
    """Whether the model could segment text such as ``<s>`` as a special piece.

    A Unigram lattice (or a WordPiece vocabulary lookup) can, even with special-token
    matching off, where SentencePiece never produces a control symbol from text. BPE
    merges never build a special piece.
    """
    model = spec.get("model")
    if not isinstance(model, dict) or model.get("type") not in ("Unigram", "WordPiece"):
        return False
    special = {str(t.get("content")) for t in spec.get("added_tokens") or [] if t.get("special")}
    return bool(_special_pieces(model, special))  # checked, not renamed: a 250k-piece copy


def text_blind_model(backend: Any) -> Any:
    """A copy of ``backend``'s model (of a ``tokenizers.Tokenizer``) whose special pieces
    no text can match.

    The pieces are renamed (ids and scores unchanged). Set it as ``backend.model`` of a
    loaded tokenizer: the backend's added-token table keeps naming the special ids.
    Where the model's best segmentation has no special piece, this model gives the
    same one (a Viterbi best path or greedy longest match that avoided those pieces
    does not change when they are removed), so it is only needed for texts whose
    segmentation has one. Built from the model's own state, not the whole tokenizer's
    JSON (XLM-R: 1.2 s, not 2.8 s: building the 250k-piece model is what costs).
    """
    special = {t.content for t in backend.get_added_tokens_decoder().values() if t.special}
    state: bytes = backend.model.__getstate__()  # the model's JSON
    model = type(backend.model)()
    renamed = _renamed(state, backend.model, special)
    if renamed is None:  # parsed instead
        parsed = json.loads(state)
        renamed = json.dumps(_hide_special_pieces(parsed, special) or parsed).encode("utf-8")
    model.__setstate__(renamed)
    return model


def _renamed(state: bytes, model: Any, special: set[str]) -> bytes | None:
    """The model's JSON ``state`` with each special piece of its vocabulary renamed in
    place (a Unigram entry ``["<s>", score]``, a WordPiece key ``"[CLS]": id``), or None
    when a piece is not found exactly once as such (then the JSON is parsed instead)."""
    kind = type(model).__name__
    if kind not in ("Unigram", "WordPiece"):
        return None
    hide = {p for p in special if model.token_to_id(p) is not None}
    if kind == "WordPiece":
        hide.discard(getattr(model, "unk_token", None))
    for piece in hide:
        old, new = (json.dumps(text, ensure_ascii=False).encode("utf-8")
                    for text in (piece, HIDDEN + piece + HIDDEN))
        old, new = (b"[" + old + b",", b"[" + new + b",") if kind == "Unigram" else (
            old + b":", new + b":")
        if state.count(old) != 1:
            return None
        state = state.replace(old, new)
    return state


def blind_copy(backend: Any) -> Any:
    """A ``tokenizers.Tokenizer`` that encodes text as ``backend`` does, except that its
    model cannot segment text as a special piece (``text_blind_model``).

    Building a model of a large vocabulary is the cost (a second for 250k pieces), so it
    is built once: when every added token is special (text never matches one, as
    ``encode_special_tokens`` is set) the copy needs no added-token table and shares the
    backend's other components; otherwise the backend is parsed again around it.
    """
    tk = _import_tokenizers()
    model = text_blind_model(backend)
    if all(t.special for t in backend.get_added_tokens_decoder().values()):
        blind = tk.Tokenizer(model)
        for part in ("normalizer", "pre_tokenizer", "post_processor", "decoder"):
            component = getattr(backend, part)
            if component is not None:
                setattr(blind, part, component)
    else:  # plain added tokens are matched in text, under the ids the backend gave them
        blind = tk.Tokenizer.from_str(backend.to_str())
        blind.model = model
    blind.encode_special_tokens = True
    return blind


def spans_from(text: str, pieces: Sequence[bytes],
               offsets: Sequence[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """Byte spans: from the token bytes when they reproduce the text, else the backend offsets.

    Token bytes are exact (a byte-level token holding half a character gets its own
    bytes); offsets are the fallback when a normalizer changed the text (lower-casing,
    NFKC), where bytes cannot be matched.
    """
    data = text.encode("utf-8", "surrogatepass")
    spans = align_spans(data, pieces)
    if offsets is None or spans_reproduce(data, pieces, spans):
        return spans
    spans = char_spans_to_byte_spans(text, offsets)
    # a prepended "▁" that backends align to the first character stands for no byte
    for k, (piece, (s, e)) in enumerate(zip(pieces, spans, strict=True)):
        if piece and not piece.strip(b" ") and data[s:e].strip():
            spans[k] = (s, s)
    return spans


def _import_tokenizers() -> Any:
    return require("tokenizers", purpose="tokenizer.json files")


def load(path_or_obj: str | Path | tokenizers.Tokenizer, *, name: str,
         source: TokenizerSource | None = None, **options: Any) -> HFTokenizersTokenizer:
    """Load a ``tokenizer.json`` file (or a folder holding one, or a ``tokenizers.Tokenizer``).

    There are no options.
    """
    check_options("tokenizers", options)
    tk = _import_tokenizers()
    digest: str | None = None  # the file's, for the facts kept on disk (``hf_facts``)
    facts = None
    if isinstance(path_or_obj, tk.Tokenizer):
        raw = path_or_obj.to_str()
        source = source or TokenizerSource(kind="object", location=f"tokenizers.Tokenizer:{name}")
    else:
        path = Path(str(path_or_obj))
        if path.is_dir():
            path = path / "tokenizer.json"
        if not path.is_file():
            raise InputError(f"{path}: no such tokenizer.json file; give the path of a "
                             "Hugging Face tokenizer.json or the folder holding it")
        digest = sha256_file(path)
        source = source or TokenizerSource(kind="file", location=str(path),
                                           sha256=digest, path=str(path))
        facts = read_facts(digest)
        if facts is not None and _plain(facts[0]):  # no Python parse: tokenizers reads it
            try:
                backend = tk.Tokenizer.from_file(str(path))
            except Exception as exc:
                raise _corrupt(source, exc) from exc
            return HFTokenizersTokenizer(name, source, backend, facts[0], reachable=facts[1])
        raw = path.read_text(encoding="utf-8")
    try:
        spec = json.loads(raw)
        backend = tk.Tokenizer.from_str(raw if _plain(spec) else json.dumps(prepare_json(spec)))
    except Exception as exc:  # tokenizers raises a bare Exception on bad JSON
        raise _corrupt(source, exc) from exc
    tok = HFTokenizersTokenizer(name, source, backend, spec)
    if digest is not None and facts is None and _plain(spec):
        write_facts(digest, spec, tok._reachable)
    return tok


def _plain(spec: dict[str, Any]) -> bool:
    """Whether ``prepare_json`` leaves ``spec`` as it is (the file loads unchanged)."""
    plain = prepare_json(spec)
    return all(plain[k] == spec.get(k) for k in ("truncation", "padding", "decoder"))


def _corrupt(source: TokenizerSource, exc: Exception) -> CorruptFileError:
    where = source.path or source.location
    return CorruptFileError(f"{where}: not a valid tokenizer.json ({first_line(exc)})")


class HFTokenizersTokenizer(Tokenizer):
    """A ``tokenizers.Tokenizer`` behind the tokbench interface."""

    backend = "tokenizers"
    native_threads = True

    def __init__(self, name: str, source: TokenizerSource, backend: tokenizers.Tokenizer,
                 spec: dict[str, Any], reachable: bool | None = None) -> None:
        """``spec``: the parsed ``tokenizer.json`` (its model's vocabulary and merges may be
        left out when ``reachable``, ``special_pieces_reachable`` of the whole, is given)."""
        super().__init__(name, source)
        self._tok = backend
        # the parsed JSON (the whole vocabulary) is not kept; only what describe() shows
        self._kinds = {key: node.get("type") if isinstance(node, dict) else None
                       for key in ("model", "normalizer", "pre_tokenizer", "decoder")
                       for node in [spec.get(key)]}
        self.rules = rules_from_json(spec)
        self._vocab_size = backend.get_vocab_size(with_added_tokens=True)
        added = backend.get_added_tokens_decoder()
        self._special = {t.content: i for i, t in added.items() if t.special}
        self._special_ids = frozenset(self._special.values())
        self._added_plain = {i: t.content for i, t in added.items() if not t.special}
        self._unk_id = self._find_unk(spec.get("model") or {})
        # an unknown id is special but also what unknown characters legitimately give;
        # it comes from a special *piece* only where the text spells that piece
        self._unk_text = next((t for t, i in self._special.items() if i == self._unk_id), None)
        self._suspect_ids = self._special_ids - {self._unk_id}
        backend.encode_special_tokens = True  # "<s>" in text is text, not the special id
        # ... and not a special piece of the model either (built when first needed)
        self._reachable = special_pieces_reachable(spec) if reachable is None else reachable
        self._blind: tokenizers.Tokenizer | None = None
        self._lock = threading.Lock()
        self._bytes_cache: dict[int, bytes] = {}

    def _find_unk(self, model: dict[str, Any]) -> int | None:
        if model.get("type") == "Unigram":
            unk = model.get("unk_id")
            return int(unk) if unk is not None else None
        token = model.get("unk_token")
        if not token:
            return None
        tid = self._tok.token_to_id(token)
        return int(tid) if tid is not None else None

    def _blind_backend(self) -> tokenizers.Tokenizer:
        with self._lock:
            if self._blind is None:
                self._blind = blind_copy(self._tok)
            return self._blind

    def _special_piece_used(self, text: str, ids: Sequence[int]) -> bool:
        """Whether the model may have matched a special piece spelled in ``text``."""
        if not self._suspect_ids.isdisjoint(ids):
            return True
        return (self._unk_text is not None and self._unk_text in text
                and self._unk_id in ids)

    def _encode(self, text: str) -> tokenizers.Encoding:
        enc = self._tok.encode(text, add_special_tokens=False)
        if self._reachable and self._special_piece_used(text, enc.ids):
            enc = self._blind_backend().encode(text, add_special_tokens=False)
        return enc

    @property
    def vocab_size(self) -> int:
        return int(self._vocab_size)

    @property
    def unk_id(self) -> int | None:
        return self._unk_id

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special)

    @property
    def byte_fallback(self) -> bool:
        return self.rules.byte_fallback

    def is_byte_fallback_token(self, token_id: int) -> bool:
        if not self.rules.byte_fallback:
            return False
        piece = self._tok.id_to_token(token_id)
        return piece is not None and BYTE_PIECE.fullmatch(piece) is not None

    def encode(self, text: str) -> list[int]:
        return list(self._encode(text).ids)

    def encode_batch(self, texts: Sequence[str], threads: int = 1) -> list[list[int]]:
        """Native batch encode when ``threads`` > 1.

        The backend runs batches on Rayon's global pool, whose size is set once per
        process by ``RAYON_NUM_THREADS`` (default: all cores), not per call; with
        ``threads`` <= 1 texts are encoded one by one on the calling thread.
        """
        if threads <= 1 or len(texts) < 2:
            return [self.encode(t) for t in texts]
        batch = getattr(self._tok, "encode_batch_fast", None) or self._tok.encode_batch
        out = [list(e.ids) for e in batch(list(texts), add_special_tokens=False)]
        if self._reachable:
            for k, ids in enumerate(out):
                if self._special_piece_used(texts[k], ids):
                    out[k] = self.encode(texts[k])
        return out

    def encode_batch_offsets(self, texts: Sequence[str], threads: int = 1
                             ) -> list[EncodedWithOffsets]:
        """Ids and the backend's character offsets, both from one encode per text."""
        if threads <= 1 or len(texts) < 2:
            encs = [self._encode(t) for t in texts]
        else:
            encs = self._tok.encode_batch(list(texts), add_special_tokens=False)
            if self._reachable:
                encs = [self._encode(t) if self._special_piece_used(t, e.ids) else e
                        for t, e in zip(texts, encs, strict=True)]
        return [EncodedWithOffsets(e.ids, e.offsets) for e in encs]

    def normalize(self, text: str) -> str | None:
        norm = self._tok.normalizer
        return text if norm is None else str(norm.normalize_str(text))

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._tok.decode(list(ids), skip_special_tokens=False))

    def token_str(self, token_id: int) -> str:
        piece = self._tok.id_to_token(token_id)
        if piece is None:
            raise out_of_vocab(self, token_id)
        return str(piece)

    def token_bytes(self, token_id: int) -> bytes:
        cached = self._bytes_cache.get(token_id)
        if cached is not None:
            return cached
        piece = self._tok.id_to_token(token_id)
        if piece is None:
            raise out_of_vocab(self, token_id)
        if token_id == self._unk_id or token_id in self._special_ids:
            out = b""
        elif token_id in self._added_plain:
            out = self._added_plain[token_id].encode("utf-8")
        else:
            out = piece_to_bytes(piece, self.rules)
        self._bytes_cache[token_id] = out
        return out

    def encode_with_spans(self, text: str) -> Encoding:
        enc = self._encode(text)
        ids = list(enc.ids)
        pieces = [self.token_bytes(i) for i in ids]
        return Encoding(ids, spans_from(text, pieces, [(int(s), int(e)) for s, e in enc.offsets]))

    def backend_version(self) -> str:
        return str(_import_tokenizers().__version__)

    def describe(self) -> dict[str, Any]:
        k = self._kinds
        return {**super().describe(), "model_type": k["model"], "normalizer": k["normalizer"],
                "pre_tokenizer": k["pre_tokenizer"], "decoder": k["decoder"],
                "piece_rules": self.rules.describe()}
