"""Suites as code: load a built-in suite by name or the user's data by spec.

Specs::

    multilingual | japanese | code | numbers | unicode   built-in (tokbench.paths.suites_dir())
    flores200[:DIR]                  FLORES-200 dev/devtest (default DIR: $TOKBENCH_FLORES)
    text:PATH                        a .txt/.jsonl file or a folder of them
    code:DIR                         source files, domain = language from the extension
    hf-dataset:NAME[:CONFIG][@SPLIT] a Hugging Face dataset (needs `datasets` and the hub)
    manifest:DIR                     a folder with a manifest.json like the built-in suites

Options are keyword arguments of ``load_suite`` or a query after the spec
(``"text:corpus.txt?lang=deu_Latn&limit=100"``; keyword arguments win). Every spec takes
``errors`` (strict | replace | skip, for invalid UTF-8), ``languages`` and ``domains``
(comma-separated filters), ``limit`` (first N documents of each subset; a parallel
suite stays aligned) and ``name`` (the suite's name in results).

``SUITES`` (entry-point group ``tokbench.suites``) maps names to loaders called as
``loader(errors=..., **options) -> Suite``; ``SCHEMES`` (group ``tokbench.suite_schemes``)
maps spec prefixes to ``loader(target, errors=..., **options) -> Suite``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote

from tokbench.errors import InputError, TokbenchError, UnknownNameError
from tokbench.record import RunError
from tokbench.registry import Registry
from tokbench.suites.builtin import BUILTIN_SUITES, load_builtin
from tokbench.suites.langs import canonical_lang
from tokbench.suites.model import Document, Suite
from tokbench.suites.reading import Options, check_errors
from tokbench.suites.stream import StreamingSuite

SuiteLoader = Callable[..., Suite | StreamingSuite]

SUITES: Registry[SuiteLoader] = Registry("suite", "tokbench.suites")
for _name in BUILTIN_SUITES:
    SUITES.register(_name, functools.partial(load_builtin, _name))
SUITES.register("flores200", "tokbench.suites.external:load_flores200")

SCHEMES: Registry[SuiteLoader] = Registry("suite scheme", "tokbench.suite_schemes")
SCHEMES.register("flores200", "tokbench.suites.external:load_flores200")
SCHEMES.register("text", "tokbench.suites.external:load_text")
SCHEMES.register("code", "tokbench.suites.external:load_code")
SCHEMES.register("hf-dataset", "tokbench.suites.external:load_hf_dataset", aliases=("hf",))
SCHEMES.register("manifest", "tokbench.suites.external:load_manifest_dir")

GENERIC_OPTIONS = ("errors", "languages", "domains", "limit", "name", "sample")

__all__ = ["BUILTIN_SUITES", "SCHEMES", "SUITES", "Document", "Suite", "list_suites",
           "load_suite", "load_suites", "parse_suite_spec"]


def list_suites() -> list[dict[str, str]]:
    """Every registered suite name as ``{"name", "description"}``, loading no document.

    A built-in suite is described by its manifest (with its version); a suite from an
    entry point by its loader's ``description`` or the first line of its docstring. Specs
    (``text:PATH``, ``flores200?split=dev``...) are not names and are not listed.
    """
    from tokbench.paths import suites_dir
    from tokbench.suites.builtin import read_manifest

    out = []
    for name in SUITES.names():
        description = ""
        if name in BUILTIN_SUITES:
            manifest = read_manifest(suites_dir() / name)
            description = f"{manifest['description']} (v{manifest['version']})"
        else:
            loader: Any = SUITES.get(name)
            if isinstance(loader, functools.partial):
                loader = loader.func
            desc = getattr(loader, "description", None)
            doc = (getattr(loader, "__doc__", None) or "").strip()
            description = desc if isinstance(desc, str) and desc else (
                doc.splitlines()[0] if doc else "")
        out.append({"name": name, "description": description})
    return out


def parse_suite_spec(spec: str) -> tuple[str | None, str, dict[str, str]]:
    """``"scheme:target?k=v&k2=v2"`` -> (scheme or None for a name, target, options).

    Query values are percent-decoded (``+`` stays a plus); a key without ``=`` is ``""``
    (true for flags).
    """
    base, _, query = spec.partition("?")
    options: dict[str, str] = {}
    for pair in filter(None, query.split("&")):
        key, _, value = pair.partition("=")
        key = unquote(key).strip()
        if not key:
            raise InputError(f"suite spec {spec!r}: empty option name in {pair!r}")
        if key in options:
            raise InputError(f"suite spec {spec!r}: option {key!r} is given twice")
        options[key] = unquote(value)
    scheme, colon, target = base.partition(":")
    if not colon:
        return None, base.strip(), options
    return scheme.strip(), target, options


def _call(loader: SuiteLoader, what: str, *args: Any, **kwargs: Any
          ) -> Suite | StreamingSuite:
    """Call ``loader`` with the options it accepts: ``errors="strict"`` is left out for a
    loader without an ``errors`` parameter; any other option it lacks is an InputError."""
    try:
        params = inspect.signature(loader).parameters.values()
    except (TypeError, ValueError):
        params = None
    if params is not None and not any(p.kind is p.VAR_KEYWORD for p in params):
        names = {p.name for p in params}
        if kwargs.get("errors") == "strict" and "errors" not in names:
            kwargs.pop("errors")
        extra = sorted(set(kwargs) - names)
        if extra:
            raise InputError(f"{what}: unknown option {extra[0]!r}")
    suite = loader(*args, **kwargs)
    if not isinstance(suite, Suite | StreamingSuite):
        raise TokbenchError(f"{what}: the loader returned {type(suite).__name__}, not a Suite")
    return suite


def _language_hint(value: Any) -> list[str] | None:
    """The codes of a ``languages`` option, for a loader that reads only their files
    (None when one is not a code: the selection after loading says so, as for any suite)."""
    try:
        codes = [canonical_lang(x, where="languages")
                 for x in Options("languages", {"languages": value}).get_list("languages") or []]
    except InputError:
        return None
    return codes or None


def _takes(loader: SuiteLoader, name: str) -> bool:
    """Whether ``loader`` has a parameter ``name`` of its own (not only ``**options``)."""
    try:
        return name in inspect.signature(loader).parameters
    except (TypeError, ValueError):
        return False


def _select(suite: Suite | StreamingSuite, options: dict[str, Any], where: str
            ) -> Suite | StreamingSuite:
    """Apply the generic ``languages``, ``domains``, ``limit`` and ``name`` options."""
    opts = Options(where, options)
    languages = opts.get_list("languages")
    domains = opts.get_list("domains")
    limit = opts.get_int("limit", minimum=1)
    name = opts.get_str("name")
    opts.finish()
    if languages is None and domains is None and limit is None and name is None:
        return suite
    if isinstance(suite, StreamingSuite):
        if limit is None:
            if languages is not None:
                languages = [canonical_lang(x, where=f"suite {suite.name!r} option languages")
                             for x in languages]
                if not any(f.jsonl for f in suite.files) and suite.lang is None:
                    _check_present(suite, languages, suite.languages_known())
            return suite.with_filters(languages, domains, name)
        suite = suite.materialize()
    docs: list[Document] = suite.documents
    selected: dict[str, Any] = {}
    if languages is not None:
        wanted = [canonical_lang(x, where=f"suite {suite.name!r} option languages")
                  for x in languages]
        _check_present(suite, wanted, suite.languages())
        docs = [d for d in docs if d.lang in wanted]
        selected["languages"] = sorted(wanted)
    if domains is not None:
        have = list(dict.fromkeys(d.domain for d in suite.documents))
        missing = [x for x in domains if x not in have]
        if missing:
            raise InputError(f"suite {suite.name!r} has no domain {missing[0]!r}; it has "
                             + ", ".join(have))
        docs = [d for d in docs if d.domain in domains]
        selected["domains"] = sorted(domains)
    if limit is not None:
        seen: dict[str, int] = {}
        kept = []
        for d in docs:
            key = suite.subset_of(d)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] <= limit:
                kept.append(d)
        docs = kept
        selected["limit"] = limit
    meta = {**suite.meta, "selected": selected} if selected else suite.meta
    return dataclasses.replace(suite, name=name or suite.name, documents=docs, meta=meta)


def _sample(suite: Suite | StreamingSuite, options: dict[str, Any], where: str
            ) -> Suite | StreamingSuite:
    """Apply the generic ``sample`` (``1%``, ``50MB``) and ``seed`` options."""
    from tokbench.suites.sample import SampleSpec, sample_suite

    opts = Options(where, options)
    size = opts.get_str("sample")
    seed = opts.get_int("seed", 0)
    opts.finish()
    assert size is not None
    return sample_suite(suite, SampleSpec.parse(size, seed, where))


def _check_present(suite: Suite | StreamingSuite, wanted: list[str], have: list[str]
                   ) -> None:
    missing = [x for x in wanted if x not in have]
    if missing:
        raise InputError(f"suite {suite.name!r} has no {missing[0]} documents; it has "
                         + ", ".join(have))


def load_suite(spec: str | Suite | StreamingSuite, *, errors: str | None = None,
               **options: Any) -> Suite | StreamingSuite:
    """Load a suite by built-in name or spec (see the module doc for the syntax).

    ``errors``: what to do with invalid UTF-8 in files: ``"strict"`` (default: raise
    InputError naming the file and byte offset), ``"replace"`` (U+FFFD) or ``"skip"``
    (leave the document out, counted in ``meta["skipped_invalid"]``). Empty documents
    are left out and counted in ``meta["skipped_empty"]``.

    >>> suite = load_suite("multilingual?languages=eng_Latn,jpn_Jpan")
    >>> suite.name, len(suite), suite.languages()
    ('multilingual', 216, ['eng_Latn', 'jpn_Jpan'])
    >>> suite.parallel  # the same sentences in each language: premiums are defined
    True
    """
    if isinstance(spec, Suite | StreamingSuite):
        return _select(spec, options, f"suite {spec.name!r}")
    scheme, target, query = parse_suite_spec(spec)
    merged: dict[str, Any] = {**query, **options}
    if errors is not None:
        merged["errors"] = errors
    errors_value = check_errors(str(merged.pop("errors", "strict")))
    generic = {k: merged.pop(k) for k in GENERIC_OPTIONS[1:] if k in merged}
    if "sample" in generic and "seed" in merged:  # with sample=, seed= seeds the sample
        generic["seed"] = merged.pop("seed")
    if scheme is None:
        if target not in SUITES:
            hint = ("for a file or folder use text:PATH, code:DIR or flores200:DIR"
                    if os.path.exists(target) else "")
            raise UnknownNameError("suite", target, SUITES.names(), hint=hint)
        args: tuple[str, ...] = ()
        loader, what = SUITES.get(target), f"suite {target!r}"
    else:
        loader, what, args = SCHEMES.get(scheme), f"{scheme}:{target}", (target,)
    if "languages" in generic and _takes(loader, "languages"):  # it reads only those
        merged["languages"] = _language_hint(generic["languages"])
    suite = _call(loader, what, *args, errors=errors_value, **merged)
    sampling: dict[str, Any] = {k: generic.pop(k) for k in ("sample", "seed") if k in generic}
    suite = _select(suite, generic, f"suite {spec!r}")
    if sampling:
        suite = _sample(suite, sampling, f"suite {spec!r}")
    if isinstance(suite, StreamingSuite):
        if suite.files and suite.nbytes == 0:
            raise InputError(f"suite {spec!r} has no documents (its files are empty)")
        return suite
    if not suite.documents:
        skipped = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in suite.meta.items()
                            if k.startswith("skipped") and v)
        raise InputError(f"suite {spec!r} has no documents" + (f" ({skipped})" if skipped
                                                              else ""))
    return suite


def split_suite_specs(values: Iterable[str] | None) -> list[str]:
    """Comma-separated suite specs; a comma inside a spec's ``?options`` stays in it.

    ``"flores200?languages=eng_Latn,deu_Latn,multilingual"`` -> the FLORES spec with two
    languages, then ``multilingual``: a piece continues the previous spec when that has
    options and the piece is neither a suite name nor a ``scheme:`` spec.
    """
    names = set(SUITES.names())
    specs: list[str] = []
    for item in values or []:
        for piece in (x.strip() for x in item.split(",")):
            if not piece:
                continue
            if specs and "?" in specs[-1] and piece not in names and ":" not in piece \
                    and "?" not in piece:
                specs[-1] += "," + piece
            else:
                specs.append(piece)
    return specs


def load_suites(specs: Iterable[str | Suite | StreamingSuite]
                ) -> tuple[list[Suite | StreamingSuite], list[RunError]]:
    """Load every suite that loads; a ``RunError`` (``suite``, ``error``) for the rest.

    One suite's bad file must not cost the others' results; the caller says which failed
    (the errors go into the results' ``meta.errors`` as they are).
    """
    suites: list[Suite | StreamingSuite] = []
    failed: list[RunError] = []
    for spec in specs:
        try:
            suite = load_suite(spec)
        except TokbenchError as e:
            failed.append(RunError(suite=str(spec), error=str(e)))
            continue
        if isinstance(spec, str):
            suite.meta.setdefault("spec", spec)
        suites.append(suite)
    return suites, failed
