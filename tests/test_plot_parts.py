"""Plots drawn in two parts (two processes in ``tokbench run``) are the plots drawn at
once: the same files, byte for byte, merged back into report order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokbench.engine.runner import run
from tokbench.render.plots import plot_jobs, plot_order, render_plots
from tokbench.results import Results


@pytest.fixture(scope="module")
def results() -> Results:
    return run(["bytes", "chars"],
               ["multilingual?languages=eng_Latn,jpn_Jpan,deu_Latn", "code", "japanese"],
               ["compression", "premium", "fertility"], ci=None)


def test_two_parts_draw_the_same_files_as_one_call(results: Results, tmp_path: Path) -> None:
    whole = render_plots(results, tmp_path / "whole")
    first = render_plots(results, tmp_path / "parts", part=0, parts=2)
    second = render_plots(results, tmp_path / "parts", part=1, parts=2)
    assert [p.name for p in whole] == [
        "premium_multilingual.png", "fairness_multilingual.png", "bytes_per_token_code.png",
        "bytes_per_token_japanese.png", "fertility_japanese_multilingual.png",
        "fertility_japanese_japanese.png"]
    assert [p.name for p in first] == [whole[k].name for k in (0, 2, 4)]
    assert [p.name for p in second] == [whole[k].name for k in (1, 3, 5)]
    merged = plot_order(plot_jobs(results, tmp_path / "parts"), [*second, *first])
    assert [p.name for p in merged] == [p.name for p in whole]
    for a, b in zip(whole, merged, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_plot_jobs_list_every_plot_the_rows_allow(results: Results) -> None:
    names = [job.keywords["path"].name for job in plot_jobs(results, Path("."))]
    assert names[:6] == ["premium_multilingual.png", "fairness_multilingual.png",
                         "bytes_per_token_code.png", "bytes_per_token_japanese.png",
                         "fertility_japanese_multilingual.png", "fertility_japanese_japanese.png"]
    assert names[6:] == []  # the speed plots only with speed rows
