"""``NAME@IMPL``: one vocabulary, loaded with another library.

``IMPLEMENTATIONS`` names every library tokbench can run a vocabulary with: the
references (tiktoken, tokenizers, sentencepiece, transformers fast and slow, tokbench's
GGUF path) and the re-implementations on PyPI. Each says which file kinds it reads; a
vocabulary of another kind is converted exactly where tokbench can (a tiktoken rank file
to a byte-level BPE tokenizer.json, a GGUF SentencePiece vocabulary to its .model, a
WordPiece tokenizer.json to vocab.txt), and otherwise the spec fails with one line.
Third parties add libraries through the ``tokbench.implementations`` entry-point group.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from tokbench.adapters.base import Tokenizer
from tokbench.adapters.library import CannotReadError, LibraryTokenizer, VocabFiles
from tokbench.errors import InputError, MissingDependencyError
from tokbench.record import TokenizerSource
from tokbench.registry import Registry, import_object


@dataclass(frozen=True)
class Implementation:
    """A library that can encode a vocabulary, and the file kinds it reads itself."""

    name: str
    package: str  # the pip package
    module: str  # what it is imported as
    reads: tuple[str, ...]  # file kinds it loads without conversion
    loader: str  # "module:function": (VocabFiles) -> Calls, or (VocabFiles, name) -> Tokenizer
    reference: bool = False  # a reference library (loader returns a tokbench adapter)
    note: str = ""
    algorithms: tuple[str, ...] = ()  # only these model families (catalog ``algorithm``)

    def installed(self) -> bool:
        try:
            return importlib.util.find_spec(self.module.split(".")[0]) is not None
        except (ImportError, ValueError):
            return False

    def version(self) -> str:
        try:
            return version(self.package)
        except PackageNotFoundError:
            return "?"


_L = "tokbench.adapters.libraries"
IMPLEMENTATIONS: Registry[Implementation] = Registry("implementation", "tokbench.implementations")
for _impl, _aliases in (
    (Implementation("tiktoken", "tiktoken", "tiktoken", ("tiktoken",),
                    f"{_L}:reference_adapter", True), ()),
    (Implementation("tokenizers", "tokenizers", "tokenizers", ("tokenizers",),
                    f"{_L}:reference_adapter", True), ("hf-tokenizers",)),
    (Implementation("sentencepiece", "sentencepiece", "sentencepiece", ("sentencepiece",),
                    f"{_L}:reference_adapter", True), ("spm",)),
    (Implementation("transformers", "transformers", "transformers", ("tokenizers",),
                    f"{_L}:transformers_fast", True), ("transformers-fast", "hf-fast")),
    (Implementation("transformers-slow", "transformers", "transformers", ("sentencepiece",),
                    f"{_L}:transformers_slow", True), ("hf-slow",)),
    (Implementation("gguf", "gguf", "gguf", ("gguf",), f"{_L}:reference_adapter", True), ()),
    (Implementation("bpe-openai", "bpe-openai", "bpe_openai", ("tiktoken",), f"{_L}:bpe_openai",
                    note="cl100k/o200k only"), ("bpe_openai",)),
    (Implementation("splintr", "splintr-rs", "splintr", ("tiktoken", "tokenizers"),
                    f"{_L}:splintr"), ("splintr-rs",)),
    (Implementation("kitoken", "kitoken", "kitoken",
                    ("tiktoken", "tokenizers", "sentencepiece", "tekken"), f"{_L}:kitoken"), ()),
    (Implementation("tokie", "tokie", "tokie", ("tokenizers",), f"{_L}:tokie"), ()),
    (Implementation("gigatoken", "gigatoken", "gigatoken", ("tokenizers", "tiktoken",
                                                            "sentencepiece"),
                    f"{_L}:gigatoken", note="BPE only", algorithms=("BPE",)),
     ()),
    (Implementation("fastokens", "fastokens", "fastokens", ("tokenizers", "tiktoken"),
                    f"{_L}:fastokens"), ()),
    (Implementation("wordchipper", "wordchipper", "wordchipper", ("tiktoken",),
                    f"{_L}:wordchipper", note="OpenAI only"), ()),
    (Implementation("fast-bpe-rs", "fast-bpe-rs", "fast_bpe_rs", (), f"{_L}:fast_bpe_rs",
                    note="trains only"), ("fast_bpe_rs",)),
    (Implementation("bpe-qwen", "bpe-qwen", "bpe_qwen", ("vocab-merges",), f"{_L}:bpe_qwen",
                    note="Qwen BPE", algorithms=("byte-level BPE",)),
     ("bpe_qwen",)),
    (Implementation("tokendagger", "tokendagger", "tokendagger", ("tiktoken",),
                    f"{_L}:tokendagger", note="sdist, libpcre2"),
     ()),
    (Implementation("flash-tokenizer", "flash-tokenizer", "flash_tokenizer", ("wordpiece",),
                    f"{_L}:flash_tokenizer", note="WordPiece", algorithms=("WordPiece",)),
     ("flash_tokenizer",)),
):
    IMPLEMENTATIONS.register(_impl.name, _impl, _aliases)

#: which file kinds tokbench converts a vocabulary of a kind to (exactly)
CONVERTS = {
    "tiktoken": ("tokenizers",),
    "gguf": ("sentencepiece", "tokenizers", "wordpiece"),
    "tokenizers": ("wordpiece", "vocab-merges"),
    "wordpiece": ("tokenizers",),
    "sentencepiece": (),
    "tekken": (),
}


def get_implementation(name: str) -> Implementation:
    """The registered library ``name`` (or alias); "did you mean" when unknown."""
    obj: Any = IMPLEMENTATIONS.get(name)
    if callable(obj) and not isinstance(obj, Implementation):
        obj = obj()
    assert isinstance(obj, Implementation)
    return obj


def file_kind(tok: Tokenizer) -> tuple[str, dict[str, Any]]:
    """The kind of file a reference adapter was loaded from, and the options that matter."""
    path = str(tok.source.path or "")
    backend = tok.backend
    if backend == "tiktoken":
        return ("tekken" if path.endswith(".json") else "tiktoken"), {}
    if backend == "sentencepiece":
        return "sentencepiece", ({"fairseq": True} if hasattr(tok, "_sp_id") else {})
    if backend == "gguf":
        return "gguf", {}
    if backend == "tokenizers":
        raw = getattr(tok, "_tok", None)
        spec = json.loads(raw.to_str()) if raw is not None else {}
        lower = bool((spec.get("normalizer") or {}).get("lowercase"))
        return ("wordpiece" if path.endswith(".txt") else "tokenizers"), {"lowercase": lower}
    return backend, {}


def _converted_dir(tok: Tokenizer) -> Path:
    from tokbench.paths import cache_dir

    key = tok.source.sha256 or hashlib.sha256(str(tok.source.path).encode()).hexdigest()
    return cache_dir() / "implementations" / "converted" / key[:16]


def vocab_files(tok: Tokenizer) -> VocabFiles:
    """The reference tokenizer's vocabulary as files, converting on demand."""
    kind, options = file_kind(tok)
    files = VocabFiles(kind, tok, {kind: Path(str(tok.source.path))} if tok.source.path else {},
                       options)
    files.convert = lambda want: _convert(tok, kind, want, files)
    return files


def _convert(tok: Tokenizer, kind: str, want: str, files: VocabFiles) -> Path:
    if want not in CONVERTS.get(kind, ()):
        raise CannotReadError(want)
    folder = _converted_dir(tok)
    inner: Any = getattr(tok, "inner", tok)  # a GGUF vocabulary's rebuilt tokenizer
    if want == "sentencepiece" and hasattr(inner, "_sp"):
        return _write(folder / "tokenizer.model", bytes(inner._sp.serialized_model_proto()))
    if want == "tokenizers" and kind == "tiktoken":
        done = folder / "tokenizer.json"  # the folder is named by the rank file's sha256
        if done.is_file() and done.stat().st_size > 0:
            return done
        return _write(done, _tiktoken_to_json(tok).encode("utf-8"))
    raw = getattr(inner, "_tok", None)  # a tokenizers.Tokenizer
    if raw is None:
        raise CannotReadError(want)
    if want == "tokenizers":
        return _write(folder / "tokenizer.json", raw.to_str().encode("utf-8"))
    spec = json.loads(raw.to_str())
    model = spec.get("model") or {}
    if want == "wordpiece":
        if model.get("type") != "WordPiece":
            raise CannotReadError("wordpiece (not a WordPiece vocabulary)")
        by_id = sorted(model["vocab"].items(), key=lambda kv: kv[1])
        return _write(folder / "vocab.txt", "".join(f"{p}\n" for p, _ in by_id).encode("utf-8"))
    if want == "vocab-merges":
        from tokbench.adapters.libraries import vocab_merges

        src = files.path("tokenizers") if kind != "tokenizers" else Path(str(tok.source.path))
        return vocab_merges(src, folder / "vocab-merges")
    raise CannotReadError(want)


def _write(path: Path, data: bytes) -> Path:
    if not path.is_file() or path.stat().st_size != len(data):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    return path


def _tiktoken_to_json(tok: Tokenizer) -> str:
    """A tiktoken vocabulary as a byte-level BPE tokenizer.json (merges recovered from the
    ranks by transformers' converter), special tokens at their own ids."""
    from tokbench.errors import require

    conv = require("transformers.convert_slow_tokenizer", "transformers",
                   purpose="converting a tiktoken vocabulary to tokenizer.json")
    enc: Any = tok.encoding  # type: ignore[attr-defined]
    spec = json.loads(conv.TikTokenConverter(vocab_file=str(tok.source.path),
                                             pattern=enc._pat_str).converted().to_str())
    specials = dict(enc._special_tokens)
    spec["model"]["vocab"].update(specials)  # so the added tokens keep their ids
    spec["added_tokens"] = [{"id": i, "content": s, "single_word": False, "lstrip": False,
                             "rstrip": False, "normalized": False, "special": True}
                            for s, i in sorted(specials.items(), key=lambda kv: kv[1])]
    return json.dumps(spec, ensure_ascii=False)


def load_with(reference: Tokenizer, impl_name: str, name: str) -> Tokenizer:
    """``reference``'s vocabulary loaded with library ``impl_name``, named ``name``."""
    impl = get_implementation(impl_name)
    files = vocab_files(reference)
    if not _may_read(impl, files.kind):  # known without the library: installing it won't help
        raise InputError(f"{name}: {impl.name} cannot read a {files.kind} vocabulary "
                         f"(it reads {_reads(impl)}); see tokbench list implementations")
    if not impl.installed():
        raise MissingDependencyError(impl.module, impl.package,
                                     purpose=f"{name}: the {impl.name} implementation")
    loader: Any = import_object(impl.loader)
    t0 = time.perf_counter()
    try:
        if impl.reference:
            out: Tokenizer = (loader(impl.name, files, name) if impl.loader.endswith(
                ":reference_adapter") else loader(files, name))
            if out is reference:  # the vocabulary's own library: the same adapter, renamed
                out = copy.copy(reference)
            out.name = name
            return out
        calls = loader(files)
    except CannotReadError as exc:
        detail = str(exc) if str(exc) not in impl.reads else f"it reads {_reads(impl)}"
        raise InputError(f"{name}: {impl.name} cannot read a {files.kind} vocabulary "
                         f"({detail}); see tokbench list implementations") from None
    except MissingDependencyError:
        raise
    except Exception as exc:  # a library's own error on this file
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{name}: {impl.name} failed to load the {files.kind} file "
                         f"({first})") from None
    seconds = time.perf_counter() - t0
    source = TokenizerSource(reference.source.kind, reference.source.location,
                             reference.source.sha256, reference.source.path)
    return LibraryTokenizer(name, source, impl.name, impl.version(), calls, reference, seconds,
                            files.kind)


def _reads(impl: Implementation) -> str:
    return ", ".join(impl.reads) if impl.reads else "no vocabulary files"


def _may_read(impl: Implementation, kind: str) -> bool:
    """Whether ``impl`` reads ``kind`` or what it converts to for some model family."""
    return kind in impl.reads or any(k in impl.reads for k in CONVERTS.get(kind, ()))


def converts(kind: str, algorithm: str = "") -> tuple[str, ...]:
    """The file kinds a vocabulary of ``kind`` converts to (a GGUF file by its algorithm)."""
    if kind == "gguf":
        return ("tokenizers", "wordpiece") if "WordPiece" in algorithm else ("sentencepiece",)
    if kind == "tokenizers":
        return ("wordpiece",) if "WordPiece" in algorithm else (
            ("vocab-merges",) if "BPE" in algorithm else ())
    return CONVERTS.get(kind, ())


def can_read(impl: Implementation, kind: str, algorithm: str = "") -> bool:
    """Whether ``impl`` reads ``kind`` itself or from a file tokbench converts it to (and
    runs the model family ``algorithm``, when known)."""
    if impl.algorithms and algorithm and not any(a in algorithm for a in impl.algorithms):
        return False
    return kind in impl.reads or any(k in impl.reads for k in converts(kind, algorithm))


def entry_kind(entry: Any) -> str:
    """The file kind of a catalog entry's first recipe (without fetching it)."""
    return str(entry.adapter)


def implementations_table(kind: str, algorithm: str = "") -> list[dict[str, Any]]:
    """Per library: whether it can read a vocabulary of ``kind`` (natively or converted)
    and whether it is installed. Libraries with built-in data only (bpe-openai,
    wordchipper) or one model family (gigatoken: BPE) may still refuse a given file."""
    rows = []
    for n in IMPLEMENTATIONS.names():
        impl = get_implementation(n)
        rows.append({"implementation": impl.name, "package": impl.package,
                     "reads": can_read(impl, kind, algorithm), "native": kind in impl.reads,
                     "installed": impl.installed(), "note": impl.note})
    return rows
