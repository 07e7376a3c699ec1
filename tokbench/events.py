"""Progress events: what a long job (a run, a sweep, a bench, a parity check) tells its
caller while it works, one small frozen record per kind.

The library never prints; it hands these to the ``progress`` callback it was given, and the
CLI draws its progress bars from them (``match`` on the class). ``kind`` is each event's
short name ("start", "shard", ...), the same vocabulary the callbacks had before typing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

# -- a run (tokbench.engine.runner; also a sweep's evaluation) -------------------------------


@dataclass(frozen=True)
class _OfTokenizer:
    """An event about one tokenizer (its name, or its spec when it did not load)."""

    tokenizer: str


@dataclass(frozen=True)
class _OfUnit(_OfTokenizer):
    """An event about one (tokenizer, suite) unit."""

    suite: str


@dataclass(frozen=True)
class RunStarted:
    """Tokenizers loaded and suites planned: ``units`` (tokenizer, suite) pairs and the
    text ``bytes`` the shard work will encode."""

    kind: ClassVar[str] = "start"
    units: int
    bytes: int


@dataclass(frozen=True)
class ShardDone:
    """A shard of ``suite`` holding ``bytes`` of text was encoded (a run or a parity check)."""

    kind: ClassVar[str] = "shard"
    suite: str
    bytes: int


@dataclass(frozen=True)
class UnitReached(_OfUnit):
    """The run is at this (tokenizer, suite) unit; ``suite`` may say what part of it
    ("speed: latency · chat")."""

    kind: ClassVar[str] = "unit"


@dataclass(frozen=True)
class Advanced:
    """``steps`` units are finished."""

    kind: ClassVar[str] = "advance"
    steps: int = 1


@dataclass(frozen=True)
class PhaseStarted:
    """A phase of its own begins (``name`` "throughput": timing, after the shard work),
    counted in ``units``."""

    kind: ClassVar[str] = "phase"
    name: str
    units: int


@dataclass(frozen=True)
class TimingStarted(_OfUnit):
    """The throughput of ``tokenizer`` on ``suite`` is being timed."""

    kind: ClassVar[str] = "timing"


@dataclass(frozen=True)
class TimingDone(_OfUnit):
    """The throughput of ``tokenizer`` on ``suite`` was timed."""

    kind: ClassVar[str] = "timed"


@dataclass(frozen=True)
class RunDone:
    """The run finished."""

    kind: ClassVar[str] = "done"


@dataclass(frozen=True)
class TokenizerFailed(_OfTokenizer):
    """``tokenizer`` (its spec) could not be loaded; the rest goes on (a run, a bench, a
    parity check)."""

    kind: ClassVar[str] = "tokenizer_failed"
    error: str


# -- tokbench bench (tokbench.speed.bench) ---------------------------------------------------


@dataclass(frozen=True)
class BenchStarted:
    kind: ClassVar[str] = "start"
    tokenizers: int


@dataclass(frozen=True)
class TokenizerStarted(_OfTokenizer):
    """``tokenizer`` (its spec) is being loaded."""

    kind: ClassVar[str] = "tokenizer"


@dataclass(frozen=True)
class SpeedPart(_OfTokenizer):
    """``part`` of the speed profile of ``tokenizer`` ("latency · chat") is being measured."""

    kind: ClassVar[str] = "part"
    part: str


@dataclass(frozen=True)
class TokenizerDone(_OfTokenizer):
    kind: ClassVar[str] = "done"


# -- tokbench parity / drift (tokbench.parity.run) -------------------------------------------


@dataclass(frozen=True)
class ParityStarted:
    kind: ClassVar[str] = "start"
    shards: int


@dataclass(frozen=True)
class Minimizing(_OfTokenizer):
    """A reproducer of the difference of ``tokenizer`` on document ``doc_id`` is sought."""

    kind: ClassVar[str] = "minimize"
    doc_id: str | int | None


@dataclass(frozen=True)
class SpeedTiming(_OfTokenizer):
    """``tokenizer``'s speed is being measured."""

    kind: ClassVar[str] = "speed"


# -- tokbench sweep (tokbench.training.sweep) ---------------------------------------------------


@dataclass(frozen=True)
class Overlap:
    """``overlapping`` of the ``documents`` of evaluation suite ``suite`` also occur in the
    training corpus."""

    kind: ClassVar[str] = "overlap"
    suite: str
    documents: int
    overlapping: int


@dataclass(frozen=True)
class _OfSize:
    """An event about one vocabulary size of a sweep (its tokenizer is ``name``)."""

    size: int
    name: str


@dataclass(frozen=True)
class SizeStarted(_OfSize):
    """Vocabulary size ``size`` is being trained."""

    kind: ClassVar[str] = "size_start"
    how: str = "trained"


@dataclass(frozen=True)
class SizeDone(_OfSize):
    """Size ``size`` is ready: ``how`` "trained" (in ``seconds``), "derived" or "reused"."""

    kind: ClassVar[str] = "size_done"
    how: str
    seconds: float | None = None


@dataclass(frozen=True)
class SizeFailed(_OfSize):
    kind: ClassVar[str] = "size_failed"
    error: str


Event = (RunStarted | ShardDone | UnitReached | Advanced | PhaseStarted | TimingStarted
         | TimingDone | RunDone | TokenizerFailed | BenchStarted | TokenizerStarted | SpeedPart
         | TokenizerDone | ParityStarted | Minimizing | SpeedTiming | Overlap | SizeStarted
         | SizeDone | SizeFailed)

#: the callback a job reports its progress to
Progress = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The callback of a caller that asked for no progress."""
