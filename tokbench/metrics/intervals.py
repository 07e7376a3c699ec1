"""How sure a corpus number is: confidence intervals from mergeable moments.

Every corpus metric is a ratio of sums, R = Σa / Σb. The documents of a suite are
treated as a sample of *units* from the text the suite stands for: a document; the
translations of one text in a parallel suite (they vary together, so they are one
unit); or, when a streamed corpus is read as a sample, a block of it (a cluster of
documents). Per stratum ``h`` each unit ``i`` gives a vector ``z_i`` of its sums of
every variable (a statistic of one tokenizer: ``tokens`` of ``cl100k_base``,
``chars``...). The moments ``n_h``, ``Σ z`` and ``Σ z zᵀ`` merge by addition, like the
other statistics, so intervals need no second pass over the text.

An estimate θ = g(T) of the totals ``T = Σ_h (1 / f_h) Σ_{i∈h} z_i`` (a ratio, or the
ratio of two tokenizers' ratios) gets the linearization (delta-method) variance of a
stratified cluster sample (Cochran 1977, *Sampling Techniques*, 3rd ed., eq. 6.9 for
the ratio estimator, §6.11 for strata; Wolter 2007, *Introduction to Variance
Estimation*, ch. 6)::

    v(θ) = Σ_h n_h (1 − f_h) / f_h² · ∇gᵀ S_h ∇g,   S_h = (Σ z zᵀ − Σz Σzᵀ / n_h) / (n_h − 1)

For R = A / B, ∇g = (1/B, −R/B) and this is Cochran's v(R) = (1 − f) s_d² / (n b̄²) with
d_i = a_i − R b_i (with N_h = n_h / f_h this is Cochran's N_h² (1 − f_h) / n_h). A
suite read whole has weight 1 and no finite-population correction (its documents stand
for an unlimited population); a sample has f_h = n_h / N_h, N_h the units of the
stratum. Where each stratum's total size in bytes is known (blocks of a file), totals are
estimated per stratum as size_h · Σz / Σsize (Cochran's separate ratio estimate, §6.10):
the residuals are then taken against each unit's bytes, so blocks of unequal length add
no spread. The interval is θ ± t·√v with t the Student quantile
(``scipy.special.stdtrit``, remembered on disk) at Σ n_h − H degrees of freedom. Strata
with fewer than two sampled units are pooled into one (collapsed strata, Cochran §5A.12).
"""

from __future__ import annotations

import base64
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: fewer units than this: no interval (the normal approximation is not to be trusted)
MIN_UNITS = 10
DEFAULT_LEVEL = 0.95
#: separates tokenizer and statistic in a variable name
SEP = "\t"
#: the variable holding a unit's size in bytes (blocks of a sampled corpus)
SIZE = "\tsize"
#: above this an int64 sum could overflow; such sums are kept as Python integers
_SAFE = 2 ** 62


def var_name(tokenizer: str, stat: str) -> str:
    return f"{tokenizer}{SEP}{stat}"


@dataclass
class StratumMoments:
    """Units ``n`` of one stratum, the sums ``s`` (K) and cross products ``g`` (K×K)."""

    n: int
    s: np.ndarray
    g: np.ndarray

    def add(self, other: StratumMoments) -> None:
        self.n += other.n
        self.s = _add(self.s, other.s)
        self.g = _add(self.g, other.g)


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact integer addition (int64, or Python integers where int64 could overflow)."""
    if a.dtype == object or b.dtype == object or max(_peak(a), _peak(b)) >= _SAFE // 2:
        return np.asarray(a.astype(object) + b.astype(object))
    return np.asarray(a + b)


def _peak(a: np.ndarray) -> int:
    return int(np.abs(a).max()) if a.size else 0


@dataclass
class Moments:
    """The moments of one (suite, subset): variable ``names`` and, per stratum, the
    units, sums and cross products. Merging is addition; names are aligned first."""

    names: tuple[str, ...] = ()
    strata: dict[str, StratumMoments] = field(default_factory=dict)

    @classmethod
    def of_units(cls, names: Sequence[str], units: np.ndarray, strata: Sequence[str]
                 ) -> Moments:
        """Moments of ``units`` (one row of K sums per unit) in ``strata`` (one per row)."""
        out = cls(tuple(names))
        kinds = list(dict.fromkeys(strata))
        keys = np.asarray(strata, dtype=object) if len(kinds) > 1 else None
        for h in kinds:
            rows = units[keys == h] if keys is not None else units
            out.strata[str(h)] = StratumMoments(int(rows.shape[0]), rows.sum(axis=0),
                                                _gram(rows))
        return out

    def merge(self, other: Moments) -> Moments:
        """Add ``other`` into this one (in place) and return it."""
        if other.names != self.names:
            names = tuple(dict.fromkeys((*self.names, *other.names)))
            self._reindex(names)
            other = other.reindexed(names)
        for h, sm in other.strata.items():
            mine = self.strata.get(h)
            if mine is None:
                self.strata[h] = StratumMoments(sm.n, sm.s.copy(), sm.g.copy())
            else:
                mine.add(sm)
        return self

    def reindexed(self, names: tuple[str, ...]) -> Moments:
        out = Moments(self.names, {h: StratumMoments(s.n, s.s, s.g)
                                   for h, s in self.strata.items()})
        out._reindex(names)
        return out

    def _reindex(self, names: tuple[str, ...]) -> None:
        if names == self.names:
            return
        pos = [names.index(x) for x in self.names]
        for sm in self.strata.values():
            s = np.zeros(len(names), dtype=sm.s.dtype)
            g = np.zeros((len(names), len(names)), dtype=sm.g.dtype)
            s[pos] = sm.s
            g[np.ix_(pos, pos)] = sm.g
            sm.s, sm.g = s, g
        self.names = names

    @property
    def units(self) -> int:
        return sum(s.n for s in self.strata.values())

    def to_dict(self) -> dict[str, Any]:
        return {"names": list(self.names),
                "strata": {h: {"n": s.n, "s": _pack(s.s), "g": _pack(s.g)}
                           for h, s in sorted(self.strata.items())}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Moments:
        names = tuple(str(x) for x in d["names"])
        k = len(names)
        return cls(names, {str(h): StratumMoments(int(v["n"]), _unpack(v["s"], (k,)),
                                                  _unpack(v["g"], (k, k)))
                           for h, v in d["strata"].items()})


#: multiply-adds of one matrix product that OpenBLAS runs on one thread (measured: products
#: of up to 4 × 65536 take the single-thread time whatever the machine's load)
_BLAS_ONE_THREAD = 4 * 65536


def _gram(rows: np.ndarray) -> np.ndarray:
    """Σ z zᵀ over ``rows``, exact: through BLAS while every product is below 2**53."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == 0:
        return np.zeros((rows.shape[1], rows.shape[1]), dtype=np.int64)
    total = rows.sum(axis=0)
    if _peak(total) < 2 ** 26:  # every partial sum of products < 2**52: exact in float64
        f = rows.astype(np.float64)
        k = f.shape[1]
        # in blocks of rows small enough that the BLAS keeps each product on this thread
        # (OpenBLAS, numpy's, spreads a larger one over every core: on a busy machine
        # that costs 10-25 times the CPU of these small products); exact in any order
        step = max(1, _BLAS_ONE_THREAD // max(k * k, 1))
        out = np.zeros((k, k))
        for i in range(0, f.shape[0], step):
            block = f[i:i + step]
            out += block.T @ block
        return np.rint(out).astype(np.int64)
    if _peak(total) < 2 ** 31:
        return np.asarray(rows.T @ rows)
    obj = rows.astype(object)
    return np.asarray(obj.T.dot(obj))


def _pack(a: np.ndarray) -> str | list[int]:
    if a.dtype == object:
        return [int(x) for x in a.ravel()]
    return base64.b64encode(np.ascontiguousarray(a, dtype="<i8").tobytes()).decode("ascii")


def _unpack(v: str | list[int], shape: tuple[int, ...]) -> np.ndarray:
    if isinstance(v, list):
        return np.asarray([int(x) for x in v], dtype=object).reshape(shape)
    return np.frombuffer(base64.b64decode(v), dtype="<i8").astype(np.int64).reshape(shape)


def unit_rows(columns: np.ndarray, unit_of_doc: np.ndarray | None) -> np.ndarray:
    """Sum per-document ``columns`` (docs × K) into per-unit rows (``unit_of_doc``: a
    unit code per document; None: every document is its own unit)."""
    if unit_of_doc is None or columns.shape[0] == 0:
        return columns
    _, inverse = np.unique(unit_of_doc, return_inverse=True)
    if inverse.max() + 1 == columns.shape[0]:  # one document a unit: the moments are the
        return columns  # same in any order of rows (sums of integers)
    out = np.zeros((int(inverse.max()) + 1, columns.shape[1]), dtype=np.int64)
    np.add.at(out, inverse, columns)
    return out


# -- estimates --------------------------------------------------------------------------


@dataclass(frozen=True)
class Design:
    """How the units were drawn: for a sample, the ``fraction`` f_h of each stratum's
    units that was read (None: the suite was read whole); ``method`` names the unit."""

    fraction: Mapping[str, float] | None = None
    method: str = "documents"
    #: known total of the ``SIZE`` variable (bytes) of each stratum: totals are then
    #: estimated per stratum as size_h · Σz / Σsize (a separate ratio-to-size estimate)
    size: Mapping[str, float] | None = None

    @property
    def sampled(self) -> bool:
        return self.fraction is not None

    @property
    def stratified(self) -> bool:
        """Strata read in different shares: estimates weigh each stratum by 1 / f_h."""
        return self.fraction is not None and len(set(self.fraction.values())) > 1

    def f(self, stratum: str) -> float | None:
        """f_h of ``stratum`` (None: read whole)."""
        if self.fraction is None:
            return None
        return self.fraction.get(stratum, self.fraction.get("", 1.0))


@dataclass(frozen=True)
class Interval:
    """An estimate with its interval; ``low``/``high`` None when there are too few units."""

    value: float
    low: float | None
    high: float | None
    units: int
    level: float
    se: float | None = None

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2

    @property
    def relative_half_width(self) -> float | None:
        """Half-width over |value| (the definition ``--precision`` uses)."""
        hw = self.half_width
        return None if hw is None or not self.value else hw / abs(self.value)


Group = tuple[int, float | None, float | None, np.ndarray, np.ndarray]


class Estimator:
    """Estimates and intervals on one (suite, subset)'s moments under ``design``.

    What every estimate shares is worked out once: the strata pooled (``_collapse``),
    their weighted sums, and their centred cross products scaled to covariances (exact
    integers, then floats: no cancellation). An estimate then only picks its variables,
    so the many rows of a subset cost little more than one. The arithmetic per element
    is that of computing each estimate alone."""

    def __init__(self, m: Moments, design: Design) -> None:
        self.m = m
        self.design = design
        self.pos = {name: i for i, name in enumerate(m.names)}
        self._weighted: list[np.ndarray] | None = None
        self._groups: list[tuple[Group, np.ndarray | None]] | None = None

    def has(self, variables: Sequence[str]) -> bool:
        return all(v in self.pos for v in variables)

    def totals(self, variables: Sequence[str]) -> np.ndarray:
        """Estimated totals of ``variables``: expanded by 1 / f_h in a sample, or by
        size_h / Σsize where the strata's sizes are known."""
        if self._weighted is None:
            self._weighted = [
                _weight(self.design, h, sm, self.m) * _as_float(sm.s)
                for h, sm in self.m.strata.items()]
        idx = [self.pos[v] for v in variables]
        out = np.zeros(len(idx))
        for w in self._weighted:
            out += w[idx]
        return out

    def _covariances(self) -> list[tuple[Group, np.ndarray | None]]:
        """Each pooled stratum with the covariance of all variables (None: < 2 units)."""
        if self._groups is None:
            self._groups = [(grp, _covariance(grp[0], grp[3], grp[4]) if grp[0] >= 2 else None)
                            for grp in _collapse(self.m, self.design)]
        return self._groups

    def variance(self, grad: Mapping[str, float]) -> tuple[float, int, int]:
        """v(θ) for the gradient ``grad`` (variable -> ∂g/∂T at the estimate); also the
        units and the degrees of freedom (Σ n_h − strata used)."""
        names = list(grad)
        aux = self.design.size is not None and SIZE in self.pos
        idx = [self.pos[v] for v in names] + ([self.pos[SIZE]] if aux else [])
        gvec = np.asarray([grad[v] for v in names], dtype=np.float64)
        var = 0.0
        units = 0
        used = 0
        for (n, f, size, s, _), cov_all in self._covariances():
            units += n
            if cov_all is None:
                continue
            used += 1
            cov = cov_all.take(idx, axis=0).take(idx, axis=1)
            if aux:
                # ratio-to-size: unit i contributes w (z_i - r_h size_i), w = size_h / Σ size
                ss = [int(s[i]) for i in idx]
                span = float(ss[-1])
                w = (size or 0.0) / span if span else 0.0
                r = np.asarray(ss[:-1], dtype=np.float64) / span if span else 0 * gvec
                coef = np.append(w * gvec, -w * float(gvec @ r))
            else:
                coef = gvec / f if f else gvec
            q = float(coef @ cov @ coef)
            if f is None:
                var += n * q
            elif f > 0:
                var += n * (1 - min(f, 1.0)) * q
        return max(var, 0.0), units, units - used

    def ratio(self, num: Sequence[str], den: Sequence[str], level: float = DEFAULT_LEVEL
              ) -> Interval | None:
        """Σ num / Σ den (each a list of variables, summed) with its interval; None when
        the denominator is 0 or a variable is missing."""
        if not self.has((*num, *den)):
            return None
        tot = dict(zip([*num, *den], self.totals([*num, *den]), strict=True))
        a = float(sum(tot[v] for v in dict.fromkeys(num)))
        b = float(sum(tot[v] for v in dict.fromkeys(den)))
        if not b:
            return None
        r = a / b
        grad: dict[str, float] = {}
        for v in num:
            grad[v] = grad.get(v, 0.0) + 1 / b
        for v in den:
            grad[v] = grad.get(v, 0.0) - r / b
        return self._interval(grad, r, level, log=False)

    def paired(self, num_a: Sequence[str], den_a: Sequence[str], num_b: Sequence[str],
               den_b: Sequence[str], level: float = DEFAULT_LEVEL) -> Interval | None:
        """(Σ num_a / Σ den_a) / (Σ num_b / Σ den_b) on the same units with its interval
        (on the log scale, so the interval of a ratio stays positive)."""
        variables = list(dict.fromkeys((*num_a, *den_a, *num_b, *den_b)))
        if not self.has(variables):
            return None
        tot = dict(zip(variables, self.totals(variables), strict=True))
        parts = [float(sum(tot[v] for v in dict.fromkeys(vs)))
                 for vs in (num_a, den_a, num_b, den_b)]
        if not all(parts):
            return None
        value = (parts[0] / parts[1]) / (parts[2] / parts[3])
        grad: dict[str, float] = {}
        for vs, total, sign in zip((num_a, den_a, num_b, den_b), parts, (1, -1, -1, 1),
                                   strict=True):
            for v in dict.fromkeys(vs):
                grad[v] = grad.get(v, 0.0) + sign / total
        return self._interval(grad, value, level, log=True)

    def _interval(self, grad: Mapping[str, float], value: float, level: float, log: bool
                  ) -> Interval:
        var, units, df = self.variance(grad)
        if units < MIN_UNITS or df < 1:
            return Interval(float(value), None, None, units, level)
        value = float(value)
        se = math.sqrt(var)
        half = t_quantile(level, df) * se
        if log:
            return Interval(value, value * math.exp(-half), value * math.exp(half), units,
                            level, se * value)
        return Interval(value, value - half, value + half, units, level, se)


def _as_float(a: np.ndarray) -> np.ndarray:
    """Integer sums as float64, each rounded to nearest as ``float(int)`` does."""
    if a.dtype == object:
        return np.asarray([float(x) for x in a.ravel()], dtype=np.float64).reshape(a.shape)
    return a.astype(np.float64)


def _covariance(n: int, s: np.ndarray, g: np.ndarray) -> np.ndarray:
    """(n Σzzᵀ − Σz Σzᵀ) / (n (n − 1)): the centred cross products exactly in integers
    (int64 where no product can overflow, else Python integers), then scaled."""
    if s.dtype != object and g.dtype != object and _peak(s) < 2 ** 31 \
            and _peak(g) < _SAFE // max(n, 1):
        numer = g * n - np.outer(s, s)
    else:
        so = s.astype(object)
        numer = g.astype(object) * n - np.outer(so, so)
    return _as_float(numer) / (n * (n - 1))


def _weight(design: Design, h: str, sm: StratumMoments, m: Moments) -> float:
    if design.size is not None and SIZE in m.names:
        span = float(sm.s[m.names.index(SIZE)])
        return design.size.get(h, 0.0) / span if span else 0.0
    f = design.f(h)
    return 1.0 if f is None or f <= 0 else 1.0 / f


def totals(m: Moments, variables: Sequence[str], design: Design) -> np.ndarray:
    """Estimated totals of ``variables`` (see ``Estimator.totals``)."""
    return Estimator(m, design).totals(variables)


def linearized_variance(m: Moments, grad: Mapping[str, float], design: Design
                        ) -> tuple[float, int, int]:
    """v(θ), the units and the degrees of freedom (see ``Estimator.variance``)."""
    return Estimator(m, design).variance(grad)


def _collapse(m: Moments, design: Design) -> list[Group]:
    """(n, f or None, known size or None, Σz, Σzzᵀ) per stratum; strata with < 2 units
    pooled into one (its f: the pooled units over the pooled population)."""
    out: list[Group] = []
    pool: list[Group] = []
    sizes = design.size or {}
    for h, sm in sorted(m.strata.items()):
        (pool if sm.n < 2 else out).append((sm.n, design.f(h), sizes.get(h), sm.s, sm.g))
    if pool:
        n = sum(p[0] for p in pool)
        big = None if design.fraction is None else n / sum(p[0] / (p[1] or 1.0) for p in pool)
        size = None if design.size is None else sum(p[2] or 0.0 for p in pool)
        s, g = pool[0][3], pool[0][4]
        for p in pool[1:]:
            s, g = _add(s, p[3]), _add(g, p[4])
        out.append((n, big, size, s, g))
    return out


@functools.lru_cache(maxsize=4096)
def t_quantile(level: float, df: int) -> float:
    """The two-sided Student t quantile: ``scipy.special.stdtrit``, the inverse of the t
    distribution function (what ``scipy.stats.t.ppf`` calls), without the import of
    scipy.stats (about 0.7 s more), remembered on disk (``tokbench.metrics.quantiles``)."""
    from tokbench.metrics.quantiles import stdtrit

    return stdtrit(df, 0.5 + level / 2)


def ratio_interval(m: Moments, num: Sequence[str], den: Sequence[str], design: Design,
                   level: float = DEFAULT_LEVEL) -> Interval | None:
    """Σ num / Σ den with its interval (see ``Estimator.ratio``; build one ``Estimator``
    for many estimates on the same moments)."""
    return Estimator(m, design).ratio(num, den, level)


def paired_interval(m: Moments, num_a: Sequence[str], den_a: Sequence[str],
                    num_b: Sequence[str], den_b: Sequence[str], design: Design,
                    level: float = DEFAULT_LEVEL) -> Interval | None:
    """(Σ num_a / Σ den_a) / (Σ num_b / Σ den_b) with its interval (see
    ``Estimator.paired``)."""
    return Estimator(m, design).paired(num_a, den_a, num_b, den_b, level)
