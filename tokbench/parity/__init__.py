"""Which implementation? Id-for-id parity of libraries that encode one vocabulary, their
speed side by side, and drift across library versions.

``tokbench.parity.parity(REF, [IMPL, ...], [SUITE, ...])`` and
``tokbench.parity.drift(SPEC, "pkg==A,pkg==B", [SUITE, ...])`` return ``Results``
(imported lazily: this package is also what worker processes import for a shard).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokbench.parity.drift import drift
    from tokbench.parity.run import parity

__all__ = ["drift", "parity"]

_LAZY = {"parity": "tokbench.parity.run:parity", "drift": "tokbench.parity.drift:drift"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from tokbench.registry import import_object

        return import_object(_LAZY[name])
    raise AttributeError(f"module 'tokbench.parity' has no attribute {name!r}")
