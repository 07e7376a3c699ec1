"""What the runner refuses or keeps right (issue #11, runner side): resume only what was
asked for, unique names, settings that do something, suite properties instead of names,
bounded throughput samples, segmenters of reused units."""

from __future__ import annotations

import dataclasses

import pytest

from tokbench.engine.runner import Settings, run
from tokbench.errors import InputError
from tokbench.families.throughput import THROUGHPUT_SAMPLE_BYTES, throughput_texts
from tokbench.results import Results
from tokbench.suites import load_suite
from tokbench.suites.model import Document, Suite


def metrics_of(results: Results, tokenizer: str, suite: str) -> set[str]:
    return {r.metric for r in results.rows if r.tokenizer == tokenizer and r.suite == suite}


def test_resume_does_not_reuse_a_unit_measured_for_other_metrics() -> None:
    first = run(["bytes"], ["unicode"], ["compression"])
    assert metrics_of(first, "bytes", "unicode") == {"tokens", "bytes_per_token",
                                                     "chars_per_token"}
    resumed = run(["bytes"], ["unicode"], ["compression", "roundtrip"], resume=first)
    assert "roundtrip" in metrics_of(resumed, "bytes", "unicode")
    again = run(["bytes"], ["unicode"], ["compression"], resume=first)
    assert again.meta.finished_units == [["bytes", "unicode"]]
    assert sorted(r.key for r in again.rows) == sorted(r.key for r in first.rows)


def test_a_reused_run_keeps_its_word_segmenters() -> None:
    first = run(["chars"], ["multilingual?languages=eng_Latn,deu_Latn"], ["fertility"])
    assert (first.meta.segmenters or {})["deu_Latn"].startswith("unicode-whitespace-punct")
    again = run(["chars"], ["multilingual?languages=eng_Latn,deu_Latn"], ["fertility"],
                resume=first)
    assert again.meta.segmenters == first.meta.segmenters


def test_two_suites_with_one_name_are_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for d in ("dupA", "dupB"):
        (tmp_path / d / "data").mkdir(parents=True)
        (tmp_path / d / "data" / "x.txt").write_text(f"{d}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"two suites are named 'text:data'; add \?name=OTHER"):
        run(["bytes"], [f"text:{tmp_path / 'dupA/data'}", f"text:{tmp_path / 'dupB/data'}"],
            ["compression"])
    ok = run(["bytes"], [f"text:{tmp_path / 'dupA/data'}",
                         f"text:{tmp_path / 'dupB/data'}?name=B"], ["compression"])
    assert set(ok.meta.suites) == {"text:data", "B"}


def test_the_same_tokenizer_twice_is_refused() -> None:
    with pytest.raises(InputError, match="tokenizers 'bytes' and bytes are the same tokenizer"):
        run(["bytes", "bytes"], ["unicode"], ["compression"])


def test_settings_are_checked_and_not_mixed_with_keywords() -> None:
    with pytest.raises(TypeError, match="either settings= or setting keywords"):
        run(["bytes"], ["unicode"], ["compression"], settings=Settings(), premium_join=True)
    with pytest.raises(TypeError, match="unknown setting 'premium'"):
        run(["bytes"], ["unicode"], ["compression"], premium=True)
    with pytest.raises(InputError, match="threads must be an integer >= 1, got 0"):
        Settings(threads=0)
    with pytest.raises(InputError, match="premium_join must be true or false, got 'no'"):
        Settings(premium_join="no")  # type: ignore[arg-type]
    assert set(Settings().to_dict()) == {"premium_join", "throughput_repeats",
                                         "throughput_subsets", "threads", "fertility",
                                         "morph_gold", "ci", "reference", "precision"}


def test_digit_metrics_follow_the_suite_not_its_name() -> None:
    renamed = run(["bytes"], ["numbers?name=digits"], ["compression"])
    assert metrics_of(renamed, "bytes", "digits") == {"tokens", "bytes_per_token",
                                                      "chars_per_token"}
    renamed = run(["bytes"], ["numbers?name=digits"], None, throughput_repeats=1)
    assert {"tokens_per_digit", "digits_single"} <= metrics_of(renamed, "bytes", "digits")
    plain = run(["bytes"], ["unicode"], None, throughput_repeats=1)
    assert "tokens_per_digit" not in metrics_of(plain, "bytes", "unicode")


def test_throughput_sample_is_capped_even_for_one_long_document() -> None:
    long = Suite("long", "1", [Document("d", "eng_Latn", "x", "abc " * 200_000)])  # 800 KB
    texts = throughput_texts(long, per_subset=False)["all"]
    assert len(texts) == 1 and len(texts[0].encode()) == THROUGHPUT_SAMPLE_BYTES
    suite = dataclasses.replace(load_suite("unicode"))
    sample = throughput_texts(suite, per_subset=False)["all"]
    assert sum(len(t.encode()) for t in sample) <= THROUGHPUT_SAMPLE_BYTES + max(
        len(d.text.encode()) for d in suite.documents)
