"""Fairness summary over a parallel suite's premiums, by hand and in a run."""

from __future__ import annotations

import pytest

from tests._toy import ToyTokenizer
from tokbench.engine.runner import run
from tokbench.metrics.fairness import fairness_rows, gini, summarize
from tokbench.results import Row
from tokbench.suites.model import Document, Suite


def test_gini_by_hand() -> None:
    # (1, 2, 3): Σ|xi - xj| over ordered pairs = 2 * (1 + 2 + 1) = 8; 8 / (2 * 3 * 6) = 2/9
    assert gini([1.0, 2.0, 3.0]) == pytest.approx(2 / 9)
    assert gini([2.0, 2.0]) == 0.0
    assert gini([0.0, 0.0, 5.0]) == pytest.approx(2 / 3)  # one carries all: (n - 1) / n
    assert gini([]) is None


def test_summary_names_the_worst_language() -> None:
    got = summarize({"eng_Latn": 1.0, "hin_Deva": 4.0, "deu_Latn": 1.6})
    assert got["premium_worst"] == (4.0, "hin_Deva")
    assert got["premium_macro"][0] == pytest.approx(6.6 / 3)
    # |1-4| + |1-1.6| + |4-1.6| = 6, doubled 12, / (2 * 3 * 6.6)
    assert got["premium_gini"][0] == pytest.approx(12 / 39.6)
    assert summarize({"eng_Latn": 1.0}) == {}


def test_rows_from_a_run() -> None:
    tok = ToyTokenizer(["a", "b", " ", "ab"], unk=False)
    docs = [Document("e1", "eng_Latn", "x", "ab ab", align="1"),
            Document("f1", "fra_Latn", "x", "a b a b", align="1"),
            Document("d1", "deu_Latn", "x", "ab ab ab", align="1")]
    res = run([tok], [Suite("s", "1", docs, parallel=True)], ["premium"])
    # tokens: eng 3, fra 7, deu 5 -> premiums 1, 7/3, 5/3
    p = [1.0, 7 / 3, 5 / 3]
    assert res.value("toy", "s", "all", "premium_macro") == pytest.approx(sum(p) / 3)
    assert res.value("toy", "s", "all", "premium_worst") == pytest.approx(7 / 3)
    assert res.value("toy", "s", "all", "premium_gini") == pytest.approx(gini(p))
    worst = next(r for r in res.rows if r.metric == "premium_worst")
    assert worst.extra == {"lang": "fra_Latn", "languages": 3}


def test_no_premiums_no_rows() -> None:
    assert fairness_rows([Row("t", "s", "all", "tokens", 3)]) == []


@pytest.mark.needs("flores")
@pytest.mark.real
def test_glotscope_parity_and_gini_on_flores(real_cache) -> None:
    """glotscope 0.1.0 ``analyze qwen tokenizer.json --corpus flores_plus --split devtest
    --languages eng_Latn,deu_Latn,rus_Cyrl,hin_Deva,tur_Latn --parity-reference eng_Latn
    --gini``: gini 0.2715056, macro_parity 2.0707867, worst hin_Deva 4.4159516."""
    langs = "eng_Latn,deu_Latn,rus_Cyrl,hin_Deva,tur_Latn"
    res = run(["qwen2"], [f"flores200?split=devtest&languages={langs}"], ["premium"])
    key = ("qwen3", "flores200-devtest", "all")  # qwen2 is an alias of qwen3
    assert res.value(*key, "premium_gini") == pytest.approx(0.2715056, abs=5e-7)
    assert res.value(*key, "premium_macro") == pytest.approx(2.0707867, abs=5e-7)
    assert res.value(*key, "premium_worst") == pytest.approx(4.4159516, abs=5e-7)


def test_reports_name_the_worst_language_and_plot_it(tmp_path) -> None:
    from tokbench.cli.output import write_outputs

    tok = ToyTokenizer(["a", "b", " ", "ab"], unk=False)
    docs = [Document("e1", "eng_Latn", "x", "ab ab", align="1"),
            Document("f1", "fra_Latn", "x", "a b a b", align="1")]
    res = run([tok], [Suite("s", "1", docs, parallel=True)], ["premium"])
    written = {p.name for p in write_outputs(res, tmp_path)}
    assert "fairness_s.png" in written
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "Worst-case language (premium_worst): toy fra_Latn (2.33)." in md
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Worst-case language (premium_worst): toy fra_Latn (2.33)." in html
    assert "Fairness across languages (s)" in html
