"""report.html without a browser: self-contained, every table, best marks, failure diffs,
and the token viewer's data (tokbench.engine.viewer) with exact ids, bytes and spans."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tokbench.adapters.baselines import load_bytes, load_chars
from tokbench.engine.viewer import (
    VIEWER_FILE,
    build_viewer,
    load_viewer,
    run_identity,
    save_viewer,
    segments_json,
    tokenize,
    viewer_for,
    viewer_from_results,
)
from tokbench.metrics.compute import classify_roundtrip
from tokbench.record import Failure, RunMeta, SuiteInfo, TokenizerInfo
from tokbench.render.html import diff_ranges, render_html, visible, write_html
from tokbench.render.tables import build_tables
from tokbench.results import Results, Row
from tokbench.suites.model import Document, Suite


class _Page(HTMLParser):
    """Collects tables (rows of (tag, attrs, text) cells), marks and the viewer JSON."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, Any]] = []
        self.marks: list[tuple[dict[str, str], str]] = []
        self.scripts: dict[str, str] = {}
        self.urls: list[tuple[str, str, str]] = []
        self._cell: list[Any] | None = None
        self._mark: list[Any] | None = None
        self._script: str | None = None
        self._stack: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for key in ("src", "href", "action", "poster", "data"):
            if key in a:
                self.urls.append((tag, key, a[key]))
        if tag == "table":
            self._stack.append({"attrs": a, "rows": [], "caption": ""})
        elif tag == "tr" and self._stack:
            self._stack[-1]["rows"].append([])
        elif tag in ("td", "th") and self._stack:
            self._cell = [tag, a, ""]
        elif tag == "mark":
            self._mark = [a, ""]
        elif tag == "script":
            self._script = a.get("id", "inline")
            self.scripts[self._script] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._stack:
            self.tables.append(self._stack.pop())
        elif tag in ("td", "th") and self._cell is not None and self._stack:
            self._stack[-1]["rows"][-1].append(tuple(self._cell))
            self._cell = None
        elif tag == "mark" and self._mark is not None:
            self.marks.append((self._mark[0], self._mark[1]))
            self._mark = None
        elif tag == "script":
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[2] += data
        if self._mark is not None:
            self._mark[1] += data
        if self._script is not None:
            self.scripts[self._script] += data


def parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    p.close()
    return p


def _table(p: _Page, first_header: str, containing: str) -> dict[str, Any]:
    for t in p.tables:
        head = [c[2].strip() for c in t["rows"][0]]
        if head and head[0].startswith(first_header) and any(containing in h for h in head):
            return t
    raise AssertionError(f"no table with {first_header!r} and {containing!r}")


def _cell(t: dict[str, Any], row: str, col: str) -> tuple[str, dict[str, str], str]:
    head = [c[2].strip() for c in t["rows"][0]]
    k = next(i for i, h in enumerate(head) if h == col or h.startswith(col + " "))
    for r in t["rows"][1:]:
        if r[0][2].strip() == row:
            return r[k]
    raise AssertionError(f"no row {row!r}")


# -- a small hand-made result ------------------------------------------------------------------

SUITE_META = {"name": "tiny", "version": "1", "sha256": "ab" * 32, "source": "builtin",
              "parallel": False, "subset_by": "lang", "documents": 3,
              "languages": ["eng_Latn", "fra_Latn"], "bytes": 40}


def hand_results() -> Results:
    """Two tokenizers, known values: A wins bytes_per_token in eng, B wins overall."""
    rows = []
    values = {  # (tokenizer, subset) -> (tokens, bytes_per_token)
        ("A", "all"): (30, 2.5), ("B", "all"): (20, 3.75),
        ("A", "eng_Latn"): (10, 4.0), ("B", "eng_Latn"): (12, 3.0),
        ("A", "fra_Latn"): (20, 1.5), ("B", "fra_Latn"): (8, 4.5),
    }
    for (tok, subset), (tokens, bpt) in values.items():
        rows.append(Row(tok, "tiny", subset, "tokens", tokens))
        rows.append(Row(tok, "tiny", subset, "bytes_per_token", bpt))
    rows.append(Row("A", "tiny", "all", "vocab_used", 0.25))  # direction "none": never best
    rows.append(Row("B", "tiny", "all", "vocab_used", 0.5))
    original = "The café on the corner sells croissants and fresh coffee every morning."
    decoded = original.replace("café", "cafe")
    failure = {"tokenizer": "A", "suite": "tiny", "doc_id": "eng:1",
               **classify_roundtrip(original, decoded, has_unk=False)}
    meta = {"tokbench_version": "0.1.0", "created": "2025-01-02T03:04:05Z",
            "git_commit": "0123456789abcdef", "machine": {"cpus": 2, "python": "3.11"},
            "settings": {"premium_join": False}, "complete": True,
            "tokenizers": {"A": {"name": "A", "backend": "builtin", "backend_version": "1",
                                 "vocab_size": 256, "source": {"kind": "builtin",
                                                               "location": "x",
                                                               "sha256": "cd" * 32}},
                           "B": {"name": "B", "backend": "builtin", "backend_version": "1",
                                 "vocab_size": 512, "source": {"kind": "builtin",
                                                               "location": "y",
                                                               "sha256": None}}},
            "suites": {"tiny": SUITE_META}}
    return Results(rows=rows, meta=RunMeta.from_dict(meta), failures=[Failure.from_dict(failure)])


@pytest.fixture(scope="module")
def page() -> str:
    return render_html(hand_results(), [], None)


def test_page_is_self_contained(page: str) -> None:
    p = parse(page)
    # nothing fetched: every src/href is a fragment or a data: URI, no external script/style
    assert all(url.startswith(("#", "data:")) for _, _, url in p.urls), p.urls
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert "script-src 'unsafe-inline'" in page and "default-src 'none'" in page
    assert page.count("<style>") == 1
    # both themes are in the one style sheet
    assert "prefers-color-scheme: dark" in page and ':root[data-theme="dark"]' in page
    assert page.count("--t0:") == 3  # light, dark (media query), dark (explicit)


def test_summary_names_versions_and_hashes(page: str) -> None:
    p = parse(page)
    toks = _table(p, "name", "sha256")
    assert _cell(toks, "A", "vocab")[2].strip() == "256"
    assert _cell(toks, "A", "sha256")[1]["title"] == "cd" * 32
    assert _cell(toks, "A", "sha256")[2] == "cd" * 6
    suites = _table(p, "suite", "sha256")
    assert _cell(suites, "tiny", "sha256")[1]["title"] == "ab" * 32
    assert "0123456789abcdef" in page and "2025-01-02T03:04:05Z" in page


def test_every_table_is_there(page: str) -> None:
    results = hand_results()
    p = parse(page)
    tables = build_tables(results, suites=["tiny"])
    assert {t.metric.name for t in tables} == {"tokens", "bytes_per_token", "vocab_used"}
    for t in tables:
        if len(t.subsets) > 1:
            assert f'<details class="metric" id="tiny-{t.metric.name}"' in page
            assert f'<caption class="sr">{t.title}</caption>' in page
    # summary leaderboard: tokenizers as rows, metrics as columns with direction arrows
    board = _table(p, "tokenizer", "bytes_per_token")
    heads = [c[2].strip() for c in board["rows"][0]]
    assert heads == ["tokenizer", "tokens ↓", "bytes_per_token ↑", "vocab_used"]
    assert [r[0][2] for r in board["rows"][1:]] == ["A", "B"]
    # per-language table: "all" pinned first, then English, then the rest
    per_lang = [t for t in p.tables if t["rows"][0][0][2].strip() == "language"]
    assert len(per_lang) == 2
    assert [r[0][2] for r in per_lang[0]["rows"][1:]] == ["all", "eng_Latn", "fra_Latn"]
    # the legend explains the marks
    assert "↑</b> higher is better" in page and "↓</b> lower is better" in page
    assert "best value of its row" in page


def test_best_value_marked_by_direction(page: str) -> None:
    p = parse(page)
    board = _table(p, "tokenizer", "bytes_per_token")
    assert "best" in _cell(board, "B", "bytes_per_token")[1]["class"]  # 3.75 > 2.5, higher
    assert "best" not in _cell(board, "A", "bytes_per_token")[1]["class"]
    assert "best" in _cell(board, "B", "tokens")[1]["class"]  # 20 < 30, lower
    assert _cell(board, "B", "tokens")[1]["data-v"] == "20"
    assert _cell(board, "B", "bytes_per_token")[2] == "best: 3.7500"
    for tok in ("A", "B"):  # no direction, no winner
        assert "best" not in _cell(board, tok, "vocab_used")[1]["class"]
    per_lang = [t for t in p.tables if t["rows"][0][0][2].strip() == "language"]
    bpt = next(t for t in per_lang if t["rows"][1][1][1]["data-v"] == "2.5")
    assert "best" in _cell(bpt, "eng_Latn", "A")[1]["class"]  # 4.0 beats 3.0
    assert "best" in _cell(bpt, "fra_Latn", "B")[1]["class"]  # 4.5 beats 1.5
    assert "best" not in _cell(bpt, "fra_Latn", "A")[1]["class"]
    # sortable headers carry the metric's direction for "best first" sorting
    assert 'data-dir="higher"' in page and 'data-dir="lower"' in page
    assert page.count('<button type="button" class="sort">') >= 10
    assert "<th aria-sort" not in page and " aria-sort=" not in page.split("</style>")[1]


def test_failure_span_is_highlighted_at_the_offset(page: str) -> None:
    p = parse(page)
    f = hand_results().failures[0]
    assert f.offset == 7  # "The caf|é": the first difference
    lo = max(0, f.offset - 20)
    marks = {a["class"]: (int(a["data-at"]), text) for a, text in p.marks if "data-at" in a}
    assert marks["del"] == (f.offset - lo, "é")
    assert marks["ins"] == (f.offset - lo, "e")
    fails = _table(p, "tokenizer", "expected")
    assert _cell(fails, "A", "offset")[2].strip() == "7"
    assert _cell(fails, "A", "kind")[2] == "other"


def _failure(original: str, decoded: str) -> tuple[dict[str, Any], list[tuple[int, int]],
                                                   list[tuple[int, int]]]:
    f = classify_roundtrip(original, decoded, has_unk=False)
    a, b = diff_ranges(f["expected"], f["got"], f["offset"])
    return f, a, b


def test_diff_ranges_replacement_deletion_insertion_normalization() -> None:
    prefix = "0123456789" * 5  # puts the difference past the excerpt window's start
    f, a, b = _failure(prefix + "naïve text", prefix + "naive text")
    assert f["offset"] == 52 and f["expected"][a[0][0]:a[0][1]] == "ï"
    assert a == [(20, 21)] and b == [(20, 21)]
    # a dropped character: the excerpts are cut 20 after the offset, so they end at
    # different places of the text; the cut must not show as a second difference
    long_tail = " and then a long tail of text follows here"
    f, a, b = _failure(prefix + "ab\u200bcd" + long_tail, prefix + "abcd" + long_tail)
    assert f["expected"][a[0][0]:a[0][1]] == "\u200b"
    assert a == [(20, 21)] and b == [(20, 20)]  # an empty range: nothing there in `got`
    # an inserted space (whitespace kind) at the very start of a document
    f, a, b = _failure("hello world", " hello world")
    assert f["offset"] == 0 and a == [(0, 0)] and b == [(0, 1)]
    # NFKC: one ligature became two letters
    f, a, b = _failure("the ﬁne print", "the fine print")
    assert f["kind"] == "normalization"
    assert f["expected"][slice(*a[0])] == "ﬁ" and f["got"][slice(*b[0])] == "fi"
    # two separate changes are both marked
    assert diff_ranges("a-b-c", "a+b+c") == ([(1, 2), (3, 4)], [(1, 2), (3, 4)])
    assert diff_ranges("same", "same") == ([], [])


def test_visible_whitespace() -> None:
    assert visible("a b") == 'a<span class="ws">·</span>b'
    assert visible("\n") == '<span class="ws">⏎</span><br>'
    assert visible("\t<") == '<span class="ws">→</span>&lt;'
    assert visible("\u200b") == '<span class="ctl">⟨U+200B⟩</span>'


# -- the token viewer ----------------------------------------------------------------------------


def tiny_suite() -> Suite:
    docs = [Document("eng:1", "eng_Latn", "news", "aé"),
            Document("eng:2", "eng_Latn", "news", "second english text"),
            Document("eng:3", "eng_Latn", "news", "third english text"),
            Document("fra:1", "fra_Latn", "news", "Où est la gare ?")]
    return Suite("tiny", "1", docs)


def test_tokenize_bytes_baseline_splits_e_acute_into_two_partial_tokens() -> None:
    tz = tokenize(load_bytes(), "aé")
    assert [t.id for t in tz.tokens] == [0x61, 0xC3, 0xA9]
    assert [t.hex for t in tz.tokens] == ["61", "c3", "a9"]
    assert [(t.start, t.end) for t in tz.tokens] == [(0, 1), (1, 2), (1, 2)]
    assert [(t.byte_start, t.byte_end) for t in tz.tokens] == [(0, 1), (1, 2), (2, 3)]
    assert [t.kind for t in tz.tokens] == ["text", "partial", "partial"]
    assert [t.display for t in tz.tokens] == ["a", "‹c3›", "‹a9›"]
    assert [s.kind for s in tz.segments] == ["token", "group"]
    assert tz.segments[1].text == "é" and tz.segments[1].split == "é"
    assert segments_json(tz) == [
        [0x61, 0, 1, 0, "a"],
        {"g": "é", "s": "é", "t": [[0xC3, 1, 2, 1, [[1, "c3"]], "c3", "\\xc3"],
                                   [0xA9, 1, 2, 1, [[1, "a9"]], "a9", "\\xa9"]]}]


def test_tokenize_chars_baseline_keeps_whole_characters() -> None:
    tz = tokenize(load_chars(), "aé🙂")
    assert [t.id for t in tz.tokens] == [0x61, 0xE9, 0x1F642]
    assert [t.hex for t in tz.tokens] == ["61", "c3 a9", "f0 9f 99 82"]
    assert [(t.start, t.end) for t in tz.tokens] == [(0, 1), (1, 2), (2, 3)]
    assert [(t.byte_start, t.byte_end) for t in tz.tokens] == [(0, 1), (1, 3), (3, 7)]
    assert all(s.kind == "token" for s in tz.segments)
    # hex and piece are derivable from the text: left out of the compact rows
    assert segments_json(tz) == [[0x61, 0, 1, 0, "a"], [0xE9, 1, 2, 0, "é"],
                                 [0x1F642, 2, 3, 0, "🙂"]]


def test_partial_token_holding_a_whole_char_and_a_partial_one() -> None:
    """A byte-level BPE token ``a\\xc3`` then ``\\xa9``: text "a" + hex c3, then hex a9."""
    import tiktoken

    from tokbench.adapters.tiktoken_adapter import R50K_PAT_STR
    from tokbench.adapters.tiktoken_adapter import load as load_tiktoken

    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"a\xc3"] = 256
    enc = tiktoken.Encoding("partial", pat_str=R50K_PAT_STR, mergeable_ranks=ranks,
                            special_tokens={})
    tok = load_tiktoken(enc, name="partial")
    tz = tokenize(tok, "aé b")
    assert [t.id for t in tz.tokens] == [256, 0xA9, 0x20, 0x62]
    first, second = tz.tokens[:2]
    assert first.parts == (("text", "a"), ("hex", "c3")) and first.kind == "partial"
    assert (first.start, first.end, first.byte_start, first.byte_end) == (0, 2, 0, 2)
    assert second.parts == (("hex", "a9"),) and (second.start, second.end) == (1, 2)
    group = tz.segments[0]
    assert group.kind == "group" and group.text == "aé" and group.split == "é"
    assert [t.id for t in group.tokens] == [256, 0xA9]
    assert [s.kind for s in tz.segments[1:]] == ["token", "token"]


def test_uncovered_text_becomes_a_gap() -> None:
    from tokbench.adapters.base import Encoding

    class Sparse(type(load_bytes())):  # type: ignore[misc]
        """Drops spaces, as WordPiece's pre-tokenizer does."""

        def encode_with_spans(self, text: str) -> Encoding:
            data = text.encode()
            keep = [k for k, b in enumerate(data) if b != 0x20]
            return Encoding([data[k] for k in keep], [(k, k + 1) for k in keep])

    tz = tokenize(Sparse("sparse", load_bytes().source), "a b")
    assert [(s.kind, s.text) for s in tz.segments] == [("token", ""), ("gap", " "),
                                                      ("token", "")]
    assert segments_json(tz)[1] == " "


def test_build_viewer_samples_per_subset_and_caps() -> None:
    data = build_viewer({"bytes": load_bytes(), "chars": load_chars()}, [tiny_suite()],
                        per_subset=2)
    samples = data["suites"][0]["samples"]
    assert [(s["subset"], s["doc_id"]) for s in samples] == [
        ("eng_Latn", "eng:1"), ("eng_Latn", "eng:2"), ("fra_Latn", "fra:1")]
    assert samples[0]["rows"]["bytes"]["n"] == 3 and samples[0]["rows"]["chars"]["n"] == 2
    # round-robin under a cap: every subset first
    data = build_viewer({"bytes": load_bytes()}, [tiny_suite()], per_subset=2, max_samples=2)
    assert [s["doc_id"] for s in data["suites"][0]["samples"]] == ["eng:1", "fra:1"]
    # long texts are cut at a word end and say so
    long = Suite("long", "1", [Document("x", "eng_Latn", "d", "word " * 100)])
    sample = build_viewer({"bytes": load_bytes()}, [long], max_chars=52)["suites"][0][
        "samples"][0]
    assert sample["truncated"] and sample["text"] == "word " * 9 + "word"
    assert sample["rows"]["bytes"]["n"] == 49


def test_viewer_data_in_the_page_has_exact_ids_and_hex(tmp_path: Path) -> None:
    viewer = build_viewer({"bytes": load_bytes(), "chars": load_chars()}, [tiny_suite()])
    save_viewer(viewer, tmp_path)  # the viewer's data is saved beside the page, as data
    path = write_html(hand_results(), tmp_path, [], viewer)
    page = path.read_text(encoding="utf-8")
    p = parse(page)
    data = json.loads(p.scripts["viewer-data"])
    assert data == json.loads((tmp_path / VIEWER_FILE).read_text(encoding="utf-8"))
    first = data["suites"][0]["samples"][0]
    assert first["text"] == "aé"
    assert first["rows"]["bytes"]["segs"] == [
        [97, 0, 1, 0, "a"],
        {"g": "é", "s": "é", "t": [[0xC3, 1, 2, 1, [[1, "c3"]], "c3", "\\xc3"],
                                   [0xA9, 1, 2, 1, [[1, "a9"]], "a9", "\\xa9"]]}]
    assert first["rows"]["chars"]["segs"] == [[97, 0, 1, 0, "a"], [233, 1, 2, 0, "é"]]
    # the viewer's markup: one box per suite, a tooltip element tokens describe themselves by
    assert '<div class="viewer" data-suite="0">' in page
    assert '<div id="tok-tip" role="tooltip" hidden></div>' in page
    assert 'setAttribute("aria-describedby", "tok-tip")' in page


def test_script_end_tags_in_texts_cannot_break_out() -> None:
    suite = Suite("evil", "1", [Document("x", "eng_Latn", "d", "</script><b>hi</b>")])
    page = render_html(hand_results(), [], build_viewer({"chars": load_chars()}, [suite]))
    p = parse(page)
    data = json.loads(p.scripts["viewer-data"])
    assert data["suites"][0]["samples"][0]["text"] == "</script><b>hi</b>"
    assert "</script><b>" not in page


def test_lone_surrogates_survive_json_and_html(tmp_path: Path) -> None:
    suite = Suite("odd", "1", [Document("x", "eng_Latn", "d", "a\ud800b")])
    viewer = build_viewer({"bytes": load_bytes()}, [suite])
    sample = viewer["suites"][0]["samples"][0]
    # UTF-8 cannot hold it: the row says so, the page is still written
    assert sample["rows"]["bytes"]["error"].startswith("UnicodeEncodeError")
    save_viewer(viewer, tmp_path)
    write_html(hand_results(), tmp_path, [], viewer)
    back = json.loads((tmp_path / VIEWER_FILE).read_text(encoding="utf-8"))
    assert back["suites"][0]["samples"][0]["text"] == "a\ud800b"


def test_plots_are_embedded_as_data_uris(tmp_path: Path) -> None:
    import base64
    import struct
    import zlib

    def png(w: int, h: int) -> bytes:
        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(
                ">I", zlib.crc32(kind + data))
        raw = b"".join(b"\x00" + b"\xff\x00\x00" * w for _ in range(h))
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0,
                                                                   0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

    (tmp_path / "premium_tiny.png").write_bytes(png(3, 2))
    page = write_html(hand_results(), tmp_path, ["premium_tiny.png", "gone.png"]
                      ).read_text(encoding="utf-8")
    uri = "data:image/png;base64," + base64.b64encode(png(3, 2)).decode()
    assert f'<img src="{uri}" alt="Token premium against English (tiny)" width="3" height="2">' \
        in page
    assert "plot gone.png is missing" in page
    assert "No viewer data" in page


# -- rebuilding the viewer from a results file ----------------------------------------------------


def _run_on_text_suite(tmp_path: Path) -> tuple[Results, Path]:
    from tokbench.engine.runner import run

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "eng_Latn.txt").write_text("aé\nthe second line\n", encoding="utf-8")
    (corpus / "fra_Latn.txt").write_text("déjà vu\n", encoding="utf-8")
    results = run(["bytes", "chars"], [f"text:{corpus}"], ["compression"])
    return results, corpus


def test_viewer_from_results_loads_tokenizers_and_suites(tmp_path: Path) -> None:
    results, _ = _run_on_text_suite(tmp_path)
    data = viewer_from_results(results)
    assert data["notes"] == []
    assert data["tokenizers"] == ["bytes", "chars"] == data["loaded"]
    assert data["run"] == run_identity(results)
    (suite,) = data["suites"]
    assert [s["text"] for s in suite["samples"]] == ["aé", "the second line", "déjà vu"]
    assert suite["samples"][0]["rows"]["bytes"]["segs"][1]["t"][0][0] == 0xC3


def test_a_tokenizer_that_cannot_load_is_a_note_not_an_error(tmp_path: Path) -> None:
    results, _ = _run_on_text_suite(tmp_path)
    results.meta.tokenizers["ghost-tok"] = TokenizerInfo.from_dict({
        "name": "ghost-tok", "source": {"kind": "file", "path": str(tmp_path / "gone.json"),
                                        "sha256": "ee" * 32}})
    results.meta.suites["gone-suite"] = SuiteInfo(name="gone-suite", source="text:/nonexistent",
                                                  sha256="ff" * 32)
    data = viewer_from_results(results)
    assert data["loaded"] == ["bytes", "chars"]
    assert data["tokenizers"] == ["bytes", "chars", "ghost-tok"]
    assert any(n.startswith("tokenizer 'ghost-tok' could not be loaded") for n in data["notes"])
    assert any(n.startswith("suite 'gone-suite' could not be loaded") for n in data["notes"])
    page = render_html(results, [], data)
    assert "tokenizer &#x27;ghost-tok&#x27; could not be loaded" in page


def test_changed_suite_content_is_noted(tmp_path: Path) -> None:
    results, corpus = _run_on_text_suite(tmp_path)
    (corpus / "fra_Latn.txt").write_text("autre chose\n", encoding="utf-8")
    data = viewer_from_results(results)
    assert any("content differs from the run's" in n for n in data["notes"])
    assert data["suites"][0]["samples"][-1]["text"] == "autre chose"


def test_write_html_reuses_viewer_json_built_for_the_same_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results, _ = _run_on_text_suite(tmp_path)
    out = tmp_path / "out"
    write_html(results, out, [], viewer_for(results, out))
    assert load_viewer(out, results) is not None

    def fail(*a: object, **k: object) -> None:
        raise AssertionError("viewer rebuilt although viewer.json was up to date")

    monkeypatch.setattr("tokbench.engine.viewer.viewer_from_results", fail)
    page = write_html(results, out, [], viewer_for(results, out)).read_text(encoding="utf-8")
    assert '"doc_id":"eng_Latn.txt:1"' in page
    # viewer data for other results is not reused
    other = Results(rows=results.rows, meta=dataclasses.replace(results.meta, tokenizers={}))
    assert load_viewer(out, other) is None
    save_viewer({"schema": "something else"}, out)
    assert load_viewer(out) is None


def test_report_command_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    from tokbench.cli import main

    results, _ = _run_on_text_suite(tmp_path)
    run_dir = tmp_path / "run"
    results.save(run_dir)
    assert main(["report", str(run_dir), "--no-plots"]) == 0
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "wrote " in capsys.readouterr().out
    data = json.loads(parse(page).scripts["viewer-data"])
    assert data["suites"][0]["samples"][0]["rows"]["chars"]["segs"] == [
        [97, 0, 1, 0, "a"], [233, 1, 2, 0, "é"]]
    assert (run_dir / VIEWER_FILE).is_file()
    # --no-viewer leaves it out; --out writes elsewhere
    assert main(["report", str(run_dir / "results.json"), "--no-plots", "--no-viewer",
                 "--out", str(tmp_path / "elsewhere")]) == 0
    assert "No viewer data" in (tmp_path / "elsewhere" / "report.html").read_text("utf-8")


def test_report_command_errors_are_one_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from tokbench.cli import main

    assert main(["report", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip()
    assert "no such results file" in err and len(err.splitlines()) == 1


def test_the_runs_own_tokenizers_and_suites_are_reused_not_loaded_again() -> None:
    from tokbench.engine.runner import run

    suite = Suite("mini", "1", [Document("e1", "eng_Latn", "d", "aé b"),
                                Document("f1", "fra_Latn", "d", "déjà")])
    kept: dict[str, object] = {}
    results = run(["bytes", "chars"], [suite], ["compression"], on_loaded=kept.update)
    assert sorted(kept) == ["bytes", "chars"]

    def refuse(spec: str) -> Suite:
        raise AssertionError(f"loaded again: {spec}")

    data = viewer_from_results(results, load_tokenizer=kept.__getitem__,  # type: ignore[arg-type]
                               load_suite=refuse, suites={"mini": suite})
    assert data["loaded"] == ["bytes", "chars"] and data["notes"] == []
    assert [s["text"] for s in data["suites"][0]["samples"]] == ["aé b", "déjà"]
    # without the run's suite object, "mini" (no spec anyone can load) is only a note
    alone = viewer_from_results(results, load_tokenizer=kept.__getitem__)  # type: ignore[arg-type]
    assert any(n.startswith("suite 'mini' could not be loaded") for n in alone["notes"])
