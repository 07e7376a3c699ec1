"""tiktoken adapter: OpenAI encodings, Llama-3 and Mistral Tekken.

Load a ``.tiktoken`` rank file (lines ``<base64 token bytes> <rank>``, optionally
gzipped) with a split pattern and special tokens, an existing ``tiktoken.Encoding``, an
encoding name (``tiktoken.get_encoding``, needs the network the first time) or a
Mistral Tekken JSON file (``load_tekken``).

The split patterns and special tokens of the known encodings are constants here
(``PRESETS``); a rank file whose sha256 is a known one gets its preset without asking.
``encode`` is ``encode_ordinary``: text such as ``<|endoftext|>`` is plain text. Every
token is a byte string; tokens that are part of a multi-byte character are not valid
UTF-8 on their own and are returned as they are by ``token_bytes`` (``token_str`` shows
them with ``\\x`` escapes). tiktoken has no unknown token and no byte fallback.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.adapters.base import (
    Tokenizer,
    check_options,
    first_line,
    out_of_vocab,
)
from tokbench.errors import (
    CorruptFileError,
    InputError,
    SourceError,
    UnknownNameError,
    require,
)
from tokbench.hashing import sha256_file
from tokbench.record import TokenizerSource

if TYPE_CHECKING:
    import tiktoken

# Split patterns as published (tiktoken_ext/openai_public.py, llama_models/llama3/tokenizer.py).
# Recent tiktoken releases use equivalent possessive-quantifier rewrites; these original
# forms work with every tiktoken version.
R50K_PAT_STR = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
CL100K_PAT_STR = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"""
                  r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""")
O200K_PAT_STR = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
LLAMA3_PAT_STR = CL100K_PAT_STR

ENDOFTEXT = "<|endoftext|>"
R50K_SPECIAL_TOKENS = {ENDOFTEXT: 50256}
P50K_SPECIAL_TOKENS = {ENDOFTEXT: 50256}
CL100K_SPECIAL_TOKENS = {ENDOFTEXT: 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                         "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
O200K_SPECIAL_TOKENS = {ENDOFTEXT: 199999, "<|endofprompt|>": 200018}

LLAMA3_NUM_BASE_TOKENS = 128000
LLAMA3_NUM_SPECIAL_TOKENS = 256
_LLAMA3_NAMED = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                 "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
                 "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>",
                 "<|python_tag|>", "<|image|>"]


def llama3_special_tokens(num_base_tokens: int = LLAMA3_NUM_BASE_TOKENS) -> dict[str, int]:
    """Llama 3.x's 256 special tokens, ids from ``num_base_tokens`` (128000) on.

    As in llama_models/llama3/tokenizer.py (Llama 3.1+ names; the ids of
    ``<|begin_of_text|>``, ``<|end_of_text|>``, ``<|start_header_id|>``,
    ``<|end_header_id|>`` and ``<|eot_id|>`` are the same in Llama 3.0).
    """
    reserved = [f"<|reserved_special_token_{2 + i}|>"
                for i in range(LLAMA3_NUM_SPECIAL_TOKENS - len(_LLAMA3_NAMED))]
    return {tok: num_base_tokens + i for i, tok in enumerate(_LLAMA3_NAMED + reserved)}


#: Whisper's language tokens, in its order (whisper/tokenizer.py LANGUAGES of openai-whisper
#: 20250625); the multilingual encoding uses the first 99 (large-v3 adds the 100th, yue)
WHISPER_LANGUAGES = (
    "en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv",
    "it", "id", "hi", "fi", "vi", "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no",
    "th", "ur", "hr", "bg", "lt", "la", "mi", "ml", "cy", "sk", "te", "fa", "lv", "bn", "sr",
    "az", "sl", "kn", "et", "mk", "br", "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw",
    "gl", "mr", "pa", "si", "km", "sn", "yo", "so", "af", "oc", "ka", "be", "tg", "sd", "gu",
    "am", "yi", "lo", "uz", "fo", "ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl",
    "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su", "yue",
)
WHISPER_NUM_LANGUAGES = 99


def whisper_special_tokens(num_base_tokens: int = 50257,
                           num_languages: int = WHISPER_NUM_LANGUAGES) -> dict[str, int]:
    """Whisper's special tokens after its ranks, as ``whisper.tokenizer.get_encoding`` adds
    them: end of text, start of transcript, languages, tasks, then 1501 timestamps."""
    specials = [ENDOFTEXT, "<|startoftranscript|>",
                *[f"<|{lang}|>" for lang in WHISPER_LANGUAGES[:num_languages]],
                "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>",
                "<|nospeech|>", "<|notimestamps|>", *[f"<|{i * 0.02:.2f}|>" for i in range(1501)]]
    return {tok: num_base_tokens + i for i, tok in enumerate(specials)}


@dataclass(frozen=True)
class Preset:
    """Pattern, special tokens and declared size of a known encoding."""

    pat_str: str
    special_tokens: Callable[[int], dict[str, int]]  # number of rank tokens -> specials
    explicit_n_vocab: int | None = None
    sha256: str | None = None  # of the rank file


PRESETS: dict[str, Preset] = {
    "r50k_base": Preset(R50K_PAT_STR, lambda n: dict(R50K_SPECIAL_TOKENS), 50257,
                        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"),
    "p50k_base": Preset(R50K_PAT_STR, lambda n: dict(P50K_SPECIAL_TOKENS), 50281,
                        "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"),
    "cl100k_base": Preset(CL100K_PAT_STR, lambda n: dict(CL100K_SPECIAL_TOKENS), None,
                          "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    "o200k_base": Preset(O200K_PAT_STR, lambda n: dict(O200K_SPECIAL_TOKENS), None,
                         "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    "llama-3": Preset(LLAMA3_PAT_STR, llama3_special_tokens,
                      LLAMA3_NUM_BASE_TOKENS + LLAMA3_NUM_SPECIAL_TOKENS,
                      "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55"),
    "whisper-multilingual": Preset(
        R50K_PAT_STR, whisper_special_tokens, 50257 + len(whisper_special_tokens()),
        "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126"),
}
PRESET_ALIASES = {"gpt2": "r50k_base", "llama3": "llama-3"}


def _import_tiktoken() -> Any:
    return require("tiktoken", purpose="tiktoken encodings")


def _preset(name: str) -> Preset:
    key = PRESET_ALIASES.get(name, name)
    if key not in PRESETS:
        raise UnknownNameError("tiktoken preset", name, [*PRESETS, *PRESET_ALIASES])
    return PRESETS[key]


def read_rank_file(path: str | Path, cache: bool = True) -> tuple[dict[bytes, int], str]:
    """Ranks of a ``.tiktoken`` file (gzip allowed) and the sha256 of its (unzipped) bytes.
    ``cache``: take the ranks checked before from the cache (``tiktoken_ranks``), and
    keep them there once checked."""
    from tokbench.adapters.tiktoken_ranks import read_ranks, write_ranks

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such tiktoken rank file")
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise CorruptFileError(f"{path}: broken gzip data ({exc})") from exc
    digest = hashlib.sha256(data).hexdigest()
    ranks = read_ranks(digest) if cache else None
    if ranks is not None:
        return ranks, digest
    ranks = _well_formed_ranks(data)
    if ranks is None:
        ranks = _checked_ranks(path, data)
    if cache:
        write_ranks(digest, ranks)
    return ranks, digest


def _well_formed_ranks(data: bytes) -> dict[bytes, int] | None:
    """The ranks of a rank file whose every line is right, read in bulk (a few hundred
    thousand lines: the line-by-line reader took a second); None when any check fails,
    so that ``_checked_ranks`` names the first wrong line. The same checks: two fields,
    strict base64 ("=" is the empty token), integer ranks from 0, no token twice, ids
    within ``max_id``."""
    a2b = binascii.a2b_base64  # what base64.b64decode(validate=True) calls
    try:
        pairs = [line.split() for line in data.splitlines() if line.strip()]
        ranks = {b"" if token == b"=" else a2b(token, strict_mode=True): int(rank)
                 for token, rank in pairs}
    except (ValueError, binascii.Error):
        return None
    if not ranks or len(ranks) != len(pairs):
        return None
    if min(ranks.values()) < 0 or max(ranks.values()) > max_id(len(ranks)):
        return None
    return ranks


def _checked_ranks(path: Path, data: bytes) -> dict[bytes, int]:
    """The ranks read line by line, the first wrong line named in the error."""
    ranks: dict[bytes, int] = {}
    top = (-1, 0)  # (highest rank, its line)
    for lineno, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            token_b64, rank_s = line.split()
            # whisper's multilingual.tiktoken gives rank 50256 as "=": an empty token
            token = b"" if token_b64 == b"=" else base64.b64decode(token_b64, validate=True)
            rank = int(rank_s)
        except (ValueError, binascii.Error) as exc:
            raise CorruptFileError(f"{path}:{lineno}: not a tiktoken rank line, expected "
                                   f"'<base64 bytes> <rank>', got {line[:60]!r}") from exc
        if token in ranks:
            raise CorruptFileError(f"{path}:{lineno}: token {token!r} is listed twice")
        if rank < 0:
            raise CorruptFileError(f"{path}:{lineno}: rank {rank} is negative; ranks are "
                                   "token ids from 0")
        ranks[token] = rank
        top = max(top, (rank, lineno))
    if not ranks:
        raise CorruptFileError(f"{path}: empty tiktoken rank file")
    _check_ids(f"{path}:{top[1]}", top[0], len(ranks))
    return ranks


def max_id(tokens: int) -> int:
    """The highest token id a vocabulary of ``tokens`` tokens may use: ids are dense but
    for a few gaps (reserved special ids); far beyond, a table indexed by id would take
    gigabytes for nothing."""
    return 2 * tokens + 4096


def _check_ids(where: str, top: int, tokens: int) -> None:
    if top > max_id(tokens):
        raise CorruptFileError(f"{where}: id {top:,} is far beyond the {tokens:,} tokens "
                               f"(ids above {max_id(tokens):,} are refused); fix that rank or "
                               "token id")


def load(path_or_obj: str | Path | tiktoken.Encoding, *, name: str,
         source: TokenizerSource | None = None, preset: str | None = None,
         pat_str: str | None = None, special_tokens: dict[str, int] | None = None,
         explicit_n_vocab: int | None = None, **options: Any) -> TiktokenTokenizer:
    """Load a tiktoken encoding.

    ``path_or_obj`` is a ``tiktoken.Encoding``, a ``.tiktoken`` rank file, a Tekken
    ``.json`` file, or an encoding name for ``tiktoken.get_encoding``. For a rank file,
    ``preset`` (``r50k_base``/``gpt2``, ``p50k_base``, ``cl100k_base``, ``o200k_base``,
    ``llama-3``) gives the pattern, special tokens and declared size; it is found from
    the file's sha256 when not given. ``pat_str``, ``special_tokens`` and
    ``explicit_n_vocab`` override it.
    """
    check_options("tiktoken", options, ("preset", "pat_str", "special_tokens",
                                        "explicit_n_vocab"))
    tk = _import_tiktoken()
    if isinstance(path_or_obj, tk.Encoding):
        src = source or TokenizerSource(kind="tiktoken", location=path_or_obj.name)
        return TiktokenTokenizer(name, src, path_or_obj)
    path = Path(str(path_or_obj))
    if isinstance(path_or_obj, str) and not path.exists() \
            and re.fullmatch(r"[A-Za-z0-9_-]+", path_or_obj):
        return _from_registry(path_or_obj, name=name, source=source)
    if path.suffix == ".json":
        return load_tekken(path, name=name, source=source)
    ranks, digest = read_rank_file(path)
    if preset is None:
        preset = next((k for k, p in PRESETS.items() if p.sha256 == digest), None)
    chosen = _preset(preset) if preset is not None else None
    if pat_str is None:
        if chosen is None:
            raise InputError(f"{path}: unknown tiktoken rank file; say which encoding it is "
                             f"with preset= (one of {', '.join(PRESETS)}) or give pat_str= "
                             "and special_tokens=")
        pat_str = chosen.pat_str
    if special_tokens is None:
        special_tokens = chosen.special_tokens(len(ranks)) if chosen else {}
        if explicit_n_vocab is None and chosen is not None:
            explicit_n_vocab = chosen.explicit_n_vocab
    src = source or TokenizerSource(kind="file", location=str(path), sha256=digest, path=str(path))
    enc = _encoding(tk, path, name=name, pat_str=pat_str, ranks=ranks,
                    special_tokens=special_tokens, explicit_n_vocab=explicit_n_vocab)
    return TiktokenTokenizer(name, src, enc, declared_vocab=explicit_n_vocab)


def _encoding(tk: Any, path: Path, *, name: str, pat_str: str, ranks: dict[bytes, int],
              special_tokens: dict[str, int], explicit_n_vocab: int | None) -> tiktoken.Encoding:
    values = [*ranks.values(), *special_tokens.values()]
    top, low = max(values, default=0), min(values, default=0)
    if low < 0:
        raise CorruptFileError(f"{path}: token id {low} is negative; ids start at 0")
    if top > max_id(max(len(values), explicit_n_vocab or 0)):  # name the token that has it
        ids = [*ranks.items(), *((k.encode("utf-8"), v) for k, v in special_tokens.items())]
        token = next(k for k, v in ids if v == top)
        _check_ids(f"{path}: token {token!r}", top, max(len(ids), explicit_n_vocab or 0))
    if explicit_n_vocab is not None:
        have = len(ranks) + len(special_tokens)
        top = max([*ranks.values(), *special_tokens.values()])
        if have != explicit_n_vocab or top != explicit_n_vocab - 1:
            raise CorruptFileError(
                f"{path}: {len(ranks)} ranks + {len(special_tokens)} special tokens "
                f"(highest id {top}) do not make the declared {explicit_n_vocab} ids; "
                "check the preset or explicit_n_vocab")
    try:
        enc: tiktoken.Encoding = tk.Encoding(name=name, pat_str=pat_str, mergeable_ranks=ranks,
                                    special_tokens=special_tokens,
                                    explicit_n_vocab=explicit_n_vocab)
        return enc
    except BaseException as exc:  # a Rust panic (pyo3 PanicException) is a BaseException
        if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
            raise
        raise CorruptFileError(f"{path}: tiktoken refused the encoding ({first_line(exc)})"
                               ) from exc


def _from_registry(encoding: str, *, name: str, source: TokenizerSource | None
                   ) -> TiktokenTokenizer:
    tk = _import_tiktoken()
    known = tk.list_encoding_names()
    if encoding not in known:
        raise UnknownNameError("tiktoken encoding", encoding, known,
                               hint="or give the path of a .tiktoken rank file")
    try:
        enc = tk.get_encoding(encoding)
    except Exception as exc:  # network errors come from requests/urllib3
        raise SourceError(f"tiktoken could not fetch encoding {encoding!r} "
                          f"({type(exc).__name__}); without network, load its rank file by "
                          f"path with preset={encoding!r}") from exc
    src = source or TokenizerSource(kind="tiktoken", location=encoding)
    return TiktokenTokenizer(name, src, enc)


#: Tekken files up to v7 that list no special tokens have these first (mistral-common).
TEKKEN_LEGACY_SPECIAL_TOKENS = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
    "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]")


def load_tekken(path: str | Path, *, name: str | None = None,
                source: TokenizerSource | None = None) -> TiktokenTokenizer:
    """Load a Mistral Tekken JSON file (base64 ranks, a pattern, special tokens first).

    The first ``default_num_special_tokens`` ids are special tokens (those the file
    names, or ``TEKKEN_LEGACY_SPECIAL_TOKENS`` for old files, then ``<SPECIAL_k>``
    fillers, as in mistral-common); the rank tokens follow, shifted by that many ids,
    cut to ``default_vocab_size`` ids in all.
    """
    tk = _import_tiktoken()
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such Tekken JSON file")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
        config = spec["config"]
        n_special = int(config["default_num_special_tokens"])
        n_vocab = int(config["default_vocab_size"])
        pattern = str(config["pattern"])
        vocab = spec["vocab"][:n_vocab - n_special]
        ranks = {base64.b64decode(v["token_bytes"]): int(v["rank"]) + n_special for v in vocab}
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise CorruptFileError(f"{path}: not a Tekken tokenizer file ({type(exc).__name__}: "
                               f"{exc}); expected 'config' with 'pattern', "
                               "'default_vocab_size', 'default_num_special_tokens' and a "
                               "'vocab' of base64 'token_bytes'") from exc
    listed = spec.get("special_tokens")
    named = (list(TEKKEN_LEGACY_SPECIAL_TOKENS) if listed is None else
             [str(t["token_str"]) for t in sorted(listed, key=lambda t: int(t["rank"]))])
    specials = {tok: i for i, tok in enumerate(named[:n_special])}
    for i in range(len(specials), n_special):
        specials[f"<SPECIAL_{i}>"] = i
    src = source or TokenizerSource(kind="file", location=str(path),
                                    sha256=sha256_file(path),
                                    path=str(path))
    enc = _encoding(tk, path, name=name or path.stem, pat_str=pattern, ranks=ranks,
                    special_tokens=specials, explicit_n_vocab=n_vocab)
    unk = specials.get("<unk>")
    return TiktokenTokenizer(name or path.stem, src, enc, declared_vocab=n_vocab, unk_id=unk)


class TiktokenTokenizer(Tokenizer):
    """A ``tiktoken.Encoding`` behind the tokbench interface."""

    backend = "tiktoken"
    gil_free_encode = True

    def __init__(self, name: str, source: TokenizerSource, encoding: tiktoken.Encoding,
                 declared_vocab: int | None = None, unk_id: int | None = None) -> None:
        super().__init__(name, source)
        self.encoding = encoding
        self._declared = declared_vocab or int(encoding.n_vocab)
        self._special = {t: encoding.encode_single_token(t) for t in encoding.special_tokens_set}
        self._special_ids = set(self._special.values())
        self._special_text = {i: t for t, i in self._special.items()}
        self._unk = unk_id

    @property
    def vocab_size(self) -> int:
        return self._declared

    @property
    def unk_id(self) -> int | None:
        return self._unk

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special)

    @property
    def pat_str(self) -> str:
        return str(getattr(self.encoding, "_pat_str", ""))

    def encode(self, text: str) -> list[int]:
        return list(self.encoding.encode_ordinary(text))

    def _encode_one(self) -> Callable[[str], list[int]]:
        """tiktoken's ``encode_ordinary``: a new list each call, no copy needed (it
        releases the GIL while it encodes, so ``encode_batch``'s threads overlap)."""
        return self.encoding.encode_ordinary

    def normalize(self, text: str) -> str | None:
        return text  # tiktoken has no normalizer

    def decode(self, ids: Sequence[int]) -> str:
        return str(self.encoding.decode(list(ids)))

    def token_bytes(self, token_id: int) -> bytes:
        if token_id in self._special_ids:
            return b""
        try:
            return bytes(self.encoding.decode_single_token_bytes(token_id))
        except (KeyError, ValueError, OverflowError) as exc:
            raise out_of_vocab(self, token_id) from exc

    def all_token_bytes(self) -> list[bytes] | None:
        """Straight from the rank table (special tokens and gaps stand for no bytes)."""
        ranks = getattr(self.encoding, "_mergeable_ranks", None)
        if not ranks:
            return None
        out = [b""] * self.vocab_size
        for piece, rank in ranks.items():
            if rank < len(out):
                out[rank] = piece
        return out

    def token_str(self, token_id: int) -> str:
        if token_id in self._special_text:
            return self._special_text[token_id]
        return self.token_bytes(token_id).decode("utf-8", errors="backslashreplace")

    def backend_version(self) -> str:
        return str(_import_tiktoken().__version__)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "encoding": self.encoding.name,
                "pattern_sha256": hashlib.sha256(self.pat_str.encode("utf-8")).hexdigest()[:16]}
