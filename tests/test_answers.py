"""Answers that do not mislead: no "best" for lossy or unknown-token values, the one-screen
verdict, tables that fit 80 columns, the output lock removed on exit."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from tokbench.metrics.trust import UNK_CHARS_LIMIT, Trust, combine
from tokbench.metrics.verdict import verdict
from tokbench.record import RunMeta, SuiteInfo, TokenizerInfo
from tokbench.render.html import render_html
from tokbench.render.markdown import render_markdown
from tokbench.render.tables import build_tables
from tokbench.results import Results, Row

LANGS = ("eng_Latn", "khm_Khmr")


def _results() -> Results:
    """Four tokenizers on a two-language suite "s":

    * ``lossless`` and ``longer``: round-trip 100 %, no unknown characters;
    * ``lossy``: round-trip 50 % on khm_Khmr (so on all), no unknown characters;
    * ``unk``: lossless, but 96.5 % of the Khmer characters (and 40 % of all) unknown.

    chars per token on all: lossless 1.0, longer 0.8, lossy 2.0, unk 4.0, i.e. tokens per
    1,000 characters 1000, 1250, 500, 250. On khm_Khmr the cheapest lossless is
    ``longer`` (1.5 against 1.25 chars per token).
    """
    cpt = {"lossless": {"all": 1.0, "eng_Latn": 1.0, "khm_Khmr": 1.25},
           "longer": {"all": 0.8, "eng_Latn": 0.7, "khm_Khmr": 1.5},
           "lossy": {"all": 2.0, "eng_Latn": 2.0, "khm_Khmr": 2.0},
           "unk": {"all": 4.0, "eng_Latn": 1.1, "khm_Khmr": 9.0}}
    rt = {"lossy": {"all": 0.5, "eng_Latn": 1.0, "khm_Khmr": 0.5}}
    unk = {"unk": {"all": 0.4, "eng_Latn": 0.0, "khm_Khmr": 0.965}}
    rows = []
    for tok, by in cpt.items():
        for subset, v in by.items():
            rows.append(Row(tok, "s", subset, "chars_per_token", v))
            rows.append(Row(tok, "s", subset, "roundtrip", rt.get(tok, {}).get(subset, 1.0)))
            rows.append(Row(tok, "s", subset, "unk_chars", unk.get(tok, {}).get(subset, 0.0)))
        rows.append(Row(tok, "s", "khm_Khmr", "premium", by["khm_Khmr"] and 1 / by["khm_Khmr"]))
        rows.append(Row(tok, "s", "all", "premium_worst", 1 / by["khm_Khmr"],
                        {"lang": "khm_Khmr"}))
    meta = RunMeta(suites={"s": SuiteInfo(name="s", subset_by="lang", parallel=True,
                                          languages=list(LANGS))},
                   tokenizers={t: TokenizerInfo(name=t) for t in cpt})
    return Results(rows=rows, meta=meta)


def test_best_is_never_a_lossy_or_unknown_value() -> None:
    tables = {(t.metric.name): t for t in build_tables(_results())}
    cpt = tables["chars_per_token"]
    # unk (4.0) and lossy (2.0) compress "best"; the best lossless value is lossless (1.0)
    assert cpt.best["all"] == {"lossless"}
    assert cpt.symbol("all", "lossy") == "†" and cpt.symbol("all", "unk") == "‡"
    assert cpt.symbol("all", "lossless") == ""
    # on English nobody is flagged: lossy's 2.0 wins there (it is lossless on English)
    assert cpt.best["eng_Latn"] == {"lossy"} and "eng_Latn" not in cpt.flags
    assert cpt.best["khm_Khmr"] == {"longer"}
    # premium (lower is better): unk's 0.111 and lossy's 0.5 on Khmer are flagged
    prem = tables["premium"]
    assert prem.best["khm_Khmr"] == {"longer"}
    assert set(prem.flags["khm_Khmr"]) == {"lossy", "unk"}
    # an aggregate over languages carries the caveat of its worst language
    worst = tables["premium_worst"]
    assert worst.best["all"] == {"longer"}
    assert worst.flags["all"]["unk"].reason == "96.5% of characters unknown on khm_Khmr"
    assert worst.flags["all"]["lossy"].reason == "round-trip 50.00% on khm_Khmr"
    # equal values are nobody's win, also when some of them are flagged
    trust = Trust([Row("b", "s", "eng_Latn", "roundtrip", 0.0)])
    assert trust.best({"a": 1.0, "b": 1.0}, "s", "eng_Latn", "premium") == set()
    assert trust.best({"a": 1.0, "b": 0.9}, "s", "eng_Latn", "premium") == {"a"}
    # round-trip and unk_chars themselves are never flagged
    assert not tables["roundtrip"].flags and not tables["unk_chars"].flags


def test_the_unknown_share_limit_is_exclusive() -> None:
    rows = [Row("a", "s", "all", "unk_chars", UNK_CHARS_LIMIT),
            Row("b", "s", "all", "unk_chars", UNK_CHARS_LIMIT * 1.01)]
    trust = Trust(rows)
    assert trust.caveat("a", "s", "all", "tokens") is None
    assert trust.caveat("b", "s", "all", "tokens") is not None
    assert trust.caveat("b", "s", "all", "throughput_mb_s") is None  # counts no tokens
    assert combine([]).flagged is False


def test_best_marks_and_flags_reach_markdown_and_html() -> None:
    res = _results()
    md = render_markdown(res)
    assert "| all | **1.0000** | 0.8000 | 2.0000† | 4.0000‡ |" in md
    assert "† not lossless here" in md and "‡ over 1% of characters" in md
    page = render_html(res)
    assert re.search(r'class="num flagged"[^>]*title="round-trip 50.00%: never marked best"',
                     page)
    assert 'class="num best" data-v="1.0"' in page
    # the verdict comes first in both, with the same figures
    assert md.index("## Verdict") < md.index("## Tokenizers")
    assert "| s | **lossless** | 1,000.0 | 20.0% fewer tokens than longer | unk needs 75.0% " \
        "fewer tokens but loses text (40.0% of characters unknown) |" in md
    assert page.index('id="verdict"') < page.index('id="run"')
    assert '<td><b>lossless</b></td><td class="num">1,000.0</td>' in page


def test_the_verdict_numbers_by_hand() -> None:
    v = verdict(_results())
    line, eng, khm = v.of("cost")  # two languages: a line each after the suite's
    assert line.subject == "s"
    assert line.winner is not None and line.winner.tokenizer == "lossless"
    assert line.winner.value == pytest.approx(1000.0)
    assert line.runner_up is not None and line.runner_up.tokenizer == "longer"
    assert line.margin == pytest.approx(1 - 1000 / 1250)  # 20 % fewer tokens
    assert line.margin_text() == "20.0% fewer tokens than longer"
    # the main caveat: a cheaper tokenizer that loses text (unk: 250 against 1000)
    assert line.caveat == ("unk needs 75.0% fewer tokens but loses text (40.0% of "
                           "characters unknown)")
    # per language: lossy is lossless on eng_Latn and cheapest there (2.0 chars per
    # token); on khm_Khmr lossy and unk are flagged and longer (1.5) beats lossless (1.25)
    assert line.by_language == [("longer", 1), ("lossy", 1)]
    assert "cheapest in 0 of 2 languages only (also longer in 1, lossy in 1)" in line.caveats
    # English: lossy is lossless there; 1000/2.0 = 500 against unk's 1000/1.1 = 909.09
    assert eng.subject == "s · eng_Latn" and eng.winner is not None
    assert (eng.winner.tokenizer, eng.winner.value) == ("lossy", pytest.approx(500.0))
    assert eng.margin_text() == "45.0% fewer tokens than unk" and eng.caveats == []
    # Khmer: longer 666.67 beats lossless 800; unk (111.11) and lossy (500) lose text
    assert khm.winner is not None and khm.winner.tokenizer == "longer"
    assert khm.margin == pytest.approx(1 - (1000 / 1.5) / 800)
    assert khm.caveat == ("unk needs 83.3% fewer tokens but loses text (96.5% of "
                          "characters unknown)")


def test_a_verdict_without_round_trip_says_so() -> None:
    rows = [Row("a", "s", "all", "chars_per_token", 2.0),
            Row("b", "s", "all", "chars_per_token", 1.99)]
    res = Results(rows=rows, meta=RunMeta(suites={"s": SuiteInfo(name="s")}))
    (line,) = verdict(res).lines
    assert line.winner is not None and line.winner.tokenizer == "a"
    assert line.winner.value == pytest.approx(500.0)
    assert line.caveats == ["losslessness not measured (add -m roundtrip,unknown)",
                            "a near tie with b (within 1%)"]


def test_the_speed_verdict_is_latency_per_thousand_characters() -> None:
    rows = [Row("fast", "speed", "chat", "encode_p50_us", 50.0,
                {"request_chars": 200.0, "cpu_share": 0.95}),
            Row("slow", "speed", "chat", "encode_p50_us", 80.0,
                {"request_chars": 200.0, "cpu_share": 0.5}),
            Row("fast", "speed", "document", "encode_p50_us", 5000.0,
                {"request_chars": 10000.0, "cpu_share": 0.99})]
    res = Results(rows=rows, meta=RunMeta(suites={"speed": SuiteInfo(name="speed")}))
    chat, document = verdict(res).of("speed")
    assert chat.subject == "chat" and chat.winner is not None
    assert chat.winner.value == pytest.approx(250.0)  # 50 µs for 200 characters
    assert chat.runner_up is not None and chat.runner_up.value == pytest.approx(400.0)
    assert chat.margin_text() == "37.5% less time than slow"
    assert chat.caveat.startswith("the machine was busy: the median call of slow waited")
    assert document.winner is not None and document.winner.value == pytest.approx(500.0)


def _terminal(width: int) -> str:
    from tokbench.commands.run import _print_summary

    res = _results()
    for tok in res.meta.tokenizers:  # a wide table: every headline metric
        for metric, value in (("tokens", 123456789), ("bytes_per_token", 3.14159),
                              ("fertility", 1.23456), ("unk_rate", 0.0123),
                              ("throughput_mb_s", 12.345678)):
            res.rows.append(Row(tok, "s", "all", metric, value))
    buf = io.StringIO()
    _print_summary(Console(file=buf, width=width, color_system=None), res, None)
    return buf.getvalue()


def test_the_run_summary_fits_80_columns_and_cuts_no_value() -> None:
    out = _terminal(80)
    assert max(len(line.rstrip()) for line in out.splitlines()) <= 80
    # every value is shown whole, MB/s included; flagged values carry their symbol
    assert out.count("12.35") == 4 and "123,456,789" in out
    assert "†2.0000" in out and "‡4.0000" in out
    assert out.index("lossless: 1,000.0 tokens / 1,000 chars") < out.index("s · all")
    assert "† not lossless here" in out
    # at 80 columns the headers wrap; at 60 the table is split in two, values still whole
    narrow = _terminal(60)
    assert "(1/2)" not in out and "s · all (1/2)" in narrow and "(continued, 2/2)" in narrow
    assert max(len(line.rstrip()) for line in narrow.splitlines()) <= 60
    assert narrow.count("12.35") == 4 and narrow.count("100.00%") == 3


def test_a_finished_run_leaves_no_lock(tmp_path) -> None:
    from tokbench.cli.outdir import OutputFolder, OutputLockedError

    out = tmp_path / "latest"
    with OutputFolder(out) as folder:
        assert folder.lock_path.exists()
        with pytest.raises(OutputLockedError), OutputFolder(out):
            pass
    assert not (tmp_path / ".latest.lock").exists()
    with OutputFolder(out):  # and the next run locks again
        assert (tmp_path / ".latest.lock").exists()
    assert not (tmp_path / ".latest.lock").exists()


def test_a_lock_removed_under_a_waiting_run_is_not_trusted(tmp_path) -> None:
    """A run that opened the lock file just before its holder removed it locks a new one."""
    import os

    from tokbench.cli.outdir import _same_file

    path = tmp_path / ".x.lock"
    path.write_text("")
    with open(path, "a+", encoding="utf-8") as f:
        assert _same_file(f, path)
        os.unlink(path)
        assert not _same_file(f, path)
        path.write_text("")  # someone else's new lock file
        assert not _same_file(f, path)


def test_an_unknown_metric_is_refused_before_fetching(tmp_path, monkeypatch, capsys) -> None:
    import tokbench.commands.run as run_command
    from tokbench.cli import main

    def fetch(specs: list[str]) -> None:
        raise AssertionError(f"fetched {specs}")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run_command, "_prefetch", fetch)
    assert main(["run", "-t", "gpt2", "-s", "unicode", "-m", "compression,fertilty",
                 "--no-history", "-o", "out"]) == 2
    assert "unknown metric 'fertilty'; did you mean 'fertility'?" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # no lock, no staging folder


def test_transformers_is_imported_without_its_advice_and_the_setting_restored() -> None:
    import os
    import subprocess
    import sys

    code = ("import os; from tokbench.adapters.transformers_adapter import "
            "_import_transformers as f; f(); "
            "print(os.environ.get('TRANSFORMERS_NO_ADVISORY_WARNINGS'))")
    env = {k: v for k, v in os.environ.items() if k != "TRANSFORMERS_NO_ADVISORY_WARNINGS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120, check=True)
    assert done.stdout == "None\n"
    assert "PyTorch was not found" not in done.stderr and "[transformers]" not in done.stderr


def test_the_viewer_of_a_filtered_suite_has_no_content_note() -> None:
    from tokbench.engine.runner import run
    from tokbench.engine.viewer import viewer_from_results

    results = run(["bytes"], ["multilingual?languages=eng_Latn,jpn_Jpan"], ["compression"])
    assert results.meta.suites["multilingual"].spec == "multilingual?languages=eng_Latn,jpn_Jpan"
    data = viewer_from_results(results)
    assert data["notes"] == []
    (suite,) = data["suites"]
    assert {s["lang"] for s in suite["samples"]} == {"eng_Latn", "jpn_Jpan"}


def test_the_sweep_says_its_pick_is_at_the_edge_and_reconciles_one_answer() -> None:
    from tokbench.training.sweep import reconcile, round_size

    sizes = [1024, 2048, 4096, 8192]
    rec = {"size": 8192, "met": True, "within": 0.02, "worst": {}}
    alone = reconcile(rec, sizes, None)
    assert alone["size"] == 8192 and alone["source"] == "sweep"
    assert alone["extend"] == ["16k", "32k"]
    assert alone["edge"]["at"] == "largest"
    assert "8k is the largest size tried" in alone["edge"]["text"]
    scaling = {"overall": "all", "groups": {"all": {"approach2": 71631.4}},
               "settings": {"model_params": 7e9}, "paper": {"approach2": 50000.0}}
    both = reconcile(rec, sizes, scaling)
    assert both["size"] == 71631 and both["pick"] == 8192 and both["source"] == "compute-optimal"
    assert both["reasons"][0] == ("compute-optimal for N_nv = 7e+09 (Tao et al. 2024, approach "
                                  "2 with this corpus's f(V)): 71,631")
    assert "it is larger than the sweep's pick, which is only the largest size tried: both " \
        "point above the sizes measured" in both["reasons"]
    assert both["extend"] == ["16k", "32k", "128k"]  # 2^17 = 131,072 covers 71,631
    # a pick inside the range, an optimum below it, the paper's f(V) when the corpus's fails
    mid = {"size": 2048, "met": True, "within": 0.02, "worst": {}}
    low = reconcile(mid, sizes, {**scaling, "groups": {"all": {"approach2": None,
                                                               "gamma_reason": "too flat"}},
                                 "paper": {"approach2": 700.2}})
    assert low["size"] == 700 and low["edge"] is None and low["extend"] == ["512"]
    assert "this corpus's f(V) could not be calibrated: too flat" in low["reasons"]
    assert any(r.startswith("it is smaller than the sweep's pick") for r in low["reasons"])
    inside = reconcile(mid, sizes, {**scaling, "groups": {"all": {"approach2": 5000.5}}})
    assert inside["size"] == 5001 and inside["extend"] == [] and inside["edge"] is None
    assert ("it is larger than the sweep's pick: beyond 2k each language gains under 2% "
            "bytes per token, but for this model the fewer tokens still save more compute "
            "than the larger embedding costs") in inside["reasons"]
    # the smallest size already meeting the rule is an edge too
    small = reconcile({"size": 1024, "met": True, "within": 0.02,
                       "worst": {"1024": {"subset": "eng_Latn", "below_best_pct": 1.5}}},
                      sizes, None)
    assert small["extend"] == ["512"] and "eng_Latn is 1.5% below its best" in \
        small["edge"]["text"]
    # one rounding: halves go up (Python's round() rounds them to even: round(2.5) == 2)
    assert round_size(71631.5) == 71632 and round_size(2.5) == 3 and round_size(71631.49) == 71631


def test_recommend_never_calls_a_lossy_tokenizer_best() -> None:
    from tokbench.render.vocab_law import best_line, placement_rows
    from tokbench.training.law import mark_caveats

    section = {"tokenizers": [{"tokenizer": "xlmr", "vocab": 250002, "tokens_per_char": 0.3,
                               "flops_per_char": 80.0, "flops_vs_best_pct": 0.0,
                               "v_over_approach1": 1, "v_over_approach2": 1,
                               "v_over_approach3": 1},
                              {"tokenizer": "o200k", "vocab": 200019, "tokens_per_char": 0.4,
                               "flops_per_char": 100.0, "flops_vs_best_pct": 25.0,
                               "v_over_approach1": 1, "v_over_approach2": 1,
                               "v_over_approach3": 1}],
               "languages": {"khm_Khmr": [{"tokenizer": "o200k", "tokens_per_char": 0.5,
                                           "flops_per_char": 50.0, "flops_vs_best_pct": 0.0}]}}
    trust = Trust([Row("xlmr", "m", "all", "roundtrip", 0.9055),
                   Row("o200k", "m", "all", "roundtrip", 1.0),
                   Row("o200k", "m", "khm_Khmr", "unk_chars", 0.5)])
    mark_caveats(section, trust, ["m"])
    xlmr, o200k = section["tokenizers"]
    assert xlmr["caveat"] == "round-trip 90.55% on m" and xlmr["caveat_symbols"] == "†"
    assert "caveat" not in o200k
    assert o200k["flops_vs_best_pct"] == 0.0 and xlmr["flops_vs_best_pct"] == pytest.approx(-20.0)
    assert section["languages"]["khm_Khmr"][0]["caveat_symbols"] == "‡"
    assert best_line(section) == (
        "Fewest training FLOPs per character among lossless tokenizers: o200k.",
        "xlmr† needs 20.0% fewer FLOPs per character but is not counted: round-trip 90.55% "
        "on m.")
    assert placement_rows(section)[0][:5] == ["xlmr†", "250,002", "0.3000", "80", "-20.0%"]


def test_train_shows_the_sample_as_text_not_vocabulary_glyphs() -> None:
    from tests._trained import adapter
    from tokbench.commands.train import readable

    tok = adapter("hf-bpe")  # byte-level BPE: " s" is "Ġs", "é" is "Ã©" inside
    text = " café crème 東京 𝔘"
    ids = tok.encode(text)
    glyphs = [tok.token_str(i) for i in ids]
    assert any("Ġ" in g for g in glyphs) and any("Ã" in g for g in glyphs)
    pieces = readable(tok, ids)
    assert len(pieces) == len(ids)
    assert not any("Ġ" in p or "Ã" in p for p in pieces)
    rebuilt = b"".join(bytes.fromhex(p[1:-1]) if p.startswith("<") and p.endswith(">")
                       else p.replace("·", " ").encode() for p in pieces)
    assert rebuilt == text.encode()  # the pieces spell the text exactly
    assert any(p.startswith("<f0") for p in pieces)  # 𝔘 is cut into bytes: shown as hex


def test_a_tokenizer_that_cannot_load_is_explained_once(tmp_path, monkeypatch, capsys) -> None:
    from tokbench.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text('{"junk": 1}', encoding="utf-8")
    assert main(["run", "-t", "bytes,file:bad.json", "-s", "unicode", "-m", "compression",
                 "--no-history", "--no-plots", "--no-html", "-o", "out"]) == 2
    captured = capsys.readouterr()
    output = " ".join((captured.out + captured.err).split())
    assert output.count("not a valid tokenizer.json") == 1, output
    assert "failed: tokenizer file:bad.json (why: above)" in output
    assert not (tmp_path / ".out.lock").exists()  # an exit with an error removes it too


def test_the_throughput_timing_is_a_phase_of_its_own() -> None:
    from tests._toy import ToyTokenizer
    from tokbench.engine.runner import run
    from tokbench.events import Event, PhaseStarted, TimingDone, TimingStarted
    from tokbench.suites.model import Document, Suite

    events: list[Event] = []
    suites = [Suite(f"s{k}", "1", [Document("d", "eng_Latn", "x", "ab ba")]) for k in (1, 2)]
    run([ToyTokenizer(["a", "b", " "])], suites, ["compression", "throughput"],
        progress=events.append, throughput_repeats=1)
    names = [e.kind for e in events]
    start = names.index("phase")
    assert events[start] == PhaseStarted(name="throughput", units=2)
    assert "shard" not in names[start:]  # the shard work is over when timing starts
    timing = [(e.kind, e.suite) for e in events[start:]
              if isinstance(e, (TimingStarted, TimingDone))]
    assert timing == [("timing", "s1"), ("timed", "s1"), ("timing", "s2"), ("timed", "s2")]


def _png_size(path) -> tuple[int, int]:
    import struct

    data = path.read_bytes()[:24]
    return struct.unpack(">II", data[16:24])


def test_plots_stay_at_page_width_however_many_subsets(tmp_path) -> None:
    from tokbench.render.plots import render_plots

    toks = [f"tok{k}" for k in range(8)]
    domains = [f"domain{k:02d}" for k in range(16)]
    rows = [Row(t, "d", g, "bytes_per_token", 1.0 + k / 10 + j / 100)
            for k, t in enumerate(toks) for j, g in enumerate(domains)]
    rows += [Row(t, "d", g, "roundtrip", 1.0 if t != "tok7" else 0.5)
             for t in toks for g in domains]
    rows += [Row(t, "p", "jpn_Jpan", "premium", 1.5 + k / 10) for k, t in enumerate(toks)]
    meta = RunMeta(suites={"d": SuiteInfo(name="d", subset_by="domain"),
                           "p": SuiteInfo(name="p", subset_by="lang", parallel=True)},
                   tokenizers={t: TokenizerInfo(name=t) for t in toks})
    few = Results(rows=[r for r in rows if r.subset in domains[:4] or r.suite == "p"],
                  meta=meta)
    for res, out in ((Results(rows=rows, meta=meta), tmp_path / "many"), (few, tmp_path / "few")):
        files = {p.name: p for p in render_plots(res, out)}
        width, height = _png_size(files["bytes_per_token_d.png"])
        assert width <= 990 and height <= 1400, (out.name, width, height)
        width, height = _png_size(files["premium_p.png"])  # one language, eight tokenizers
        assert width <= 990 and 300 <= height <= 600, (width, height)
