"""Results as data: one versioned JSON schema, stable key order and rounding.

A run produces ``Results``: metadata about what was run and a list of rows
``{tokenizer, suite, subset, metric, value, ...}``. Tables, plots, the HTML
report and ``compare`` are all rendered from this data, never recomputed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.constants import ALL, PIVOT
from tokbench.errors import InputError
from tokbench.jsontext import Encoded, dumps
from tokbench.record import Failure, RunMeta

if TYPE_CHECKING:
    import pandas as pd

SCHEMA = "tokbench.results"
SCHEMA_VERSION = 1
SIGNIFICANT_DIGITS = 6

ROW_KEYS = ("tokenizer", "suite", "subset", "metric", "value")
#: results.json's indentation, and how deep a row stands in it (top object, "rows" list)
INDENT = 1
ROW_LEVEL = 2

_row_order = attrgetter("tokenizer", "suite", "subset", "metric")


class _End:
    """Marks where a container's items end in ``Row._parts``."""


_END = _End()
#: types whose objects never change: a row made of them (and of lists and dicts of them)
#: keeps its JSON text until one of them is replaced
_IMMUTABLE = frozenset({str, int, float, bool, type(None), _End})
_CACHEABLE = _IMMUTABLE | {list, dict}


def round_value(value: Any) -> Any:
    """Round floats to ``SIGNIFICANT_DIGITS`` significant digits; NaN/inf become None."""
    kind = type(value)
    if kind is float:
        return _round_float(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if isinstance(value, float):
        return _round_float(value)
    if isinstance(value, dict):
        return {k: round_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [round_value(v) for v in value]
    return value


def _round_float(value: float) -> float | None:
    """``round_value`` of a float."""
    if not math.isfinite(value):
        return None
    if value == 0.0:
        return 0.0
    digits = SIGNIFICANT_DIGITS - math.floor(math.log10(abs(value))) - 1
    return round(value, max(digits, 0)) if digits > 0 else float(round(value, digits))


@dataclass
class Row:
    """One measured value. ``extra`` holds optional detail (spread, repeats, threads, n)."""

    tokenizer: str
    suite: str
    subset: str
    metric: str
    value: float | int | None
    extra: dict[str, Any] = field(default_factory=dict)
    #: (the objects the text was made of, their ids, the text): see ``json_text``
    _text: tuple[tuple[Any, ...], tuple[int, ...], Encoded] | None = field(
        default=None, init=False, repr=False, compare=False)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.tokenizer, self.suite, self.subset, self.metric)

    def json_text(self) -> Encoded:
        """``to_dict()`` as results.json writes it in its rows, made once: a checkpoint
        writes results.json again and again, each row unchanged since the last write.

        The text is reused while the row holds the same objects (ids, kept alive with it):
        setting a field, or a key of ``extra``, makes it anew.
        """
        parts = self._parts()
        if parts is not None and self._text is not None \
                and self._text[1] == tuple(map(id, parts)):
            return self._text[2]
        text = Encoded(dumps(self.to_dict(), INDENT, ROW_LEVEL))
        if parts is not None:
            self._text = (parts, tuple(map(id, parts)), text)
        return text

    def _parts(self) -> tuple[Any, ...] | None:
        """The objects this row's JSON is made of, or None when one could change in place
        unseen (not a str, number, bool or None, nor a list or dict of them)."""
        top = (self.tokenizer, self.suite, self.subset, self.metric, self.value,
               *self.extra, *self.extra.values())
        types = set(map(type, top))
        if types <= _IMMUTABLE:
            return top
        if not types <= _CACHEABLE:
            return None
        inner: list[Any] = []
        for v in self.extra.values():
            if type(v) is list or type(v) is dict:
                inner += v  # a dict: its keys, then its values
                if type(v) is dict:
                    inner += v.values()
                inner.append(_END)  # where one container ends: lengths are part of it
        return (*top, *inner) if set(map(type, inner)) <= _IMMUTABLE else None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"tokenizer": self.tokenizer, "suite": self.suite,
                             "subset": self.subset, "metric": self.metric,
                             "value": round_value(self.value)}
        for k in sorted(self.extra):
            d[k] = round_value(self.extra[k])
        return d

    @classmethod
    def from_dict(cls, d: Any, where: str = "row") -> Row:
        """A row from its JSON object; a malformed one is an InputError naming ``where``."""
        if not isinstance(d, dict):
            raise InputError(f"{where}: expected an object, got {type(d).__name__}")
        for key in ROW_KEYS:
            if key not in d:
                raise InputError(f"{where}: missing {key!r}")
            if key != "value" and not isinstance(d[key], str):
                raise InputError(f"{where}: {key!r} must be a string, got "
                                 f"{type(d[key]).__name__}")
        value = d["value"]
        if value is not None and (isinstance(value, bool)
                                  or not isinstance(value, (int, float))):
            raise InputError(f"{where}: 'value' must be a number or null, got "
                             f"{type(value).__name__}")
        extra = {k: v for k, v in d.items() if k not in ROW_KEYS}
        return cls(d["tokenizer"], d["suite"], d["subset"], d["metric"], value, extra)


@dataclass
class Results:
    """A run's results: ``meta`` (what was run), ``rows`` and ``failures``.

    ``meta`` (``tokbench.record.RunMeta``): versions, machine, settings, tokenizers,
    suites, errors, timings. ``failures`` (``tokbench.record.Failure``): round-trip
    failures and documents a tokenizer raised on.
    """

    rows: list[Row] = field(default_factory=list)
    meta: RunMeta = field(default_factory=RunMeta)
    failures: list[Failure] = field(default_factory=list)

    def sorted_rows(self) -> list[Row]:
        return sorted(self.rows, key=_row_order)

    def value(self, tokenizer: str, suite: str, subset: str, metric: str) -> Any:
        """The value of one row, or KeyError."""
        for r in self.rows:
            if r.key == (tokenizer, suite, subset, metric):
                return r.value
        raise KeyError((tokenizer, suite, subset, metric))

    def to_dict(self) -> dict[str, Any]:
        return self._document([r.to_dict() for r in self.sorted_rows()])

    def to_json(self) -> str:
        """results.json's text: ``json.dumps(self.to_dict(), ensure_ascii=False,
        indent=1)`` and a newline, each row's part made once (``Row.json_text``)."""
        rows = [r.json_text() for r in self.sorted_rows()]
        return dumps(self._document(rows), INDENT) + "\n"

    def _document(self, rows: list[Any]) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "meta": _sort_keys(round_value(self.meta.to_dict())),
            "rows": rows,
            "failures": [_sort_keys(f.to_dict())
                         for f in sorted(self.failures, key=lambda f: f.sort_key)],
        }

    def save(self, path: str | Path) -> Path:
        """Write ``results.json`` (``path`` is the file or its directory)."""
        p = Path(path)
        if p.suffix != ".json":
            p.mkdir(parents=True, exist_ok=True)
            p = p / "results.json"
        from tokbench.atomic import write_atomic

        return write_atomic(p, self.to_json())

    @classmethod
    def from_dict(cls, data: Any, origin: str = "<data>") -> Results:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise InputError(f"{origin}: not a tokbench results file (no \"schema\": \"{SCHEMA}\")")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            data = migrate(data, origin)
        meta, rows, failures = (data.get("meta", {}), data.get("rows", []),
                                data.get("failures", []))
        for key, value, kind in (("meta", meta, dict), ("rows", rows, list),
                                 ("failures", failures, list)):
            if not isinstance(value, kind):
                raise InputError(f"{origin}: {key!r} must be a JSON "
                                 f"{'object' if kind is dict else 'array'}, got "
                                 f"{type(value).__name__}")
        if not all(isinstance(f, dict) for f in failures):
            raise InputError(f"{origin}: every entry of 'failures' must be an object")
        return cls(rows=[Row.from_dict(r, f"{origin}: row {i}") for i, r in enumerate(rows)],
                   meta=RunMeta.from_dict(meta, "meta", origin),
                   failures=[Failure.from_dict(f, f"failures[{i}]", origin)
                             for i, f in enumerate(failures)])

    @classmethod
    def load(cls, path: str | Path) -> Results:
        """Read a results.json (or a run directory holding one)."""
        p = Path(path)
        if p.is_dir():
            p = p / "results.json"
        if not p.exists():
            raise InputError(f"{p}: no such results file; pass a results.json or a run directory")
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError(f"{p}: not valid JSON ({e}); is it a tokbench results file?") from None
        except RecursionError:
            raise InputError(f"{p}: JSON nested too deeply; is it a tokbench results file?") \
                from None
        except OSError as e:
            raise InputError(f"{p}: cannot read ({e.strerror or e})") from None
        return cls.from_dict(data, str(p))

    def to_frame(self) -> pd.DataFrame:
        """Rows as a pandas DataFrame (one row per value)."""
        import pandas as pd

        return pd.DataFrame([r.to_dict() for r in self.sorted_rows()])


def as_saved(results: Results) -> Results:
    """``results`` with every row as ``results.json`` holds it (rounded): what every view
    renders, so the run's reports, its terminal summary and `tokbench report` agree."""
    return Results(rows=[Row.from_dict(r.to_dict()) for r in results.rows],
                   meta=results.meta, failures=results.failures)


def migrate(data: dict[str, Any], origin: str) -> dict[str, Any]:
    """Bring an older schema version up to ``SCHEMA_VERSION`` or say why not."""
    version = data.get("schema_version")
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise InputError(f"{origin}: results schema version {version} is newer than this "
                         f"tokbench understands ({SCHEMA_VERSION}); upgrade tokbench")
    raise InputError(f"{origin}: unknown results schema version {version!r}")


def _sort_keys(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _sort_keys(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list):
        return [_sort_keys(v) for v in obj]
    return obj


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps_json(obj: Any, **options: Any) -> str:
    """JSON text with non-ASCII kept as is, but lone surrogates escaped (``\\ud800``).

    Texts can hold lone surrogates (a tokenizer sees them); UTF-8 cannot, JSON can.
    """
    text = json.dumps(obj, ensure_ascii=False, **options)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def order_subsets(subsets: Iterable[str]) -> list[str]:
    """"all" first, then English, then the rest alphabetically."""
    present = set(subsets)
    rest = sorted(present - {ALL, PIVOT})
    head = [s for s in (ALL, PIVOT) if s in present]
    return head + rest
