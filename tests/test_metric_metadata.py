"""Metric metadata lives on the metric: format, summary membership and the settings a value
depends on are read from ``MetricInfo`` by every renderer and by ``compare``, so a
third-party metric is shown and judged like a built-in one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests._plugins import install_distribution
from tokbench.ci.compare import compare
from tokbench.cli import main
from tokbench.engine.runner import run
from tokbench.errors import TokbenchError, UnknownNameError
from tokbench.metrics import (
    METRICS,
    SUMMARY_RUN,
    SUMMARY_SWEEP,
    all_metrics,
    metric_info,
    setting_scopes,
    summary_metrics,
)
from tokbench.metrics.base import StatisticNotCollected, SumsView
from tokbench.metrics.stats import collectors_for
from tokbench.render.tables import format_value
from tokbench.results import Results

FAST = ["--no-history", "--repeats", "1", "--no-html", "--no-plots"]

PLUGIN = """
    from tokbench.metrics import SUMMARY_RUN, MetricInfo

    ONE_TOKEN_WORDS = MetricInfo(
        "one_token_words", "higher", "share of words that are one token",
        "Σ words of exactly 1 token / Σ words", family="plugin_words",
        needs=("single_words", "words"), percent=True, label="1-token words",
        summary=(SUMMARY_RUN,), settings=("fertility",),
        compute=lambda s, ctx: s["single_words"] / s["words"] if s["words"] else None)
"""


def install_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    """Install ``source`` as module ``tbwords_metrics`` whose ``ONE_TOKEN_WORDS`` is
    registered as metric ``one_token_words`` through the ``tokbench.metrics`` group."""
    install_distribution(tmp_path, monkeypatch, "tbwords",
                         "[tokbench.metrics]\none_token_words = tbwords_metrics:ONE_TOKEN_WORDS\n",
                         {"tbwords_metrics": source}, [METRICS])


@pytest.fixture
def plugin_metric(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A share metric that depends on the fertility setting, from an entry point."""
    install_plugin(tmp_path, monkeypatch, PLUGIN)
    return "one_token_words"


def test_a_third_party_share_metric_shows_as_percent_in_the_summary_and_compares_by_setting(
        plugin_metric: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "c.txt"
    # chars: one token per character; whitespace words a, bc, def, g, h: 3 of 5 are one token
    corpus.write_text("a bc def\ng h\n", encoding="utf-8")
    spec = f"text:{corpus}?lang=eng_Latn"
    runs = {}
    for conv in ("alone/whitespace", "context/whitespace"):
        out = tmp_path / conv.replace("/", "-")
        assert main(["run", "-t", "chars", "-s", spec, "-m", "compression,plugin_words",
                     "--fertility", conv, "--out", str(out), *FAST]) == 0
        runs[conv] = Results.load(out)
    printed = capsys.readouterr().out
    assert "1-token words ↑" in printed and "60.00%" in printed  # the terminal summary
    report = (tmp_path / "alone-whitespace" / "report.md").read_text(encoding="utf-8")
    assert "| one_token_words ↑ | 60.00% |" in report
    base, new = runs["alone/whitespace"], runs["context/whitespace"]
    assert base.value("chars", "text:c", "all", plugin_metric) == pytest.approx(3 / 5)
    by = {r.metric: r for r in compare(base, new).rows if r.subset == "all"}
    assert by[plugin_metric].status == "not_comparable"
    assert "setting fertility changed" in by[plugin_metric].reason
    assert by["tokens"].status == "unchanged"  # the convention does not touch token counts


def test_shares_print_as_percentages_and_everything_else_as_decimals() -> None:
    shares = {m.name for m in all_metrics() if m.percent}
    # the four that used to print as decimals beside percentages
    assert {"strr", "byte_token_rate", "digits_groups3", "digits_whole"} <= shares
    assert format_value(0.25, metric_info("strr")) == "25.00%"
    assert format_value(1.23456, metric_info("bytes_per_token")) == "1.2346"
    assert format_value(0.5, metric_info("renyi_efficiency_vocab")) == "0.5000"


def test_summaries_and_setting_scopes_come_from_the_metrics() -> None:
    assert [m.name for m in summary_metrics(SUMMARY_RUN)] == [
        "tokens", "bytes_per_token", "chars_per_token", "fertility", "premium", "roundtrip",
        "unk_rate", "throughput_mb_s"]
    assert [m.name for m in summary_metrics(SUMMARY_SWEEP)] == [
        "tokens", "bytes_per_token", "fertility", "roundtrip", "unk_rate", "byte_fallback",
        "vocab_used", "renyi_efficiency_vocab"]
    scopes = setting_scopes()
    assert scopes["fertility"] == ("fertility", "continued_words", "strr")
    assert scopes["premium_join"] == ("premium", "premium_gini", "premium_macro",
                                      "premium_worst")
    assert metric_info("unk_rate").header == "unk ↓"


# -- no silent defaults -----------------------------------------------------------------------

def test_a_formula_reading_a_statistic_it_did_not_ask_for_fails_with_the_fix() -> None:
    view = SumsView({"tokens": 3})
    assert view["tokens"] == 3
    with pytest.raises(StatisticNotCollected, match="'words' was not collected: name it in "
                       "the metric's needs"):
        view["words"]


def test_an_unknown_statistic_is_an_error_not_the_counts_collector() -> None:
    assert collectors_for(["words", "tokens"]) == {"counts", "words"}
    with pytest.raises(UnknownNameError, match="unknown statistic 'word'; did you mean "
                       "'words'"):
        collectors_for(["word"])


@pytest.mark.parametrize(("change", "says"), [
    (('needs=("single_words", "words")', 'needs=("single_word", "words")'),
     "unknown statistic 'single_word'; did you mean 'single_words'"),
    (('"one_token_words", "higher"', '"one_token", "higher"'),
     "metric 'one_token_words' is registered under another name than its MetricInfo.name "
     "'one_token'"),
    (('summary=(SUMMARY_RUN,)', 'summary=("headline",)'), "unknown summary view 'headline'"),
    (('"higher"', '"up"'), "direction must be 'higher', 'lower' or 'none', got 'up'"),
])
def test_a_plugin_metric_is_checked_when_it_is_registered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: tuple[str, str],
        says: str) -> None:
    install_plugin(tmp_path, monkeypatch, PLUGIN.replace(*change))
    with pytest.raises(TokbenchError, match=re.escape(says)):
        run(["chars"], ["unicode"], ["compression"])


def test_a_throughput_that_fails_is_a_recorded_error_not_a_silently_missing_row(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tokbench.speed import rate

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("clock went backwards")

    monkeypatch.setattr(rate, "measure_rate", broken)
    res = run(["chars"], ["unicode"], ["compression", "throughput"], throughput_subsets=False)
    assert not [r for r in res.rows if r.metric.startswith("throughput")]
    assert [(e.tokenizer, e.suite, e.error) for e in res.meta.errors] == [
        ("chars", "unicode", "throughput of subset all not measured: RuntimeError: clock went "
                             "backwards")]
    assert res.meta.errors[0].subject == "tokenizer chars on suite unicode"
