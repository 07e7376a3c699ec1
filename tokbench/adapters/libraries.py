"""How each library encodes a vocabulary without special tokens, and decodes without cleanup.

One function per library: given the vocabulary's files (``VocabFiles``), it loads the
library's tokenizer from the first file kind it reads and names the exact calls. The
call is the library's own no-special-tokens call, checked on strings where the wrong
call differs (tests/test_implementations.py): splintr's ``encode_raw`` (its
``encode_ordinary`` adds ``<s>``/``</s>`` for a SentencePiece-family tokenizer.json),
tiktoken-style ``encode_ordinary`` where a library has it, ``add_special_tokens=False``
for the ``tokenizers`` lookalikes. Where a library always matches special-token text
(``<|endoftext|>`` in the text becomes the special id) that is its behaviour and parity
reports it; nothing here hides it. Heavy libraries are imported inside each function.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tokbench.adapters.base import Tokenizer
from tokbench.adapters.library import Calls, CannotReadError, VocabFiles
from tokbench.errors import require

Loader = Callable[[VocabFiles], Calls]


def _lib(module: str, package: str) -> Any:
    return require(module, package, purpose=f"the {package} implementation")


def _fairseq(files: VocabFiles, calls: Calls) -> Calls:
    """Raw SentencePiece ids of a fairseq-numbered vocabulary (XLM-R) mapped as fairseq does."""
    if not (files.fairseq and files.kind == "sentencepiece"):
        return calls
    donor: Any = files.reference
    return Calls(calls.encode, calls.decode, calls.call, calls.encode_batch,
                 id_map=donor._hf, id_unmap=lambda i: donor._sp_id(i) or 0)


def _utf8(decode: Callable[[list[int]], bytes]) -> Callable[[list[int]], str]:
    return lambda ids: bytes(decode(ids)).decode("utf-8", errors="replace")


# -- tiktoken-kind libraries ------------------------------------------------------------------

#: rank-file sha256 -> the OpenAI encoding name libraries with built-in data use
OPENAI_ENCODINGS = {
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930": "r50k_base",
    "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069": "p50k_base",
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": "cl100k_base",
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": "o200k_base",
}


def openai_encoding(files: VocabFiles, supported: Sequence[str]) -> str:
    """The OpenAI encoding this vocabulary is (by the rank file's hash), if ``supported``."""
    if files.kind != "tiktoken":
        raise CannotReadError("tiktoken")
    sha = files.reference.source.sha256 or ""
    name = OPENAI_ENCODINGS.get(sha)
    if name is None or name not in supported:
        raise CannotReadError(f"tiktoken (built-in {', '.join(supported)} only)")
    return name


def bpe_openai(files: VocabFiles) -> Calls:
    """bpe-openai: its built-in cl100k/o200k data, checked to be this file by hash."""
    mod = _lib("bpe_openai._bindings", "bpe-openai")
    name = openai_encoding(files, mod.supported_encodings())
    tok = mod.tokenizer_for_encoding(name)
    return Calls(tok.encode, tok.decode, f"tokenizer_for_encoding({name!r}).encode")


def splintr(files: VocabFiles) -> Calls:
    """splintr: a rank file with the vocabulary's pattern, or a tokenizer.json."""
    mod = _lib("splintr", "splintr-rs")
    kind, path = files.first("tiktoken", "tokenizers")
    if kind == "tiktoken":
        tok = mod.Tokenizer(str(path), files.pattern, files.tiktoken_specials)
        return Calls(tok.encode_ordinary, tok.decode, "Tokenizer.encode_ordinary")
    tok = mod.from_json(str(path))
    return Calls(tok.encode_raw, tok.decode, "from_json().encode_raw")


def tokendagger(files: VocabFiles) -> Calls:
    """TokenDagger: tiktoken's ``Encoding`` constructor, same ranks and pattern."""
    mod = _lib("tokendagger", "tokendagger")
    if files.kind != "tiktoken":
        raise CannotReadError("tiktoken")
    enc: Any = files.reference.encoding  # type: ignore[attr-defined]
    tok = mod.Encoding(enc.name, pat_str=enc._pat_str, mergeable_ranks=enc._mergeable_ranks,
                       special_tokens=enc._special_tokens)
    return Calls(tok.encode_ordinary, tok.decode, "Encoding.encode_ordinary")


_XDG_LOCK = threading.Lock()


def wordchipper(files: VocabFiles) -> Calls:
    """wordchipper: only its pretrained OpenAI names, read from its cache folder, which is
    pointed (for the load call only) at a folder holding this very rank file."""
    mod = _lib("wordchipper", "wordchipper")
    name = openai_encoding(files, ("r50k_base", "p50k_base", "cl100k_base", "o200k_base"))
    from tokbench.paths import cache_dir

    home = cache_dir() / "implementations" / "wordchipper"
    target = home / "io.crates.wordchipper" / "openai" / name / f"{name}.tiktoken"
    if not target.is_file() or target.stat().st_size == 0:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(Path(str(files.reference.source.path)).read_bytes())
        tmp.replace(target)
    with _XDG_LOCK:  # wordchipper reads $XDG_CACHE_HOME; restored right after the load
        old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = str(home)
        try:
            tok = mod.Tokenizer.from_pretrained(f"openai:{name}")
        finally:
            if old is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = old
    if tok.vocab_size < 1000:  # it falls back to bare bytes when the file is unreadable
        raise CannotReadError(f"tiktoken (wordchipper loaded {tok.vocab_size} tokens)")
    none = mod.SpecialFilter.include_none()
    return Calls(lambda s: tok.encode(s, special_filter=none), tok.decode,
                 "Tokenizer.encode(special_filter=include_none())")


# -- multi-format libraries -------------------------------------------------------------------


def kitoken(files: VocabFiles) -> Calls:
    """kitoken: reads tiktoken, tokenizer.json, SentencePiece and tekken files itself."""
    mod = _lib("kitoken", "kitoken")
    readers = {"tiktoken": "from_tiktoken_file", "tokenizers": "from_tokenizers_file",
               "sentencepiece": "from_sentencepiece_file", "tekken": "from_tekken_file"}
    kind, path = files.first(*readers)
    tok = getattr(mod.Kitoken, readers[kind])(str(path))
    calls = Calls(lambda s: tok.encode(s, False), _utf8(lambda ids: tok.decode(ids, False)),
                  f"Kitoken.{readers[kind]}().encode(encode_specials=False)")
    return _fairseq(files, calls)


def fastokens(files: VocabFiles) -> Calls:
    """fastokens: a tokenizer.json, or a rank file with the vocabulary's pattern."""
    mod = _lib("fastokens", "fastokens")
    kind, path = files.first("tokenizers", "tiktoken")
    if kind == "tiktoken":
        tok = mod.Tokenizer.from_tiktoken(str(path), pattern=files.pattern,
                                          special_tokens=files.tiktoken_specials)
    else:
        tok = mod.Tokenizer.from_file(str(path))
    return Calls(lambda s: tok.encode(s, add_special_tokens=False,
                                      split_special_tokens=True).ids,
                 lambda ids: tok.decode(ids, skip_special_tokens=False),
                 "Tokenizer.encode(add_special_tokens=False, split_special_tokens=True)")


#: tiktoken presets -> gigatoken's pretokenizer names
GIGATOKEN_SCHEMES = {"r50k_base": "gpt2", "p50k_base": "gpt2", "cl100k_base": "cl100k",
                     "o200k_base": "o200k"}


def gigatoken(files: VocabFiles) -> Calls:
    """gigatoken: a BPE tokenizer.json, a BPE SentencePiece model, or an OpenAI rank file."""
    mod = _lib("gigatoken", "gigatoken")
    kind, path = files.first("tokenizers", "tiktoken", "sentencepiece")
    if kind == "tiktoken":
        name = openai_encoding(files, tuple(GIGATOKEN_SCHEMES))
        tok = mod.Tokenizer.from_tiktoken(str(path), pretokenizer=GIGATOKEN_SCHEMES[name],
                                          special_tokens=files.tiktoken_specials)
    elif kind == "sentencepiece":
        tok = mod.Tokenizer.from_sentencepiece(str(path))
    else:
        try:
            tok = mod.Tokenizer(str(path))
        except Exception as exc:
            raise CannotReadError(f"this tokenizer.json ({str(exc).splitlines()[0]})") from exc
    calls = Calls(lambda s: tok.encode(s).tolist(), _utf8(tok.decode), "Tokenizer.encode",
                  encode_batch=lambda texts: tok.encode_batch_list(texts))
    return _fairseq(files, calls)


def tokie(files: VocabFiles) -> Calls:
    """tokie: a tokenizer.json."""
    mod = _lib("tokie", "tokie")
    tok = mod.Tokenizer.from_json(str(files.path("tokenizers")))
    return Calls(lambda s: tok.encode(s, add_special_tokens=False).ids,
                 lambda ids: tok.decode(ids) or "", "Tokenizer.encode(add_special_tokens=False)")


def bpe_qwen(files: VocabFiles) -> Calls:
    """bpe-qwen: Qwen's byte-level BPE, from vocab.json + merges.txt written from the
    tokenizer.json (its only input)."""
    mod = _lib("bpe_qwen", "bpe-qwen")
    folder = files.path("vocab-merges")
    tok = mod.QwenTokenizer(str(folder))
    return Calls(tok.encode, tok.decode, "QwenTokenizer.encode")


def fast_bpe_rs(files: VocabFiles) -> Calls:
    """fast-bpe-rs trains its own BPE; it has no way to load a vocabulary."""
    _lib("fast_bpe_rs", "fast-bpe-rs")
    raise CannotReadError("any vocabulary file (fast-bpe-rs only trains: BPE(pattern).train)")


def flash_tokenizer(files: VocabFiles) -> Calls:
    """flash-tokenizer: BERT WordPiece from vocab.txt; ``tokenize`` then the vocabulary's
    ids (its ``encode`` always adds [CLS]/[SEP] and pads)."""
    mod = _lib("flash_tokenizer", "flash-tokenizer")
    path = files.path("wordpiece")
    lower = bool(files.options.get("lowercase"))
    tok = mod.BertTokenizerFlash(str(path), do_lower_case=lower, model_max_length=1 << 30)
    vocab = {line.rstrip("\n"): i
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(True))}
    unk = vocab.get("[UNK]", 0)
    ref = files.reference
    return Calls(lambda s: [vocab.get(p, unk) for p in tok.tokenize(s)], ref.decode,
                 "BertTokenizerFlash.tokenize (+ vocab.txt ids); decode: the reference's")


# -- the references, as adapters on a (possibly converted) file ----------------------------------


def reference_adapter(kind: str, files: VocabFiles, name: str) -> Tokenizer:
    """The tokbench adapter of library ``kind`` on this vocabulary (converted if need be)."""
    from tokbench.adapters import ADAPTERS

    if kind == "tiktoken":
        if files.kind != "tiktoken":
            raise CannotReadError("tiktoken rank files only")
        return files.reference
    if kind == "gguf":
        if files.kind != "gguf":
            raise CannotReadError("GGUF files only")
        return files.reference
    if kind == "sentencepiece":
        path = files.path("sentencepiece")
        opts = {"fairseq": True} if files.fairseq else {}
        return ADAPTERS.get("sentencepiece")(path, name=name, **opts)
    if kind == "tokenizers":
        return ADAPTERS.get("tokenizers")(files.path("tokenizers"), name=name)
    raise CannotReadError(kind)


def transformers_fast(files: VocabFiles, name: str) -> Tokenizer:
    """transformers' fast tokenizer on the tokenizer.json (``PreTrainedTokenizerFast``)."""
    tr = _lib("transformers", "transformers")
    from tokbench.adapters import ADAPTERS

    tok = tr.PreTrainedTokenizerFast(tokenizer_file=str(files.path("tokenizers")))
    out: Tokenizer = ADAPTERS.get("transformers")(tok, name=name)
    return out


def transformers_slow(files: VocabFiles, name: str) -> Tokenizer:
    """transformers' SentencePiece (Python, "slow") backend on the .model file."""
    tr = _lib("transformers", "transformers")
    from tokbench.adapters import ADAPTERS

    path = files.path("sentencepiece")
    try:
        from transformers.tokenization_utils_sentencepiece import SentencePieceBackend
    except ImportError:  # transformers 4: the slow classes are the SentencePiece ones
        cls = tr.XLMRobertaTokenizer if files.fairseq else tr.LlamaTokenizer
        tok = cls(vocab_file=str(path), legacy=True)
    else:
        if files.fairseq:
            raise CannotReadError("fairseq-numbered SentencePiece (transformers 5 has no "
                                  "slow XLM-R class)")
        tok = SentencePieceBackend(vocab_file=str(path))
    out: Tokenizer = ADAPTERS.get("transformers")(tok, name=name)
    return out


def vocab_merges(tokenizer_json: Path, folder: Path) -> Path:
    """vocab.json and merges.txt of a byte-level BPE tokenizer.json, written to ``folder``."""
    spec = json.loads(tokenizer_json.read_text(encoding="utf-8"))
    model = spec.get("model") or {}
    if model.get("type") != "BPE":
        raise CannotReadError("BPE tokenizer.json only")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps(model["vocab"], ensure_ascii=False),
                                       encoding="utf-8")
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n",
                                       encoding="utf-8")
    return folder
