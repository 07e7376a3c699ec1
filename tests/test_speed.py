"""The speed family: statistics, measurement loops (injected clocks), rows, compare, render."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from tokbench.adapters.base import Tokenizer
from tokbench.ci.compare import BETTER, NOT_JUDGED, NOT_SIGNIFICANT, WORSE, compare
from tokbench.metrics import FAMILIES, METRICS, resolve_families
from tokbench.record import RunMeta, TokenizerInfo, TokenizerSource
from tokbench.results import Results, Row
from tokbench.speed.clock import Clocks
from tokbench.speed.latency import LatencyBudget, measure_latency
from tokbench.speed.length import LengthBudget, measure_length_curves
from tokbench.speed.rate import RateBudget, measure_rate
from tokbench.speed.rows import SpeedSettings, speed_rows
from tokbench.speed.stats import (
    Distribution,
    fit_loglog,
    iqr_outliers,
    median_ci,
    quantile,
    quantile_ci,
)
from tokbench.speed.threads import NATIVE, PROCESS, ThreadPoint, chunks, ignored
from tokbench.speed.workload import REQUEST_SIZES, draw_requests, fit_bytes, minify, nbytes


class FakeClocks:
    """A wall and a CPU clock that only move when told: work moves both, sleep only wall."""

    def __init__(self) -> None:
        self.wall_t = 0.0
        self.cpu_t = 0.0

    def work(self, seconds: float) -> None:
        self.wall_t += seconds
        self.cpu_t += seconds

    def sleep(self, seconds: float) -> None:
        self.wall_t += seconds

    def clocks(self) -> Clocks:
        return Clocks(wall=lambda: self.wall_t, cpu=lambda: self.cpu_t)


class FakeTokenizer(Tokenizer):
    """One id per character; each encode costs ``per_char`` seconds of work on the fake
    clocks; every ``slow_every``-th call also sleeps ``sleep`` seconds."""

    backend = "fake"

    def __init__(self, clk: FakeClocks, per_char: float = 1e-7, slow_every: int = 0,
                 sleep: float = 0.0, power: float = 1.0) -> None:
        super().__init__("fake", TokenizerSource("builtin", "tests/test_speed.py"))
        self.clk, self.per_char, self.slow_every, self.sleep = clk, per_char, slow_every, sleep
        self.power = power
        self.calls = 0

    @property
    def vocab_size(self) -> int:
        return 0x110000

    def encode(self, text: str) -> list[int]:
        self.calls += 1
        self.clk.work(self.per_char * len(text) ** self.power)
        if self.slow_every and self.calls % self.slow_every == 0:
            self.clk.sleep(self.sleep)
        return [ord(c) for c in text]

    def decode(self, ids: Sequence[int]) -> str:
        self.clk.work(1e-8 * len(ids))
        return "".join(map(chr, ids))

    def token_bytes(self, token_id: int) -> bytes:
        return chr(token_id).encode("utf-8")

    def backend_version(self) -> str:
        return "0"


# -- statistics -------------------------------------------------------------------------------

def test_quantile_interpolates_between_order_statistics() -> None:
    xs = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert quantile(xs, 0.5) == 3.0
    assert quantile(xs, 0.9) == pytest.approx(4.6)  # (5-1)*0.9 = 3.6 -> 4 + 0.6
    assert quantile(xs, 1.0) == 5.0


def test_order_statistic_interval_of_p99() -> None:
    xs = [float(i) for i in range(1, 1001)]
    # n q = 990, z sqrt(n q (1-q)) = 1.96 * 3.146 = 6.17 -> ranks 983 and ceil(996.17) + 1 = 998
    assert quantile_ci(xs, 0.99) == (983.0, 998.0)
    # too few calls above p99 to bound it
    assert quantile_ci(xs[:100], 0.99) == (97.0, None)
    # the median of 100: 50 -/+ 9.8 -> ranks 40 and 61
    assert quantile_ci(xs[:100], 0.5) == (40.0, 61.0)


def test_median_interval_is_the_bootstrap_range_of_few_samples() -> None:
    # two samples: a resample's median is 1, 2 or 3 with chances 1/4, 1/2, 1/4, so the
    # 2.5% and 97.5% points of 1000 resamples are the ends; three samples: 1 and 3 each
    # with chance 7/27
    assert median_ci([3.0, 1.0]) == (1.0, 3.0)
    assert median_ci([2.0, 3.0, 1.0]) == (1.0, 3.0)
    assert median_ci([5.0, 5.0, 5.0]) == (5.0, 5.0)
    assert median_ci([4.0]) == (4.0, 4.0)
    wide = [10.0, 10.1, 9.9, 10.05, 9.95, 10.02, 9.98, 10.2, 9.8]
    assert median_ci(wide) == median_ci(list(reversed(wide)))  # seeded, order-free
    lo, hi = median_ci(wide)
    assert 9.8 <= lo < 10.0 < hi <= 10.2


def test_fit_loglog_recovers_the_exponent() -> None:
    slope, err = fit_loglog([(x, 3e-9 * x ** 1.5) for x in (1e3, 1e4, 1e5, 1e6)]) or (0, 0)
    assert slope == pytest.approx(1.5)
    assert err == pytest.approx(0.0, abs=1e-9)
    assert fit_loglog([(1e3, 1.0)]) is None


def test_outliers_are_counted_by_tukeys_fences() -> None:
    assert iqr_outliers([10.0, 10.0, 11.0, 11.0, 12.0, 12.0, 100.0]) == 1
    assert iqr_outliers([1.0, 2.0, 3.0]) == 0


# -- latency ----------------------------------------------------------------------------------

def test_slowed_adapter_shows_in_p99_not_in_p50() -> None:
    """Every 100th call sleeps 5 ms; the rest take 10 µs of work."""
    clk = FakeClocks()
    tok = FakeTokenizer(clk, per_char=1e-6, slow_every=100, sleep=5e-3)
    texts = ["x" * 10] * 10  # 10 µs each
    budget = LatencyBudget(budget_s=1e9, min_calls=100, max_calls=1000, target_rel_ci=0.0,
                           warmup_passes=1)
    lat = measure_latency(tok.encode, texts, 10.0, budget, clk.clocks())
    assert lat.wall.n == 1000 and lat.stop == "max_calls"
    assert tok.calls == 1010  # 10 warm-up calls, then 1000 timed: calls 100, 200, ... 1000 sleep
    assert lat.wall.values["p50"] == pytest.approx(10e-6)
    assert lat.wall.values["p90"] == pytest.approx(10e-6)
    # 10 of 1000 calls slept: p99 lies between the last fast call and the first slow one
    # ((n-1) * 0.99 = 989.01), and its interval reaches the slow calls
    assert lat.wall.values["p99"] == pytest.approx(10e-6 + 0.01 * 5e-3, rel=1e-3)
    assert lat.wall.values["p99"] > 5 * lat.wall.values["p50"]
    assert lat.wall.cis["p99"][1] == pytest.approx(5.01e-3)
    assert lat.wall.values["max"] == pytest.approx(5.01e-3)
    # the CPU clock does not see a sleep
    assert lat.cpu.values["p99"] == pytest.approx(10e-6)
    assert lat.cpu.values["max"] == pytest.approx(10e-6)
    # the p99 is one-sixth work, five-sixths waiting: compare knows not to trust its wall clock
    assert lat.details("p99").cpu_share == pytest.approx(10 / 60, rel=1e-3)
    assert lat.details("p50").cpu_share == pytest.approx(1.0)


def test_latency_stops_at_the_budget_even_before_min_calls() -> None:
    clk = FakeClocks()
    tok = FakeTokenizer(clk, per_char=1e-3)  # 10 ms a call
    lat = measure_latency(tok.encode, ["x" * 10], 10.0, LatencyBudget(budget_s=0.095),
                          clk.clocks())
    assert lat.stop == "budget" and lat.wall.n == 10


def test_latency_stops_once_the_interval_is_narrow() -> None:
    clk = FakeClocks()
    tok = FakeTokenizer(clk)
    lat = measure_latency(tok.encode, ["abc"], 3.0, LatencyBudget(budget_s=1e9), clk.clocks())
    assert lat.stop == "ci" and lat.wall.n == 600  # the first check with a bounded p99


# -- rate, length -----------------------------------------------------------------------------

def test_rate_is_bytes_over_cpu_time() -> None:
    clk = FakeClocks()
    tok = FakeTokenizer(clk, per_char=1e-8)  # 100 MB/s of ASCII
    rate = measure_rate(tok, ["a" * 1000, "b" * 3000], RateBudget(), clk.clocks())
    assert rate is not None
    assert rate.mb_s == pytest.approx(100.0) and rate.wall_mb_s == pytest.approx(100.0)
    assert rate.stop == "ci" and len(rate.samples) == 5 and rate.nbytes == 4000
    # a sample lasts at least min_sample_s: 0.03 s / 40 µs a pass is 749.99... in floats,
    # so int() + 1 = 750 passes
    assert rate.loops == 750
    assert measure_rate(tok, [""], RateBudget(), clk.clocks()) is None


def test_length_curve_flags_a_quadratic_encoder_and_skips_past_the_cap() -> None:
    clk = FakeClocks()
    quad = FakeTokenizer(clk, per_char=1e-10, power=2.0)
    sizes = (1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18)
    out = measure_length_curves(quad.encode, {"repeated_char": lambda n: "a" * n},
                                LengthBudget(budget_s=1e9, call_cap_s=0.3), sizes, clk.clocks())
    sc = out[0]
    # 64 KB costs 0.43 s > 0.3 s: 256 KB is skipped, and said why
    assert [p[0] for p in sc.points] == [1 << 10, 1 << 12, 1 << 14, 1 << 16]
    assert sc.skipped == [1 << 18] and "cap" in sc.why_skipped
    assert sc.fit is not None and sc.fit[0] == pytest.approx(2.0)
    assert sc.superlinear
    lin = FakeTokenizer(clk, per_char=1e-8)
    out = measure_length_curves(lin.encode, {"ordinary": lambda n: "a" * n}, LengthBudget(),
                                sizes, clk.clocks())
    assert out[0].fit is not None and out[0].fit[0] == pytest.approx(1.0)
    assert not out[0].superlinear and not out[0].skipped


def test_length_curve_skips_sizes_that_would_overrun_the_budget() -> None:
    clk = FakeClocks()
    lin = FakeTokenizer(clk, per_char=1e-7)  # 10 MB/s
    sizes = (1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20)
    (sc,) = measure_length_curves(lin.encode, {"ordinary": lambda n: "a" * n},
                                  LengthBudget(budget_s=0.1), sizes, clk.clocks())
    # 1-64 KB take 0.020 + 0.020 + 0.021 + 0.026 s (each at least min_time_s); 256 KB would
    # take two calls of 0.026 s: 0.088 + 0.052 > 0.1
    assert [p[0] for p in sc.points] == [1 << 10, 1 << 12, 1 << 14, 1 << 16]
    assert sc.skipped == [1 << 18, 1 << 20] and "would be overrun" in sc.why_skipped
    assert sc.fit is not None and sc.fit[0] == pytest.approx(1.0)


# -- threads, workload ------------------------------------------------------------------------

def _tp(via: str, asked: int, used: float) -> ThreadPoint:
    return ThreadPoint(via, asked, used, 1.0, (1.0,), 100)


def test_an_ignored_thread_setting_is_flagged_only_when_a_pool_could_use_the_cores() -> None:
    pts = [_tp(NATIVE, 1, 0.99), _tp(NATIVE, 2, 1.01), _tp(PROCESS, 2, 1.9)]
    assert ignored(pts) == {2: "asked 2 threads, used 1.01 (a process pool used 1.90)"}
    busy = [_tp(NATIVE, 2, 1.01), _tp(PROCESS, 2, 1.05)]  # no spare core for anyone
    assert ignored(busy) == {}
    assert ignored([_tp(NATIVE, 2, 1.8), _tp(PROCESS, 2, 1.9)]) == {}


def test_chunks_keep_order_and_balance() -> None:
    texts = ["a" * 10] * 8
    parts = chunks(texts, 4)
    assert [len(p) for p in parts] == [2, 2, 2, 2]
    assert [t for p in parts for t in p] == texts


def test_requests_fall_in_their_size_class() -> None:
    texts = [f"sentence number {i} " * 3 for i in range(400)]  # 58-61 bytes each
    reqs = {r.name: r for r in draw_requests(texts)}
    assert set(reqs) == set(REQUEST_SIZES)
    for name, r in reqs.items():
        lo, hi = REQUEST_SIZES[name]
        assert r.texts and all(lo <= nbytes(t) <= hi for t in r.texts)
    assert draw_requests(texts) == draw_requests(texts)  # seeded


def test_hard_input_builders() -> None:
    assert nbytes(fit_bytes("日本", 10)) == 9  # cut on a character boundary
    assert fit_bytes("ab", 5) == "ababa"
    assert minify("def f(x):\n    return x + 1\n") == "def f(x):return x+1"


# -- rows and compare -------------------------------------------------------------------------

def test_speed_family_is_opt_in() -> None:
    assert "speed" not in resolve_families(None)
    assert resolve_families(["speed"]) == ["speed"]
    assert resolve_families(["encode_p99_us"]) == ["speed"]
    assert all(m in METRICS for m in FAMILIES["speed"])


def test_speed_rows_without_a_spec_measure_in_process() -> None:
    clk = FakeClocks()
    tok = FakeTokenizer(clk)
    texts = [f"sentence number {i} " * 3 for i in range(400)]
    settings = SpeedSettings(parts=("latency", "rate", "scaling"),
                             length=LengthBudget(budget_s=1e9))
    rows = speed_rows(tok, texts, suite="s", settings=settings, clocks=clk.clocks())
    keys = {(r.subset, r.metric) for r in rows}
    for size in REQUEST_SIZES:
        for op in ("encode", "decode"):
            assert {(size, f"{op}_{k}_us") for k in ("p50", "p90", "p99", "max")} <= keys
    assert ("all", "encode_mb_s") in keys
    assert ("ordinary", "scaling_exponent") in keys and ("digits", "scaling_exponent") in keys
    p50 = next(r for r in rows if r.metric == "encode_p50_us" and r.subset == "chat")
    assert p50.extra["clock"] == "wall" and len(p50.extra["cdf"]) == 101
    rate = next(r for r in rows if r.metric == "encode_mb_s")
    assert rate.value == pytest.approx(1e-6 / 1e-7 * 1.0, rel=1e-6)  # 10 MB/s of ASCII
    assert not any(r.metric in ("load_s", "batch_mb_s") for r in rows)  # they need a spec


def _latency_rows(tok: str, calls: Sequence[float]) -> list[Row]:
    dist = Distribution.of(calls)
    rows = []
    for key in ("p50", "p99"):
        lo, hi = dist.cis[key]
        rows.append(Row(tok, "speed", "paragraph", f"encode_{key}_us", dist.values[key] * 1e6,
                        {"ci": [lo * 1e6, None if hi is None else hi * 1e6], "clock": "wall"}))
    return rows


def _calls(seed: int, scale: float = 1.0) -> list[float]:
    """2000 deterministic call times: 100 µs ± 5 µs, every 50th 400 µs ± 20 µs."""
    import random

    rng = random.Random(seed)
    return [scale * (400e-6 if i % 50 == 0 else 100e-6) * rng.uniform(0.95, 1.05)
            for i in range(2000)]


def _rate_row(tok: str, samples: Sequence[float]) -> Row:
    from tokbench.speed.stats import median_ci

    lo, hi = median_ci(samples)
    return Row(tok, "speed", "all", "encode_mb_s", sorted(samples)[len(samples) // 2],
               {"ci": [lo, hi], "samples": list(samples), "clock": "thread_cpu"})


def test_compare_judges_p99_and_rate_noise_aware() -> None:
    base = Results(rows=[*_latency_rows("t", _calls(1)),
                         _rate_row("t", [10.0, 10.1, 9.9, 10.05, 9.95])])
    rerun = Results(rows=[*_latency_rows("t", _calls(2)),
                          _rate_row("t", [10.2, 9.9, 10.1, 10.15, 9.95])])
    slow = Results(rows=[*_latency_rows("t", _calls(3, scale=2.0)),
                         _rate_row("t", [5.0, 5.05, 4.95, 5.02, 4.98])])
    assert {r.status for r in compare(base, slow).rows} == {NOT_JUDGED}  # unless asked for
    same = {r.metric: r for r in compare(base, rerun, timings=True).rows}
    assert {m: r.status for m, r in same.items()} == {
        "encode_p50_us": NOT_SIGNIFICANT, "encode_p99_us": NOT_SIGNIFICANT,
        "encode_mb_s": NOT_SIGNIFICANT}
    assert not compare(base, rerun, timings=True).regression
    worse = compare(base, slow, timings=True)
    by = {r.metric: r for r in worse.rows}
    assert {m: (r.status, r.fails) for m, r in by.items()} == {
        "encode_p50_us": (WORSE, True), "encode_p99_us": (WORSE, True),
        "encode_mb_s": (WORSE, True)}
    assert worse.regression
    assert by["encode_p99_us"].relative == pytest.approx(1.0, abs=0.1)
    faster = {r.metric: r.status for r in compare(slow, base, timings=True).rows}
    assert faster["encode_p99_us"] == BETTER


def test_p99_over_its_tolerance_but_inside_the_interval_is_not_significant() -> None:
    base = Results(rows=[Row("t", "speed", "chat", "encode_p99_us", 100.0,
                             {"ci": [90.0, None]})])
    new = Results(rows=[Row("t", "speed", "chat", "encode_p99_us", 160.0,
                            {"ci": [120.0, 300.0]})])
    (change,) = compare(base, new, timings=True).rows
    assert change.status == NOT_SIGNIFICANT and "intervals overlap" in change.reason
    new.rows[0].value = 149.0
    (change,) = compare(base, new, fail=["encode_p99_us:50%"]).rows
    assert change.status == NOT_SIGNIFICANT and "under the 50% threshold" in change.reason


def _p99(value: float, ci: list[float], cpu: float, cpu_ci: list[float], share: float) -> Row:
    return Row("t", "speed", "paragraph", "encode_p99_us", value,
               {"ci": ci, "cpu_value": cpu, "cpu_ci": cpu_ci, "cpu_share": share})


def test_a_busy_machine_is_judged_on_the_cpu_clock() -> None:
    quiet = Results(rows=[_p99(200.0, [190.0, 215.0], 195.0, [188.0, 205.0], 0.97)])
    # a rerun while other processes took 40% of the CPU: the wall p99 doubled, the CPU p99 not
    busy_rerun = Results(rows=[_p99(4100.0, [3900.0, 4300.0], 201.0, [190.0, 210.0], 0.6)])
    (change,) = compare(quiet, busy_rerun, timings=True).rows
    assert change.status == NOT_SIGNIFICANT
    assert change.reason == ("under the 50% threshold (machine busy: the process had new 60% "
                             "of a CPU per thread; judged on the CPU clock)")
    # a real 2x slowdown on the same busy machine shows on the CPU clock too
    busy_slow = Results(rows=[_p99(8000.0, [7000.0, 9000.0], 400.0, [380.0, 420.0], 0.6)])
    (change,) = compare(quiet, busy_slow, timings=True).rows
    assert (change.status, change.fails) == (WORSE, True)
    assert change.base == 200.0 and change.new == 8000.0  # shown as measured
    assert change.reason.endswith("judged on the CPU clock")
    # a batch figure has no CPU-clock twin: on a busy machine its change is noise
    batch = [Row("t", "speed", "native:2", "batch_mb_s", v, {"samples": [v], "cpu_share": s})
             for v, s in ((10.0, 0.95), (4.0, 0.3))]
    batch[1].extra["cpu_share"] = 0.6
    (change,) = compare(Results(rows=[batch[0]]), Results(rows=[batch[1]]), timings=True).rows
    assert change.status == NOT_SIGNIFICANT and "no CPU-clock figure" in change.reason
    # a figure timed on the CPU clock is judged as it is on a busy machine ...
    rates = [Row("t", "speed", "all", "encode_mb_s", v, {"samples": [v], "cpu_share": 0.6,
                                                          "clock": "thread_cpu"})
             for v in (10.0, 5.0)]
    (change,) = compare(Results(rows=[rates[0]]), Results(rows=[rates[1]]), timings=True).rows
    assert (change.status, change.fails, change.reason) == (WORSE, True, "")
    # ... but under half a CPU per thread even the CPU clock is off (shared caches, stolen
    # time): not judged, said so, and no regression (issue 21.1)
    rates[1].extra["cpu_share"] = 0.3
    (change,) = compare(Results(rows=[rates[0]]), Results(rows=[rates[1]]), timings=True).rows
    assert (change.status, change.fails) == (NOT_JUDGED, False)
    too_busy = Results(rows=[_p99(8000.0, [7000.0, 9000.0], 400.0, [380.0, 420.0], 0.36)])
    comp = compare(quiet, too_busy, timings=True)
    assert comp.rows[0].status == NOT_JUDGED and not comp.regression
    assert comp.rows[0].reason.startswith("machine too busy: the process had new 36% of a CPU")
    assert comp.warnings == ["1 timing row not judged: a run had under half a CPU per thread "
                             "(see the rows' reasons)"]


# -- rendering --------------------------------------------------------------------------------

def test_speed_report_sections_and_plots(tmp_path: Path) -> None:
    from tokbench.render.markdown import render_markdown
    from tokbench.render.speed import render_speed_plots

    clk = FakeClocks()
    tok = FakeTokenizer(clk)
    texts = [f"sentence number {i} " * 3 for i in range(400)]
    settings = SpeedSettings(parts=("latency", "rate", "scaling"),
                             length=LengthBudget(budget_s=1e9))
    rows = speed_rows(tok, texts, settings=settings, clocks=clk.clocks())
    rows += [Row("fake", "speed", "native:1", "batch_mb_s", 10.0, {"threads_asked": 1,
                                                                   "threads_used": 0.98}),
             Row("fake", "speed", "native:2", "batch_mb_s", 9.0,
                 {"threads_asked": 2, "threads_used": 1.0, "ignored": "asked 2 threads"}),
             Row("fake", "speed", "all", "load_s", 0.25, {}),
             Row("fake", "speed", "all", "rss_mb", 40.0, {"peak_rss_mb": 150.0})]
    results = Results(rows=rows, meta=RunMeta(tokenizers={"fake": TokenizerInfo()}))
    md = render_markdown(results)
    for title in ("## Speed", "### Latency of single calls (µs)",
                  "### Single-thread encode rate (MB/s)", "### Batch throughput against threads",
                  "### Length scaling (1 KB .. 1 MB)", "### Load cost and footprint"):
        assert title in md
    # chat requests are single 54-60 character sentences: 5.4-6 µs at 0.1 µs a character
    assert ("| fake | chat | encode | 6.0 | 6.0 | 6.0 [6.0, 6.0] | 6.0 | 600 | 6.0 | 6.0 | ci |"
            in md)
    assert "asked 2 threads" in md
    names = sorted(p.name for p in render_speed_plots(results, tmp_path))
    assert names == ["speed_latency_cdf.png", "speed_scaling.png", "speed_threads.png"]
    assert all((tmp_path / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for n in names)
    assert not math.isnan(sum(r.value for r in rows if isinstance(r.value, float)))


# -- a real tokenizer, end to end (fresh processes included) --------------------------------

@pytest.mark.real
def test_bench_command_on_a_real_tokenizer(tmp_path: Path, real_cache: Path) -> None:
    from tokbench.cli import main
    from tokbench.speed.rows import usable_cores

    out = tmp_path / "bench"
    assert main(["bench", "-t", "cl100k_base", "-s", "numbers,code", "--budget", "0.1",
                 "-o", str(out)]) == 0
    results = Results.load(out)
    by = {(r.subset, r.metric): r for r in results.rows}
    for size in ("chat", "paragraph"):
        vals = [by[(size, f"encode_{k}_us")].value for k in ("p50", "p90", "p99", "max")]
        assert 0 < vals[0] <= vals[1] <= vals[2] <= vals[3]
    assert by[("all", "encode_mb_s")].value > 0
    assert by[("all", "load_s")].value > 0 and by[("all", "rss_mb")].value > 0
    cores = usable_cores()
    for via in ("native", "process"):
        for n in range(1, cores + 1):
            used = by[(f"{via}:{n}", "threads_used")].value
            assert 0 < used <= n + 0.5
    kinds = {s for s, m in by if m == "scaling_exponent"}
    assert {"ordinary", "repeated_char", "digits", "base64", "minified_code"} <= kinds
    for name in ("results.json", "report.md", "report.html", "speed_latency_cdf.png",
                 "speed_threads.png", "speed_scaling.png"):
        assert (out / name).exists()
    assert "## Speed" in (out / "report.md").read_text(encoding="utf-8")


def test_the_speed_family_runs_in_tokbench_run_once_per_tokenizer() -> None:
    from tokbench.engine.runner import run

    results = run(["bytes", "chars"], ["unicode", "numbers"], ["compression", "speed"])
    speed = [r for r in results.rows if r.suite == "speed"]
    assert {r.tokenizer for r in speed} == {"bytes", "chars"}
    assert {"encode_p50_us", "encode_p99_us", "encode_mb_s"} <= {r.metric for r in speed}
    assert ["bytes", "speed"] in (results.meta.finished_units or [])
    assert "speed" in results.meta.suites
    assert not any(r.suite == "speed" for r in run(["bytes"], ["unicode"], None).rows)
