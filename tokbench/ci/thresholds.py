"""How large a worse change must be to fail ``compare``: per metric, per family or for all
(``--fail`` specs over the defaults)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from tokbench.errors import InputError, UnknownNameError
from tokbench.metrics import FAMILIES, METRICS, metric_info

#: default relative tolerance of timings: smaller changes are noise on shared machines
DEFAULT_TIMING_THRESHOLD = 0.10


@dataclass(frozen=True)
class Threshold:
    """How large a worse change must be to fail: relative (fraction of the base) or absolute.

    A relative tolerance fails a change of at least ``value`` (0.005 = 0.5%); an absolute
    one fails a change of more than ``value`` (so ``0`` fails any real change).
    """

    value: float
    relative: bool
    spec: str = "default"

    def exceeded(self, base: float, new: float) -> bool:
        delta = abs(new - base)
        if self.relative:
            return True if base == 0 else delta / abs(base) >= self.value
        return delta > self.value

    def describe(self) -> str:
        return f"{self.value * 100:g}%" if self.relative else f"{self.value:g}"


class Thresholds:
    """Tolerance per metric: ``--fail`` specs over the defaults.

    Defaults: deterministic metrics fail on any real change for the worse. Timings (every
    metric that is not deterministic) are judged only when asked for: a spec naming the
    metric or its family (``throughput:15%``; ``all`` does not ask for them), or
    ``timings=True`` (each with its default tolerance: a change of at least 10% outside
    the noise of both runs for throughput).
    """

    def __init__(self, specs: Iterable[str] = (), timings: bool = False) -> None:
        self._by_metric: dict[str, Threshold] = {}
        self._by_family: dict[str, Threshold] = {}
        self._all: Threshold | None = None
        self.timings = timings
        for spec in specs:
            self.add(spec)

    def judges(self, metric: str) -> bool:
        """Whether rows of ``metric`` are judged: deterministic ones always, timings when
        asked for (by name, by family or with ``timings``)."""
        if self.timings or metric in self._by_metric or metric_info(metric).deterministic:
            return True
        return any(metric in members and family in self._by_family
                   for family, members in FAMILIES.items())

    def add(self, spec: str) -> None:
        """Parse ``NAME:VALUE`` (``bytes_per_token:0.5%``, ``roundtrip:0``, ``throughput:10%``).

        NAME is a metric, a metric family (all its metrics) or ``all``; a metric's own
        threshold wins over its family's, which wins over ``all``.
        """
        name, sep, raw = spec.partition(":")
        name, raw = name.strip(), raw.strip()
        if not sep or not name or not raw:
            raise InputError(f"--fail {spec!r}: write METRIC:TOLERANCE, e.g. "
                             "bytes_per_token:0.5% or roundtrip:0")
        relative = raw.endswith("%")
        try:
            value = float(raw[:-1] if relative else raw)
        except ValueError:
            raise InputError(f"--fail {spec!r}: {raw!r} is not a number; write e.g. 0.5% "
                             "(relative) or 0 (absolute)") from None
        if not math.isfinite(value) or value < 0:
            raise InputError(f"--fail {spec!r}: the tolerance must be a number >= 0")
        threshold = Threshold(value / 100 if relative else value, relative, spec.strip())
        if name in ("all", "*"):
            self._all = threshold
        elif name in FAMILIES:
            self._by_family[name] = threshold
        elif name in METRICS:
            self._by_metric[name] = threshold
        else:
            raise UnknownNameError("metric", name, [*METRICS.names(), *FAMILIES, "all"],
                                   hint=f"in --fail {spec!r}")

    def for_metric(self, metric: str) -> Threshold:
        if metric in self._by_metric:
            return self._by_metric[metric]
        for family, members in FAMILIES.items():
            if metric in members and family in self._by_family:
                return self._by_family[family]
        if self._all is not None:
            return self._all
        info = metric_info(metric)
        if not info.deterministic:
            if info.tolerance is not None:  # a noisy timing (tail latency, load time)
                return Threshold(info.tolerance, True, f"{metric} default")
            return Threshold(DEFAULT_TIMING_THRESHOLD, True)
        return Threshold(0.0, False)

    def describe(self) -> dict[str, str]:
        """The thresholds given (``all``, families, metrics) as spec strings."""
        out = {"all": self._all.describe()} if self._all else {}
        out.update({k: v.describe() for k, v in self._by_family.items()})
        out.update({k: v.describe() for k, v in self._by_metric.items()})
        if self.timings:
            out["timings"] = "judged (defaults)"
        return out


def parse_thresholds(specs: Iterable[str] | Thresholds | None, timings: bool = False
                     ) -> Thresholds:
    """``Thresholds`` from ``--fail`` specs (or as given)."""
    if isinstance(specs, Thresholds):
        return specs
    return Thresholds(specs or (), timings=timings)
