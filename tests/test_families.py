"""Metric families as objects: the runner calls every family's hooks the same way, so a
third party's family (an entry point) runs like a built-in one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._plugins import install_distribution
from tests._toy import ToyTokenizer
from tokbench.engine.runner import Settings, run
from tokbench.errors import TokbenchError
from tokbench.families import FAMILY_CLASSES, AskedFamily, FormulaFamily, family, run_families
from tokbench.metrics import METRICS, metrics_of
from tokbench.suites.model import Document, Suite

SHARE = """
    from tokbench.constants import ALL
    from tokbench.families import Family
    from tokbench.metrics import MetricInfo
    from tokbench.results import Row

    TOKEN_SHARE = MetricInfo("token_share", "none", "a subset's share of the suite's tokens",
                             "Σ tokens(subset) / Σ tokens", family="share")
    SUBSETS = MetricInfo("subsets_seen", "none", "subsets of the run's suites",
                         "count", family="share")


    class ShareFamily(Family):
        def before_shards(self, ctx):
            self.seen = 0

        def suite_rows(self, ctx, plan, tokenizer, stats):
            total = stats.subsets[ALL].sums["tokens"]
            self.seen += len(stats.subsets) - 1
            return [Row(tokenizer, plan.suite.name, key, "token_share", sub.sums["tokens"] / total)
                    for key, sub in sorted(stats.subsets.items()) if key != ALL]

        def after_all(self, ctx, plans):
            for name in ctx.toks:
                ctx.results.rows.append(Row(name, "share", ALL, "subsets_seen", self.seen))
                ctx.unit_finished(name, "share")


    class NotAFamily:
        pass
"""


@pytest.fixture
def share_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A distribution registering the metrics of family ``share`` and its family object,
    through the entry points a third party would declare."""
    install_distribution(
        tmp_path, monkeypatch, "tbshare",
        "[tokbench.metrics]\ntoken_share = tbshare:TOKEN_SHARE\nsubsets_seen = tbshare:SUBSETS\n"
        "[tokbench.families]\nshare = tbshare:ShareFamily\n",
        {"tbshare": SHARE}, [METRICS, FAMILY_CLASSES])


def _suite() -> Suite:
    return Suite("two", "1", [Document("e1", "eng_Latn", "d", "ab ab"),
                              Document("d1", "deu_Latn", "d", "ba"),
                              Document("e2", "eng_Latn", "d", "x")])


@pytest.mark.usefixtures("share_plugin")
def test_a_third_party_family_adds_suite_rows_and_rows_of_its_own() -> None:
    # toy pieces a, b, space: "ab ab" is 5 tokens, "ba" 2, "x" one unknown: 8 in all
    tok = ToyTokenizer(["a", "b", " "])
    results = run([tok], [_suite()], ["share", "compression"])
    assert results.meta.metric_families == ["share", "compression"]
    assert results.value("toy", "two", "eng_Latn", "token_share") == 6 / 8
    assert results.value("toy", "two", "deu_Latn", "token_share") == 2 / 8
    assert results.value("toy", "two", "all", "tokens") == 8  # the formula family beside it
    assert results.value("toy", "share", "all", "subsets_seen") == 2
    assert ["toy", "share"] in (results.meta.finished_units or [])
    assert {r.metric for r in results.rows if r.suite == "two"} == {
        "token_share", "tokens", "bytes_per_token", "chars_per_token"}


@pytest.mark.usefixtures("share_plugin")
def test_a_family_entry_point_that_is_no_family_is_refused() -> None:
    FAMILY_CLASSES.register("broken", "tbshare:NotAFamily")
    with pytest.raises(TokbenchError, match=r"'broken'.*not a subclass of"):
        family("broken")
    with pytest.raises(TokbenchError, match="'broken' is registered but no metric names it"):
        run_families(["compression"], Settings())
    assert "share" in FAMILY_CLASSES.names()


def test_the_digit_metrics_go_to_the_suites_that_ask_unless_chosen_by_name() -> None:
    numbers = family("numbers")
    assert isinstance(numbers, AskedFamily)
    plain = _suite()
    asking = Suite("n", "1", plain.documents, families=("numbers",))
    assert (numbers.applies_to(plain, False), numbers.applies_to(asking, False)) == (
        False, True)
    assert numbers.applies_to(plain, True)
    assert family("compression").applies_to(plain, False)
    assert type(family("compression")) is FormulaFamily


def test_a_gold_file_is_scored_without_choosing_its_family_and_never_on_a_suite() -> None:
    settings = Settings()
    names = [f.name for f in run_families(["compression", "premium"], settings)]
    assert names == ["compression", "premium"]
    settings.morph_gold = "gold.csv"  # not read here: only prepare() reads it
    names = [f.name for f in run_families(["compression", "premium"], settings)]
    assert names == ["compression", "premium", "morph_gold"]
    assert not family("morph_gold").applies_to(_suite(), True)


def test_choosing_morph_gold_without_a_file_warns_and_gives_no_rows() -> None:
    results = run(["chars"], [_suite()], ["compression", "morph_gold"])
    assert [w for w in results.meta.warnings if "morph_gold" in w] == [
        "morph_gold scores a gold segmentation file and none was given, so it is left empty; "
        "add --morph-gold FILE (MorphScore items, un+believ+able CSV or JSONL)"]
    gold_metrics = {m.name for m in metrics_of(["morph_gold"])}
    assert gold_metrics and not [r for r in results.rows if r.metric in gold_metrics]
    assert {r.suite for r in results.rows} == {"two"}


def test_premium_collects_aligned_counts_of_parallel_suites_only() -> None:
    premium = family("premium")
    parallel = Suite("p", "1", [Document("a", "eng_Latn", "d", "x", align="1")],
                     parallel=True)
    assert premium.collectors(parallel) == {"counts", "aligned"}
    assert premium.collectors(_suite()) == {"counts"}
