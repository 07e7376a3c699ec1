"""Indented JSON text, byte for byte as ``json.dumps(obj, ensure_ascii=False, indent=N)``
writes it, several times faster, with parts encoded once and reused (``Encoded``).

``json.dumps`` drops to its pure-Python encoder whenever ``indent`` is set; a results file
of ten thousand rows then takes a second per write. Here each value is written by the
same C helpers the json module uses (``encode_basestring``, ``float.__repr__``,
``int.__repr__``) without its generator chain. What json rejects (a type it cannot
write, a key type, a circular structure) raises json's own error: the offending part is
handed to ``json.dumps``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring
from typing import Any

#: json's C encoder class (None on a Python built without it: then all is written here)
_C_ENCODER: Callable[..., Callable[[Any, int], Any]] | None = getattr(
    json.encoder, "c_make_encoder", None)


class Encoded(str):
    """JSON text written as is where it stands in a value (``dumps`` made it, with the
    ``level`` of that place)."""

    __slots__ = ()


#: what json writes (``allow_nan``) for the floats whose repr is no JSON number
_NOT_NUMBERS = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _float(value: float) -> str:
    """A float as json writes it: its repr, or NaN, Infinity, -Infinity."""
    text = float.__repr__(value)
    return _NOT_NUMBERS.get(text, text)


def _null(value: None) -> str:
    return "null"


def _bool(value: bool) -> str:
    return "true" if value else "false"


#: exact types and how each is written (subclasses take json's own isinstance order)
_SCALARS: dict[type, Callable[[Any], str]] = {
    str: encode_basestring, int: int.__repr__, float: _float, bool: _bool,
    type(None): _null,
}


#: value types a container can hold to be written whole by json's C encoder
_FLAT = frozenset(_SCALARS)
_ENCODED = {Encoded}


@functools.lru_cache(maxsize=64)
def _flat_encoder(newline: str) -> Callable[[Any, int], Any]:
    """json's C encoder, writing a container of scalars with one item per line."""
    assert _C_ENCODER is not None
    return _C_ENCODER(None, None, encode_basestring, None, ": ", "," + newline,
                      False, False, True)


def _flat(o: Any, values: Any, indent: str, level: int) -> str | None:
    """A non-empty dict or list ``o`` written whole if its ``values`` are all scalars (by
    json's C encoder) or, in a list, all ``Encoded``; else None."""
    kinds = set(map(type, values))
    inner = "\n" + indent * (level + 1)
    if kinds == _ENCODED and not isinstance(o, dict):
        return "[" + inner + ("," + inner).join(o) + "\n" + indent * level + "]"
    if _C_ENCODER is None or not kinds <= _FLAT:
        return None
    text = "".join(_flat_encoder(inner)(o, 0))
    return text[0] + inner + text[1:-1] + "\n" + indent * level + text[-1]


def _scalar(value: Any) -> str:
    """A scalar of a subclass type as json writes it (its isinstance order)."""
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    return _refused(value)


def _refused(value: Any) -> str:
    """Raise json's own error for what it cannot write (a type, a key, a cycle)."""
    json.dumps(value)
    raise AssertionError(f"json wrote what tokbench.jsontext refused: {value!r}")


def _key(key: Any) -> str:
    """A dict key as json writes it (str, float, bool, None, int; else json's TypeError)."""
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, float):
        return encode_basestring(_float(key))
    if key is True or key is False or key is None:
        return '"' + _SCALARS[type(key)](key) + '"'
    if isinstance(key, int):
        return '"' + int.__repr__(key) + '"'
    return _refused({key: None})


class _Writer:
    """Appends the JSON text of a value to ``out``, ``indent`` per nesting level."""

    def __init__(self, indent: str) -> None:
        self.indent = indent
        self.out: list[str] = []
        self.newlines: list[str] = []
        #: the containers being written (a cycle is json's ValueError)
        self.open: set[int] = set()

    def newline(self, level: int) -> str:
        while len(self.newlines) <= level:
            self.newlines.append("\n" + self.indent * len(self.newlines))
        return self.newlines[level]

    def value(self, o: Any, level: int) -> None:
        write = _SCALARS.get(type(o))
        if write is not None:
            self.out.append(write(o))
        elif type(o) is Encoded:
            self.out.append(o)
        elif isinstance(o, dict):
            self.container(o, o.values(), "{}", ((_key(k) + ": ", v) for k, v in o.items()),
                           level)
        elif isinstance(o, (list, tuple)):
            self.container(o, o, "[]", (("", v) for v in o), level)
        else:
            self.out.append(_scalar(o))

    def enter(self, o: Any) -> int:
        """Mark container ``o`` as being written (json's error if it already is)."""
        mark = id(o)
        if mark in self.open:
            _refused(o)
        self.open.add(mark)
        return mark

    def container(self, o: Any, values: Any, brackets: str,
                  items: Iterator[tuple[str, Any]], level: int) -> None:
        """A dict or list: ``items`` are (what precedes the value, the value)."""
        if not o:
            self.out.append(brackets)
            return
        flat = _flat(o, values, self.indent, level)
        if flat is not None:
            self.out.append(flat)
            return
        mark = self.enter(o)
        out, scalars = self.out, _SCALARS
        inner = self.newline(level + 1)
        sep = "," + inner
        out.append(brackets[0] + inner)
        first = True
        for head, v in items:
            if first:
                first = False
                out.append(head)
            else:
                out.append(sep + head)
            write = scalars.get(type(v))
            if write is not None:
                out.append(write(v))
            else:
                self.value(v, level + 1)
        out.append(self.newline(level) + brackets[1])
        self.open.discard(mark)


def dumps(obj: Any, indent: int = 1, level: int = 0) -> str:
    """``json.dumps(obj, ensure_ascii=False, indent=indent)``, the same text.

    ``level``: the text as it reads nested ``level`` containers deep (its inner lines
    indented that much more), to be placed there as an ``Encoded``. ``Encoded`` parts
    of ``obj`` are written as they are.
    """
    if (type(obj) is dict or type(obj) is list) and obj:
        flat = _flat(obj, obj.values() if type(obj) is dict else obj, " " * indent, level)
        if flat is not None:
            return flat
    writer = _Writer(" " * indent)
    writer.value(obj, level)
    return "".join(writer.out)
