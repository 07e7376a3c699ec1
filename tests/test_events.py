"""Progress events (tokbench.events): one frozen record per kind, the vocabulary the jobs
report in; a run reports them in order."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from tests._toy import ToyTokenizer
from tokbench import events
from tokbench.engine.runner import run
from tokbench.suites.model import Document, Suite


def test_every_event_is_a_frozen_record_with_its_kind() -> None:
    kinds = {cls.__name__: cls.kind for cls in typing.get_args(events.Event)}
    assert kinds == {
        "RunStarted": "start", "ShardDone": "shard", "UnitReached": "unit",
        "Advanced": "advance", "PhaseStarted": "phase", "TimingStarted": "timing",
        "TimingDone": "timed", "RunDone": "done", "TokenizerFailed": "tokenizer_failed",
        "BenchStarted": "start", "TokenizerStarted": "tokenizer", "SpeedPart": "part",
        "TokenizerDone": "done", "ParityStarted": "start", "Minimizing": "minimize",
        "SpeedTiming": "speed", "Overlap": "overlap", "SizeStarted": "size_start",
        "SizeDone": "size_done", "SizeFailed": "size_failed"}
    done = events.TokenizerDone(tokenizer="gpt2")
    with pytest.raises(dataclasses.FrozenInstanceError):
        done.tokenizer = "x"  # type: ignore[misc]


def test_a_run_reports_start_units_and_done_in_order() -> None:
    seen: list[events.Event] = []
    suite = Suite("s", "1", [Document("d", "eng_Latn", "x", "ab ba")])
    run([ToyTokenizer(["a", "b", " "])], [suite], ["compression"], progress=seen.append)
    assert seen[0] == events.RunStarted(units=1, bytes=5)
    assert events.ShardDone(suite="s", bytes=5) in seen
    name = seen[seen.index(events.Advanced(steps=1)) - 1]
    assert isinstance(name, events.UnitReached) and name.suite == "s"
    assert seen[-1] == events.RunDone()
