"""Suites from the user's data: ``flores200:``, ``text:``, ``code:``, ``hf-dataset:``
and ``manifest:`` specs.

Each loader is ``load_x(target, *, errors="strict", **options) -> Suite``; options
come from ``load_suite(spec, **options)`` or the spec's ``?key=value&...`` query.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from tokbench.constants import PIVOT
from tokbench.errors import InputError, MissingDependencyError
from tokbench.paths import user_path
from tokbench.suites.digests import source_key
from tokbench.suites.langs import CODE, UNDETERMINED, canonical_lang, looks_like_code
from tokbench.suites.model import Document, Suite
from tokbench.suites.reading import (
    Counts,
    Options,
    Reader,
    parallel_lines,
    record_field,
    unique_ids,
)
from tokbench.suites.stream import StreamingSuite, file_entry

FLORES_SPLITS = ("dev", "devtest")

# File extension (or whole file name) -> language, for code: suites.
CODE_EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript",
    ".mts": "typescript", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
    ".scala": "scala", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp",
    ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".cs": "csharp", ".go": "go", ".rs": "rust",
    ".swift": "swift", ".m": "objective-c", ".mm": "objective-c", ".rb": "ruby",
    ".php": "php", ".pl": "perl", ".pm": "perl", ".lua": "lua", ".r": "r", ".jl": "julia",
    ".dart": "dart", ".hs": "haskell", ".ml": "ocaml", ".mli": "ocaml", ".ex": "elixir",
    ".exs": "elixir", ".erl": "erlang", ".clj": "clojure", ".zig": "zig", ".nim": "nim",
    ".sql": "sql", ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".fish": "shell",
    ".ps1": "powershell", ".bat": "batch", ".html": "html", ".htm": "html", ".xml": "xml",
    ".svg": "xml", ".css": "css", ".scss": "scss", ".sass": "sass", ".less": "less",
    ".vue": "vue", ".svelte": "svelte", ".json": "json", ".jsonc": "json", ".yaml": "yaml",
    ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".md": "markdown",
    ".rst": "restructuredtext", ".tex": "latex", ".proto": "protobuf", ".graphql": "graphql",
    ".tf": "terraform", ".cmake": "cmake", ".gradle": "gradle", ".asm": "assembly",
    ".s": "assembly", ".f90": "fortran", ".pas": "pascal", ".v": "verilog", ".vhd": "vhdl",
    "Dockerfile": "dockerfile", "Makefile": "make", "makefile": "make",
    "CMakeLists.txt": "cmake",
}
SKIP_DIRS = frozenset({
    "node_modules", "vendor", "third_party", "third-party", "thirdparty", "external",
    "bower_components", "site-packages", "dist-packages", "__pycache__", "venv", "env",
    "build", "dist", "target", "out", "coverage", "Pods", "Carthage", "DerivedData",
})
"""Folders skipped by ``code:`` (vendored, generated or build output); hidden ones too."""
SKIP_FILES = frozenset({"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock",
                        "poetry.lock", "Pipfile.lock", "composer.lock", "go.sum"})
MAX_CODE_BYTES = 1_000_000


def _suite(name: str, docs: list[Document], reader: Reader, *, source: str,
           parallel: bool = False, subset_by: str | None = None, description: str = "",
           meta: dict[str, Any] | None = None) -> Suite:
    unique_ids(docs, source, reader.error)
    if subset_by is None:
        subset_by = "lang" if len({d.lang for d in docs}) > 1 else "domain"
    if subset_by not in ("lang", "domain"):
        raise InputError(f"{source}: subset_by must be 'lang' or 'domain'")
    return Suite(name=name, version="external", documents=docs, parallel=parallel,
                 subset_by=subset_by, description=description, source=source,
                 meta={**reader.counts.meta(), **(meta or {})})


def _path(target: str, scheme: str) -> Path:
    if not target:
        raise InputError(f"{scheme}: needs a path, e.g. {scheme}:./data")
    path = user_path(target)
    if not path.exists():
        raise InputError(f"{scheme}:{target}: no such file or folder")
    return path


# --- flores200: ------------------------------------------------------------------------

def load_flores200(target: str = "", *, errors: str = "strict",
                   languages: Sequence[str] | None = None, **options: Any) -> Suite:
    """FLORES-200 (``DIR/dev/<code>.dev``, ``DIR/devtest/<code>.devtest``), parallel.

    ``target`` empty: ``tokbench.paths.flores_dir()`` ($TOKBENCH_FLORES). Options:
    ``split`` = dev | devtest | both (default both). Ids ``<code>:<split>:<line>``,
    align ``<split>:<line>``, domain = split, subset by language. ``languages`` (the
    generic option's codes, which ``load_suite`` still selects by): only their files and
    the pivot's are read, when each has one (devtest, 4 of 42
    languages: 0.01-0.06 s, not 0.17-0.26 s).
    """
    opts = Options("flores200", options)
    split = opts.get_str("split", "both", choices=(*FLORES_SPLITS, "both"))
    opts.finish()
    if not target:
        from tokbench.paths import flores_dir

        found = flores_dir()
        if found is None:
            raise InputError("flores200: no FLORES-200 folder; set TOKBENCH_FLORES or "
                             "pass flores200:DIR")
        root = found
    else:
        root = _path(target, "flores200")
    splits = FLORES_SPLITS if split == "both" else (split,)
    reader = Reader(errors, fingerprint=True)
    per_split: dict[str, dict[str, Path]] = {}
    for s in splits:
        folder = root / s
        if not folder.is_dir():
            raise InputError(f"flores200:{root}: no {s}/ folder (expected "
                             f"{s}/<code>.{s} files)")
        files = {}
        for path in sorted(folder.glob(f"*.{s}")):
            lang = canonical_lang(path.stem, where=str(path))
            files[lang] = path
        if not files:
            raise InputError(f"{folder}: no <code>.{s} files")
        per_split[s] = files
    langs = set(per_split[splits[0]])
    for files in per_split.values():
        if set(files) != langs:
            odd = sorted(langs.symmetric_difference(files))[0]
            raise InputError(f"flores200:{root}: {odd} is not in every split "
                             f"({', '.join(splits)}); add or remove its files")
    pivot = PIVOT if PIVOT in langs else sorted(langs)[0]
    if languages is not None and set(languages) <= langs:  # else the selection names it
        keep = {*languages, pivot}
        per_split = {s: {k: v for k, v in files.items() if k in keep}
                     for s, files in per_split.items()}
    by_lang: dict[str, list[Document]] = {}
    for s in splits:
        for doc in parallel_lines(reader, per_split[s], pivot, split=s):
            by_lang.setdefault(doc.lang, []).append(doc)
    docs = [d for lang in [pivot, *sorted(langs - {pivot})] for d in by_lang.get(lang, [])]
    name = "flores200" if split == "both" else f"flores200-{split}"
    suite = _suite(name, docs, reader, source=f"flores200:{root}", parallel=True,
                   subset_by="lang", meta={"splits": list(splits)},
                   description="FLORES-200 (NLLB team, CC BY-SA 4.0): the same sentences "
                               "translated into each language")
    assert reader.files is not None
    suite.digest_key = source_key("flores200", {"split": split, "errors": errors},
                                  reader.files)
    return suite


# --- text: -----------------------------------------------------------------------------

def _file_lang(path: Path, lang: str | None) -> str:
    if lang is not None:
        return lang
    if looks_like_code(path.stem):
        return canonical_lang(path.stem, where=str(path))
    return UNDETERMINED


def load_text(target: str, *, errors: str = "strict", **options: Any
              ) -> Suite | StreamingSuite:
    """A ``.txt`` or ``.jsonl`` file, or a folder of them (searched recursively); a file
    named directly is read whatever its extension, and ``glob=*.dev,*.devtest`` picks a
    folder's files by name instead (read as ``.txt`` unless they end in ``.jsonl``).

    ``.txt``: one document per line (``per_file=true``: one per file); ``.jsonl``: one
    ``{"text", "lang"?, "id"?, "domain"?}`` object per line. The language is the
    ``lang`` option, else a record's ``lang``, else the file's name if it is a FLORES
    code (``eng_Latn.txt``), else ``und_Zyyy``. The domain is the ``domain`` option,
    a record's ``domain``, else the file's stem. ``parallel=true`` reads a folder of
    line-aligned ``<code>.txt`` files (``pivot``: default eng_Latn). ``subset_by``:
    lang | domain (default: lang when there are several languages).

    One document per line or record (the default) gives a ``StreamingSuite``, read
    shard by shard, so a corpus of any size is evaluated in bounded memory.
    """
    root = _path(target, "text")
    opts = Options(f"text:{target}", options)
    lang_opt = opts.get_str("lang")
    lang = canonical_lang(lang_opt, where=f"text:{target} option lang") if lang_opt else None
    domain_opt = opts.get_str("domain")
    per_file = opts.get_bool("per_file")
    parallel = opts.get_bool("parallel")
    pivot_opt = opts.get_str("pivot")
    subset_by = opts.get_str("subset_by", choices=("lang", "domain"))
    glob_opt = opts.get_str("glob")
    patterns = [g.strip() for g in glob_opt.split(",") if g.strip()] if glob_opt else []
    opts.finish()
    reader = Reader(errors)
    source = f"text:{root}"
    name = f"text:{root.stem if root.is_file() else root.resolve().name}"
    # a file named is read whatever its extension
    files = [root] if root.is_file() else _text_files(root, patterns, source)
    if parallel:
        if root.is_file() or per_file:
            raise InputError(f"{source}: parallel=true needs a folder of line-aligned "
                             "<code>.txt files (one document per line)")
        by_lang: dict[str, Path] = {}
        for path in files:
            if path.suffix == ".jsonl" or not looks_like_code(path.stem):
                raise InputError(f"{path}: with parallel=true every file must be named "
                                 "<code>.txt (or <code>.EXT with ?glob=*.EXT), e.g. "
                                 "eng_Latn.txt")
            by_lang[canonical_lang(path.stem, where=str(path))] = path
        pivot = canonical_lang(pivot_opt, where=f"{source} option pivot") if pivot_opt \
            else (PIVOT if PIVOT in by_lang else sorted(by_lang)[0])
        if pivot not in by_lang:
            raise InputError(f"{source}: no {pivot}.txt for the pivot language")
        docs = parallel_lines(reader, by_lang, pivot, domain=domain_opt or "text")
        return _suite(name, docs, reader, source=source, parallel=True,
                      subset_by=subset_by or "lang")
    if not per_file:
        entries = [file_entry(path, path.name if root.is_file()
                              else path.relative_to(root).as_posix(),
                              _file_lang(path, lang), domain_opt or path.stem)
                   for path in files]
        return StreamingSuite(name, entries, source, errors=errors, lang=lang,
                              domain_opt=domain_opt, subset_option=subset_by)
    docs = []
    for path in files:
        rel = path.name if root.is_file() else path.relative_to(root).as_posix()
        file_lang = _file_lang(path, lang)
        domain = domain_opt or path.stem
        if path.suffix == ".jsonl":
            docs += _jsonl_docs(reader, path, rel, lang, file_lang, domain_opt, domain)
        elif per_file:
            text = reader.text(path)
            if text == "":
                reader.counts.skipped_empty += 1
            elif text is not None:
                docs.append(Document(rel, file_lang, domain, text))
        else:
            for n, line in enumerate(reader.lines(path), 1):
                if line == "":
                    reader.counts.skipped_empty += 1
                elif line is not None:
                    docs.append(Document(f"{rel}:{n}", file_lang, domain, line))
    return _suite(name, docs, reader, source=source, subset_by=subset_by)


#: the files a ``text:`` folder is read from unless ``?glob=`` says otherwise
TEXT_SUFFIXES = (".txt", ".jsonl")


def _text_files(root: Path, patterns: list[str], source: str) -> list[Path]:
    """The files of a ``text:`` folder (recursively, hidden ones left out): ``.txt`` and
    ``.jsonl``, or those whose name matches one of ``patterns`` (``?glob=*.devtest``)."""
    from fnmatch import fnmatchcase

    found = sorted(p for p in root.rglob("*") if p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(root).parts))
    if patterns:
        files = [p for p in found if any(fnmatchcase(p.name, g) for g in patterns)]
        what = "files matching " + ", ".join(patterns)
    else:
        files = [p for p in found if p.suffix in TEXT_SUFFIXES]
        what = ".txt or .jsonl files"
    if files:
        return files
    others = sorted({p.suffix for p in found if p.suffix})[:5]
    hint = (f"; it holds {', '.join(others)} files: read them as text (one document per "
            f"line) with ?glob={','.join('*' + x for x in others)}" if others else "")
    raise InputError(f"{source}: no {what} in this folder{hint}")


def _jsonl_docs(reader: Reader, path: Path, rel: str, lang: str | None, file_lang: str,
                domain_opt: str | None, domain: str) -> list[Document]:
    docs = []
    for n, record in reader.jsonl(path):
        where = f"{path}:{n}"
        text = reader.check_text(record_field(reader, record, "text", where), where)
        rid = record_field(reader, record, "id", where, required=False, kinds=(str, int))
        rlang = record_field(reader, record, "lang", where, required=False)
        rdomain = record_field(reader, record, "domain", where, required=False)
        if text is None:
            continue
        if text == "":
            reader.counts.skipped_empty += 1
            continue
        doc_lang = lang or (canonical_lang(rlang, where=where) if rlang else file_lang)
        docs.append(Document(f"{rel}:{rid if rid is not None else n}", doc_lang,
                             domain_opt or rdomain or domain, text))
    return docs


# --- code: -----------------------------------------------------------------------------

def code_language(path: Path) -> str | None:
    """The language of a source file from its name or extension (None: not code)."""
    if path.name in CODE_EXTENSIONS:
        return CODE_EXTENSIONS[path.name]
    if path.name.endswith((".min.js", ".min.css")):
        return None
    return CODE_EXTENSIONS.get(path.suffix.lower())


def load_code(target: str, *, errors: str = "strict", **options: Any) -> Suite:
    """Source files under a folder (or one file): one document per file, domain = the
    language from the extension, language code ``zxx_Zyyy``.

    Skips hidden, vendored and build folders (``SKIP_DIRS``), lock files, minified
    files, binary files (a NUL byte in the first 8 KiB) and files over ``max_bytes``
    (default 1 MB). ``languages``-style filtering by programming language: ``domains``.
    """
    root = _path(target, "code")
    opts = Options(f"code:{target}", options)
    max_bytes = opts.get_int("max_bytes", MAX_CODE_BYTES, minimum=1)
    opts.finish()
    reader = Reader(errors, counts=Counts())
    if root.is_file():
        files = [root]
    else:
        files = []
        for path in sorted(root.rglob("*")):
            parts = path.relative_to(root).parts
            if any(p.startswith(".") or p in SKIP_DIRS for p in parts[:-1]) \
                    or parts[-1].startswith(".") or not path.is_file():
                continue
            files.append(path)
    docs = []
    for path in files:
        language = code_language(path)
        if language is None or path.name in SKIP_FILES:
            reader.counts.add("skipped_not_code")
            continue
        if path.stat().st_size > max_bytes:
            reader.counts.add("skipped_large")
            continue
        data = reader.read_bytes(path)
        if b"\0" in data[:8192]:
            reader.counts.add("skipped_binary")
            continue
        text = reader.decode(path, data, what="that file")
        text = text.removeprefix("\ufeff") if text is not None else None
        if text == "":
            reader.counts.skipped_empty += 1
        elif text is not None:
            rel = path.name if root.is_file() else path.relative_to(root).as_posix()
            docs.append(Document(rel, CODE, language, text))
    if not docs:
        raise InputError(f"code:{target}: no source files found (extensions: .py, .js, "
                         ".ts, .go, .rs, ...)")
    name = f"code:{root.stem if root.is_file() else root.resolve().name}"
    return _suite(name, docs, reader, source=f"code:{root}", subset_by="domain")


# --- hf-dataset: -----------------------------------------------------------------------

def parse_hf_target(target: str) -> tuple[str, str | None, str]:
    """``NAME[:CONFIG][@SPLIT]`` -> (name, config, split); split defaults to ``train``."""
    rest, _, split = target.partition("@")
    name, _, config = rest.partition(":")
    if not name:
        raise InputError("hf-dataset: needs a dataset name, e.g. hf-dataset:wikitext:"
                         "wikitext-2-raw-v1@test")
    return name, config or None, split or "train"


@dataclass(frozen=True)
class HFFields:
    """How a dataset row becomes a document."""

    text_field: str = "text"
    lang: str = UNDETERMINED
    lang_field: str | None = None
    domain_field: str | None = None
    id_field: str | None = None

    def document(self, reader: Reader, row: Any, i: int, where: str, split: str
                 ) -> Document | None:
        text = reader.check_text(record_field(reader, row, self.text_field, where), where)
        if text is None:
            return None
        if text == "":
            reader.counts.skipped_empty += 1
            return None
        lang = canonical_lang(record_field(reader, row, self.lang_field, where), where=where) \
            if self.lang_field else self.lang
        domain = str(record_field(reader, row, self.domain_field, where, kinds=(str, int))) \
            if self.domain_field else split
        doc_id = str(record_field(reader, row, self.id_field, where, kinds=(str, int))) \
            if self.id_field else f"{split}:{i}"
        return Document(doc_id, lang, domain, text)


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise MissingDependencyError("datasets", purpose="hf-dataset: suites") from None
    return datasets


def _hf_load(target: str, name: str, config: str | None, split: str,
             data_files: list[str] | None, streaming: bool) -> Any:
    datasets = _datasets()
    try:
        kwargs: dict[str, Any] = {"split": split}
        if streaming:
            kwargs["streaming"] = True
        if data_files:
            kwargs["data_files"] = data_files
        return datasets.load_dataset(name, config, **kwargs)
    except Exception as e:  # network, unknown name or split: all reported as one line
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InputError(f"hf-dataset:{target}: cannot load: {first}") from None


def load_hf_dataset(target: str, *, errors: str = "strict", **options: Any
                    ) -> Suite | HFStreamingSuite:
    """A Hugging Face dataset split through the ``datasets`` library.

    Options: ``text_field`` (default ``text``), ``lang`` or ``lang_field``,
    ``domain_field``, ``id_field``, ``subset_by``, ``data_files`` (comma-separated local
    files or URLs, for the generic ``json``/``csv``/``parquet``/``text`` builders) and
    ``streaming=true``: the split is read shard by shard (the dataset's own shards) by
    the workers, never held in memory, for corpora of any size.
    """
    name, config, split = parse_hf_target(target)
    opts = Options(f"hf-dataset:{target}", options)
    text_field = opts.get_str("text_field", "text")
    lang_opt = opts.get_str("lang")
    lang_field = opts.get_str("lang_field")
    domain_field = opts.get_str("domain_field")
    id_field = opts.get_str("id_field")
    subset_by = opts.get_str("subset_by", choices=("lang", "domain"))
    data_files = opts.get_list("data_files")
    streaming = opts.get_bool("streaming")
    opts.finish()
    lang = canonical_lang(lang_opt, where=f"hf-dataset:{target} option lang") \
        if lang_opt else UNDETERMINED
    fields = HFFields(text_field, lang, lang_field, domain_field, id_field)
    label = f"hf:{name}" + (f":{config}" if config else "") + f"@{split}"
    if streaming:
        ds = _hf_load(target, name, config, split, data_files, streaming=True)
        return HFStreamingSuite(label, HFSource(target, name, config, split, data_files),
                                fields, int(getattr(ds, "n_shards", 1) or 1), errors,
                                subset_option=subset_by)
    datasets = _datasets()
    rows = _hf_load(target, name, config, split, data_files, streaming=False)
    reader = Reader(errors)
    docs = []
    for i, row in enumerate(rows):
        doc = fields.document(reader, row, i, f"hf-dataset:{target} row {i}", split)
        if doc is not None:
            docs.append(doc)
    return _suite(label, docs, reader, source=f"hf-dataset:{target}", subset_by=subset_by,
                  meta={"datasets_version": getattr(datasets, "__version__", "")})


@dataclass(frozen=True)
class HFSource:
    """Which dataset split to open (picklable, opened again by each worker)."""

    target: str
    name: str
    config: str | None
    split: str
    data_files: list[str] | None

    def open(self) -> Any:
        return _hf_load(self.target, self.name, self.config, self.split, self.data_files,
                        streaming=True)

    def identity(self) -> str:
        """A hash of what names the data: the spec, and the bytes of local data files.

        A hub dataset streamed from a remote cannot be hashed before it is read; its
        identity is its name, config and split (recorded as such in the results).
        """
        h = hashlib.sha256(json.dumps([self.name, self.config, self.split],
                                      ensure_ascii=False).encode())
        for f in self.data_files or []:
            path = Path(f)
            h.update(f"\0{f}\0".encode())
            if path.is_file():
                with open(path, "rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        h.update(block)
        return h.hexdigest()


@dataclass(frozen=True)
class HFShard:
    """Shard ``index`` of ``count`` of a streamed dataset split."""

    source: HFSource
    fields: HFFields
    index: int
    count: int
    errors: str
    languages: tuple[str, ...] | None = None
    domains: tuple[str, ...] | None = None
    nbytes: int = 0  # not known before reading

    def read(self) -> tuple[list[Document], dict[str, int]]:
        ds = self.source.open()
        if self.count > 1:
            ds = ds.shard(num_shards=self.count, index=self.index)
        reader = Reader(self.errors)
        docs = []
        for i, row in enumerate(ds):
            where = f"hf-dataset:{self.source.target} shard {self.index} row {i}"
            doc = self.fields.document(reader, row, i, where, self.source.split)
            if doc is None or (self.languages is not None and doc.lang not in self.languages) \
                    or (self.domains is not None and doc.domain not in self.domains):
                continue
            docs.append(doc if self.fields.id_field
                        else dataclasses.replace(doc, id=f"{self.index}:{doc.id}"))
        return docs, reader.counts.meta()


class HFStreamingSuite(StreamingSuite):
    """A streamed Hugging Face dataset split: the dataset's own shards, read by workers."""

    def __init__(self, name: str, source: HFSource, fields: HFFields, n_shards: int,
                 errors: str, subset_option: str | None = None) -> None:
        super().__init__(name, [], f"hf-dataset:{source.target}", errors=errors,
                         subset_option=subset_option, shard_bytes=0)
        self.hf, self.fields, self.n_shards = source, fields, n_shards
        self.meta["content_hash_of"] = "spec and local data files" if source.data_files \
            else "dataset name, config and split (a remote stream is not hashed)"

    @cached_property
    def _plan(self) -> tuple[list[Any], str, int]:
        shards = [HFShard(self.hf, self.fields, i, self.n_shards, self.errors,
                          self.only_languages, self.only_domains) for i in range(self.n_shards)]
        h = hashlib.sha256(f"{self.hf.identity()}\0{self.only_languages}\0"
                           f"{self.only_domains}".encode())
        return shards, h.hexdigest(), 0

    def with_filters(self, languages: Sequence[str] | None, domains: Sequence[str] | None,
                     name: str | None) -> HFStreamingSuite:
        out = HFStreamingSuite(name or self.name, self.hf, self.fields, self.n_shards,
                               self.errors, self.subset_option)
        out.only_languages = tuple(languages) if languages is not None else self.only_languages
        out.only_domains = tuple(domains) if domains is not None else self.only_domains
        out.meta.update({k: v for k, v in self.meta.items() if k != "selected"})
        return out

    def languages_known(self) -> list[str]:
        return [] if self.fields.lang_field else [self.fields.lang]


# --- manifest: -------------------------------------------------------------------------

def load_manifest_dir(target: str, *, errors: str = "strict", **options: Any) -> Suite:
    """A folder with a ``manifest.json`` in the built-in suites' format."""
    from tokbench.suites.builtin import load_manifest_suite

    root = _path(target, "manifest")
    if root.is_file() and root.name == "manifest.json":
        root = root.parent
    return load_manifest_suite(root, errors=errors, source=f"manifest:{root}", **options)
