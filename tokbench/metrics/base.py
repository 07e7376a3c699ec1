"""What a metric is: its name, direction and meaning (used by reports and compare)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower", "none"]


@dataclass(frozen=True)
class MetricInfo:
    """Metadata of one metric.

    ``direction`` says which way is better; ``deterministic`` is False only for
    timings, whose changes are judged against their measured spread.
    """

    name: str
    direction: Direction
    description: str
    formula: str = ""
    citation: str = ""
    unit: str = ""
    deterministic: bool = True
    decimals: int = 4

    @property
    def arrow(self) -> str:
        return {"higher": "↑", "lower": "↓", "none": ""}[self.direction]
