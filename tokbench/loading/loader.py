"""``load_tokenizer(spec)``: from a name, a hub id, a tiktoken encoding or a file to a Tokenizer.

A spec is one of:

* a catalog name or alias (``gpt2``, ``llama3``, ``bytes``; see ``tokbench list tokenizers``);
* ``tiktoken:NAME`` — an encoding through tiktoken's own download;
* ``hf:ORG/NAME[@REV]`` — a Hugging Face hub repository, loaded with ``transformers``;
* ``file:PATH`` or a bare existing path — a ``tokenizer.json``, SentencePiece ``.model``,
  tiktoken rank file (``.tiktoken``, or ``.model`` like Llama 3's, told apart by content),
  Tekken ``.json``, ``.gguf`` vocabulary, or a folder holding one.

Loaded tokenizers are memoized per process (per spec; files also per size and mtime).
"""

from __future__ import annotations

import gzip
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from tokbench.adapters.base import Tokenizer
from tokbench.errors import InputError, TokbenchError, UnknownNameError
from tokbench.loading.catalog import (
    TOKENIZERS,
    CatalogEntry,
    Recipe,
    get_adapter,
    get_entry,
    new_session,
    try_recipes,
)
from tokbench.loading.sources import FetchSession, HubSource, LocalSource, TiktokenSource
from tokbench.paths import user_path
from tokbench.registry import Registry

SpecKind = Literal["catalog", "tiktoken", "hf", "file"]

SPEC_HINT = "or give tiktoken:NAME, hf:ORG/NAME[@REV] or file:PATH"

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$")
_TIKTOKEN_LINE = re.compile(rb"^[A-Za-z0-9+/]+={0,2} \d+$")
_FILE_SUFFIXES = (".json", ".model", ".tiktoken", ".gguf", ".gz")


@dataclass(frozen=True)
class Spec:
    """A parsed tokenizer spec."""

    kind: SpecKind
    value: str  # catalog name, tiktoken encoding, hub repo id or path
    revision: str | None = None  # hub revision
    text: str = ""  # the spec as written
    impl: str | None = None  # NAME@IMPL: the library that runs the vocabulary

    @property
    def display_name(self) -> str:
        """The tokenizer's name in results: the catalog name (with its @IMPL), else the
        spec as written."""
        if self.kind == "catalog":
            return f"{self.value}@{self.impl}" if self.impl else self.value
        return self.text


def parse_tokenizer_spec(spec: str) -> Spec:
    """Parse ``spec``; unknown names raise ``UnknownNameError`` with suggestions.

    ``SPEC@IMPL`` (a catalog name or ``file:PATH``, then ``@`` and a library of
    ``tokbench list implementations``) loads that vocabulary with that library.
    """
    text = spec.strip()
    base, at, impl = text.rpartition("@")
    if at and base and not text.startswith(("hf:", "hub:")) and not user_path(text).exists():
        from tokbench.loading.implementations import IMPLEMENTATIONS

        inner = parse_tokenizer_spec(base)
        if inner.kind in ("catalog", "file") and impl:
            return replace(inner, impl=IMPLEMENTATIONS.canonical(impl), text=text)
    return _parse_plain(text)


def _parse_plain(text: str) -> Spec:
    if not text:
        raise InputError("empty tokenizer spec; give a catalog name (tokbench list tokenizers) "
                         + SPEC_HINT)
    prefix, sep, rest = text.partition(":")
    if sep and prefix == "tiktoken":
        if not rest:
            raise InputError(f"{text!r}: give an encoding name, e.g. tiktoken:cl100k_base")
        return Spec("tiktoken", rest, None, text)
    if sep and prefix in ("hf", "hub"):
        repo, at, rev = rest.partition("@")
        if not _HUB_ID.match(repo) or (at and not rev):
            raise InputError(f"{text!r} is not a hub id; write hf:ORG/NAME or hf:ORG/NAME@REVISION")
        return Spec("hf", repo, rev or None, text)
    if sep and prefix == "file":
        if not rest:
            raise InputError(f"{text!r}: give a path after file:")
        return Spec("file", rest, None, text)
    if text in TOKENIZERS:
        return Spec("catalog", TOKENIZERS.canonical(text), None, text)
    path = user_path(text)
    if path.exists():
        return Spec("file", text, None, text)
    if "/" in text or "\\" in text or text.lower().endswith(_FILE_SUFFIXES):
        hint = f"; for a Hugging Face hub repository write hf:{text}" \
            if _HUB_ID.match(text) and text.count("/") == 1 else ""
        raise InputError(f"no tokenizer {text!r}: not a catalog name and no such file{hint}")
    from tokbench.loading.catalog import entries

    known = [n for e in entries() for n in (e.name, *e.aliases)]
    error = UnknownNameError("tokenizer", text, known, hint=SPEC_HINT)
    if not error.suggestions:  # list the names only, not every alias
        error = UnknownNameError("tokenizer", text, TOKENIZERS.names(), hint=SPEC_HINT)
    raise error


# -- what a file is --------------------------------------------------------------------------


def _head(path: Path, size: int = 1 << 16) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


def is_tiktoken_rank_file(path: Path) -> bool:
    """Whether the file's first lines are ``<base64> <rank>`` (tiktoken's rank format; gzip ok)."""
    head = _head(path, 4096)
    if head[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as f:
                head = f.read(4096)
        except (OSError, EOFError):
            return False
    lines = [ln for ln in head.splitlines()[:4] if ln.strip()]
    return bool(lines) and all(_TIKTOKEN_LINE.match(ln.strip()) for ln in lines[:3])


#: A detector: ``(path, first bytes of the file) -> adapter kind``, or None when the file
#: is not its format (it may raise ``InputError`` for a file it knows to be unusable).
Detector = Callable[[Path, bytes], "str | None"]

#: file detectors of third parties (``tokbench.detectors`` entry-point group), tried before
#: the built-in ones; an entry point names a ``Detector``
DETECTORS: Registry[Detector] = Registry("file detector", "tokbench.detectors")


def _gguf(path: Path, head: bytes) -> str | None:
    return "gguf" if head[:4] == b"GGUF" else None


def _gzip(path: Path, head: bytes) -> str | None:
    if head[:2] != b"\x1f\x8b":
        return None
    if is_tiktoken_rank_file(path):  # the tiktoken adapter reads gzipped rank files
        return "tiktoken"
    raise InputError(f"{path}: gzip-compressed; gunzip it first (gunzip -k {path})")


def _json(path: Path, head: bytes) -> str | None:
    if head.lstrip()[:1] != b"{":
        return None
    if b'"default_num_special_tokens"' in head or b'"token_bytes"' in head:
        return "tekken"
    return "tokenizers"


def _tiktoken(path: Path, head: bytes) -> str | None:
    return "tiktoken" if is_tiktoken_rank_file(path) else None


def _sentencepiece(path: Path, head: bytes) -> str | None:
    # protobuf field 1 (pieces), length-delimited: a SentencePiece model
    return "sentencepiece" if head[:1] == b"\x0a" else None


#: the built-in detectors, in the order they are tried
BUILTIN_DETECTORS: tuple[Detector, ...] = (_gguf, _gzip, _json, _tiktoken, _sentencepiece)


def detect_file(path: Path) -> tuple[Path, str]:
    """The file to load and the adapter kind for a tokenizer file or folder, judged by content.

    Folders: ``tokenizer_config.json`` -> transformers; ``tokenizer.json`` -> tokenizers;
    ``tekken.json`` -> tekken; ``tokenizer.model`` -> sentencepiece or tiktoken (by
    content); a single ``.gguf`` -> gguf. Files: the ``DETECTORS`` of third parties, then
    ``BUILTIN_DETECTORS``.
    """
    if path.is_dir():
        if (path / "tokenizer_config.json").is_file():
            return path, "transformers"
        for name in ("tokenizer.json", "tekken.json", "tokenizer.model", "spiece.model",
                     "sentencepiece.bpe.model"):
            if (path / name).is_file():
                return detect_file(path / name)
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1:
            return ggufs[0], "gguf"
        raise InputError(f"{path}: folder holds no tokenizer file (expected tokenizer.json, "
                         "tokenizer_config.json, tokenizer.model, tekken.json or one .gguf)")
    head = _head(path)
    if not head:
        raise InputError(f"{path}: empty file")
    for detect in [*(DETECTORS.get(n) for n in DETECTORS.names()), *BUILTIN_DETECTORS]:
        kind = detect(path, head)
        if kind is not None:
            return path, kind
    raise InputError(f"{path}: not a tokenizer file tokbench can read (expected tokenizer.json, "
                     "a SentencePiece .model, a tiktoken rank file, tekken.json or .gguf)")


# -- recipes per spec ------------------------------------------------------------------------


def recipes_for(spec: Spec) -> tuple[str, list[Recipe]]:
    """The tokenizer name and the recipes to try for a parsed spec."""
    if spec.kind == "catalog":
        entry: CatalogEntry = get_entry(spec.value)
        return entry.name, list(entry.recipes)
    if spec.kind == "tiktoken":
        for entry in (get_entry(n) for n in TOKENIZERS.names()):
            for recipe in entry.recipes:
                if isinstance(recipe.source, TiktokenSource) \
                        and recipe.source.encoding == spec.value:
                    return spec.text, [recipe]
        return spec.text, [Recipe(TiktokenSource(spec.value), "tiktoken")]
    if spec.kind == "hf":
        return spec.text, [Recipe(HubSource(spec.value, None, spec.revision), "transformers")]
    path = user_path(spec.value)
    if not path.exists():
        raise InputError(f"no such file or folder: {spec.value}")
    # a tiktoken rank file gets its pattern and special tokens from the adapter's presets,
    # which it recognises by the file's sha256
    target, adapter = detect_file(path)
    return spec.text, [Recipe(LocalSource(str(target)), adapter)]


def load_recipe(name: str, recipe: Recipe, session: FetchSession) -> Tokenizer:
    """Fetch a recipe's source and load it with its adapter."""
    fetched = recipe.source.fetch(session)
    loader = get_adapter(recipe.adapter)
    options = {**fetched.options, **recipe.options}
    tok = loader(fetched.path, name=name, source=fetched.info, **options)
    assert isinstance(tok, Tokenizer)
    return tok


_memo: dict[tuple[object, ...], Tokenizer] = {}
_memo_lock = threading.RLock()


def _memo_key(spec: Spec) -> tuple[object, ...]:
    if spec.kind == "file":
        p = user_path(spec.value).resolve()
        st = p.stat() if p.exists() else None
        return ("file", str(p), spec.text, st.st_size if st else -1, st.st_mtime_ns if st else -1,
                spec.impl)
    from tokbench.paths import cache_dir

    # the cache is part of the key: TokenizerSource.path points into it
    return (spec.kind, spec.value, spec.revision, spec.text if spec.kind != "catalog" else "",
            str(cache_dir()), spec.impl)


def load_tokenizer(spec: str, *, session: FetchSession | None = None,
                   reload: bool = False) -> Tokenizer:
    """Load a tokenizer from a spec (see the module docstring), fetching files if needed.

    Recipes are tried in order; if all fail the error lists each source and why. The
    result is memoized per process (``reload=True`` loads afresh). Catalog names
    (``"cl100k_base"``) fetch a pinned file once; the baselines need no file:

    >>> tok = load_tokenizer("chars")
    >>> tok.encode("aé"), tok.backend
    ([97, 233], 'builtin')
    """
    parsed = parse_tokenizer_spec(spec)
    key = _memo_key(parsed)
    with _memo_lock:
        if not reload and key in _memo:
            return _memo[key]
    if parsed.impl is not None:
        from tokbench.loading.implementations import load_with

        base = parsed.text.rpartition("@")[0]
        reference = load_tokenizer(base, session=session, reload=reload)
        other = load_with(reference, parsed.impl, parsed.display_name)
        with _memo_lock:
            _memo[key] = other
        return other
    name, recipes = recipes_for(parsed)
    own = session is None
    active = session if session is not None else new_session()
    try:
        tok: Tokenizer
        _, tok = try_recipes(f"tokenizer {name!r}", recipes,
                             lambda r: load_recipe(name, r, active))
    finally:
        if own:
            active.close()
    with _memo_lock:
        _memo[key] = tok
    return tok


def clear_memo() -> None:
    """Forget memoized tokenizers."""
    with _memo_lock:
        _memo.clear()


def local_file(spec: str) -> tuple[int | None, str | None]:
    """Bytes of the local file (or folder) ``spec`` loads and the adapter that loads it,
    without loading it: a catalog tokenizer's cached copy or a ``file:`` path (bytes None
    when nothing local is known: not cached yet, a built-in baseline, a bad spec). What
    loading and encoding cost depends on (``tokbench.engine.split`` balances a run's
    tokenizers by it)."""
    from tokbench.paths import cache_dir

    try:
        _, recipes = recipes_for(parse_tokenizer_spec(spec))
    except TokbenchError:
        return None, None
    cache = cache_dir()
    for recipe in recipes:
        path = recipe.source.cached_path(cache)
        if path is not None and path.exists():
            files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
            return sum(p.stat().st_size for p in files), recipe.adapter
    return None, recipes[0].adapter if recipes else None
