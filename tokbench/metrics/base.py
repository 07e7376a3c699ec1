"""What a metric is: its name, direction and meaning (used by reports and compare)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower", "none"]


@dataclass(frozen=True)
class MetricInfo:
    """Metadata of one metric.

    ``direction`` says which way is better; ``deterministic`` is False only for
    timings, whose changes are judged against their measured spread; ``tolerance``
    widens the relative change a noisy timing (a tail latency, a load time) must
    exceed before ``compare`` fails it.
    """

    name: str
    direction: Direction
    description: str
    formula: str = ""
    citation: str = ""
    unit: str = ""
    deterministic: bool = True
    decimals: int = 4
    tolerance: float | None = None  # timings: relative change that fails (None: compare's default)

    @property
    def arrow(self) -> str:
        return {"higher": "↑", "lower": "↓", "none": ""}[self.direction]
