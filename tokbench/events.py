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
class UnitReached:
    """The run is at this (tokenizer, suite) unit; ``suite`` may say what part of it
    ("speed: latency · chat")."""

    kind: ClassVar[str] = "unit"
    tokenizer: str
    suite: str


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
class TimingStarted:
    """The throughput of ``tokenizer`` on ``suite`` is being timed."""

    kind: ClassVar[str] = "timing"
    tokenizer: str
    suite: str


@dataclass(frozen=True)
class TimingDone:
    """The throughput of ``tokenizer`` on ``suite`` was timed."""

    kind: ClassVar[str] = "timed"
    tokenizer: str
    suite: str


@dataclass(frozen=True)
class RunDone:
    """The run finished."""

    kind: ClassVar[str] = "done"


@dataclass(frozen=True)
class TokenizerFailed:
    """``tokenizer`` (its spec) could not be loaded; the rest goes on (a run, a bench, a
    parity check)."""

    kind: ClassVar[str] = "tokenizer_failed"
    tokenizer: str
    error: str


# -- tokbench bench (tokbench.speed.bench) ---------------------------------------------------


@dataclass(frozen=True)
class BenchStarted:
    kind: ClassVar[str] = "start"
    tokenizers: int


@dataclass(frozen=True)
class TokenizerStarted:
    """``tokenizer`` (its spec) is being loaded."""

    kind: ClassVar[str] = "tokenizer"
    tokenizer: str


@dataclass(frozen=True)
class SpeedPart:
    """``part`` of the speed profile of ``tokenizer`` ("latency · chat") is being measured."""

    kind: ClassVar[str] = "part"
    tokenizer: str
    part: str


@dataclass(frozen=True)
class TokenizerDone:
    kind: ClassVar[str] = "done"
    tokenizer: str


# -- tokbench parity / drift (tokbench.parity.run) -------------------------------------------


@dataclass(frozen=True)
class ParityStarted:
    kind: ClassVar[str] = "start"
    shards: int


@dataclass(frozen=True)
class Minimizing:
    """A reproducer of the difference of ``tokenizer`` on document ``doc_id`` is sought."""

    kind: ClassVar[str] = "minimize"
    tokenizer: str
    doc_id: str | int | None


@dataclass(frozen=True)
class SpeedTiming:
    """``tokenizer``'s speed is being measured."""

    kind: ClassVar[str] = "speed"
    tokenizer: str


# -- tokbench sweep (tokbench.vocab.sweep) ---------------------------------------------------


@dataclass(frozen=True)
class Overlap:
    """``overlapping`` of the ``documents`` of evaluation suite ``suite`` also occur in the
    training corpus."""

    kind: ClassVar[str] = "overlap"
    suite: str
    documents: int
    overlapping: int


@dataclass(frozen=True)
class SizeStarted:
    """Vocabulary size ``size`` (tokenizer ``name``) is being trained."""

    kind: ClassVar[str] = "size_start"
    size: int
    name: str
    how: str = "trained"


@dataclass(frozen=True)
class SizeDone:
    """Size ``size`` is ready: ``how`` "trained" (in ``seconds``), "derived" or "reused"."""

    kind: ClassVar[str] = "size_done"
    size: int
    name: str
    how: str
    seconds: float | None = None


@dataclass(frozen=True)
class SizeFailed:
    kind: ClassVar[str] = "size_failed"
    size: int
    name: str
    error: str


Event = (RunStarted | ShardDone | UnitReached | Advanced | PhaseStarted | TimingStarted
         | TimingDone | RunDone | TokenizerFailed | BenchStarted | TokenizerStarted | SpeedPart
         | TokenizerDone | ParityStarted | Minimizing | SpeedTiming | Overlap | SizeStarted
         | SizeDone | SizeFailed)

#: the callback a job reports its progress to
Progress = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The callback of a caller that asked for no progress."""
