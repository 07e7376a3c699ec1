"""Timing rows' details as records (tokbench.timing): the keys each producer writes are the
frozen ones of results.json, and each record reads back from a results file unchanged."""

from __future__ import annotations

import json
import math

import pytest

from tokbench.errors import InputError
from tokbench.results import Results, Row, round_value
from tokbench.speed.latency import Latency
from tokbench.speed.length import LengthCurve
from tokbench.speed.rate import Rate
from tokbench.speed.stats import Distribution
from tokbench.speed.threads import NATIVE, ThreadPoint
from tokbench.timing import (
    UNKNOWN,
    BatchDetails,
    LatencyDetails,
    LengthDetails,
    LoadDetails,
    RateDetails,
    ThreadsUsedDetails,
    TimingDetails,
)


def _latency() -> Latency:
    walls = [1e-4 * (1 + i % 7) for i in range(600)]
    cpus = [w * 0.5 for w in walls]
    return Latency(Distribution.of(walls), Distribution.of(cpus), "ci", 12, 80.0)


def _rate() -> Rate:
    return Rate(mb_s=10.0, ci=(9.5, 10.5), samples=(9.6, 10.0, 10.4), wall_mb_s=8.0,
                tokens_s=2.5e6, loops=3, nbytes=4096, outliers=0, stop="ci")


def _reread(cls: type[TimingDetails], details: TimingDetails) -> tuple[Row, TimingDetails]:
    """The row holding ``details`` as results.json writes and reads it back (``extra`` of
    the row read, the record read from it)."""
    row = Row("t", "speed", "all", "encode_mb_s", 1.0, details.to_dict())
    text = Results(rows=[row]).to_json()
    (back,) = Results.from_dict(json.loads(text)).rows
    return back, cls.of(back)


# the keys are results.json's: renaming a field of a record changes them and fails here
LATENCY_KEYS = ["calls", "cdf", "ci", "clock", "cpu_ci", "cpu_share", "cpu_value", "inputs",
                "mean", "outliers", "request_bytes", "request_chars", "stop"]
RATE_KEYS = ["bytes", "ci", "clock", "cpu_share", "loops", "outliers", "precision", "repeats",
             "samples", "stop", "wall_value"]
BATCH_KEYS = ["bytes", "clock", "cpu_clock", "cpu_share", "errors", "ignored", "repeats",
              "samples", "threads_asked", "threads_used"]
SCALING_KEYS = ["ci", "clock", "fit_from_bytes", "largest_mb_s", "points", "skipped_bytes",
                "skipped_why", "stderr", "superlinear", "threshold"]


def test_latency_details_keys_and_round_trip() -> None:
    details = _latency().details("p50", scale=1e6)
    details.request_chars, details.cdf = 75.5, [1.0, 2.0]
    row, back = _reread(LatencyDetails, details)
    assert sorted(row.extra) == LATENCY_KEYS
    assert back.to_dict() == row.extra == round_value(details.to_dict())
    assert row.extra["clock"] == "wall" and row.extra["calls"] == 600
    assert row.extra["cpu_share"] == pytest.approx(0.5)
    assert row.extra["cpu_value"] == pytest.approx(200.0)  # µs: half the 400 µs wall p50
    # a percentile without an interval (max) leaves ci and cpu_ci out
    assert "ci" not in _latency().details("max").to_dict()


def test_rate_details_keys_and_round_trip() -> None:
    details = _rate().details()
    row, back = _reread(RateDetails, details)
    assert sorted(row.extra) == RATE_KEYS
    assert back.to_dict() == row.extra == round_value(details.to_dict())
    assert row.extra["cpu_share"] == 0.8 and row.extra["repeats"] == 3
    assert row.extra["ci"] == [9.5, 10.5] and row.extra["precision"] == pytest.approx(0.05)
    # a run's throughput row keeps the samples' spread and its thread count instead of ci
    details.ci, details.spread, details.threads = None, 0.08, 1
    row, back = _reread(RateDetails, details)
    assert sorted(row.extra) == sorted({*RATE_KEYS, "spread", "threads"} - {"ci"})
    assert back.threads == 1 and back.spread == 0.08


def test_a_rate_over_no_time_writes_null_shares() -> None:
    zero = Rate(mb_s=0.0, ci=(0.0, 0.0), samples=(0.0,), wall_mb_s=0.0, tokens_s=0.0,
                loops=1, nbytes=1, outliers=0, stop="ci").details()
    row, back = _reread(RateDetails, zero)
    assert row.extra["cpu_share"] is None and row.extra["precision"] is None
    assert "cpu_share" in row.extra and back.cpu_share is None


def test_batch_and_threads_used_details() -> None:
    point = ThreadPoint(NATIVE, 2, 1.5, 20.0, (19.0, 21.0), 1000)
    details = point.details()
    details.ignored, details.errors = "asked 2 threads, used 1.00", ["worker died"]
    row, back = _reread(BatchDetails, details)
    assert sorted(row.extra) == BATCH_KEYS
    assert back == details and row.extra["cpu_share"] == 0.75  # nothing to round
    assert row.extra["cpu_clock"] == "process_cpu"
    used = ThreadsUsedDetails(threads_asked=2, clock="process_cpu / wall")
    row, back = _reread(ThreadsUsedDetails, used)
    assert row.extra == {"clock": "process_cpu / wall", "threads_asked": 2}


def test_length_details_keys_and_unknown_rate() -> None:
    sc = LengthCurve("ordinary", [(1024, 1e-5), (4096, 4e-5), (16384, 1.6e-4)], [65536], "cap")
    row, back = _reread(LengthDetails, sc.details())
    assert sorted(row.extra) == SCALING_KEYS
    assert back.to_dict() == row.extra
    assert back.points == [[1024, 1e-5], [4096, 4e-5], [16384, 1.6e-4]]
    assert back.skipped_bytes == [65536] and back.skipped_why == "cap"
    assert row.extra["largest_mb_s"] == pytest.approx(16384 / 1e6 / 1.6e-4)
    # a last size timed at 0 s has no rate: written as null, as before
    row, back = _reread(LengthDetails, LengthCurve("digits", [(1024, 0.0)]).details())
    assert row.extra["largest_mb_s"] is None and back.largest_mb_s is None
    bare = LengthCurve("digits").details().to_dict()
    assert sorted(bare) == ["clock", "fit_from_bytes", "points", "superlinear", "threshold"]


def test_load_details_write_only_their_kind() -> None:
    assert LoadDetails(clock="wall", cpu_value=0.1, cpu_share=UNKNOWN).to_dict().keys() \
        == {"clock", "process", "cpu_value", "cpu_share"}
    row, back = _reread(LoadDetails, LoadDetails(peak_rss_mb=UNKNOWN))
    assert row.extra == {"peak_rss_mb": None, "process": "fresh"}
    assert back.peak_rss_mb is None and back.clock is None
    assert math.isnan(UNKNOWN)


def test_details_keep_unknown_keys_and_name_a_wrongly_typed_one() -> None:
    row = Row("t", "speed", "chat", "encode_p50_us", 1.0,
              {"clock": "wall", "calls": 3, "future_key": [1]})
    details = LatencyDetails.of(row)
    assert details.calls == 3 and details.extra == {"future_key": [1]}
    assert details.to_dict() == row.extra
    bad = Row("t", "speed", "chat", "encode_p50_us", 1.0, {"calls": "many"})
    with pytest.raises(InputError, match=r"t/speed/chat/encode_p50_us\.calls must be an "
                                         r"integer, got a string"):
        LatencyDetails.of(bad)


def test_on_cpu_clock() -> None:
    assert TimingDetails(clock="thread_cpu").on_cpu_clock
    assert TimingDetails(clock="process_cpu").on_cpu_clock
    assert not TimingDetails(clock="wall").on_cpu_clock
    assert not TimingDetails().on_cpu_clock
