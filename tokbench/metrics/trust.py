"""Which values may be called "best": a token count is only a saving when no text is lost.

A tokenizer that maps most of a language to ``<unk>`` or whose decode does not give the
text back looks cheap on every count of tokens: one ``<unk>`` for a whole Khmer word, a
normalizer that drops what it does not know. This module decides once, from the rows of
a run, which values of the token-counting families (compression, fertility, premium,
numbers) carry such a caveat. Every renderer (terminal, report.md, report.html, plots)
and ``recommend`` reads the same decision: a flagged value is never marked best and is
shown with its symbol.

The rule, on the same (tokenizer, suite, subset):

* **not lossless**: ``roundtrip`` below 100 % (some document does not decode to itself);
* **mostly unknown**: ``unk_chars`` above ``UNK_CHARS_LIMIT`` of the characters;
* **some documents failed**: the tokenizer raised on some documents (a row's
  ``failed_docs``), so its values cover fewer documents than the others'.

Aggregates over a parallel suite's languages (``premium_gini``, ``premium_macro``,
``premium_worst``) carry the caveats of every language they summarize. When a run did not
measure ``roundtrip`` or ``unk_chars``, nothing is flagged for lack of evidence; the
verdict says the check was not made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tokbench.constants import ALL
from tokbench.metrics import metric_info
from tokbench.results import Results, Row

#: a value is flagged when more than this share of its characters is inside unknown tokens
UNK_CHARS_LIMIT = 0.01
#: families whose values count tokens (a lost or unknown character makes them look better)
COST_FAMILIES = frozenset({"compression", "fertility", "premium", "numbers"})
#: aggregates over every language of a parallel suite (subset "all")
LANGUAGE_AGGREGATES = frozenset({"premium_gini", "premium_macro", "premium_worst"})

LOSSY = "†"
UNKNOWN = "‡"
FAILED = "§"
LEGEND = {LOSSY: "not lossless here: round-trip below 100% (never marked best)",
          UNKNOWN: f"over {UNK_CHARS_LIMIT:.0%} of characters inside unknown tokens "
                   "(never marked best)",
          FAILED: "some documents failed to encode and are left out of the value (never "
                  "marked best)"}

Key = tuple[str, str, str]  # (tokenizer, suite, subset)


@dataclass(frozen=True)
class Caveat:
    """What is known about one (tokenizer, suite, subset): its round-trip share and the
    share of characters inside unknown tokens (None: not measured)."""

    roundtrip: float | None = None
    unk_chars: float | None = None
    where: str = ""  # for an aggregate: the worst language (e.g. "khm_Khmr")
    failed: int = 0  # documents the tokenizer raised on, left out of the values

    @property
    def lossy(self) -> bool:
        return self.roundtrip is not None and self.roundtrip < 1.0

    @property
    def unknown(self) -> bool:
        return self.unk_chars is not None and self.unk_chars > UNK_CHARS_LIMIT

    @property
    def flagged(self) -> bool:
        return self.lossy or self.unknown or self.failed > 0

    @property
    def symbols(self) -> str:
        return ((LOSSY if self.lossy else "") + (UNKNOWN if self.unknown else "")
                + (FAILED if self.failed else ""))

    @property
    def reason(self) -> str:
        """``"round-trip 52.02%"``, ``"96.5% of characters unknown"``, or both."""
        parts = []
        if self.lossy:
            parts.append(f"round-trip {100 * (self.roundtrip or 0.0):.2f}%")
        if self.unknown:
            parts.append(f"{100 * (self.unk_chars or 0.0):.1f}% of characters unknown")
        if self.failed:
            parts.append(f"{self.failed:,} document{'s' if self.failed != 1 else ''} failed")
        text = ", ".join(parts)
        return f"{text} on {self.where}" if text and self.where else text


def combine(caveats: Iterable[tuple[str, Caveat]]) -> Caveat:
    """The caveat of an aggregate: the lowest round-trip and the highest unknown share
    over its parts, naming the part that decides it."""
    caveats = list(caveats)
    worst_rt: tuple[float, str] | None = None
    worst_unk: tuple[float, str] | None = None
    for where, c in caveats:
        if c.roundtrip is not None and (worst_rt is None or c.roundtrip < worst_rt[0]):
            worst_rt = (c.roundtrip, where)
        if c.unk_chars is not None and (worst_unk is None or c.unk_chars > worst_unk[0]):
            worst_unk = (c.unk_chars, where)
    where = ""
    if worst_unk is not None and worst_unk[0] > UNK_CHARS_LIMIT:
        where = worst_unk[1]
    elif worst_rt is not None and worst_rt[0] < 1.0:
        where = worst_rt[1]
    return Caveat(None if worst_rt is None else worst_rt[0],
                  None if worst_unk is None else worst_unk[0], where,
                  failed=sum(c.failed for _, c in caveats))


class Trust:
    """The caveats of one run, read from its rows (see the module doc)."""

    def __init__(self, rows: Iterable[Row]) -> None:
        found: dict[Key, dict[str, float]] = {}
        failed: dict[Key, int] = {}
        for r in rows:
            key = (r.tokenizer, r.suite, r.subset)
            if r.metric in ("roundtrip", "unk_chars") and isinstance(r.value, (int, float)):
                found.setdefault(key, {})[r.metric] = float(r.value)
            n = r.extra.get("failed_docs")
            if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                failed[key] = max(failed.get(key, 0), n)
                found.setdefault(key, {})
        self._caveats = {k: Caveat(v.get("roundtrip"), v.get("unk_chars"),
                                   failed=failed.get(k, 0)) for k, v in found.items()}
        self._aggregates: dict[tuple[str, str], Caveat] = {}
        #: metric -> whether it counts tokens (``COST_FAMILIES``), asked once per metric
        self._counted: dict[str, bool] = {}
        by_unit: dict[tuple[str, str], list[tuple[str, Caveat]]] = {}
        for (tok, suite, subset), c in self._caveats.items():
            if subset != ALL:
                by_unit.setdefault((tok, suite), []).append((subset, c))
        for unit, parts in by_unit.items():
            self._aggregates[unit] = combine(sorted(parts))

    @classmethod
    def of(cls, results: Results) -> Trust:
        return cls(results.rows)

    def measured(self, tokenizer: str, suite: str, subset: str = ALL) -> Caveat | None:
        """The round-trip and unknown shares of one subset as measured (None: neither)."""
        return self._caveats.get((tokenizer, suite, subset))

    def caveat(self, tokenizer: str, suite: str, subset: str, metric: str) -> Caveat | None:
        """The caveat of one value, or None when it has none (or the metric counts no
        tokens)."""
        counted = self._counted.get(metric)
        if counted is None:
            counted = self._counted[metric] = \
                (metric_info(metric).family or metric) in COST_FAMILIES
        if not counted:
            return None
        c = self._caveats.get((tokenizer, suite, subset))
        if metric in LANGUAGE_AGGREGATES and subset == ALL:
            agg = self._aggregates.get((tokenizer, suite))
            if agg is not None and agg.flagged:
                c = agg
        return c if c is not None and c.flagged else None

    def flags(self, suite: str, subset: str, metric: str, tokenizers: Iterable[str]
              ) -> dict[str, Caveat]:
        """tokenizer -> caveat, for the flagged ones among ``tokenizers``."""
        out = {}
        for tok in tokenizers:
            c = self.caveat(tok, suite, subset, metric)
            if c is not None:
                out[tok] = c
        return out

    def best(self, values: Mapping[str, Any], suite: str, subset: str, metric: str
             ) -> set[str]:
        """The best of ``values`` (tokenizer -> value) by the metric's direction, among
        the values without a caveat."""
        numbers = {v for v in values.values()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if len(numbers) < 2:  # all equal (English against itself): nobody is better
            return set()
        excluded = self.flags(suite, subset, metric, values)
        return mark_best({k: v for k, v in values.items() if k not in excluded},
                         metric_info(metric).direction, len(values))


def mark_best(values: Mapping[str, Any], direction: str, among: int | None = None) -> set[str]:
    """The keys holding the best number by ``direction``; none when fewer than two values
    compete (``among``: how many competed before any was excluded) or all are equal."""
    nums = {k: v for k, v in values.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if direction not in ("higher", "lower") or max(len(nums), among or 0) < 2 or not nums:
        return set()
    target = max(nums.values()) if direction == "higher" else min(nums.values())
    if len(nums) > 1 and all(v == target for v in nums.values()):
        return set()
    return {k for k, v in nums.items() if v == target}


def legend(symbols: Iterable[str]) -> list[str]:
    """``"† not lossless here ..."`` lines for the symbols that occur, in a fixed order."""
    seen = set("".join(symbols))
    return [f"{s} {text}" for s, text in LEGEND.items() if s in seen]
