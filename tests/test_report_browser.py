"""report.html in a real headless Chromium: it renders offline, its tokens explain
themselves on focus and hover, its tables sort, and it reads in light and dark.

Driver: Python ``playwright`` with Debian's ``/usr/bin/chromium`` (never a downloaded
browser). Without Chromium the test is skipped locally and fails under ``CI=true``.
Screenshots go to the test's tmp dir, and to ``$TOKBENCH_SCREENSHOTS`` when set.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._needs import missing

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("TOKBENCH_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

CORPUS = {  # written for this test
    "eng_Latn.txt": "A café opens on Main Street.\nThe rain stopped before noon.\n",
    "fra_Latn.txt": "Un café ouvre rue Principale.\nLa pluie a cessé avant midi.\n",
    "jpn_Jpan.txt": "大通りにカフェが開店した。\n雨は昼前に止んだ。\n",
}
CODE = {"util.py": "def add(a, b):\n    return a + b\n",
        "main.js": "const total = items.reduce((s, x) => s + x, 0);\n"}
TRAINING = list(CORPUS.values()) * 10 + ["the cat sat on the mat", "def return const"] * 10


def _need_browser() -> Any:
    """The playwright module, or skip (fail in CI) with the reason."""
    problem = None
    try:
        from playwright import sync_api
    except ImportError:
        sync_api, problem = None, "the Python package playwright is not installed " \
                                  "(pip install playwright)"
    if problem is None and not Path(CHROMIUM).exists():
        problem = (f"no Chromium at {CHROMIUM} (apt-get install chromium, or set "
                   "TOKBENCH_CHROMIUM)")
    if problem:
        missing(problem)
    return sync_api


def _train(tmp: Path) -> dict[str, Any]:
    """A byte-level BPE (lossless) and a lower-casing WordPiece (lossy), trained here."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    from tokbench.adapters import hf_tokenizers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(TRAINING, trainers.BpeTrainer(
        vocab_size=330, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    bpe.save(str(tmp / "bpe.json"))
    wp = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wp.normalizer = normalizers.BertNormalizer(lowercase=True)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.decoder = decoders.WordPiece()
    wp.train_from_iterator(TRAINING, trainers.WordPieceTrainer(
        vocab_size=200, special_tokens=["[UNK]"], show_progress=False))
    wp.save(str(tmp / "wordpiece.json"))
    return {"tiny-bpe": hf_tokenizers.load(tmp / "bpe.json", name="tiny-bpe"),
            "tiny-wordpiece": hf_tokenizers.load(tmp / "wordpiece.json", name="tiny-wordpiece")}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real run (bytes, chars and two trained tokenizers on two suites) and its files."""
    _need_browser()
    from tokbench.cli.output import write_outputs
    from tokbench.engine.runner import run

    tmp = tmp_path_factory.mktemp("browser-report")
    corpus, code = tmp / "corpus", tmp / "code"
    corpus.mkdir()
    code.mkdir()
    for name, text in CORPUS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    for name, text in CODE.items():
        (code / name).write_text(text, encoding="utf-8")
    trained = _train(tmp)
    results = run(["bytes", "chars", *trained.values()], [f"text:{corpus}", f"code:{code}"],
                  ["compression", "roundtrip", "unknown"], throughput_repeats=1)
    out = tmp / "run"
    # the run's own path: write_html gets no viewer and rebuilds it from the results
    # (bytes/chars by name, the trained ones from the files their results recorded)
    files = write_outputs(results, out)
    return {"dir": out, "html": out / "report.html", "results": results, "trained": trained,
            "pngs": [f for f in files if f.suffix == ".png"], "tmp": tmp}


@pytest.fixture(scope="module")
def browser(report: dict[str, Any]) -> Iterator[Any]:
    sync_api = _need_browser()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Guard:
    """Routes every request: only file:// goes through; anything else is recorded and aborted.
    Console errors (a CSP violation, a script error) are recorded too."""

    def __init__(self, context: Any, page: Any) -> None:
        self.blocked: list[str] = []
        self.seen: list[str] = []
        self.errors: list[str] = []
        context.route("**/*", self._route)
        page.on("request", lambda r: self.seen.append(r.url))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def check(self) -> None:
        assert self.blocked == [], f"the page requested the network: {self.blocked}"
        assert all(u.startswith(("file://", "data:")) for u in self.seen), self.seen
        assert self.errors == [], self.errors


@pytest.fixture
def page(browser: Any, report: dict[str, Any]) -> Iterator[tuple[Any, Guard]]:
    context = browser.new_context(viewport={"width": 1360, "height": 900},
                                  color_scheme="light")
    pg = context.new_page()
    guard = Guard(context, pg)
    pg.goto(report["html"].as_uri())
    yield pg, guard
    guard.check()
    context.close()


def _screenshot(pg: Any, report: dict[str, Any], name: str) -> Path:
    path = report["tmp"] / name
    pg.screenshot(path=str(path))
    extra = os.environ.get("TOKBENCH_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / name)
    return path


def test_tables_and_plots_render_offline(page: tuple[Any, Guard],
                                         report: dict[str, Any]) -> None:
    from tokbench.render.tables import build_tables

    pg, guard = page
    results = report["results"]
    per_metric = [t for t in build_tables(results) if len(t.subsets) > 1]
    # tokenizers, suites, one leaderboard per suite, one table per metric, the failures
    assert pg.locator("table.sortable").count() == 2 + 2 + len(per_metric) + 1
    corpus_suite = next(s for s in results.meta.suites if s.startswith("text:"))
    board = pg.locator(f"section#suite-{corpus_suite.replace(':', '-')} table.leaderboard")
    assert board.is_visible()
    bytes_total = sum(len(t.encode()) for t in CORPUS.values()) - 6  # newlines: not text
    assert board.locator("tbody tr").first.locator("td").first.inner_text() \
        == f"{bytes_total:,}"
    # the plots are data: images the browser decoded
    assert report["pngs"], "the run drew no plot"
    sizes = pg.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, "
                        "i.src.slice(0, 22)])")
    assert len(sizes) == len(report["pngs"])
    assert all(ok and w > 0 and src == "data:image/png;base64," for ok, w, src in sizes)
    # the lossy WordPiece failed round trips, with the differing span marked
    assert pg.locator("#failures tbody tr").count() > 0
    mark = pg.locator("#failures td.expected mark.del").first
    assert mark.is_visible() and mark.inner_text() != ""
    guard.check()


def _tip(pg: Any) -> str:
    tip = pg.locator("#tok-tip")
    assert tip.is_visible()
    return str(tip.inner_text())


def test_token_tooltip_on_focus_keys_and_hover(page: tuple[Any, Guard],
                                               report: dict[str, Any]) -> None:
    from tokbench.engine.viewer import tokenize

    pg, _ = page
    pg.locator("#viewer").scroll_into_view_if_needed()
    row = pg.locator('.vtoks[aria-label="bytes tokens"]').first
    row.locator(".tok").first.wait_for()
    assert pg.locator("#viewer .vmeta").first.inner_text().startswith("eng_Latn · ")
    first = row.locator(".tok").first
    assert first.get_attribute("tabindex") == "0"
    assert first.get_attribute("aria-describedby") == "tok-tip"
    first.focus()
    lines = [" ".join(x.split()) for x in _tip(pg).splitlines()]
    assert lines == ["id 65", "bytes 41", 'piece "A"', 'text "A"', "chars 0–1"]
    # "A café": A, space, c, a, f, then é's two bytes
    for _ in range(5):
        pg.keyboard.press("ArrowRight")
    focused = pg.evaluate("[document.activeElement.className, document.activeElement.textContent]")
    assert focused == ["tok c5 partial", "c3"]
    tip = " ".join(_tip(pg).split())
    assert "id 195" in tip and "bytes c3" in tip and 'part of "é"' in tip
    # down to the chars row: the whole é, one token
    pg.keyboard.press("ArrowDown")
    tip = " ".join(_tip(pg).split())
    assert "id 233" in tip and "bytes c3 a9" in tip and 'piece "é"' in tip
    # hover a token of the trained BPE: its id and piece are the tokenizer's own
    text = "A café opens on Main Street."
    expected = tokenize(report["trained"]["tiny-bpe"], text).tokens
    bpe = pg.locator("#viewer .viewer").first.locator('.vtoks[aria-label="tiny-bpe tokens"] .tok')
    assert bpe.count() == len(expected)
    bpe.nth(1).hover()
    tip = " ".join(_tip(pg).split())
    t = expected[1]
    assert f"id {t.id}" in tip and f"bytes {t.hex}" in tip
    assert f"piece {t.piece!r}".replace("'", '"') in tip
    pg.keyboard.press("Escape")
    # another sample
    pg.locator("#viewer .viewer .next").first.click()
    assert pg.locator("#viewer .vmeta").first.inner_text().startswith("eng_Latn · ")
    assert "The rain" in pg.locator('.vtoks[aria-label="chars tokens"]').first.inner_text() \
        .replace("·", " ")


def test_sorting_a_table_by_clicking_its_header(page: tuple[Any, Guard],
                                                report: dict[str, Any]) -> None:
    pg, _ = page
    results = report["results"]
    suite = next(s for s in results.meta.suites if s.startswith("text:"))
    board = pg.locator(f"section#suite-{suite.replace(':', '-')} table.leaderboard")
    names = board.locator("tbody tr th")
    before = names.all_inner_texts()
    assert before == list(results.meta.tokenizers)
    tokens = {r.tokenizer: r.value for r in results.rows
              if r.suite == suite and r.subset == "all" and r.metric == "tokens"}
    header = board.locator("thead th", has_text="tokens").first
    header.locator("button").click()  # "tokens" is lower-is-better: best (fewest) first
    after = names.all_inner_texts()
    assert after == sorted(tokens, key=lambda t: tokens[t])
    assert after != before
    assert header.get_attribute("aria-sort") == "ascending"
    header.locator("button").click()
    assert names.all_inner_texts() == sorted(tokens, key=lambda t: -tokens[t])
    assert header.get_attribute("aria-sort") == "descending"
    # keyboard works too: the header is a button
    first = board.locator("thead th").first
    first.locator("button").focus()
    pg.keyboard.press("Enter")
    assert first.get_attribute("aria-sort") == "ascending"
    assert names.all_inner_texts() == sorted(tokens)


def test_light_and_dark(browser: Any, report: dict[str, Any]) -> None:
    shots = []
    backgrounds = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1360, "height": 900},
                                      color_scheme=scheme)
        pg = context.new_page()
        guard = Guard(context, pg)
        pg.goto(report["html"].as_uri())
        backgrounds[scheme] = pg.evaluate("getComputedStyle(document.body).backgroundColor")
        shots.append(_screenshot(pg, report, f"report-{scheme}-top.png"))
        pg.locator("#viewer").scroll_into_view_if_needed()
        pg.locator('.vtoks[aria-label="bytes tokens"] .tok').first.wait_for()
        pg.evaluate("document.getElementById('viewer').scrollIntoView()")
        pg.locator('.vtoks[aria-label="tiny-bpe tokens"] .tok').nth(2).focus()
        shots.append(_screenshot(pg, report, f"report-{scheme}-viewer.png"))
        pg.evaluate("document.getElementById('failures').scrollIntoView()")
        shots.append(_screenshot(pg, report, f"report-{scheme}-failures.png"))
        if scheme == "light":  # the switch overrides the system's choice
            pg.locator("#theme").click()
            assert pg.locator("#theme").inner_text() == "Theme: light"
            pg.locator("#theme").click()
            assert pg.evaluate("document.documentElement.dataset.theme") == "dark"
            assert pg.evaluate("getComputedStyle(document.body).backgroundColor") \
                == "rgb(13, 16, 22)"
        guard.check()
        context.close()
    assert backgrounds == {"light": "rgb(245, 246, 248)", "dark": "rgb(13, 16, 22)"}
    assert all(p.stat().st_size > 10_000 for p in shots)
    print("screenshots:", *shots, sep="\n  ")


def test_the_guard_catches_a_page_that_reaches_out(browser: Any, report: dict[str, Any]) -> None:
    """The network check above can fail: a page with one outside image trips it."""
    leaky = report["tmp"] / "leaky.html"
    page = report["html"].read_text(encoding="utf-8")
    leaky.write_text(page.replace("<main", '<img src="http://127.0.0.1:9/x.png"><main', 1),
                     encoding="utf-8")
    context = browser.new_context()
    pg = context.new_page()
    guard = Guard(context, pg)
    pg.goto(leaky.as_uri())
    pg.wait_for_load_state("load")
    with pytest.raises(AssertionError):
        guard.check()
    context.close()
