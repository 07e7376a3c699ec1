"""The run record as types: what ``meta`` and ``failures`` of a results.json hold.

Every part of a record is a dataclass read with ``from_dict`` and written with ``to_dict``.
``from_dict`` checks each known key's JSON type against the field's annotation (a wrong one
is a one-line ``InputError`` naming the key) and keeps unknown keys in ``extra``, so newer
and third-party files load and write back unchanged. A record read from a file remembers
which known keys it had: ``to_dict`` writes exactly those (and any set since), so
``from_dict``/``to_dict`` round-trips a file byte for byte. A record built in code writes
every field except optional ones left at ``None`` (fields in ``NULLABLE`` write ``null``).
"""

from __future__ import annotations

import types
import typing
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Self

from tokbench.errors import InputError

#: fields every record has that are not JSON keys
_OWN = ("extra", "loaded_keys")


@dataclass
class Record:
    """A JSON object as a dataclass; see the module docstring for the round-trip rules."""

    #: fields whose ``None`` is written as ``null`` (others are left out when ``None``)
    NULLABLE: ClassVar[frozenset[str]] = frozenset()

    extra: dict[str, Any] = field(default_factory=dict, kw_only=True)
    #: the known keys of the JSON object it was read from (None: built in code)
    loaded_keys: frozenset[str] | None = field(default=None, kw_only=True, repr=False,
                                               compare=False)

    @classmethod
    def from_dict(cls, data: Any, where: str = "", origin: str = "<data>") -> Self:
        """The record in ``data``; ``where`` (``meta.suites.x``) and ``origin`` (the file)
        name a wrongly typed key in the error."""
        where = where or cls.__name__
        if not isinstance(data, dict):
            raise InputError(f"{origin}: {where} must be an object, got {_json_name(type(data))}")
        hints = _hints(cls)
        known = [f.name for f in fields(cls) if f.name not in _OWN]
        values = {name: _convert(data[name], hints[name], f"{where}.{name}", origin)
                  for name in known if name in data}
        obj = cls(**values, extra={k: v for k, v in data.items() if k not in values})
        obj.loaded_keys = frozenset(values)
        return obj

    def has(self, key: str) -> bool:
        """Whether the file this was read from had ``key`` (always, for one built in code)."""
        return self.loaded_keys is None or key in self.loaded_keys or key in self.extra

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: known keys (see the module docstring), then ``extra``."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name in _OWN:
                continue
            value = getattr(self, f.name)
            if self.loaded_keys is not None:
                if f.name not in self.loaded_keys and value == _default(f):
                    continue
            elif value is None and f.name not in self.NULLABLE:
                continue
            out[f.name] = _plain(value)
        out.update(self.extra)
        return out


@dataclass
class TokenizerSource(Record):
    """Where a tokenizer's files came from (``Tokenizer.source``)."""

    kind: str | None = None
    location: str | None = None
    sha256: str | None = None
    path: str | None = None
    NULLABLE: ClassVar[frozenset[str]] = frozenset({"kind", "location", "sha256", "path"})


@dataclass
class TokenizerInfo(Record):
    """What a tokenizer is (``Tokenizer.describe()``); backend-specific facts in ``extra``."""

    name: str = ""
    backend: str | None = None
    backend_version: str | None = None
    source: TokenizerSource = field(default_factory=TokenizerSource)
    vocab_size: int | None = None
    unk_id: int | None = None
    byte_fallback: bool | None = None
    special_tokens: dict[str, int] = field(default_factory=dict)
    spec: str | None = None  # how to load it again (``tokbench verify``), when it was a name
    NULLABLE: ClassVar[frozenset[str]] = frozenset(
        {"backend", "backend_version", "vocab_size", "unk_id", "byte_fallback"})


@dataclass
class SuiteInfo(Record):
    """What a suite is (``Suite.describe()``, completed by the run)."""

    name: str = ""
    version: str | None = None
    sha256: str | None = None
    source: str | None = None
    spec: str | None = None
    parallel: bool = False
    subset_by: str | None = None
    documents: int | None = None
    bytes: int | None = None
    languages: list[str] = field(default_factory=list)
    left_out: dict[str, int] | None = None
    #: how a sampled suite was drawn (``tokbench.suites.sample``): method, seed, size, units
    sample: dict[str, Any] | None = None
    NULLABLE: ClassVar[frozenset[str]] = frozenset(
        {"version", "sha256", "source", "spec", "subset_by", "documents"})


@dataclass
class RunError(Record):
    """A tokenizer that failed to load, a suite that failed, or a measurement of a
    tokenizer on a suite that failed (both named): it was not run."""

    tokenizer: str | None = None
    suite: str | None = None
    error: str = ""

    @property
    def subject(self) -> str:
        """``"tokenizer gpt2"`` or ``"suite text:x"``: what the error is about."""
        if self.suite is not None and self.tokenizer is None:
            return f"suite {self.suite}"
        if self.suite is not None:
            return f"tokenizer {self.tokenizer} on suite {self.suite}"
        return f"tokenizer {self.tokenizer}"


@dataclass
class Failure(Record):
    """A document a tokenizer raised on (``kind`` "error", with ``error``) or did not
    decode back to its text (``kind`` the failure class, ``offset``, ``expected``, ``got``)."""

    tokenizer: str = ""
    suite: str = ""
    doc_id: str | int | None = None
    lang: str | None = None
    kind: str = ""
    offset: int | None = None
    expected: str | None = None
    got: str | None = None
    error: str | None = None
    # a parity difference (``tokbench parity``): the reference it differs from, the class
    # (in ``kind``), the tokens around the first difference (``around``: "reference" and
    # "implementation" lists of [id, piece], from token ``first_token``) and the minimal
    # reproducer with both encodings of it
    reference: str | None = None
    first_token: int | None = None
    around: dict[str, Any] | None = None
    reproducer: str | None = None
    reproducer_reference_ids: list[int] | None = None
    reproducer_ids: list[int] | None = None
    NULLABLE: ClassVar[frozenset[str]] = frozenset({"doc_id"})

    @property
    def sort_key(self) -> tuple[str, str, str]:
        """How results.json orders failures."""
        keys = self.loaded_keys
        written = self.doc_id is not None or keys is None or "doc_id" in keys
        return (self.tokenizer, self.suite, str(self.doc_id) if written else "")


@dataclass
class RunMeta(Record):
    """What was run: versions, machine, settings, tokenizers, suites, what failed and how long
    it took. ``sweep``, ``recommend``, ``speed`` and ``parity`` are the sections those commands
    add."""

    tokbench_version: str | None = None
    created: str | None = None
    git_commit: str | None = None
    machine: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    metric_families: list[str] = field(default_factory=list)
    metric_formulas: dict[str, str] | None = None
    complete: bool = True  # a file that does not say was written by a finished run
    suites: dict[str, SuiteInfo] = field(default_factory=dict)
    tokenizers: dict[str, TokenizerInfo] = field(default_factory=dict)
    errors: list[RunError] = field(default_factory=list)
    warnings: list[str] | None = None
    executor: dict[str, Any] | None = None
    finished_units: list[list[str]] | None = None
    failure_counts: dict[str, dict[str, dict[str, int]]] | None = None
    segmenters: dict[str, str | None] | None = None
    timings: dict[str, float] | None = None
    speed: dict[str, Any] | None = None
    parity: dict[str, Any] | None = None  # tokbench parity/drift: reference, limits, classes
    sweep: dict[str, Any] | None = None
    recommend: dict[str, Any] | None = None
    NULLABLE: ClassVar[frozenset[str]] = frozenset({"tokbench_version", "created",
                                                    "git_commit"})


# -- reading and writing by annotation ------------------------------------------------------

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """Each field's annotation, resolved once per class (they are strings in this module)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _default(f: Any) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not MISSING else None


def _arms(hint: Any) -> tuple[Any, ...]:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return typing.get_args(hint)
    return (hint,)


def _json_kind(hint: Any) -> type:
    """The Python type a JSON value of this annotation arrives as."""
    origin = typing.get_origin(hint) or hint
    if isinstance(origin, type) and issubclass(origin, Record):
        return dict
    return origin if isinstance(origin, type) else object


def _fits(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _convert(value: Any, hint: Any, where: str, origin: str) -> Any:
    """``value`` checked against ``hint`` (and records and their containers built)."""
    if hint is Any:
        return value
    arms = _arms(hint)
    arm = next((a for a in arms if _fits(value, _json_kind(a))), None)
    if arm is None:
        names = dict.fromkeys(_json_name(_json_kind(a)) for a in arms)
        raise InputError(f"{origin}: {where} must be {' or '.join(names)}, got "
                         f"{_json_name(type(value))}")
    origin_type = typing.get_origin(arm)
    if origin_type is list:
        (item,) = typing.get_args(arm)
        return [_convert(v, item, f"{where}[{i}]", origin) for i, v in enumerate(value)]
    if origin_type is dict:
        _, item = typing.get_args(arm)
        return {k: _convert(v, item, f"{where}.{k}", origin) for k, v in value.items()}
    if isinstance(arm, type) and issubclass(arm, Record):
        return arm.from_dict(value, where, origin)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _json_name(kind: type) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "true or false",
            type(None): "null", int: "an integer", float: "a number"}.get(kind, kind.__name__)
