"""The metrics tokbench computes: one registry of definitions (``METRICS``) and families.

Each metric is defined once (``tokbench.metrics.definitions``): name, family,
direction, format, the statistics it needs and its formula. Metrics are computed
together in families (one pass over the encoded corpus feeds many metrics);
``--metrics`` accepts metric names or family names. Third parties add metrics through
the ``tokbench.metrics`` entry-point group: an entry point names a ``MetricInfo`` whose
``compute`` reads the merged statistics; it is computed, rendered and compared like a
built-in one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from tokbench.errors import TokbenchError, UnknownNameError
from tokbench.metrics.base import MetricContext, MetricInfo
from tokbench.metrics.definitions import BUILTIN_METRICS
from tokbench.metrics.speed import SPEED_METRICS
from tokbench.registry import Registry

METRICS: Registry[MetricInfo] = Registry("metric", "tokbench.metrics")
for _info in [*BUILTIN_METRICS, *SPEED_METRICS]:
    METRICS.register(_info.name, _info)


def all_metrics() -> list[MetricInfo]:
    """Every registered metric (built-in and from entry points), checked."""
    out = []
    for name in METRICS.names():
        info = METRICS.get(name)
        if not isinstance(info, MetricInfo):
            raise TokbenchError(f"metric entry point {name!r} gives {type(info).__name__}, "
                                "not a tokbench.metrics.MetricInfo")
        out.append(info)
    return out


class _Families(Mapping[str, tuple[str, ...]]):
    """family -> the metrics it produces, read from the registry on each use."""

    def _map(self) -> dict[str, tuple[str, ...]]:
        fams: dict[str, list[str]] = {}
        for info in all_metrics():
            fams.setdefault(info.family or info.name, []).append(info.name)
        return {k: tuple(v) for k, v in fams.items()}

    def __getitem__(self, key: str) -> tuple[str, ...]:
        return self._map()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._map())

    def __len__(self) -> int:
        return len(self._map())


#: family -> the metrics it produces
FAMILIES: Mapping[str, tuple[str, ...]] = _Families()


def list_metrics() -> list[dict[str, object]]:
    """Every registered metric as plain data, for a program choosing what to compute or show.

    Each item has ``name``, ``family``, ``description``, ``direction`` (``higher``,
    ``lower`` or ``none`` is better), ``unit``, ``formula``, ``citation`` and
    ``deterministic`` (False for timings, which ``compare`` judges against their spread).
    """
    return [{"name": m.name, "family": m.family or m.name, "description": m.description,
             "direction": m.direction, "unit": m.unit, "formula": m.formula,
             "citation": m.citation, "deterministic": m.deterministic}
            for m in all_metrics()]


def metric_info(name: str) -> MetricInfo:
    """Metadata of a metric; unknown metrics (from other tools) get a neutral default."""
    if name in METRICS:
        return METRICS.get(name)
    return MetricInfo(name, "none", name)


def metrics_of(families: Iterable[str]) -> list[MetricInfo]:
    """The metrics of ``families``, in registration order."""
    wanted = set(families)
    return [m for m in all_metrics() if (m.family or m.name) in wanted]


#: families only run when asked for by name (minutes, not seconds; or needing the optional
#: analyzers of the ``morph`` extra): not in the default
OPT_IN_FAMILIES = ("speed", "morph", "morph_sudachi", "morph_gold", "robustness")


def resolve_families(selection: Iterable[str] | None) -> list[str]:
    """Families needed for a selection of metric or family names (None: all but the
    ``OPT_IN_FAMILIES``)."""
    families = dict(FAMILIES)
    if selection is None:
        return [f for f in families if f not in OPT_IN_FAMILIES]
    wanted: list[str] = []
    by_metric = {m: fam for fam, ms in families.items() for m in ms}
    for name in selection:
        name = name.strip()
        if not name:
            continue
        if name in ("all", "*"):
            return list(families)
        fam = name if name in families else by_metric.get(name)
        if fam is None:
            raise UnknownNameError("metric", name, list(families) + list(by_metric))
        if fam not in wanted:
            wanted.append(fam)
    return wanted


__all__ = ["FAMILIES", "METRICS", "OPT_IN_FAMILIES", "MetricContext", "MetricInfo", "all_metrics",
           "metric_info", "metrics_of", "resolve_families"]
