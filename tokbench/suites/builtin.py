"""Built-in suites: a folder with ``manifest.json`` describing how to read its data.

Every manifest has ``name`` (the folder's name), ``version``, ``description``,
``parallel``, ``subset_by`` (``"lang"`` or ``"domain"``) and ``format``, one of:

``parallel-lines``
    ``files``: glob of ``<code>.txt`` files (one document per line, line N of each file
    translates line N of the ``pivot`` file); ``domains_file``: a file with the domain
    of each line, whose values must be in ``domains``. Ids ``<code>:<line>``, align = line.
``jsonl``
    ``files``: glob of JSON Lines files, one ``{"id", "text"}`` object per line (optional
    ``"lang"``); ``lang``: the default language; the domain is the field
    ``domain_field`` if given, else the file's stem.
``files``
    ``files``: glob of files under one folder per domain (``python/x.py``): each file is
    one document, id = its path; ``lang`` for all.
``generator``
    ``generator``: ``"module:function"`` called as ``function(seed=..., count=...)`` and
    returning Documents; ``seed`` and optional ``count`` (both overridable by options).
    Only tokbench's own generators (``tokbench.*``) or ones a package registered in the
    entry-point group ``tokbench.suite_generators`` (by name or by value) are called.

The loader checks the manifest and the data and names the file and line at fault. Every
file a manifest names stays inside the manifest's folder (no ``..``, no absolute path,
no symlink out of it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tokbench.errors import CorruptFileError, InputError, TokbenchError
from tokbench.paths import suites_dir
from tokbench.registry import import_object
from tokbench.suites.langs import canonical_lang
from tokbench.suites.model import Document, Suite
from tokbench.suites.reading import (
    Options,
    Reader,
    parallel_lines,
    record_field,
    unique_ids,
)

MANIFEST = "manifest.json"
GENERATOR_GROUP = "tokbench.suite_generators"
BUILTIN_SUITES = ("multilingual", "japanese", "code", "numbers", "unicode")
"""The suites shipped with tokbench (their data is under ``tokbench.paths.suites_dir()``)."""

_COMMON = {"name": str, "version": str, "description": str, "parallel": bool,
           "subset_by": str, "format": str}
_FORMATS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "parallel-lines": {"files": str, "pivot": str, "domains_file": str, "domains": list},
    "jsonl": {"files": str, "lang": str, "domain_field": str},
    "files": {"files": str, "lang": str},
    "generator": {"generator": str, "seed": int, "count": int},
}
_OPTIONAL: dict[str, type | tuple[type, ...]] = {"families": list}
_REQUIRED = {"parallel-lines": ("files", "pivot"), "jsonl": ("files", "lang"),
             "files": ("files", "lang"), "generator": ("generator", "seed")}


def read_manifest(directory: Path, error: type[TokbenchError] = CorruptFileError
                  ) -> dict[str, Any]:
    """The checked manifest of a suite folder."""
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: no manifest; a suite folder needs {MANIFEST}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise error(f"{path}: not valid JSON: {e}") from None
    if not isinstance(manifest, dict):
        raise error(f"{path}: expected a JSON object")
    fmt = manifest.get("format")
    if fmt not in _FORMATS:
        raise error(f"{path}: 'format' must be one of {', '.join(_FORMATS)}, got {fmt!r}")
    allowed = {**_COMMON, **_FORMATS[fmt], **_OPTIONAL}
    for key in [*_COMMON, *_REQUIRED[fmt]]:
        if key not in manifest:
            raise error(f"{path}: missing {key!r}")
    for key, value in manifest.items():
        if key not in allowed:
            raise error(f"{path}: unknown key {key!r} for format {fmt!r} "
                        f"(keys: {', '.join(allowed)})")
        if not isinstance(value, allowed[key]) or (isinstance(value, bool)
                                                    and allowed[key] is not bool):
            raise error(f"{path}: {key!r} has the wrong type {type(value).__name__}")
    if manifest["name"] != directory.name:
        raise error(f"{path}: name {manifest['name']!r} differs from the folder's name "
                    f"{directory.name!r}")
    if manifest["subset_by"] not in ("lang", "domain"):
        raise error(f"{path}: subset_by must be 'lang' or 'domain'")
    return manifest


#: Python writes these next to the code suite's .py files when the package is installed
BYTECODE = (".pyc", ".pyo")


def _inside(directory: Path, path: Path, key: str, error: type[TokbenchError]) -> Path:
    """``path`` if it resolves to a place inside ``directory``; else ``error``."""
    root = directory.resolve()
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError) as e:
        raise error(f"{directory / MANIFEST}: {key}: cannot resolve {path} ({e})") from None
    if not resolved.is_relative_to(root):
        raise error(f"{directory / MANIFEST}: {key} must name files inside the suite's "
                    f"folder {directory}, not {path}")
    return path


def _glob(directory: Path, pattern: str, error: type[TokbenchError]) -> list[Path]:
    if not pattern or Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        raise error(f"{directory / MANIFEST}: files {pattern!r} must be a pattern relative "
                    "to the suite's folder, without '..'")
    try:
        found = list(directory.glob(pattern))
    except (ValueError, NotImplementedError) as e:
        raise error(f"{directory / MANIFEST}: files {pattern!r} is not a valid pattern "
                    f"({e})") from None
    files = sorted(_inside(directory, p, "files", error) for p in found
                   if p.is_file() and p.name != MANIFEST and p.suffix not in BYTECODE
                   and not any(part.startswith(".") or part == "__pycache__"
                               for part in p.relative_to(directory).parts))
    if not files:
        raise error(f"{directory / MANIFEST}: no files match {pattern!r}")
    return files


def _parallel(directory: Path, manifest: dict[str, Any], reader: Reader) -> list[Document]:
    files: dict[str, Path] = {}
    for path in _glob(directory, manifest["files"], reader.error):
        lang = canonical_lang(path.stem, where=str(path))
        if lang != path.stem:
            raise reader.error(f"{path}: name the file {lang}.txt (exact FLORES code)")
        files[lang] = path
    pivot = manifest["pivot"]
    if pivot not in files:
        raise reader.error(f"{directory}: the pivot file {pivot}.txt is missing")
    domains, domains_where = None, ""
    if "domains_file" in manifest:
        domain_path = _inside(directory, directory / manifest["domains_file"], "domains_file",
                              reader.error)
        allowed = manifest.get("domains")
        domains = []
        for i, value in enumerate(reader.lines(domain_path), 1):
            if value is None or value == "" or (allowed is not None and value not in allowed):
                raise reader.error(f"{domain_path}:{i}: domain {value!r} is not one of "
                                   f"{', '.join(allowed or [])}")
            domains.append(value)
        domains_where = str(domain_path)
    return parallel_lines(reader, files, pivot, domains=domains, domains_where=domains_where)


def _jsonl(directory: Path, manifest: dict[str, Any], reader: Reader) -> list[Document]:
    default_lang = canonical_lang(manifest["lang"], where=str(directory / MANIFEST))
    domain_field = manifest.get("domain_field")
    docs: list[Document] = []
    seen: dict[str, str] = {}
    for path in _glob(directory, manifest["files"], reader.error):
        for n, record in reader.jsonl(path):
            where = f"{path}:{n}"
            doc_id = str(record_field(reader, record, "id", where, kinds=(str, int)))
            text = reader.check_text(record_field(reader, record, "text", where), where)
            lang = record_field(reader, record, "lang", where, required=False)
            domain = (record_field(reader, record, domain_field, where) if domain_field
                      else path.stem)
            if doc_id in seen:
                raise reader.error(f"{where}: id {doc_id!r} was already used at {seen[doc_id]}")
            seen[doc_id] = where
            if text is None:
                continue
            if text == "":
                reader.counts.skipped_empty += 1
                continue
            lang = canonical_lang(lang, where=where) if lang is not None else default_lang
            docs.append(Document(doc_id, lang, domain, text))
    return docs


def _files(directory: Path, manifest: dict[str, Any], reader: Reader) -> list[Document]:
    lang = canonical_lang(manifest["lang"], where=str(directory / MANIFEST))
    docs: list[Document] = []
    for path in _glob(directory, manifest["files"], reader.error):
        rel = path.relative_to(directory)
        if len(rel.parts) < 2:
            raise reader.error(f"{path}: put each file in a folder named after its domain")
        text = reader.text(path)
        if text is None:
            continue
        if text == "":
            reader.counts.skipped_empty += 1
            continue
        docs.append(Document(rel.as_posix(), lang, rel.parts[0], text))
    return docs


def _generated(directory: Path, manifest: dict[str, Any], reader: Reader,
               options: Options) -> list[Document]:
    seed: int = options.get_int("seed", manifest["seed"])
    count = options.get_int("count", manifest.get("count"))
    target = _allowed_generator(manifest["generator"], directory, reader.error)
    try:
        generate = import_object(target)
    except (ImportError, AttributeError, ValueError) as e:
        raise reader.error(f"{directory / MANIFEST}: generator {target!r} cannot be "
                           f"imported: {e}") from None
    if not callable(generate):
        raise reader.error(f"{directory / MANIFEST}: generator {target!r} is not a function")
    kwargs = {"seed": seed} if count is None else {"seed": seed, "count": count}
    reader.counts.other.update(kwargs)
    docs: list[Document] = []
    try:
        generated = list(generate(**kwargs))
    except TokbenchError:
        raise
    except Exception as e:  # a generator's own bug or wrong signature: one line, its name
        raise reader.error(f"generator {target!r} failed: {type(e).__name__}: {e}") from None
    for doc in generated:
        if not isinstance(doc, Document):
            raise reader.error(f"generator {target!r} returned {type(doc).__name__}, "
                               "not Document")
        lang = canonical_lang(doc.lang, where=f"generator {target!r}, document {doc.id!r}")
        text = reader.check_text(doc.text, f"generator {target!r}, document {doc.id!r}")
        if text is None:
            continue
        if text == "":
            reader.counts.skipped_empty += 1
            continue
        docs.append(doc if (lang, text) == (doc.lang, doc.text)
                    else Document(doc.id, lang, doc.domain, text, doc.align))
    return docs


def _allowed_generator(target: str, directory: Path, error: type[TokbenchError]) -> str:
    """The import string of a generator a manifest may call: tokbench's own, or one
    registered in the ``tokbench.suite_generators`` entry-point group (name or value)."""
    from importlib.metadata import entry_points

    module = target.partition(":")[0]
    if module == "tokbench" or module.startswith("tokbench."):
        return target
    for ep in entry_points(group=GENERATOR_GROUP):
        if target in (ep.name, ep.value):
            return str(ep.value)
    raise error(f"{directory / MANIFEST}: generator {target!r} is neither tokbench's own "
                f"(tokbench.*) nor registered in the entry-point group {GENERATOR_GROUP!r}; "
                "register it there to use it")


def load_manifest_suite(directory: str | Path, *, errors: str = "strict",
                        source: str | None = None, **options: Any) -> Suite:
    """Load the suite in ``directory`` as its ``manifest.json`` says.

    Built-in data errors are CorruptFileError; a user's folder (``source`` given)
    raises InputError. ``options``: ``seed`` and ``count`` for generated suites.
    """
    directory = Path(directory)
    error: type[TokbenchError] = CorruptFileError if source is None else InputError
    if not directory.is_dir():
        raise error(f"{directory}: not a folder")
    manifest = read_manifest(directory, error)
    reader = Reader(errors, error)
    opts = Options(f"suite {manifest['name']!r}", options)
    fmt = manifest["format"]
    if fmt == "parallel-lines":
        docs = _parallel(directory, manifest, reader)
    elif fmt == "jsonl":
        docs = _jsonl(directory, manifest, reader)
    elif fmt == "files":
        docs = _files(directory, manifest, reader)
    else:
        docs = _generated(directory, manifest, reader, opts)
    opts.finish()
    unique_ids(docs, str(directory), error)
    return Suite(name=manifest["name"], version=manifest["version"], documents=docs,
                 parallel=manifest["parallel"], subset_by=manifest["subset_by"],
                 description=manifest["description"],
                 source=source or "builtin", meta=reader.counts.meta(),
                 families=tuple(str(f) for f in manifest.get("families", ())))


def load_builtin(name: str, *, errors: str = "strict", **options: Any) -> Suite:
    """Load the built-in suite ``name`` from ``tokbench.paths.suites_dir()``."""
    directory = suites_dir() / name
    if not (directory / MANIFEST).is_file():
        raise CorruptFileError(f"built-in suite {name!r} has no data at {directory}; "
                               "reinstall tokbench")
    return load_manifest_suite(directory, errors=errors, **options)
