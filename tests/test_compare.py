"""Regression reports: real regressions built in the test are caught, honest reruns are not."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import statistics
from pathlib import Path
from typing import Any

import pytest

from tests._toy import ToyTokenizer
from tokbench.adapters import ADAPTERS
from tokbench.adapters.base import Tokenizer
from tokbench.adapters.hf_tokenizers import unicode_to_bytes
from tokbench.ci.compare import (
    Comparison,
    Thresholds,
    compare,
    load_run,
    same_within_rounding,
    timing_range,
)
from tokbench.cli import main
from tokbench.engine.runner import Settings, run
from tokbench.errors import InputError, UnknownNameError
from tokbench.record import RunError, RunMeta
from tokbench.render.comparison import render_markdown
from tokbench.results import SCHEMA_VERSION, Results, Row
from tokbench.suites import load_suite
from tokbench.suites.model import Document, Suite

LANGS = "eng_Latn,fra_Latn"


# -- a real byte-level BPE, and a copy with the merges that build non-ASCII tokens removed ----

@pytest.fixture(scope="module")
def parallel() -> Suite:
    return load_suite("multilingual", languages=LANGS)


@pytest.fixture(scope="module")
def bpe_files(parallel: Suite, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(full, pruned) tokenizer.json: pruned lacks every merge whose result has a non-ASCII byte.

    English text is ASCII, so its tokens cannot change; French loses its accented tokens.
    """
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=700, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([d.text for d in parallel.documents], trainer)
    folder = tmp_path_factory.mktemp("bpe")
    full = folder / "full.json"
    tok.save(str(full))
    spec = json.loads(full.read_text(encoding="utf-8"))
    to_byte = unicode_to_bytes()
    merges = spec["model"]["merges"]
    kept = [m for m in merges if all(to_byte[c] < 0x80 for c in "".join(m))]
    assert 0 < len(merges) - len(kept) < len(merges) // 2  # some, not most, merges go
    spec["model"]["merges"] = kept
    pruned = folder / "pruned.json"
    pruned.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return full, pruned


def _load_bpe(path: Path) -> Tokenizer:
    return ADAPTERS.get("tokenizers")(path, name="mybpe")


METRICS = ["compression", "premium", "roundtrip"]


def test_removed_merges_are_worse_per_language(bpe_files, parallel):
    full, pruned = bpe_files
    base = run([_load_bpe(full)], [parallel], METRICS)
    new = run([_load_bpe(pruned)], [parallel], METRICS)

    # the tokenizer file is what changed: the slot 'mybpe' is compared by name, and the
    # change is said once (not on every row)
    comp = compare(base, new)
    old_sha, new_sha = (r.meta.tokenizers["mybpe"].source.sha256 or "" for r in (base, new))
    assert comp.notes == [f"tokenizer 'mybpe' file changed (sha256 {old_sha[:12]} → "
                          f"{new_sha[:12]}); compared as the same tokenizer"]
    assert compare(base, new, allow_change=["tokenizer"]).rows == comp.rows  # the old spelling
    by = {(r.subset, r.metric): r for r in comp.rows}
    fra, eng = by[("fra_Latn", "bytes_per_token")], by[("eng_Latn", "bytes_per_token")]
    assert fra.status == "worse" and fra.fails and fra.new < fra.base
    assert eng.status == "unchanged" and eng.new == eng.base  # ASCII text: same tokens
    assert by[("all", "bytes_per_token")].status == "worse"
    assert by[("fra_Latn", "tokens")].status == "worse"
    assert by[("fra_Latn", "premium")].status == "worse"  # more tokens than English now
    assert by[("eng_Latn", "premium")].status == "unchanged"  # 1.0 by definition
    assert by[("fra_Latn", "roundtrip")].status == "unchanged"  # byte-level: still lossless
    assert comp.regression
    # the Markdown: the verdict, the note once, the French regression grouped under its
    # tokenizer and metric, not the unchanged English row
    md = render_markdown(comp)
    assert md.startswith("**tokbench: ❌ regression: ")
    assert md.count("file changed") == 1
    assert "**mybpe · bytes_per_token ↑: 2 worse**" in md  # all and fra_Latn
    assert f"| **❌ worse** | multilingual | fra_Latn | {fra.base:.4f} | {fra.new:.4f} |" in md
    assert "| eng_Latn |" not in md.split("<details>")[0]

    # a generous tolerance on the French loss: worse, but tolerated
    loss = (fra.base - fra.new) / fra.base
    lenient = compare(base, new, fail=[f"compression:{loss * 100 + 1:.1f}%", "premium:100%"])
    row = next(r for r in lenient.rows if r.key == fra.key)
    assert row.status == "worse" and not row.fails and "within the" in row.reason


def test_roundtrip_loss_names_the_document():
    pieces = ["le", "la", "the", "q", " ", "a", "e", "u", "i", "t", "h", "l"]
    suite = Suite("s", "1", [Document("en1", "eng_Latn", "x", "the tea"),
                             Document("fr1", "fra_Latn", "x", "la tuile"),
                             Document("fr2", "fra_Latn", "x", "le quai")])
    base = run([ToyTokenizer(pieces, name="toy")], [suite], ["compression", "roundtrip"])
    new = run([ToyTokenizer(pieces, name="toy", lossy={"q": "k"})], [suite],
              ["compression", "roundtrip"])
    comp = compare(base, new, fail=["roundtrip:0"])
    by = {(r.subset, r.metric): r for r in comp.rows}
    assert by[("all", "roundtrip")].status == "worse" and by[("all", "roundtrip")].fails
    assert by[("all", "roundtrip")].documents == ["fr2"]
    assert (by[("fra_Latn", "roundtrip")].base, by[("fra_Latn", "roundtrip")].new) == (1.0, 0.5)
    assert by[("fra_Latn", "roundtrip")].documents == ["fr2"]
    assert by[("eng_Latn", "roundtrip")].status == "unchanged"
    assert by[("eng_Latn", "roundtrip")].documents == []
    assert by[("all", "tokens")].status == "unchanged"  # the encoding did not change
    assert [f.doc_id for f in comp.new_roundtrip_failures] == ["fr2"]
    md = render_markdown(comp)
    assert "new failing documents: fr2" in md and "| toy | s | fr2 | other | `le quai` |" in md
    # and the fix is reported the other way round
    back = compare(new, base)
    assert {r.status for r in back.rows if r.metric == "roundtrip" and r.subset != "eng_Latn"} \
        == {"better"}
    assert [f.doc_id for f in back.fixed_failures] == ["fr2"]


def test_a_document_that_now_raises_is_a_regression():
    class Picky(ToyTokenizer):
        def encode(self, text: str) -> list[int]:
            if "q" in text:
                raise ValueError("cannot encode q")
            return super().encode(text)

    pieces = ["a", "q", " "]
    suite = Suite("s", "1", [Document("d1", "eng_Latn", "x", "a a"),
                             Document("d2", "eng_Latn", "x", "q a")])
    base = run([ToyTokenizer(pieces)], [suite], ["compression", "roundtrip"])
    new = run([Picky(pieces)], [suite], ["compression", "roundtrip"])
    comp = compare(base, new)
    assert [f.doc_id for f in comp.new_errors] == ["d2"]
    assert comp.regression
    assert "1 document newly failing to encode/decode" in comp.verdict()


# -- throughput: a twofold slowdown is caught, honest reruns are not -------------------------
#
# The timings are injected, not measured, so the verdicts cannot depend on the machine: one
# real throughput run gives the rows exactly as the runner writes them (value, samples,
# spread, repeats...), and each simulated run replaces their samples with timings drawn from
# a seeded model of a shared machine.

@pytest.fixture(scope="module")
def throughput_run() -> Results:
    tok = ToyTokenizer(["the", " cat", " sat", " on", " mat", " the"], unk=False)
    suite = Suite("tp", "1", [Document(f"d{i}", "eng_Latn", "x", "the cat sat on the mat")
                              for i in range(20)])
    results = run([tok], [suite], ["throughput"],
                  settings=Settings(throughput_repeats=5, throughput_subsets=False))
    assert {r.metric for r in results.rows} == {"throughput_mb_s", "throughput_tokens_s"}
    return results


def _timed(results: Results, samples: list[float]) -> Results:
    """``results`` with every throughput row measured as ``samples`` (MB/s of each repeat).

    The value is the median, in the row's unit (tokens/s rows keep their tokens per MB), and
    the spread is (max - min) / median, as the runner computes them.
    """
    med = statistics.median(samples)
    rows = []
    for r in results.rows:
        per_mb = r.value / statistics.median(r.extra["samples"])
        # the model's timings replace the real ones, and with them the CPU share of the run
        extra = {**r.extra, "samples": list(samples),
                 "spread": (max(samples) - min(samples)) / med, "cpu_share": 1.0}
        rows.append(dataclasses.replace(r, value=med * per_mb, extra=extra))
    return dataclasses.replace(results, rows=rows)


def _shared_machine(rng: random.Random, mb_s: float, repeats: int = 5) -> list[float]:
    """MB/s of ``repeats`` repeats on a shared machine whose true speed is ``mb_s``.

    The whole run is up to 4% faster or slower (the load of the host drifts between
    runs); each repeat jitters by about 2%, and one in six is hit by another job that
    starts meanwhile and loses 15-40% of its speed.
    """
    drift = rng.uniform(0.96, 1.04)
    out = []
    for _ in range(repeats):
        hit = rng.uniform(0.60, 0.85) if rng.random() < 1 / 6 else 1.0
        out.append(mb_s * drift * hit * (1 + rng.gauss(0, 0.02)))
    return out


def test_twofold_slowdown_is_worse_and_honest_reruns_are_not(throughput_run):
    """Injected timings, 5 repeats a run: 20 comparisons of honest reruns raise no alarm,
    and a twofold slowdown is worse, beyond the tolerance and outside the noise."""
    rng = random.Random(13)
    speed = 8.0  # MB/s
    runs = [_timed(throughput_run, _shared_machine(rng, speed)) for _ in range(21)]
    changes = []
    for a, b in itertools.pairwise(runs):  # 20 comparisons of honest reruns
        comp = compare(a, b, timings=True)
        assert not comp.regression, comp.verdict()
        assert {r.status for r in comp.rows} <= {"unchanged", "not_significant", "better"}
        changes.append(abs(comp.rows[0].relative or 0.0))
    # the noise the rule must see through was there: with seed 13, two honest medians are
    # 22% and 26% apart (a run whose repeats were hit), beyond the 10% tolerance, and are
    # judged noise because their ranges overlap
    assert sum(c > 0.10 for c in changes) == 2

    slow = _timed(throughput_run, _shared_machine(rng, speed / 2))
    comp = compare(runs[-1], slow, timings=True)
    rows = {r.metric: r for r in comp.rows}
    for metric in ("throughput_mb_s", "throughput_tokens_s"):
        r = rows[metric]
        assert r.status == "worse" and r.fails, (r.relative, r.base_range, r.new_range)
        assert r.relative is not None and r.relative <= -0.10  # the default tolerance
        assert r.new_range is not None and r.base_range is not None
        assert r.new_range[1] < r.base_range[0]  # every slow repeat slower than every honest one
    assert comp.regression
    # ... and only when timings are asked for: by default a timing is never a verdict
    default = compare(runs[-1], slow)
    assert {r.status for r in default.rows} == {"not_judged"} and not default.regression
    assert compare(runs[-1], slow, fail=["throughput_mb_s:10%"]).regression  # by name
    assert compare(runs[-1], slow, fail=["throughput:10%"]).regression  # by family
    assert {r.status for r in compare(runs[-1], slow, fail=["all:10%"]).rows} \
        == {"not_judged"}  # 'all' sets the deterministic metrics only


def _tp_row(metric: str, value: float, samples: list[float], **extra: Any) -> Row:
    return Row("t", "s", "all", metric, value,
               {"samples": samples, "spread": 0.0, "repeats": 5, **extra})


def test_an_unchanged_tokenizer_on_a_busy_machine_is_no_regression():
    """Issue 21.1: the same tokenizer, its throughput halved by a busy machine. The default
    gate does not judge timings; asked to, it judges them on the CPU clock, and a run that
    had under half a CPU per thread is not judged (a warning, no regression)."""
    base, new = _runs([_tp_row("throughput_mb_s", 1.89, [1.85, 1.88, 1.89, 1.9, 1.92],
                               cpu_share=0.95, clock="thread_cpu"),
                       Row("t", "s", "all", "tokens", 100)],
                      [_tp_row("throughput_mb_s", 0.97, [0.95, 0.96, 0.97, 0.98, 0.99],
                               cpu_share=0.45, clock="thread_cpu"),
                       Row("t", "s", "all", "tokens", 100)])
    comp = compare(base, new)
    assert not comp.regression and comp.nothing_compared() is None
    assert comp.verdict() == "no regression: 1 not judged; 1 unchanged"
    tp = next(r for r in comp.rows if r.metric == "throughput_mb_s")
    assert tp.status == "not_judged" and tp.reason.startswith("a timing, judged only when")
    asked = compare(base, new, fail=["throughput:15%"])
    tp = next(r for r in asked.rows if r.metric == "throughput_mb_s")
    assert (tp.status, tp.fails) == ("not_judged", False)
    assert tp.reason.startswith("machine too busy: the process had new 45% of a CPU")
    assert asked.warnings == ["1 timing row not judged: a run had under half a CPU per "
                              "thread (see the rows' reasons)"]
    assert not asked.regression
    # at 60% of a CPU the CPU clock is trusted: a real halving is a regression then
    busy = dataclasses.replace(new, rows=[dataclasses.replace(
        r, extra={**r.extra, "cpu_share": 0.6}) for r in new.rows])
    assert compare(base, busy, fail=["throughput:15%"]).regression


def test_timings_are_judged_on_the_cpu_clock():
    """A wall-clock latency that doubled while its CPU-clock figure did not is the machine,
    not the tokenizer; the CPU figure doubling is a regression."""
    def p50(wall: float, cpu: float) -> Row:
        return Row("t", "s", "chat", "encode_p50_us", wall,
                   {"clock": "wall", "ci": [wall * 0.98, wall * 1.02], "cpu_value": cpu,
                    "cpu_ci": [cpu * 0.98, cpu * 1.02], "cpu_share": 0.95})

    base, new = _runs([p50(10.0, 9.5)], [p50(20.0, 9.6)])
    row = compare(base, new, timings=True).rows[0]
    assert row.status == "not_significant" and "judged on the CPU clock" in row.reason
    base, new = _runs([p50(10.0, 9.5)], [p50(20.0, 19.0)])
    row = compare(base, new, timings=True).rows[0]
    assert (row.status, row.fails) == ("worse", True)
    assert row.base_range == pytest.approx((9.31, 9.69))  # the CPU clock's interval


def _runs(base_rows: list[Row], new_rows: list[Row], **meta: Any) -> tuple[Results, Results]:
    return (Results(rows=base_rows, meta=RunMeta.from_dict(meta)),
            Results(rows=new_rows, meta=RunMeta.from_dict(meta)))


@pytest.mark.parametrize(("new_samples", "status"), [
    ([8.7, 8.8, 8.8, 8.9, 9.0], "worse"),  # 12% slower, ranges apart
    ([8.7, 8.8, 8.8, 9.0, 9.6], "not_significant"),  # 12% slower, ranges overlap
    ([9.2, 9.25, 9.3, 9.35, 9.4], "not_significant"),  # 7% slower, ranges apart
    ([11.2, 11.3, 11.4, 11.5, 11.6], "better"),  # 14% faster, ranges apart
])
def test_throughput_rule(new_samples, status):
    base_samples = [9.6, 9.9, 10.0, 10.1, 10.2]
    new_median = sorted(new_samples)[2]
    base, new = _runs([_tp_row("throughput_mb_s", 10.0, base_samples)],
                      [_tp_row("throughput_mb_s", new_median, new_samples)])
    row = compare(base, new, timings=True).rows[0]
    assert row.status == status
    assert row.fails == (status == "worse")
    assert row.base_range == (9.6, 10.2)
    # a looser threshold lets the 12% slowdown through as noise
    if status == "worse":
        assert compare(base, new, fail=["throughput:15%"]).rows[0].status == "not_significant"
    assert compare(base, new).rows[0].status == "not_judged"


def test_timing_range_scales_samples_to_the_rows_unit():
    # tokens/s = MB/s * 250000 here; the MB/s samples give the token range
    row = _tp_row("throughput_tokens_s", 2_500_000.0, [9.0, 10.0, 11.0])
    assert timing_range(row) == pytest.approx((2_250_000.0, 2_750_000.0))
    assert timing_range(Row("t", "s", "all", "throughput_mb_s", 10.0, {"spread": 0.2})) \
        == pytest.approx((9.0, 11.0))


def test_timings_from_another_machine_are_not_comparable():
    machine_a = {"hostname": "a", "cpus": 2, "processor": "x86_64"}
    machine_b = {"hostname": "b", "cpus": 4, "processor": "x86_64"}
    base = Results(rows=[_tp_row("throughput_mb_s", 10.0, [10.0]),
                         Row("t", "s", "all", "tokens", 100)], meta=RunMeta(machine=machine_a))
    new = Results(rows=[_tp_row("throughput_mb_s", 5.0, [5.0]),
                        Row("t", "s", "all", "tokens", 110)], meta=RunMeta(machine=machine_b))
    by = {r.metric: r for r in compare(base, new, timings=True).rows}
    assert by["throughput_mb_s"].status == "not_comparable"
    assert by["throughput_mb_s"].reason == ("timings from different machines "
                                            "(a, 2 CPUs → b, 4 CPUs)")
    assert by["tokens"].status == "worse" and by["tokens"].fails  # counts do not depend on it
    allowed = compare(base, new, allow_change=["machine"], timings=True)
    assert allowed.rows[0].status == "worse"
    assert allowed.notes == ["timings from different machines (a, 2 CPUs → b, 4 CPUs); "
                             "compared anyway (--allow-change machine)"]


# -- deterministic rules, thresholds, inputs -----------------------------------------------

def test_rounding_of_the_schema_is_not_a_change():
    assert same_within_rounding(0.333333, 0.3333334)
    assert same_within_rounding(0.333333, 0.333334)  # one unit in the 6th digit
    assert not same_within_rounding(0.333333, 0.333335)
    assert not same_within_rounding(1000, 1001)  # counts are exact
    base, new = _runs([Row("t", "s", "all", "bytes_per_token", 4.12345)],
                      [Row("t", "s", "all", "bytes_per_token", 4.123451)])
    assert compare(base, new).rows[0].status == "unchanged"


def test_thresholds_relative_absolute_family_and_precedence():
    th = Thresholds(["bytes_per_token:0.5%", "roundtrip:0", "throughput:20%",
                     "compression:2%", "throughput_tokens_s:5%"])
    assert th.for_metric("bytes_per_token").relative
    assert th.for_metric("bytes_per_token").value == pytest.approx(0.005)
    assert not th.for_metric("roundtrip").relative and th.for_metric("roundtrip").value == 0
    assert th.for_metric("chars_per_token").value == pytest.approx(0.02)  # from the family
    assert th.for_metric("throughput_mb_s").value == pytest.approx(0.20)
    assert th.for_metric("throughput_tokens_s").value == pytest.approx(0.05)  # metric wins
    assert th.for_metric("fertility").value == 0  # default: any real change
    assert Thresholds().for_metric("throughput_mb_s").value == pytest.approx(0.10)
    assert Thresholds(["all:1%"]).for_metric("unk_rate").value == pytest.approx(0.01)
    # 0.5% relative: a 0.4% loss is tolerated, a 0.6% loss fails
    for new_value, fails in ((3.984, False), (3.976, True)):
        base, new = _runs([Row("t", "s", "all", "bytes_per_token", 4.0)],
                          [Row("t", "s", "all", "bytes_per_token", new_value)])
        row = compare(base, new, fail=["bytes_per_token:0.5%"]).rows[0]
        assert (row.status, row.fails) == ("worse", fails)


@pytest.mark.parametrize(("spec", "message"), [
    ("bytes_per_tokn:1%", "did you mean 'bytes_per_token'"),
    ("bytes_per_token", "write METRIC:TOLERANCE"),
    ("roundtrip:lots", "'lots' is not a number"),
    ("roundtrip:-1", "must be a number >= 0"),
])
def test_bad_threshold_specs(spec, message):
    with pytest.raises((InputError, UnknownNameError), match=message):
        Thresholds([spec])


def test_direction_none_is_changed_and_never_fails():
    base, new = _runs([Row("t", "s", "all", "vocab_used", 0.25)],
                      [Row("t", "s", "all", "vocab_used", 0.5)])
    comp = compare(base, new)
    assert comp.rows[0].status == "changed" and not comp.regression
    assert comp.verdict() == "no regression: 1 changed; 0 unchanged"


def test_added_and_removed_rows_are_listed():
    base, new = _runs([Row("t", "s", "all", "tokens", 5), Row("u", "s", "all", "tokens", 7)],
                      [Row("t", "s", "all", "tokens", 5), Row("v", "s", "all", "tokens", 9)])
    comp = compare(base, new)
    by = {r.tokenizer: r for r in comp.rows}
    assert (by["u"].status, by["u"].base, by["u"].fails) == ("removed", 7, True)
    assert (by["v"].status, by["v"].new, by["v"].fails) == ("added", 9, False)
    assert by["t"].status == "unchanged"
    assert comp.regression
    assert not compare(base, new, allow_removed=True).regression


def test_a_changed_suite_is_not_comparable_with_the_reason():
    tok = ToyTokenizer(["a", "b", " "])
    v1 = Suite("s", "1", [Document("d1", "eng_Latn", "x", "ab ba")])
    v2 = Suite("s", "1", [Document("d1", "eng_Latn", "x", "ab ba ab")])
    base, new = run([tok], [v1], ["compression"]), run([tok], [v2], ["compression"])
    comp = compare(base, new)
    assert {r.status for r in comp.rows} == {"not_comparable"}
    reason = f"suite 's' content changed (sha256 {v1.sha256[:12]} → {v2.sha256[:12]})"
    assert all(r.reason == reason for r in comp.rows)
    assert comp.not_comparable() == [("toy", "s", reason, len(comp.rows))]
    assert not comp.regression and comp.changed_rows() == []
    assert f"- toy · s, {len(comp.rows)} rows: {reason}" in render_markdown(comp)
    tokens = next(r for r in compare(base, new, allow_change=["suite"]).rows
                  if r.metric == "tokens" and r.subset == "all")
    assert (tokens.status, tokens.base, tokens.new) == ("worse", 5, 8)


def test_backend_version_is_compared_and_settings_changes_are_not_comparable():
    def meta(version: str, join: bool) -> RunMeta:
        return RunMeta.from_dict(
            {"tokenizers": {"t": {"backend": "tokenizers", "backend_version": version}},
             "settings": {"premium_join": join, "throughput_repeats": 5}})

    rows = [Row("t", "s", "fra_Latn", "premium", 1.2), Row("t", "s", "all", "tokens", 10)]
    base = Results(rows=rows, meta=meta("0.19.1", False))
    new = Results(rows=[Row("t", "s", "fra_Latn", "premium", 1.3),
                        Row("t", "s", "all", "tokens", 12)], meta=meta("0.20.0", True))
    comp = compare(base, new)
    by = {r.metric: r for r in comp.rows}
    # a new backend version is the same tokenizer slot: what it encodes now is judged
    assert (by["tokens"].status, by["tokens"].fails, by["tokens"].reason) == ("worse", True, "")
    assert by["premium"].status == "not_comparable"
    assert by["premium"].reason == "setting premium_join changed (False → True)"
    assert comp.notes == ["tokenizers version changed (0.19.1 → 0.20.0); compared as the same "
                          "tokenizer"]
    by = {r.metric: r for r in compare(base, new, allow_change=["settings"]).rows}
    assert by["premium"].status == "worse"


def test_a_setting_an_older_run_lacks_counts_as_its_default():
    """A baseline from a tokbench without a setting ran as its default: not a change."""
    def meta(settings: dict[str, object]) -> RunMeta:
        return RunMeta.from_dict({"tokenizers": {"t": {"backend": "tokenizers"}},
                                  "settings": settings})

    rows = [Row("t", "s", "all", "tokens", 10), Row("t", "morph-gold", "all", "morphscore", 0.5)]
    old = Results(rows=rows, meta=meta({"premium_join": False}))
    for value, statuses in (("", ["unchanged", "unchanged"]),
                            ("gold.csv", ["not_comparable", "unchanged"])):
        new = Results(rows=rows, meta=meta({"premium_join": False, "morph_gold": value}))
        # another gold file changes the gold file's rows only
        assert [r.status for r in compare(old, new).rows] == statuses, value


def test_identical_reruns_are_no_change():
    tok = ToyTokenizer(["a", "b", " ", "ab"])
    suite = Suite("s", "1", [Document("d1", "eng_Latn", "x", "ab ba"),
                             Document("d2", "fra_Latn", "x", "ba ab a")])
    metrics = ["compression", "roundtrip", "unknown", "vocab_use"]
    comp = compare(run([tok], [suite], metrics), run([tok], [suite], metrics))
    assert {r.status for r in comp.rows} == {"unchanged"}
    assert comp.verdict() == f"no change ({len(comp.rows)} rows)"
    assert not comp.regression and comp.changed_rows() == []


def test_json_report(tmp_path):
    base, new = _runs([Row("t", "s", "all", "tokens", 5)], [Row("t", "s", "all", "tokens", 6)])
    data = compare(base, new).to_dict()
    assert data["schema"] == "tokbench.ci.compare" and data["regression"] is True
    assert data["rows"] == [{"tokenizer": "t", "suite": "s", "subset": "all", "metric": "tokens",
                             "status": "worse", "fails": True, "base": 5, "new": 6,
                             "delta": 1.0, "relative": 0.2}]
    assert data["counts"]["worse"] == 1


# -- the command line -------------------------------------------------------------------------

def _save(results: Results, path: Path) -> str:
    return str(results.save(path))


@pytest.fixture
def toy_runs(tmp_path) -> dict[str, str]:
    pieces = ["a", "b", " ", "ab", "q"]
    suite = Suite("s", "1", [Document("d1", "eng_Latn", "x", "ab ba"),
                             Document("d2", "eng_Latn", "x", "q ab")])
    metrics = ["compression", "roundtrip"]
    ok = run([ToyTokenizer(pieces)], [suite], metrics)
    return {
        "base": _save(ok, tmp_path / "base"),
        "same": _save(run([ToyTokenizer(pieces)], [suite], metrics), tmp_path / "same"),
        "lossy": _save(run([ToyTokenizer(pieces, lossy={"q": "k"})], [suite], metrics),
                       tmp_path / "lossy"),
    }


def test_cli_exit_codes(toy_runs, tmp_path, capsys):
    assert main(["compare", toy_runs["base"], str(Path(toy_runs["same"]).parent)]) == 0
    assert "no change" in capsys.readouterr().out
    md, js = tmp_path / "pr.md", tmp_path / "cmp.json"
    assert main(["compare", toy_runs["base"], toy_runs["lossy"], "--markdown-out", str(md),
                 "--json-out", str(js)]) == 1
    out = capsys.readouterr().out
    assert "regression" in out and "d2" in out
    assert md.read_text(encoding="utf-8").startswith("**tokbench: ❌ regression: 2 worse")
    assert "<details><summary>Details</summary>" in md.read_text(encoding="utf-8")
    assert json.loads(js.read_text(encoding="utf-8"))["regression"] is True
    # a tolerance of a whole 100% lets the round-trip loss through
    assert main(["compare", toy_runs["base"], toy_runs["lossy"], "--fail", "roundtrip:1"]) == 0
    capsys.readouterr()
    assert main(["compare", toy_runs["base"], toy_runs["lossy"], "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["counts"]["worse"] == 2


def _error_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # one line, no traceback
    return err


def test_cli_bad_input_is_one_line_and_exit_2(toy_runs, tmp_path, capsys):
    base = toy_runs["base"]
    not_results = tmp_path / "other.json"
    not_results.write_text(json.dumps({"rows": []}), encoding="utf-8")
    assert "not a tokbench results file" in _error_of(["compare", base, str(not_results)], capsys)

    empty = Results(rows=[], meta=RunMeta(errors=[RunError(tokenizer="gpt2", error="offline")]))
    empty_path = _save(empty, tmp_path / "empty")
    assert "the run has no rows (every tokenizer or suite failed, e.g. tokenizer gpt2: offline)" \
        in _error_of(["compare", base, empty_path], capsys)

    data = json.loads(Path(base).read_text(encoding="utf-8"))
    data["schema_version"] = SCHEMA_VERSION + 1
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(data), encoding="utf-8")
    assert "is newer than this tokbench understands" in _error_of(["compare", str(newer), base],
                                                                  capsys)
    data["schema_version"] = 0
    older = tmp_path / "older.json"
    older.write_text(json.dumps(data), encoding="utf-8")
    assert "unknown results schema version 0" in _error_of(["compare", base, str(older)], capsys)

    assert "no such results file" in _error_of(["compare", base, str(tmp_path / "nope")], capsys)
    assert "did you mean 'roundtrip'" in _error_of(
        ["compare", base, base, "--fail", "roundtrp:0"], capsys)
    assert "unknown input kind 'tokeniser'" in _error_of(
        ["compare", base, base, "--allow-change", "tokeniser"], capsys)


def test_load_run_rejects_an_empty_run(tmp_path):
    path = Results().save(tmp_path / "r")
    with pytest.raises(InputError, match="the run has no rows; there is nothing to compare"):
        load_run(path)


# -- the one-step gate: tokbench run --baseline, tokbench baseline update ----------------------

def test_run_gate_and_baseline_update(bpe_files, tmp_path, monkeypatch, capsys):
    from tokbench.ci.history import History

    monkeypatch.chdir(tmp_path)
    full, pruned = bpe_files
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    suite = load_suite("multilingual", languages=LANGS, limit=30)
    for lang in ("eng_Latn", "fra_Latn"):
        lines = [d.text for d in suite.documents if d.lang == lang]
        (corpus / f"{lang}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    tok = tmp_path / "tokenizer.json"
    tok.write_bytes(full.read_bytes())
    db = tmp_path / "history.sqlite"
    common = ["run", "-t", f"file:{tok}", "-s", f"text:{corpus}?parallel=true",
              "-m", "compression,roundtrip", "--no-plots", "--no-html", "--no-fetch",
              "--history", str(db)]

    assert main([*common, "-o", "first"]) == 0
    assert main(["baseline", "update", "--from", "first"]) == 0
    assert "baseline tokbench-baseline.json ← first: commit" in capsys.readouterr().out
    baseline = Results.load("tokbench-baseline.json")
    assert len(baseline.rows) == len(Results.load("first").rows)

    # the same tokenizer again: no regression, compare.md says so
    assert main([*common, "-o", "again", "--baseline"]) == 0
    assert (tmp_path / "again" / "compare.md").read_text(encoding="utf-8").startswith(
        "**tokbench: ✅ no change")

    # the tokenizer file loses its accented merges: French compression regresses
    tok.write_bytes(pruned.read_bytes())
    assert main([*common, "-o", "pruned", "--baseline", "tokbench-baseline.json",
                 "--allow-change", "tokenizer"]) == 1
    md = (tmp_path / "pruned" / "compare.md").read_text(encoding="utf-8")
    assert f"**file:{tok} · bytes_per_token ↑: 2 worse**" in md
    assert "| **❌ worse** | text:corpus | fra_Latn |" in md
    # ... and without --allow-change too (issue 21.2): the file under test changing is what
    # a gate is for; the change is said once
    assert main([*common, "-o", "pruned2", "--baseline", "tokbench-baseline.json"]) == 1
    md2 = (tmp_path / "pruned2" / "compare.md").read_text(encoding="utf-8")
    assert md2.count("file changed") == 1
    assert f"**file:{tok} · bytes_per_token ↑: 2 worse**" in md2

    with History(db) as h:
        assert h.runs() == 4
        assert h.values("subset", metric="bytes_per_token") == ["all", "eng_Latn", "fra_Latn"]

    # bad gate options stop before the run, exit 2
    capsys.readouterr()
    for bad in (["--baseline", "missing.json"], ["--fail", "bytes:1%"],
                ["--allow-change", "tokenzer"]):
        with pytest.raises(SystemExit) as exc:
            main([*common, "-o", "never", *bad])
        assert exc.value.code == 2
        assert not (tmp_path / "never").exists()
    assert "no such results file" in capsys.readouterr().err


def test_baseline_update_refuses_an_incomplete_run(tmp_path, capsys):
    run_dir = tmp_path / "run"
    meta = RunMeta.from_dict({"complete": False, "settings": {}, "tokenizers": {"t": {}},
                              "suites": {"s": {"sha256": "ab" * 32}}})
    Results(rows=[Row("t", "s", "all", "tokens", 1)], meta=meta).save(run_dir)
    target = tmp_path / "b.json"
    assert main(["baseline", "update", "--from", str(run_dir), "--to", str(target)]) == 2
    assert "the run is incomplete" in capsys.readouterr().err and not target.exists()
    assert main(["baseline", "update", "--from", str(run_dir), "--to", str(target),
                 "--force"]) == 0
    assert main(["baseline", "show", str(target)]) == 0
    assert "1 rows" in capsys.readouterr().out


def test_fertility_convention_segmenter_and_definitions_are_compared():
    def meta(conv: str, seg: str, renyi: str) -> RunMeta:
        return RunMeta.from_dict(
            {"settings": {"fertility": conv},
             "segmenters": {"eng_Latn": seg},
             "suites": {"s": {"languages": ["eng_Latn"]}},
             "metric_formulas": {"renyi_efficiency_vocab": renyi, "tokens": "Σ tokens"}})

    rows = [Row("t", "s", "all", "fertility", 1.4), Row("t", "s", "all", "tokens", 10),
            Row("t", "s", "all", "renyi_efficiency_vocab", 0.4)]
    base = Results(rows=rows, meta=meta("context/words", "rule (1)", "H / log |V|"))
    same = compare(base, Results(rows=rows, meta=meta("context/words", "rule (1)",
                                                      "H / log |V|")))
    assert {r.status for r in same.rows} == {"unchanged"}
    new = Results(rows=rows, meta=meta("alone/whitespace", "rule (2)", "H / log |seen|"))
    by = {r.metric: r for r in compare(base, new).rows}
    assert by["tokens"].status == "unchanged"  # none of the three touches token counts
    assert by["fertility"].status == "not_comparable"
    assert by["fertility"].reason == (
        "setting fertility changed ('context/words' → 'alone/whitespace'); "
        "word segmenter of eng_Latn changed (rule (1) → rule (2))")
    assert by["renyi_efficiency_vocab"].reason == (
        "definition of renyi_efficiency_vocab changed (H / log |V| → H / log |seen|)")
    by = {r.metric: r for r in compare(base, new, allow_change=["settings", "segmenter",
                                                                "definition"]).rows}
    assert by["fertility"].status == "unchanged"


# -- a comparison of nothing is no pass; inputs that cannot be compared are refused ----------

def test_nothing_compared_says_why():
    tokens = [Row("t", "s", "all", "tokens", 5)]
    base, new = _runs(tokens, [Row("u", "s", "all", "tokens", 5)])
    comp = compare(base, new)
    assert comp.nothing_compared() == (
        "base and new have no row in common (base: tokenizers t; suites s; new: tokenizers u; "
        "suites s); compare runs of the same tokenizers and suites")
    with pytest.raises(InputError, match=r"^nothing was compared: base and new have no row"):
        comp.require_compared()

    timing = [_tp_row("throughput_mb_s", 10.0, [10.0])]
    comp = compare(*_runs([*tokens, *timing], [dataclasses.replace(t, tokenizer="u")
                                               for t in [*tokens, *timing]]))
    assert comp.nothing_compared() is not None
    assert comp.nothing_compared().startswith(  # type: ignore[union-attr]
        "base and new have no row in common (base: tokenizers t; suites s; new: tokenizers u")
    comp = compare(*_runs(timing, timing))
    assert comp.nothing_compared() == (
        "the rows in common (1) are timings, and timings are judged only when asked for: pass "
        "--fail throughput:15% (a metric or family) or --judge-timings")
    assert compare(*_runs(timing, timing), timings=True).nothing_compared() is None
    busy = [_tp_row("throughput_mb_s", 5.0, [5.0], cpu_share=0.3)]
    assert compare(*_runs(timing, busy), timings=True).nothing_compared() == (
        "the rows in common (1) are timings, and a run had under half a CPU per thread: the "
        "machine was too busy to judge them; rerun on a quieter machine")

    def suite(sha: str) -> RunMeta:
        return RunMeta.from_dict({"suites": {"s": {"sha256": sha}}})
    base, new = Results(rows=tokens, meta=suite("a" * 64)), Results(rows=tokens,
                                                                    meta=suite("b" * 64))
    assert compare(base, new).nothing_compared() == (
        "the one row cannot be compared: suite 's' content changed (sha256 "
        "aaaaaaaaaaaa → bbbbbbbbbbbb); rerun both sides on the same inputs, or --allow-change "
        "KIND compares them anyway")
    assert compare(base, new, allow_change=["suite"]).nothing_compared() is None
    assert compare(*_runs(tokens, tokens)).nothing_compared() is None


def test_cli_nothing_compared_exits_2(toy_runs, tmp_path, capsys):
    data = json.loads(Path(toy_runs["base"]).read_text(encoding="utf-8"))
    for r in data["rows"]:
        r["tokenizer"] = "other"
    data["meta"]["tokenizers"] = {"other": data["meta"]["tokenizers"]["toy"]}
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data), encoding="utf-8")
    err = _error_of(["compare", toy_runs["base"], str(other), "--markdown-out",
                     str(tmp_path / "c.md")], capsys)
    assert err.startswith(f"tokbench: error: nothing was compared: {toy_runs['base']} and "
                          f"{other} have no row in common")
    assert not (tmp_path / "c.md").exists()  # no comment that looks like a pass


def test_duplicate_rows_with_different_values_are_refused():
    row = Row("t", "s", "all", "tokens", 5)
    base, new = _runs([row], [row, dataclasses.replace(row, value=6)])
    with pytest.raises(InputError, match=r"^new: row t · s · all · tokens appears twice with "
                                         r"different values \(5 and 6\)"):
        compare(base, new)
    assert compare(*_runs([row], [row, row])).verdict() == "no change (1 rows)"  # the same row


# -- the output: verdict first, changes grouped, the rest counted, 80 columns ---------------

def _many_changes() -> Comparison:
    """Two tokenizers over 40 languages, the first's file retrained (worse everywhere)."""
    langs = [f"l{i:02d}_Latn" for i in range(40)]
    metrics = ("tokens", "bytes_per_token", "roundtrip")

    def results(sha: str, factor: float) -> Results:
        rows = []
        for tok in ("mine", "theirs"):
            f = factor if tok == "mine" else 1.0
            for lang in ["all", *langs]:
                rows += [Row(tok, "multilingual", lang, "tokens", round(1000 * f)),
                         Row(tok, "multilingual", lang, "bytes_per_token", 4.0 / f),
                         Row(tok, "multilingual", lang, "roundtrip", 1.0),
                         Row(tok, "multilingual", lang, "throughput_mb_s", 3.0 * f)]
        meta = {"tokenizers": {"mine": {"source": {"kind": "file", "sha256": sha}},
                               "theirs": {}}, "settings": {},
                "suites": {"multilingual": {"sha256": "c" * 64}}}
        return Results(rows=rows, meta=RunMeta.from_dict(meta))

    comp = compare(results("a" * 64, 1.0), results("b" * 64, 1.25))
    assert len(comp.rows) == 2 * 41 * (len(metrics) + 1)
    return comp


def test_terminal_output_is_verdict_first_grouped_and_fits_80_columns():
    from rich.console import Console

    from tokbench.render.comparison import print_comparison

    comp = _many_changes()
    con = Console(width=80, record=True, color_system=None)
    print_comparison(con, comp)
    lines = [ln.rstrip() for ln in con.export_text().splitlines()]
    assert lines[0] == "regression: 82 worse (82 not judged); 164 unchanged"
    assert max(len(ln) for ln in lines) <= 80
    text = "\n".join(lines)
    assert text.count("file changed") == 1  # said once, not on each of the 82 rows
    assert "mine · tokens ↓: 41 worse" in text and "mine · bytes_per_token ↑: 41 worse" in text
    assert "theirs" not in text  # unchanged
    assert text.count("… 35 more rows (--all shows them)") == 2  # 6 rows a group
    assert lines[-2:] == ["the rest: 164 unchanged, 82 not judged (timings: --fail METRIC:TOL "
                          "or", "--judge-timings judges them)"]
    assert len(lines) < 40


def test_markdown_has_the_same_structure():
    md = render_markdown(_many_changes())
    head = md.split("<details>")[0]
    assert head.startswith("**tokbench: ❌ regression: 82 worse (82 not judged); 164 "
                           "unchanged**\n")
    assert head.count("file changed") == 1
    assert head.index("- note: tokenizer 'mine' file changed") \
        < head.index("**mine · tokens ↓: 41 worse**") \
        < head.index("**mine · bytes_per_token ↑: 41 worse**") \
        < head.index("The rest: 164 unchanged, 82 not judged")
    assert "| **❌ worse** | multilingual | all | 1,000 | 1,250 | +25.00% |" in head
    assert head.count("… and 31 more rows") == 2  # 10 rows a group


def test_rows_gone_with_their_segmenter_are_not_comparable():
    """A baseline with Japanese fertility against a plain install (no word segmenter for
    Japanese, so no fertility row): the segmenter changed, nothing regressed."""
    def meta(seg: str | None) -> RunMeta:
        return RunMeta.from_dict({"segmenters": {"jpn_Jpan": seg, "eng_Latn": "rule (1)"},
                                  "suites": {"s": {"languages": ["eng_Latn", "jpn_Jpan"]}}})

    tokens = [Row("t", "s", lang, "tokens", 10) for lang in ("eng_Latn", "jpn_Jpan")]
    base = Results(rows=[*tokens, Row("t", "s", "jpn_Jpan", "fertility", 1.4),
                         Row("t", "s", "eng_Latn", "fertility", 1.2)], meta=meta("mecab (1)"))
    new = Results(rows=[*tokens, Row("t", "s", "eng_Latn", "fertility", 1.2)], meta=meta(None))
    comp = compare(base, new)
    by = {(r.subset, r.metric): r for r in comp.rows}
    gone = by[("jpn_Jpan", "fertility")]
    assert (gone.status, gone.fails) == ("not_comparable", False)
    assert gone.reason == "word segmenter of jpn_Jpan changed (mecab (1) → none)"
    assert by[("eng_Latn", "tokens")].status == "unchanged" and not comp.regression
    assert by[("eng_Latn", "fertility")].status == "unchanged"  # its segmenter is the same


def test_a_changed_morpheme_analyzer_concerns_its_own_metrics():
    """Another Sudachi dictionary makes sudachi_a rows not comparable; MeCab's morph rows
    and fertility (its word segmenter is the same) are still judged."""
    def meta(sudachi: str) -> RunMeta:
        return RunMeta.from_dict({"segmenters": {"jpn_Jpan": "mecab (1)",
                                                 "jpn_Jpan/morph": "mecab (1)",
                                                 "jpn_Jpan/sudachi_a": sudachi},
                                  "suites": {"s": {"languages": ["jpn_Jpan"]}}})

    rows = [Row("t", "s", "jpn_Jpan", m, 0.5)
            for m in ("sudachi_a_recall", "morph_recall", "fertility")]
    comp = compare(Results(rows=rows, meta=meta("sudachi (1)")),
                   Results(rows=[Row(r.tokenizer, r.suite, r.subset, r.metric, 0.4)
                                 for r in rows], meta=meta("sudachi (2)")))
    by = {r.metric: r for r in comp.rows}
    assert by["sudachi_a_recall"].status == "not_comparable"
    assert by["sudachi_a_recall"].reason == ("sudachi_a morpheme analyzer of jpn_Jpan changed "
                                             "(sudachi (1) → sudachi (2))")
    assert by["morph_recall"].status == "worse" and by["fertility"].status == "better"


EVIL = "evil\n::warning::injected\x1b[31m\u202e"


def test_names_cannot_break_a_line_of_the_output(tmp_path, capsys):
    """A name from a crafted results file (a pull request's baseline) with a new line would
    start a line of its own in the CI log, where ``::warning::`` is a workflow command; an
    escape sequence or a bidi override would change what is shown. They are shown as
    ``<U+XXXX>``, in the terminal, the Markdown and the one-line errors."""
    from rich.console import Console

    from tokbench.render.comparison import print_comparison

    base, new = _runs([Row(EVIL, "s", "all", "tokens", 5)], [Row(EVIL, "s", "all", "tokens", 6)])
    comp = compare(base, new)
    con = Console(width=80, record=True, color_system=None)
    print_comparison(con, comp)
    for text in (con.export_text(), render_markdown(comp)):
        assert not [ln for ln in text.splitlines() if ln.startswith("::")]
        assert "\x1b" not in text and "\u202e" not in text
        assert "evil<U+000A>::warning::injected<U+001B>[31m<U+202E>" in text.replace(
            "&lt;", "<").replace("&gt;", ">")
    # one line of error, whatever the name
    data = json.loads(Path(_save(base, tmp_path / "b")).read_text(encoding="utf-8"))
    data["meta"] = {"tokenizers": {EVIL: {}}, "suites": {"s": {"sha256": "a" * 64}},
                    "settings": {}}
    data["rows"].append({**data["rows"][0], "value": 7})
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps(data), encoding="utf-8")
    err = _error_of(["compare", str(dup), str(dup)], capsys)
    assert "row evil<U+000A>::warning::injected<U+001B>[31m<U+202E> · s · all · tokens " \
           "appears twice" in err
