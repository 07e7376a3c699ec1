"""A small lazy registry, one per kind (adapters, suites, metrics, tokenizers).

Entries are registered as import strings (``"package.module:attr"``) so nothing
heavy is imported until an entry is used, as objects, or as explicit zero-argument
factories (``register_factory``). Third parties add entries through the entry-point
group ``tokbench.<kind>s``; an entry point that reuses a registered name is an error,
never silently dropped; unknown names raise ``UnknownNameError`` with "did you mean"
suggestions.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from tokbench.errors import TokbenchError, UnknownNameError

T = TypeVar("T")


def import_object(target: str) -> object:
    """Import ``"module:attr"`` (or ``"module"``) and return the object."""
    module_name, _, attr = target.partition(":")
    obj: object = importlib.import_module(module_name)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


class _Factory(Generic[T]):
    """A zero-argument callable registered to make the entry on first use."""

    def __init__(self, make: Callable[[], T]) -> None:
        self.make = make


class Registry(Generic[T]):
    """Name -> object, resolved lazily from import strings, factories or entry points."""

    def __init__(self, kind: str, group: str | None = None,
                 check: Callable[[str, T], None] | None = None) -> None:
        """``check(name, obj)`` validates each entry when it is first resolved (raising
        on a bad one), so a broken plug-in fails when it is registered and used, not
        later with a wrong number."""
        self.kind = kind
        self.group = group
        self.check = check
        self._targets: dict[str, str | _Factory[T] | T] = {}
        self._loaded: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        self._origins: dict[str, str] = {}
        self._entry_points_read = group is None
        self._lock = threading.RLock()

    def register(self, name: str, target: str | T, aliases: tuple[str, ...] = (), *,
                 replace: bool = False) -> None:
        """Add an entry: an import string (``"module:attr"``) or the object itself (a
        function is stored as it is, never called)."""
        self._add(name, target, aliases, replace, "tokbench")

    def register_factory(self, name: str, make: Callable[[], T],
                         aliases: tuple[str, ...] = (), *, replace: bool = False) -> None:
        """Add an entry made by calling ``make()`` the first time it is used."""
        self._add(name, _Factory(make), aliases, replace, "tokbench")

    def _add(self, name: str, target: str | _Factory[T] | T, aliases: tuple[str, ...],
             replace: bool, origin: str) -> None:
        with self._lock:
            if (name in self._targets or name in self._aliases) and not replace:
                raise TokbenchError(f"{self.kind} {name!r} is registered twice (by "
                                    f"{self._origins.get(name, 'tokbench')} and {origin})")
            self._targets[name] = target
            self._origins[name] = origin
            self._loaded.pop(name, None)
            for alias in aliases:
                self._aliases[alias] = name

    def _read_entry_points(self) -> None:
        if self._entry_points_read:
            return
        with self._lock:
            self._entry_points_read = True
            assert self.group is not None
            for ep in entry_points(group=self.group):
                dist = getattr(getattr(ep, "dist", None), "name", None) or ep.value
                if self._origins.get(ep.name) == f"entry point of {dist}":
                    continue  # the same distribution seen twice on sys.path
                self._add(ep.name, ep.value, (), False, f"entry point of {dist}")

    def canonical(self, name: str) -> str:
        """The registered name for ``name`` or one of its aliases; raises if unknown."""
        self._read_entry_points()
        if name in self._targets:
            return name
        if name in self._aliases:
            return self._aliases[name]
        raise UnknownNameError(self.kind, name, list(self._targets) + list(self._aliases))

    def __contains__(self, name: object) -> bool:
        self._read_entry_points()
        return isinstance(name, str) and (name in self._targets or name in self._aliases)

    def get(self, name: str) -> T:
        """Resolve ``name`` to its object, importing or making it on first use."""
        key = self.canonical(name)
        with self._lock:
            if key not in self._loaded:
                target = self._targets[key]
                if isinstance(target, str):
                    obj = import_object(target)
                elif isinstance(target, _Factory):
                    obj = target.make()
                else:
                    obj = target
                if self.check is not None:
                    self.check(key, obj)  # type: ignore[arg-type]
                self._loaded[key] = obj  # type: ignore[assignment]
            return self._loaded[key]

    def names(self) -> list[str]:
        """Registered names (not aliases), in registration order."""
        self._read_entry_points()
        return list(self._targets)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
