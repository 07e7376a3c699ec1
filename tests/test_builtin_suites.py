"""The built-in suites hold what the project promises (sizes, languages, registers)."""

from __future__ import annotations

import pytest

from tokbench.suites import load_suite

REQUIRED_LANGS = [
    "eng_Latn", "jpn_Jpan", "zho_Hans", "zho_Hant", "kor_Hang", "arb_Arab", "heb_Hebr",
    "pes_Arab", "hin_Deva", "ben_Beng", "tam_Taml", "tha_Thai", "vie_Latn", "ind_Latn",
    "swh_Latn", "rus_Cyrl", "ukr_Cyrl", "deu_Latn", "fra_Latn", "spa_Latn", "por_Latn",
    "ita_Latn", "pol_Latn", "tur_Latn", "fin_Latn", "ell_Grek",
]


@pytest.fixture(scope="module")
def multilingual():
    return load_suite("multilingual")


def test_multilingual_is_parallel_over_30_languages(multilingual):
    langs = multilingual.languages()
    assert len(langs) >= 30
    assert set(REQUIRED_LANGS) <= set(langs)
    per_lang = multilingual.subsets()
    assert {len(docs) for docs in per_lang.values()} == {108}
    eng = [d.align for d in per_lang["eng_Latn"]]
    for docs in per_lang.values():
        assert [d.align for d in docs] == eng
    assert {d.domain for d in multilingual} == {"news", "daily", "science", "instructions",
                                                "dialogue"}


def test_japanese_has_400_documents_across_registers():
    suite = load_suite("japanese")
    assert len(suite) >= 400
    registers = suite.subsets()
    assert set(registers) >= {"news", "polite", "casual", "technical", "legal", "social",
                              "mixed", "width", "numbers", "katakana"}
    assert all(d.lang == "jpn_Jpan" for d in suite)
    text = "".join(d.text for d in suite)
    assert "ｶ" in text and "Ａ" in text and "　" in text  # half-width kana, full-width forms


def test_code_covers_12_languages_with_spaces_and_tabs():
    suite = load_suite("code")
    langs = set(suite.subsets())
    assert {"python", "javascript", "typescript", "java", "c", "cpp", "go", "rust", "sql",
            "shell", "html", "css", "json", "yaml"} <= langs
    for d in suite:
        assert 20 <= d.text.count("\n") <= 201, d.id
    assert any("\n\t" in d.text for d in suite)
    assert any("\n    " in d.text for d in suite)
    assert any("\r\n" in d.text for d in suite)  # kept byte-exact


def test_unicode_cases_are_kept_byte_exact():
    suite = load_suite("unicode")
    assert len(suite) >= 120
    text = {d.id: d.text for d in suite}
    joined = "".join(text.values())
    for needle in ("<|endoftext|>", "<s>", "[CLS]", "\u200d", "\u202e", "\u0301", "\x00",
                   "\u3000", "\U0002000b"):
        assert needle in joined, repr(needle)


def test_numbers_suite_is_deterministic():
    a, b = load_suite("numbers"), load_suite("numbers")
    assert a.sha256 == b.sha256
    assert len(a) == 1500
    assert len(a.subsets()) == 15


#: The built-in suites' content hashes, pinned: a change to a suite's text, a loader or the
#: numbers generator (or a Python version that generates differently) fails here, and the
#: suite's version must be raised with the new hash (results with the old hash are then
#: "not comparable" in compare, as they should be).
SUITE_HASHES = {
    "multilingual": ("e250f530215019893948bbdee130379a2bd78210888375d8b5d4573b48949930", 3672),
    "japanese": ("ccce3d906af8d987a92868dff70b19f365453d3b2cd6bdf6e53ba4956cd15806", 594),
    "code": ("3a1b7bcd328959a4bb624d9b3b70563590f913cd2d20cc46c7adef8c2878bdf1", 49),
    "numbers": ("fa981b3f4134eafe1dd5798294795a0a4d2fc9af0ae0f5dc6cbf9b949f7005d1", 1500),
    "unicode": ("6653a3df6174c23230321d8c35f06368043427b4c061881b725fc4fb54587282", 171),
}


@pytest.mark.parametrize("name", sorted(SUITE_HASHES))
def test_suite_hashes_are_pinned(name):
    suite = load_suite(name)
    assert (suite.sha256, len(suite)) == SUITE_HASHES[name]


def test_bytecode_next_to_the_code_suite_is_ignored(tmp_path):
    """pip compiles the code suite's .py files when the package is installed."""
    import shutil

    from tokbench.paths import suites_dir

    root = tmp_path / "code"
    shutil.copytree(suites_dir() / "code", root)
    (root / "python" / "__pycache__").mkdir()
    (root / "python" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\xa7\r\r\n\x00")
    (root / "python" / "stray.pyc").write_bytes(b"\xa7\r\r\n\x00")
    copy = load_suite(f"manifest:{root}")
    assert copy.sha256 == load_suite("code").sha256
