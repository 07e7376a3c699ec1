"""A tiny greedy longest-match tokenizer over a fixed piece list, for hand-computed metrics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokbench.adapters.base import Tokenizer
from tokbench.record import TokenizerSource


class ToyTokenizer(Tokenizer):
    """Pieces are strings; text not covered by any piece becomes ``<unk>`` (one per char).

    ``lossy`` pieces decode to something other than their text, to make round-trip fail.
    """

    backend = "toy"

    def __init__(self, pieces: Sequence[str], unk: bool = True,
                 lossy: dict[str, str] | None = None, name: str = "toy") -> None:
        super().__init__(name, TokenizerSource("builtin", "tests/_toy.py"))
        self.pieces = list(pieces)
        self._unk = len(self.pieces) if unk else None
        self.index = {p: i for i, p in enumerate(self.pieces)}
        self.lossy = lossy or {}
        self.longest = max(len(p) for p in self.pieces)

    @property
    def vocab_size(self) -> int:
        return len(self.pieces) + (self._unk is not None)

    @property
    def unk_id(self) -> int | None:
        return self._unk

    def encode(self, text: str) -> list[int]:
        ids, i = [], 0
        while i < len(text):
            for n in range(min(self.longest, len(text) - i), 0, -1):
                if text[i:i + n] in self.index:
                    ids.append(self.index[text[i:i + n]])
                    i += n
                    break
            else:
                if self._unk is None:
                    raise ValueError(f"cannot encode {text[i]!r}")
                ids.append(self._unk)
                i += 1
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        return "".join("\ufffd" if t == self._unk
                       else self.lossy.get(self.pieces[t], self.pieces[t]) for t in ids)

    def token_bytes(self, token_id: int) -> bytes:
        return b"" if token_id == self._unk else self.pieces[token_id].encode("utf-8")

    def backend_version(self) -> str:
        return "0"


def metric_values(counts: Any, idx: Any, families: Sequence[str], vocab_size: int,
                  has_unk: bool) -> dict[str, Any]:
    """Metric values over the documents ``idx`` of per-document ``counts``, as a run computes
    them: the counts summed (``subset_sums``), then each metric's formula (``evaluate``)."""
    from tokbench.metrics import metrics_of
    from tokbench.metrics.base import MetricContext
    from tokbench.metrics.compute import evaluate, subset_sums
    from tokbench.metrics.stats import collectors_for

    metrics = metrics_of(families)
    stats = subset_sums(counts, idx, collectors_for(n for m in metrics for n in m.needs))
    values = evaluate(stats, metrics, MetricContext(vocab_size, has_unk))
    return {k: v for k, v in values.items() if v is not None}


def histogram_metric(metric: str, ids: Any, vocab_size: int) -> Any:
    """A histogram metric's formula (``renyi_efficiency_vocab``...) on token ids ``ids``."""
    from tokbench.metrics import metric_info
    from tokbench.metrics.base import MetricContext, SumsView
    from tokbench.metrics.stats import histogram

    compute = metric_info(metric).compute
    assert compute is not None
    return compute(SumsView({}, histogram(ids)), MetricContext(vocab_size, False))
