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

    # the tokenizer file is what changed: without saying so, the rows are not comparable
    strict = compare(base, new)
    assert {r.status for r in strict.rows} == {"not_comparable"}
    assert "tokenizer 'mybpe' file changed (sha256 " in strict.rows[0].reason
    assert not strict.regression

    comp = compare(base, new, allow_change=["tokenizer"])
    by = {(r.subset, r.metric): r for r in comp.rows}
    fra, eng = by[("fra_Latn", "bytes_per_token")], by[("eng_Latn", "bytes_per_token")]
    assert fra.status == "worse" and fra.fails and fra.new < fra.base
    assert eng.status == "unchanged" and eng.new == eng.base  # ASCII text: same tokens
    assert by[("all", "bytes_per_token")].status == "worse"
    assert by[("fra_Latn", "tokens")].status == "worse"
    assert by[("fra_Latn", "premium")].status == "worse"  # more tokens than English now
    assert by[("eng_Latn", "premium")].status == "unchanged"  # 1.0 by definition
    assert by[("fra_Latn", "roundtrip")].status == "unchanged"  # byte-level: still lossless
    assert "tokenizer 'mybpe' file changed" in fra.notes[0]
    assert comp.regression
    # the Markdown shows the French regression and not the unchanged English row
    md = render_markdown(comp)
    assert md.startswith("**tokbench: ❌ regression: ")
    assert "| mybpe | multilingual | fra_Latn | bytes_per_token ↑ |" in md
    assert "eng_Latn | bytes_per_token" not in md

    # a generous tolerance on the French loss: worse, but tolerated
    loss = (fra.base - fra.new) / fra.base
    lenient = compare(base, new, allow_change=["tokenizer"],
                      fail=[f"compression:{loss * 100 + 1:.1f}%", "premium:100%"])
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
        extra = {**r.extra, "samples": list(samples),
                 "spread": (max(samples) - min(samples)) / med}
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
        comp = compare(a, b)
        assert not comp.regression, comp.verdict()
        assert {r.status for r in comp.rows} <= {"unchanged", "not_significant", "better"}
        changes.append(abs(comp.rows[0].relative or 0.0))
    # the noise the rule must see through was there: with seed 13, two honest medians are
    # 22% and 26% apart (a run whose repeats were hit), beyond the 10% tolerance, and are
    # judged noise because their ranges overlap
    assert sum(c > 0.10 for c in changes) == 2

    slow = _timed(throughput_run, _shared_machine(rng, speed / 2))
    comp = compare(runs[-1], slow)
    rows = {r.metric: r for r in comp.rows}
    for metric in ("throughput_mb_s", "throughput_tokens_s"):
        r = rows[metric]
        assert r.status == "worse" and r.fails, (r.relative, r.base_range, r.new_range)
        assert r.relative is not None and r.relative <= -0.10  # the default tolerance
        assert r.new_range is not None and r.base_range is not None
        assert r.new_range[1] < r.base_range[0]  # every slow repeat slower than every honest one
    assert comp.regression


def _tp_row(metric: str, value: float, samples: list[float]) -> Row:
    return Row("t", "s", "all", metric, value, {"samples": samples, "spread": 0.0, "repeats": 5})


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
    row = compare(base, new).rows[0]
    assert row.status == status
    assert row.fails == (status == "worse")
    assert row.base_range == (9.6, 10.2)
    # a looser threshold lets the 12% slowdown through as noise
    if status == "worse":
        assert compare(base, new, fail=["throughput:15%"]).rows[0].status == "not_significant"


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
    by = {r.metric: r for r in compare(base, new).rows}
    assert by["throughput_mb_s"].status == "not_comparable"
    assert by["throughput_mb_s"].reason == ("timings from different machines "
                                            "(a, 2 CPUs → b, 4 CPUs)")
    assert by["tokens"].status == "worse" and by["tokens"].fails  # counts do not depend on it
    assert compare(base, new, allow_change=["machine"]).rows[0].status == "worse"


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


def test_backend_version_and_settings_changes_are_not_comparable():
    def meta(version: str, join: bool) -> RunMeta:
        return RunMeta.from_dict(
            {"tokenizers": {"t": {"backend": "tokenizers", "backend_version": version}},
             "settings": {"premium_join": join, "throughput_repeats": 5}})

    rows = [Row("t", "s", "fra_Latn", "premium", 1.2), Row("t", "s", "all", "tokens", 10)]
    base = Results(rows=rows, meta=meta("0.19.1", False))
    new = Results(rows=[Row("t", "s", "fra_Latn", "premium", 1.3),
                        Row("t", "s", "all", "tokens", 10)], meta=meta("0.20.0", True))
    by = {r.metric: r for r in compare(base, new).rows}
    assert by["tokens"].reason == "tokenizers version changed (0.19.1 → 0.20.0)"
    assert by["premium"].reason == ("tokenizers version changed (0.19.1 → 0.20.0); "
                                    "setting premium_join changed (False → True)")
    by = {r.metric: r for r in compare(base, new, allow_change=["backend"]).rows}
    assert by["tokens"].status == "unchanged"  # premium_join does not touch token counts
    assert by["premium"].status == "not_comparable"


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
    assert "| fra_Latn | bytes_per_token ↑ |" in md and "eng_Latn | bytes_per_token" not in md
    # ... and without --allow-change the changed file makes it not comparable (exit 0)
    assert main([*common, "-o", "pruned2", "--baseline", "tokbench-baseline.json"]) == 0
    assert "file changed" in (tmp_path / "pruned2" / "compare.md").read_text(encoding="utf-8")

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
    Results(rows=[Row("t", "s", "all", "tokens", 1)], meta=RunMeta(complete=False)).save(run_dir)
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
