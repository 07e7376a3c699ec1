"""Seeded samples (``?sample=``), reading to a precision, and compare across samples."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tokbench.ci.compare import NOT_COMPARABLE, NOT_SIGNIFICANT, UNCHANGED, compare
from tokbench.engine.runner import run
from tokbench.errors import UnknownNameError
from tokbench.suites import load_suite
from tokbench.suites.sample import SampledStreamingSuite

WORDS = ["alpha", "beta", "gamma", "delta", "épsilon", "zêta", "ηta", "θeta", "ιota", "κappa"]


def corpus(tmp_path: Path, files: int = 3, lines: int = 400) -> Path:
    """Files of varied lines; file k leans on non-ASCII words more than file k-1."""
    root = tmp_path / "corpus"
    root.mkdir()
    for k in range(files):
        out = []
        for i in range(lines):
            n = 3 + (i * 7 + k) % 11
            out.append(" ".join(WORDS[(i * 3 + j * (k + 1)) % len(WORDS)] for j in range(n)))
            if i % 50 == 7:
                out.append("")  # an empty line: left out, counted
        (root / f"part{k}.txt").write_text("\n".join(out) + "\n", encoding="utf-8")
    return root


def sampled(spec: str, block: int = 4096) -> SampledStreamingSuite:
    """A sampled text suite cut in small blocks, so a small corpus has many."""
    suite = load_suite(spec)
    assert isinstance(suite, SampledStreamingSuite)
    return dataclasses.replace(suite, block_bytes=block)


def _value(results, metric="chars_per_token", subset="all", tok="bytes"):
    return next(r for r in results.rows if (r.tokenizer, r.subset, r.metric)
                == (tok, subset, metric))


def test_sample_of_an_in_memory_suite_is_seeded_and_uniform() -> None:
    a = load_suite("multilingual?sample=25%&seed=4")
    b = load_suite("multilingual?sample=25%&seed=4")
    c = load_suite("multilingual?sample=25%&seed=5")
    full = load_suite("multilingual")
    assert [d.id for d in a.documents] == [d.id for d in b.documents]
    assert [d.id for d in a.documents] != [d.id for d in c.documents]
    # a parallel suite is sampled by aligned text: every language keeps the same texts
    keys = {d.lang: {x.align for x in a.documents if x.lang == d.lang} for d in a.documents}
    assert len({frozenset(v) for v in keys.values()}) == 1
    texts = len({d.align for d in full.documents})
    info = a.meta["sample"]
    assert info["units"] == round(0.25 * texts) and info["population_units"] == texts
    assert info["seed"] == 4 and info["size"] == "25%"
    assert a.sha256 != full.sha256
    res = run(["bytes"], [a], ["compression"])
    row = _value(res)
    assert row.extra["ci_method"] == ("delta method; simple random sample; unit: aligned "
                                      "text (a text and its translations)")
    assert res.meta.suites[a.name].sample == info


def test_every_line_of_a_streamed_corpus_is_in_exactly_one_block(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    suite = load_suite(f"text:{root}?sample=100%")
    assert isinstance(suite, SampledStreamingSuite)
    suite = dataclasses.replace(suite, block_bytes=1000)  # many small blocks, cut in lines
    blocks = suite.order()
    assert len(blocks) > 30
    ids = [d.text for b in blocks for d in b.read()[0]]
    whole = [line for p in sorted(root.iterdir())
             for line in p.read_text(encoding="utf-8").splitlines() if line]
    assert sorted(ids) == sorted(whole)
    # every prefix of the drawing order is proportional to the strata (the files)
    head = blocks[:len(blocks) // 2]
    per_file = {f: sum(b.rel == f for b in head) for f in suite.population}
    assert max(per_file.values()) - min(per_file.values()) <= 1


def test_a_full_sample_gives_the_full_value_with_no_spread(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    full = run(["bytes"], [f"text:{root}"], ["compression"])
    whole = run(["bytes"], [sampled(f"text:{root}?sample=100%")], ["compression"])
    a, b = _value(full), _value(whole)
    assert b.value == pytest.approx(a.value, rel=1e-12)
    # every block read: no sampling error is left (finite-population correction)
    assert b.extra["ci_low"] == pytest.approx(a.value) == b.extra["ci_high"]
    assert "stratified sample of blocks" in b.extra["ci_method"]


def test_a_small_sample_reads_little_and_its_interval_holds_the_full_value(
        tmp_path: Path) -> None:
    root = corpus(tmp_path, files=4, lines=3000)
    full = _value(run(["bytes"], [f"text:{root}"], ["compression"]))
    res = run(["bytes"], [sampled(f"text:{root}?sample=40%&seed=1")], ["compression"])
    row = _value(res)
    info = res.meta.suites[f"text:{root.name}"].sample
    assert info["units"] < info["population_units"]
    assert info["bytes"] < 0.6 * sum(p.stat().st_size for p in root.iterdir())
    assert row.extra["ci_low"] <= full.value <= row.extra["ci_high"]


def test_precision_reads_until_the_intervals_are_narrow_enough(tmp_path: Path) -> None:
    root = corpus(tmp_path, files=4, lines=3000)
    spec = f"text:{root}?sample=1%&seed=2"
    res = run(["bytes"], [sampled(spec)], ["compression"], precision=0.002)
    info = res.meta.suites[f"text:{root.name}"].sample
    assert info["precision"] == 0.002
    if info["reached"]:
        assert info["relative_half_width"] <= 0.002
    else:  # the corpus ran out first
        assert info["units"] == info["population_units"]
    row = _value(res)
    assert (row.extra["ci_high"] - row.extra["ci_low"]) / 2 / row.value <= 0.002 + 1e-12
    again = run(["bytes"], [sampled(spec)], ["compression"], precision=0.002, jobs=2)
    assert _value(again).value == row.value  # the blocks read do not depend on scheduling
    assert again.meta.suites[f"text:{root.name}"].sample["units"] == info["units"]


def test_compare_judges_other_samples_on_their_intervals(tmp_path: Path) -> None:
    root = corpus(tmp_path, files=4, lines=3000)
    one = run(["bytes"], [sampled(f"text:{root}?sample=40%&seed=1&name=c")], ["compression"])
    same = run(["bytes"], [sampled(f"text:{root}?sample=40%&seed=1&name=c")], ["compression"])
    other = run(["bytes"], [sampled(f"text:{root}?sample=40%&seed=9&name=c")], ["compression"])
    status = {r.key: r for r in compare(one, same).rows}
    assert status[("bytes", "c", "all", "chars_per_token")].status == UNCHANGED
    rows = {r.key: r for r in compare(one, other).rows}
    row = rows[("bytes", "c", "all", "chars_per_token")]
    assert _value(one).value != _value(other).value
    assert row.status == NOT_SIGNIFICANT, row
    assert "inside the intervals" in row.reason
    # a metric without an interval (the token total) on other text is still not comparable
    assert rows[("bytes", "c", "all", "tokens")].status == NOT_COMPARABLE


def test_reference_must_be_one_of_the_run() -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'bytes'"):
        run(["bytes"], ["numbers"], ["compression"], reference="byts")


def test_verify_redraws_the_same_sample(tmp_path: Path) -> None:
    from tokbench.ci.verify import verify
    from tokbench.results import Results

    root = corpus(tmp_path, files=4, lines=3000)
    res = run(["bytes"], [f"text:{root}?sample=30%&seed=5"], ["compression"], precision=0.05)
    info = res.meta.suites[f"text:{root.name}"].sample
    assert info["seed"] == 5 and info["precision"] == 0.05
    again = verify(Results.from_dict(res.to_dict()))
    assert again.ok and again.checks, (again.problems, [c for c in again.checks if not c.ok])
