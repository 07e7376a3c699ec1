"""How each metric family runs: one object per family, looked up by its name here.

A family whose metrics are all formulas over the shard statistics needs nothing here
(``FormulaFamily`` is the default). One with work of its own (rows of a pseudo-suite,
rows computed from a suite's merged statistics, timings after the shard work) is a
``Family`` subclass registered under the family's name, built in below or by a third
party through the ``tokbench.families`` entry-point group (its metrics, which name the
family, come through ``tokbench.metrics`` as usual). The runner calls every family's
hooks in one order (see ``Family``) and never tests a family's name.
"""

from __future__ import annotations

from collections.abc import Sequence

from tokbench.errors import TokbenchError
from tokbench.families.base import (
    AskedFamily,
    Family,
    FormulaFamily,
    PlanView,
    RunContext,
    RunSettings,
)
from tokbench.metrics import FAMILIES
from tokbench.registry import Registry


def _check(name: str, cls: object) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Family)):
        raise TokbenchError(f"metric family {name!r} (entry point) gives "
                            f"{type(cls).__name__}, not a subclass of "
                            "tokbench.families.Family")


#: family name -> the class running it (made with the name, once per run)
FAMILY_CLASSES: Registry[type[Family]] = Registry("metric family", "tokbench.families",
                                                  check=_check)
for _name, _target in (
        ("premium", "tokbench.families.premium:PremiumFamily"),
        ("throughput", "tokbench.families.throughput:ThroughputFamily"),
        ("numbers", "tokbench.families.base:AskedFamily"),
        ("morph", "tokbench.families.morph:MorphFamily"),
        ("morph_sudachi", "tokbench.families.morph:MorphFamily"),
        ("morph_gold", "tokbench.families.gold:GoldFamily"),
        ("tokenizer", "tokbench.families.vocab:VocabularyFamily"),
        ("speed", "tokbench.families.speed:SpeedFamily")):
    FAMILY_CLASSES.register(_name, _target)


def family(name: str) -> Family:
    """A new object running family ``name`` (a ``FormulaFamily`` unless one is registered)."""
    cls = FAMILY_CLASSES.get(name) if name in FAMILY_CLASSES else FormulaFamily
    return cls(name)


def run_families(chosen: Sequence[str], settings: RunSettings) -> list[Family]:
    """The families whose hooks a run calls, in the metrics' registration order: those
    ``chosen`` and those a setting asks for (``Family.wanted``)."""
    known = set(FAMILIES)
    for name in FAMILY_CLASSES.names():
        if name not in known:
            raise TokbenchError(f"metric family {name!r} is registered but no metric names it: "
                                "register its MetricInfos (family=...) in the tokbench.metrics "
                                "entry-point group")
    return [f for f in (family(n) for n in FAMILIES) if f.wanted(chosen, settings)]


__all__ = ["FAMILY_CLASSES", "AskedFamily", "Family", "FormulaFamily", "PlanView",
           "RunContext", "RunSettings", "family", "run_families"]
