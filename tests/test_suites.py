"""Suites: spec syntax, built-in manifests, user corpora, errors, FLORES-200."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from tests._needs import need
from tokbench.errors import InputError, MissingDependencyError, UnknownNameError
from tokbench.paths import flores_dir, suites_dir
from tokbench.suites import SUITES, load_suite, parse_suite_spec
from tokbench.suites.external import parse_hf_target
from tokbench.suites.langs import canonical_lang, languages
from tokbench.suites.model import Document, Suite

FLORES_LANGS = 42


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def flores() -> Path:
    need("flores")
    root = flores_dir()
    assert root is not None
    return root


# --- spec syntax -----------------------------------------------------------------------

def test_parse_spec() -> None:
    assert parse_suite_spec("multilingual") == (None, "multilingual", {})
    assert parse_suite_spec("text:/a/b.txt?lang=deu_Latn&per_file") == (
        "text", "/a/b.txt", {"lang": "deu_Latn", "per_file": ""})
    assert parse_suite_spec("hf-dataset:org/ds:cfg@test?text_field=content") == (
        "hf-dataset", "org/ds:cfg@test", {"text_field": "content"})
    assert parse_suite_spec("code:src?domains=c++,go%2Cx") == (
        "code", "src", {"domains": "c++,go,x"})
    with pytest.raises(InputError, match="option 'lang' is given twice"):
        parse_suite_spec("text:a?lang=x&lang=y")


def test_parse_hf_target() -> None:
    assert parse_hf_target("wikitext:wikitext-2-raw-v1@test") == (
        "wikitext", "wikitext-2-raw-v1", "test")
    assert parse_hf_target("org/name") == ("org/name", None, "train")
    assert parse_hf_target("org/name@validation") == ("org/name", None, "validation")


def test_unknown_names_suggest(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="unknown suite 'multilingal'; did you mean "
                                               "'multilingual'"):
        load_suite("multilingal")
    with pytest.raises(UnknownNameError, match="unknown suite scheme 'txt'; did you mean "
                                               "'text'"):
        load_suite("txt:corpus.txt")
    path = write(tmp_path / "corpus.txt", "hello\n")
    with pytest.raises(UnknownNameError, match="use text:PATH"):
        load_suite(str(path))
    with pytest.raises(InputError, match="unknown option 'langs'; did you mean 'lang'"):
        load_suite(f"text:{path}?langs=eng_Latn")
    with pytest.raises(InputError, match="errors='ignore' is not one of strict, replace, skip"):
        load_suite(f"text:{path}", errors="ignore")


@pytest.mark.real  # FLORES-200
def test_language_codes() -> None:
    table = languages()
    assert len([c for c, lang in table.items() if lang.flores200]) == 205  # 204 + sat_Beng
    for path in (flores() / "dev").glob("*.dev"):
        assert path.stem in table
    assert table["jpn_Jpan"].name == "Japanese" and not table["jpn_Jpan"].space_delimited
    assert table["kor_Hang"].space_delimited and table["kor_Hang"].script_name == "Hangul"
    assert canonical_lang("ENG_latn") == "eng_Latn" and canonical_lang("code") == "zxx_Zyyy"
    with pytest.raises(InputError, match=r"x\.txt: unknown language code 'jpn_Latn'; did "
                                         "you mean 'jpn_Jpan'"):
        canonical_lang("jpn_Latn", where="x.txt")
    with pytest.raises(InputError, match="did you mean 'zho_Hans' or 'zho_Hant'"):
        canonical_lang("zho_Hanz")


# --- built-in suites -------------------------------------------------------------------

def test_builtin_multilingual_structure() -> None:
    suite = load_suite("multilingual")
    root = suites_dir() / "multilingual"
    files = sorted(root.glob("???_????.txt"))
    assert suite.parallel and suite.subset_by == "lang" and suite.source == "builtin"
    assert suite.languages()[0] == "eng_Latn"
    assert sorted(suite.languages()) == sorted(p.stem for p in files)
    lines = {p.stem: p.read_text(encoding="utf-8").split("\n")[:-1] for p in files}
    domains = (root / "domains.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert set(domains) <= {"news", "daily", "science", "instructions", "dialogue"}
    assert len(suite) + suite.meta["skipped_empty"] == len(files) * len(domains)
    for doc in suite:
        n = int(doc.align or 0)
        assert doc.id == f"{doc.lang}:{n}"
        assert doc.text == lines[doc.lang][n - 1]
        assert doc.domain == domains[n - 1]


def test_builtin_japanese_structure() -> None:
    suite = load_suite("japanese")
    root = suites_dir() / "japanese"
    files = sorted(root.glob("*.jsonl"))
    assert suite.subset_by == "domain" and not suite.parallel
    assert suite.languages() == ["jpn_Jpan"]
    assert list(suite.subsets()) == [p.stem for p in files]
    records = [json.loads(line) for p in files
               for line in p.read_text(encoding="utf-8").split("\n") if line.strip()]
    assert [(d.id, d.text) for d in suite] == [(r["id"], r["text"]) for r in records if r["text"]]


def test_builtin_code_is_byte_exact() -> None:
    suite = load_suite("code")
    root = suites_dir() / "code"
    files = sorted(p for p in root.glob("*/**/*") if p.is_file())
    assert suite.languages() == ["zxx_Zyyy"] and suite.subset_by == "domain"
    assert {d.id for d in suite} == {p.relative_to(root).as_posix() for p in files
                                     if p.stat().st_size}
    for doc in suite:
        assert doc.domain == doc.id.split("/")[0]
        assert doc.text.encode("utf-8") == (root / doc.id).read_bytes()


def test_builtin_unicode_is_exact() -> None:
    suite = load_suite("unicode")
    raw = (suites_dir() / "unicode" / "cases.jsonl").read_bytes().split(b"\n")
    records = [json.loads(line) for line in raw if line.strip()]
    assert [(d.id, d.domain, d.text) for d in suite] == [
        (r["id"], r["category"], r["text"]) for r in records]
    assert suite.subset_by == "domain" and suite.languages() == ["und_Zyyy"]


def test_builtin_numbers_come_from_the_generator() -> None:
    from tokbench.suites import numbers

    suite = load_suite("numbers")
    assert suite.documents == numbers.generate(0)
    assert suite.meta["seed"] == 0 and suite.subset_by == "domain"
    other = load_suite("numbers?seed=1&count=30")
    assert len(other) == 30 and other.meta["seed"] == 1 and other.meta["count"] == 30
    assert other.documents == numbers.generate(seed=1, count=30)
    with pytest.raises(InputError, match="unknown option 'sead'; did you mean 'seed'"):
        load_suite("numbers?sead=1")


def test_suite_hash_reads_each_document_as_one_json_line() -> None:
    import hashlib

    from tokbench.suites.model import Document, Suite

    docs = [Document('a"\\\n', "x\u2028y", "\x00\x1f\x7f", "é😀\t", None),
            Document("1", "l", "d", "", "k")]
    lines = ('["a\\"\\\\\\n", "x\u2028y", "\\u0000\\u001f\x7f", null, "é😀\\t"]\n'
             '["1", "l", "d", "k", ""]\n')
    assert Suite("odd", "1", docs).sha256 == hashlib.sha256(lines.encode("utf-8")).hexdigest()
    assert Suite("none", "1", []).sha256 == hashlib.sha256(b"").hexdigest()


@pytest.mark.parametrize("name", ["multilingual", "japanese", "code", "numbers", "unicode"])
def test_builtin_hash_is_stable(name: str) -> None:
    a, b = load_suite(name), load_suite(name)
    assert a.sha256 == b.sha256 and len(a.sha256) == 64
    assert a.describe()["sha256"] == a.sha256 and a.version == "1"
    assert len({d.id for d in a}) == len(a)


# --- manifest suites from tmp folders (the built-in loader, user errors) ------------------

def parallel_dir(tmp_path: Path, files: dict[str, bytes | str], domains: str = "news\n" * 3
                 ) -> Path:
    root = tmp_path / "mini"
    write(root / "manifest.json", json.dumps({
        "name": "mini", "version": "1", "description": "test", "parallel": True,
        "subset_by": "lang", "format": "parallel-lines", "files": "???_????.txt",
        "pivot": "eng_Latn", "domains_file": "domains.txt", "domains": ["news", "daily"]}))
    write(root / "domains.txt", domains)
    for name, data in files.items():
        write(root / name, data)
    return root


def test_parallel_manifest_loads(tmp_path: Path) -> None:
    root = parallel_dir(tmp_path, {"eng_Latn.txt": "One.\nTwo.\nThree.\n",
                                   "jpn_Jpan.txt": "一。\n二。\n三。"},
                        domains="news\ndaily\nnews\n")
    suite = load_suite(f"manifest:{root}")
    assert suite.name == "mini" and suite.parallel and suite.source == f"manifest:{root}"
    assert [(d.id, d.lang, d.domain, d.text, d.align) for d in suite][:4] == [
        ("eng_Latn:1", "eng_Latn", "news", "One.", "1"),
        ("eng_Latn:2", "eng_Latn", "daily", "Two.", "2"),
        ("eng_Latn:3", "eng_Latn", "news", "Three.", "3"),
        ("jpn_Jpan:1", "jpn_Jpan", "news", "一。", "1")]


def test_line_count_mismatch_names_file_and_line(tmp_path: Path) -> None:
    root = parallel_dir(tmp_path, {"eng_Latn.txt": "a\nb\nc\n", "jpn_Jpan.txt": "あ\nい\n"})
    with pytest.raises(InputError) as err:
        load_suite(f"manifest:{root}")
    assert str(err.value) == (
        f"{root / 'jpn_Jpan.txt'}: 2 lines but eng_Latn.txt has 3: line 3 of eng_Latn.txt has "
        "no counterpart (line N of every file must translate line N of eng_Latn.txt; add or "
        "remove lines to match)")
    root = parallel_dir(tmp_path, {"eng_Latn.txt": "a\nb\nc\n", "jpn_Jpan.txt": "あ\nい\nう\n"},
                        domains="news\nsport\nnews\n")
    with pytest.raises(InputError, match=r"domains.txt:2: domain 'sport' is not one of news, "
                                         "daily"):
        load_suite(f"manifest:{root}")


def test_invalid_utf8_names_byte_offset_and_fix(tmp_path: Path) -> None:
    bad = "日\n".encode() + b"\xff\xfeok\n" + "三\n".encode()  # the bad byte is byte 4
    root = parallel_dir(tmp_path, {"eng_Latn.txt": "a\nb\nc\n", "jpn_Jpan.txt": bad})
    with pytest.raises(InputError) as err:
        load_suite(f"manifest:{root}")
    assert str(err.value) == (
        f"{root / 'jpn_Jpan.txt'}: invalid UTF-8 at byte 4 (line 2, bytes ff); fix the file, "
        'or add ?errors=replace to the suite spec (errors="replace" in Python) to replace bad '
        'bytes with U+FFFD, or ?errors=skip to skip '
        "the lines that hold them")
    replaced = load_suite(f"manifest:{root}", errors="replace")
    assert [d.text for d in replaced if d.lang == "jpn_Jpan"] == ["日", "\ufffd\ufffdok", "三"]
    skipped = load_suite(f"manifest:{root}?errors=skip")
    assert [d.id for d in skipped if d.lang == "jpn_Jpan"] == ["jpn_Jpan:1", "jpn_Jpan:3"]
    assert skipped.meta["skipped_invalid"] == 1


def test_invalid_utf8_offset_counts_the_bom(tmp_path: Path) -> None:
    path = write(tmp_path / "b.txt", b"\xef\xbb\xbfab\ncd\xc3(\n")  # \xc3 is byte 8
    with pytest.raises(InputError, match=r"b\.txt: invalid UTF-8 at byte 8 \(line 2, bytes c3\)"):
        load_suite(f"text:{path}")
    assert [d.text for d in load_suite(f"text:{path}", errors="skip")] == ["ab"]
    assert [d.text for d in load_suite(f"text:{path}", errors="replace")] == ["ab", "cd\ufffd("]


def test_empty_documents_are_skipped_and_counted(tmp_path: Path) -> None:
    root = parallel_dir(tmp_path, {"eng_Latn.txt": "a\n\nc\n", "jpn_Jpan.txt": "あ\nい\n\n"})
    suite = load_suite(f"manifest:{root}")
    assert [d.id for d in suite] == ["eng_Latn:1", "eng_Latn:3", "jpn_Jpan:1", "jpn_Jpan:2"]
    assert suite.meta["skipped_empty"] == 2


def test_unknown_language_file_suggests(tmp_path: Path) -> None:
    root = parallel_dir(tmp_path, {"eng_Latn.txt": "a\nb\nc\n", "eng_Lant.txt": "a\nb\nc\n"})
    with pytest.raises(InputError, match=r"eng_Lant.txt: unknown language code 'eng_Lant'; "
                                         r"did you mean 'eng_Latn'\?"):
        load_suite(f"manifest:{root}")


def test_manifest_is_checked(tmp_path: Path) -> None:
    root = parallel_dir(tmp_path, {"eng_Latn.txt": "a\nb\nc\n"})
    manifest = json.loads((root / "manifest.json").read_text())
    write(root / "manifest.json", json.dumps({**manifest, "lnag": "x"}))
    with pytest.raises(InputError, match="unknown key 'lnag' for format 'parallel-lines'"):
        load_suite(f"manifest:{root}")
    write(root / "manifest.json", json.dumps({**manifest, "name": "other"}))
    with pytest.raises(InputError, match="name 'other' differs from the folder's name 'mini'"):
        load_suite(f"manifest:{root}")
    del manifest["pivot"]
    write(root / "manifest.json", json.dumps(manifest))
    with pytest.raises(InputError, match="missing 'pivot'"):
        load_suite(f"manifest:{root}")


# --- text: -----------------------------------------------------------------------------

def test_text_file_lines_are_exact(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbfcrlf line\r\nkeeps\rinner CR\nline\xe2\x80\xa8sep\n\n  spaced  \n"
    path = write(tmp_path / "notes.txt", data)
    suite = load_suite(f"text:{path}")
    assert [(d.id, d.lang, d.domain, d.text) for d in suite] == [
        ("notes.txt:1", "und_Zyyy", "notes", "crlf line"),
        ("notes.txt:2", "und_Zyyy", "notes", "keeps\rinner CR"),
        ("notes.txt:3", "und_Zyyy", "notes", "line\u2028sep"),
        ("notes.txt:5", "und_Zyyy", "notes", "  spaced  ")]
    assert suite.meta["skipped_empty"] == 1 and suite.name == "text:notes"
    whole = load_suite(f"text:{path}?per_file&lang=deu_Latn")
    assert [(d.id, d.lang, d.text) for d in whole] == [
        ("notes.txt", "deu_Latn", data[3:].decode())]


def test_text_language_from_file_name_and_jsonl(tmp_path: Path) -> None:
    write(tmp_path / "c" / "deu_Latn.txt", "Guten Tag\n")
    write(tmp_path / "c" / "mixed.jsonl", '{"text": "Bonjour", "lang": "fra_Latn", "id": 7}\n'
                                          '\n{"text": "こんにちは", "domain": "greeting"}\n'
                                          '{"text": ""}\n')
    suite = load_suite(f"text:{tmp_path / 'c'}")
    assert [(d.id, d.lang, d.domain, d.text) for d in suite] == [
        ("deu_Latn.txt:1", "deu_Latn", "deu_Latn", "Guten Tag"),
        ("mixed.jsonl:7", "fra_Latn", "mixed", "Bonjour"),
        ("mixed.jsonl:3", "und_Zyyy", "greeting", "こんにちは")]
    assert suite.subset_by == "lang" and suite.meta["skipped_empty"] == 1
    write(tmp_path / "c" / "fra_Latm.txt", "Salut\n")
    with pytest.raises(InputError, match=r"fra_Latm.txt: unknown language code 'fra_Latm'; "
                                         r"did you mean 'fra_Latn'\?"):
        load_suite(f"text:{tmp_path / 'c'}")


def test_text_jsonl_errors(tmp_path: Path) -> None:
    # a text: suite streams: a record's errors are raised when it is read
    path = write(tmp_path / "s.jsonl", '{"text": "ok"}\n{"text": "bad \\ud800 half"}\n')
    with pytest.raises(InputError, match=r"s.jsonl:2: text has a lone surrogate U\+D800 at "
                                         "character 4"):
        list(load_suite(f"text:{path}"))
    suite = load_suite(f"text:{path}", errors="skip")
    assert [d.text for d in suite] == ["ok"] and suite.meta["skipped_invalid"] == 1
    suite = load_suite(f"text:{path}", errors="replace")
    assert [d.text for d in suite] == ["ok", "bad \ufffd half"]
    write(tmp_path / "s.jsonl", '{"text": "ok"}\n{"text": 5}\n')
    with pytest.raises(InputError, match=r"s\.jsonl:2: 'text' must be a str, got int"):
        list(load_suite(f"text:{path}"))
    write(tmp_path / "s.jsonl", '{"text": "ok"\n')
    with pytest.raises(InputError, match=r"s\.jsonl:1: not valid JSON"):
        list(load_suite(f"text:{path}"))
    write(tmp_path / "s.jsonl", "\n\n")
    with pytest.raises(InputError, match="has no documents"):
        list(load_suite(f"text:{path}"))
    with pytest.raises(InputError, match="no such file or folder"):
        load_suite(f"text:{tmp_path / 'missing.txt'}")


def test_text_parallel_folder(tmp_path: Path) -> None:
    write(tmp_path / "p" / "eng_Latn.txt", "Yes\nNo\n")
    write(tmp_path / "p" / "spa_Latn.txt", "Sí\nNo\n")
    suite = load_suite(f"text:{tmp_path / 'p'}?parallel=true")
    assert suite.parallel and [(d.id, d.align) for d in suite] == [
        ("eng_Latn:1", "1"), ("eng_Latn:2", "2"), ("spa_Latn:1", "1"), ("spa_Latn:2", "2")]
    write(tmp_path / "p" / "spa_Latn.txt", "Sí\n")
    with pytest.raises(InputError, match=r"spa_Latn\.txt: 1 lines but eng_Latn\.txt has 2: "
                                         r"line 2 of eng_Latn\.txt has no counterpart"):
        load_suite(f"text:{tmp_path / 'p'}", parallel=True)


# --- code: and hf-dataset: ---------------------------------------------------------------

def test_code_folder(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    write(src / "app" / "main.py", "print('hi')\r\n")
    write(src / "lib.rs", "fn main() {}\n")
    write(src / "Makefile", "all:\n\tcc x.c\n")
    write(src / "node_modules" / "dep" / "index.js", "module.exports = 1;\n")
    write(src / ".git" / "hook.py", "x = 1\n")
    write(src / "blob.py", b"\x00\x01binary")
    write(src / "notes.txt", "not code\n")
    write(src / "package-lock.json", "{}\n")
    write(src / "big.js", "x" * 200 + "\n")
    suite = load_suite(f"code:{src}?max_bytes=100")
    assert [(d.id, d.lang, d.domain, d.text) for d in suite] == [
        ("Makefile", "zxx_Zyyy", "make", "all:\n\tcc x.c\n"),
        ("app/main.py", "zxx_Zyyy", "python", "print('hi')\r\n"),
        ("lib.rs", "zxx_Zyyy", "rust", "fn main() {}\n")]
    assert suite.subset_by == "domain" and suite.name == "code:proj"
    assert suite.meta["skipped_binary"] == 1 and suite.meta["skipped_large"] == 1
    assert suite.meta["skipped_not_code"] == 2


def test_hf_dataset_needs_datasets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(MissingDependencyError, match="pip install datasets"):
        load_suite("hf-dataset:wikitext:wikitext-2-raw-v1@test")


def test_hf_dataset_with_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []

    def load_dataset(name: str, config: str | None, split: str) -> list[dict[str, Any]]:
        calls.append((name, config, split))
        if split == "nope":
            raise ValueError('Unknown split "nope". Should be one of [\'train\'].\nmore')
        return [{"content": "Hallo Welt", "lg": "deu_Latn"}, {"content": "", "lg": "x"},
                {"content": "Hello", "lg": "eng_Latn"}]

    fake = types.ModuleType("datasets")
    fake.load_dataset = load_dataset  # type: ignore[attr-defined]
    fake.__version__ = "9.9"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", fake)
    suite = load_suite("hf-dataset:org/ds:cfg@test?text_field=content&lang_field=lg")
    assert calls == [("org/ds", "cfg", "test")]
    assert [(d.id, d.lang, d.domain, d.text) for d in suite] == [
        ("test:0", "deu_Latn", "test", "Hallo Welt"), ("test:2", "eng_Latn", "test", "Hello")]
    assert suite.name == "hf:org/ds:cfg@test" and suite.meta["skipped_empty"] == 1
    with pytest.raises(InputError, match=r"hf-dataset:org/ds@nope: cannot load: Unknown split "
                                         r"\"nope\". Should be one of \['train'\].$"):
        load_suite("hf-dataset:org/ds@nope")


# --- generic options, registry ---------------------------------------------------------

def test_registered_third_party_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    def loader(size: str = "2") -> Suite:
        docs = [Document(str(i), "eng_Latn", "d", f"text {i}") for i in range(int(size))]
        return Suite("mine", "0", docs)

    monkeypatch.setitem(SUITES._targets, "mine", loader)  # the function is the entry
    assert len(load_suite("mine?size=3")) == 3
    assert load_suite("mine", name="renamed").name == "renamed"
    with pytest.raises(InputError, match="suite 'mine': unknown option 'colour'"):
        load_suite("mine?colour=red")


@pytest.mark.real  # FLORES-200
def test_selection_keeps_alignment() -> None:
    suite = load_suite(f"flores200:{flores()}?split=dev&languages=jpn_Jpan,eng_Latn&limit=3")
    assert [d.id for d in suite] == ["eng_Latn:dev:1", "eng_Latn:dev:2", "eng_Latn:dev:3",
                                     "jpn_Jpan:dev:1", "jpn_Jpan:dev:2", "jpn_Jpan:dev:3"]
    assert suite.meta["selected"] == {"languages": ["eng_Latn", "jpn_Jpan"], "limit": 3}
    with pytest.raises(InputError, match="unknown language code 'jpn'; did you mean "
                                         "'jpn_Jpan'"):
        load_suite("flores200?languages=jpn")
    with pytest.raises(InputError, match="has no nld_Latn documents; it has eng_Latn, amh_Ethi"):
        load_suite("flores200?languages=nld_Latn")


# --- FLORES-200 ------------------------------------------------------------------------

@pytest.mark.real  # FLORES-200
def test_flores200_both_splits() -> None:
    suite = load_suite(f"flores200:{flores()}", split="both")
    assert suite.name == "flores200" and suite.parallel and suite.subset_by == "lang"
    subsets = suite.subsets()
    assert len(subsets) == FLORES_LANGS and next(iter(subsets)) == "eng_Latn"
    eng_aligns = [d.align for d in subsets["eng_Latn"]]
    assert len(eng_aligns) == 2009
    assert (eng_aligns[0], eng_aligns[996], eng_aligns[-1]) == ("dev:1", "dev:997", "devtest:1012")
    for docs in subsets.values():
        assert [d.align for d in docs] == eng_aligns
    assert sum(d.domain == "dev" for d in subsets["jpn_Jpan"]) == 997
    assert suite.meta["skipped_empty"] == 0 and suite.meta["splits"] == ["dev", "devtest"]
    # Pinned: changes only if the data or the document fields (ids, align, domain) change.
    assert suite.sha256 == "4d9d1e0f63cf92644319f1febd82815a65ba26655c6fdac2e8c1427ce8c42152"
    assert load_suite("flores200").sha256 == suite.sha256  # default folder: flores_dir()


@pytest.mark.real  # FLORES-200
def test_flores200_one_split_and_filter_order() -> None:
    a = load_suite(f"flores200:{flores()}?split=devtest&languages=tha_Thai,eng_Latn")
    b = load_suite(f"flores200:{flores()}", split="devtest", languages=["eng_Latn", "tha_Thai"])
    assert a.name == "flores200-devtest" and len(a) == 2 * 1012
    assert a.sha256 == b.sha256
    with pytest.raises(InputError, match="option split='test' must be one of dev, devtest, both"):
        load_suite(f"flores200:{flores()}?split=test")


def test_import_stays_light() -> None:
    code = ("import sys, tokbench.suites, tokbench.suites.words; "
            "print([m for m in ('fugashi', 'jieba', 'pythainlp', 'icu', 'datasets', 'regex') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_split_suite_specs_keeps_commas_inside_options() -> None:
    from tokbench.suites import split_suite_specs

    assert split_suite_specs(["multilingual?languages=eng_Latn,jpn_Jpan,code", "text:a.txt"]) == [
        "multilingual?languages=eng_Latn,jpn_Jpan", "code", "text:a.txt"]
    assert split_suite_specs(["japanese,numbers"]) == ["japanese", "numbers"]


def test_run_command_accepts_a_spec_with_a_language_list(tmp_path: Path) -> None:
    from tokbench.cli import main

    out = tmp_path / "run"
    code = main(["run", "-t", "bytes", "-s", "multilingual?languages=eng_Latn,jpn_Jpan",
                 "-m", "premium", "--out", str(out), "--no-html", "--no-plots", "--no-history"])
    assert code == 0
    from tokbench.results import Results

    res = Results.load(out)
    assert res.value("bytes", "multilingual", "eng_Latn", "premium") == 1.0
    assert {r.subset for r in res.rows if r.metric == "premium"} == {"eng_Latn", "jpn_Jpan"}
    # the fairness summary over the languages is the only "all" row of the premium family
    assert {r.metric for r in res.rows if r.subset == "all"} == {
        "premium_gini", "premium_macro", "premium_worst"}


def test_flores_with_languages_reads_only_their_files_and_the_pivots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same suite as selecting from all of it (documents, hash, meta), from a tenth of
    the reading; a language it lacks is said as for any suite."""
    from tokbench.suites.reading import Reader

    texts = {"eng_Latn": ["one", "two", "three"], "fra_Latn": ["un", "deux", "trois"],
             "deu_Latn": ["eins", "zwei", "drei"]}
    for split in ("dev", "devtest"):
        (tmp_path / split).mkdir()
        for lang, lines in texts.items():
            (tmp_path / split / f"{lang}.{split}").write_text(
                "\n".join(f"{t} {split}" for t in lines) + "\n", encoding="utf-8")
    read: list[str] = []
    real = Reader.lines
    monkeypatch.setattr(Reader, "lines",
                        lambda self, path: read.append(Path(path).name) or real(self, path))
    some = load_suite(f"flores200:{tmp_path}?languages=fra_Latn")
    assert sorted(read) == ["eng_Latn.dev", "eng_Latn.devtest", "fra_Latn.dev",
                            "fra_Latn.devtest"]
    picked = load_suite(load_suite(f"flores200:{tmp_path}"), languages=["fra_Latn"])
    assert some.documents == picked.documents and len(some) == 6
    assert some.sha256 == picked.sha256 and some.meta == picked.meta
    with pytest.raises(InputError,
                       match="has no kor_Hang documents; it has eng_Latn, deu_Latn, fra"):
        load_suite(f"flores200:{tmp_path}?languages=fra_Latn,kor_Hang")
