"""The morph families (``morph``, ``morph_sudachi``): formula metrics against a morphological
analyzer's boundaries; a language with no analyzer for the family is said once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tokbench.families.base import FormulaFamily

if TYPE_CHECKING:
    from tokbench.suites.model import RunnableSuite


class MorphFamily(FormulaFamily):
    """Warns about the run's languages its analyzers do not cover."""

    def warnings(self, suites: Sequence[RunnableSuite]) -> list[str]:
        from tokbench.suites.morphemes import scheme_warnings

        langs = sorted({lang for s in suites for lang in s.languages()})
        return scheme_warnings(self.name, langs)
