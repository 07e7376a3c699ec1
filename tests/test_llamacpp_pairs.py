"""GGUF vocabularies against llama.cpp's reference test pairs (real files, fetched from PyPI).

llama.cpp ships, beside each ``models/ggml-vocab-NAME.gguf``, a ``.gguf.inp`` file of test
strings separated by ``\\n__ggml_vocab_test__\\n`` and a ``.gguf.out`` file with one line of
space-separated ids per string. The ids were produced by the original Hugging Face
tokenizer of each model (``convert_hf_to_gguf_update.py``) and are what llama.cpp's
``test-tokenizer-0`` checks its own tokenizer against, with ``add_special = false``. So
they hold no BOS/EOS (no ``[CLS]``/``[SEP]`` for BERT) even where the GGUF file says
``add_bos_token = true`` (llama-spm does): they are compared with our ``encode``, which
adds no special tokens either. ``test_reference_ids_hold_no_special_tokens`` checks that
premise on every file.

The files come from the llama-cpp-python 0.3.36 sdist (pinned by sha256), downloaded once
into the tokbench cache. Every case is its own test, so a mismatch is listed by itself.
The catalog tokenizers that load from other sources (Llama 3 from Meta's tiktoken file,
GPT-2 from whisper's rank file, Qwen2 from a ``tokenizer.json``) are checked on the same
cases, and the one Unigram (``t5``) vocabulary, which has no pairs, against XLM-R's
original SentencePiece model (``xlm-roberta-spm``) on the same strings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tokbench.adapters.base import Tokenizer
from tokbench.adapters.gguf_adapter import GGUFTokenizer, load
from tokbench.adapters.gguf_reader import CONTROL
from tokbench.loading.sources import PypiFile

pytestmark = pytest.mark.real

DIST, VERSION = "llama-cpp-python", "0.3.36"
MODELS = "vendor/llama.cpp/models"
SEPARATOR = "\n__ggml_vocab_test__\n"
INP_46 = "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0"  # shared .inp


@dataclass(frozen=True)
class Pin:
    gguf: str
    out: str
    cases: int = 46
    inp: str = INP_46


VOCABS: dict[str, Pin] = {
    # the five the catalog relies on
    "llama-spm": Pin("16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69",
                     "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29"),
    "llama-bpe": Pin("97272e430d53bc7688f52d5e0ad8ea8f163ede9f1bbd1694feaa504797d5d96e",
                     "118abf2034a197fc5c9dec5204dfdeee7004c7c70952ae577f66b99e212fab9b"),
    "gpt-2": Pin("cedc56ca6e2e89f63e781696d1fd76b4b1d49e6720dee86463e915f6e90016ac",
                 "48e8c4cb3ad5c37915b225f872222567c1c4dd4d66951aa53460c8d152ff6d60"),
    "qwen2": Pin("44c2f46b715f585c6ab513970e8a006bfa5badd6108560054921cf598d154d8c",
                 "de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363"),
    "bert-bge": Pin("fbcbe22278fb302694d5f4a41bfe48c5f90e8e3554eab1c0435387dff654a854",
                    "8f95b1d4e5680634af06ac5a1b19f15ddeb743d3a6240056625e4345a4b06917"),
    # every other pre-tokenizer the adapter supports, and Phi-3's SentencePiece vocabulary
    "phi-3": Pin("967d7190d11c4842eab697079d98d56c2116e10eb617be355a2733bfc132e326",
                 "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29"),
    "qwen35": Pin("63ed952ff338996cf0bdf24a7b10015124273f75c6dc9bb427356aa3f67ec62c",
                  "5efe225820325303857d0a087a8d59216f0d1e9a9e31133e7a5b44c3c4e1e9ca", 50,
                  "0fc6547e7876cd5b2ef64a9d319c6e39040eb53986660bd4227ed7ddef017a94"),
    "mpt": Pin("59dc382612866d1fc6c11ea531318d327598f3412d9c8f8600607cdf3030898f",
               "9d0982a7e7950b81bc2e325fb61bb7e295d2238934ab889737494de2dc4d906b"),
    "starcoder": Pin("fedb892b4e1bd3c1f2fcdae356440b14fb458f4264d586e5c987ed93df4e174d",
                     "3ef12183c57ad076f9defd8e5eb454f509f5f0865cad35646abb4c4b2d2c5764"),
    "refact": Pin("ac3ceda902fed91ccf74312b305d9b86c37e4f8e35fa9cc6ef3ce34fca7d4678",
                  "c7e5c1c5dc1dfd3e0d56576bf699d2aca0b760b80779523ea9d323aad6cd1b88"),
    "command-r": Pin("a2f8cfea952ef7c391a6d92a1c309d0bd32e36384d9b9230569a7425732f27d9",
                     "d2a601336e422b60a264858c01b14c5d37575fe1f9adfcafc2f3b3707903903f"),
    "falcon": Pin("9f0bf8b0733680398b72e652e90f260f43782f326e75545fc0e49611a5ba35ad",
                  "f8c80a0483582ef195c2129b69bb2e4e421b0f31ed7b35d84b63511d7ebae7cd"),
    "deepseek-llm": Pin("867f77537b54565f0d81d508c04edc41aa1d4ffc1a92745f225b4c1b02755f76",
                        "87cfc1a8a9a7ef25d04d28c26a67b6a620af7be938c9bd0feeb4d319b9302832"),
    "deepseek-coder": Pin("91cb1379f2e33af1c4866b194622b7a0e12e8f0c9dba7ba2f10d55978730bec1",
                          "c2cea4584b0487e67fbd81f491bb44f89238722062126120d2c412edb3dbd853"),
}

#: a Unigram (t5) vocabulary without test pairs of its own: XLM-R's pieces (nomic-embed v2)
NOMIC_SHA = "90a6746926454784a98389ad36a36d89bc9cfc81db9cb0f33c941bcc959fe5f9"

#: catalog tokenizer -> the GGUF vocabulary whose reference ids it must reproduce
CATALOG = {"llama-2": "llama-spm", "llama-3": "llama-bpe", "gpt2": "gpt-2", "qwen3": "qwen2",
           "bert-base-uncased": "bert-bge"}

#: vocabularies whose normalizer loses information (BERT lower-cases and drops spaces)
LOSSY = {"bert-bge"}

Case = tuple[str, list[int]]


def _file(name: str, sha256: str) -> PypiFile:
    return PypiFile(DIST, VERSION, f"{MODELS}/{name}", sha256, archive="sdist")


def _files(vocab: str) -> dict[str, PypiFile]:
    pin = VOCABS[vocab]
    stem = f"ggml-vocab-{vocab}.gguf"
    return {"gguf": _file(stem, pin.gguf), "inp": _file(stem + ".inp", pin.inp),
            "out": _file(stem + ".out", pin.out)}


def read_pairs(inp: Path, out: Path) -> list[Case]:
    """Test strings and reference ids, split as llama.cpp's ``test-tokenizer-0`` splits them."""
    raw = inp.read_bytes().decode("utf-8")  # bytes: keep any "\r" as it is
    texts = raw.split(SEPARATOR)
    if raw.endswith(SEPARATOR):
        texts.pop()  # the separator ends the last case, it does not start an empty one
    lines = out.read_bytes().decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    assert len(texts) == len(lines), f"{inp.name}: {len(texts)} strings, {len(lines)} id lines"
    return [(text, [int(t) for t in line.split()]) for text, line in zip(texts, lines, strict=True)]


@pytest.fixture(scope="session")
def llamacpp_files(real_cache: Path) -> dict[str, dict[str, Path]]:
    """vocab -> {"gguf"|"inp"|"out": local path}; one sdist download for all of them."""
    from tokbench.loading.catalog import new_session

    wanted = {vocab: _files(vocab) for vocab in VOCABS}
    wanted["nomic-bert-moe"] = {"gguf": _file("ggml-vocab-nomic-bert-moe.gguf", NOMIC_SHA)}
    with new_session(real_cache) as session:
        got = session.pypi_files([f for files in wanted.values() for f in files.values()])
    out: dict[str, dict[str, Path]] = {}
    for vocab, files in wanted.items():
        out[vocab] = {}
        for kind, f in files.items():
            result = got[f]
            if isinstance(result, BaseException):
                raise result
            out[vocab][kind] = result
    return out


@pytest.fixture(scope="session")
def pairs(llamacpp_files: dict[str, dict[str, Path]]) -> dict[str, list[Case]]:
    return {vocab: read_pairs(files["inp"], files["out"])
            for vocab, files in llamacpp_files.items() if vocab in VOCABS}


@pytest.fixture(scope="session")
def gguf_tokenizer(llamacpp_files: dict[str, dict[str, Path]]
                   ) -> Callable[[str], GGUFTokenizer]:
    """Each GGUF vocabulary loaded once, on first use."""
    loaded: dict[str, GGUFTokenizer] = {}

    def get(vocab: str) -> GGUFTokenizer:
        if vocab not in loaded:
            loaded[vocab] = load(llamacpp_files[vocab]["gguf"], name=f"gguf:{vocab}")
        return loaded[vocab]

    return get


@pytest.fixture(scope="session")
def catalog_tokenizer() -> Callable[[str], Tokenizer]:
    from tokbench.loading.loader import load_tokenizer

    return load_tokenizer


def _show(tok: Tokenizer, ids: list[int]) -> str:
    return "[" + ", ".join(f"{i} {tok.token_str(i)!r}" for i in ids) + "]"


def _check(tok: Tokenizer, text: str, expected: list[int]) -> None:
    got = tok.encode(text)
    assert got == expected, (f"{text!r}: expected {_show(tok, expected)}, "
                             f"got {_show(tok, got)}")


VOCAB_CASES = [(v, i) for v, pin in VOCABS.items() for i in range(pin.cases)]
CATALOG_CASES = [(name, i) for name, v in CATALOG.items() for i in range(VOCABS[v].cases)]


def test_case_counts(pairs: dict[str, list[Case]]) -> None:
    assert {v: len(c) for v, c in pairs.items()} == {v: p.cases for v, p in VOCABS.items()}
    # the first case of the shared input file, as a check of the splitting
    assert pairs["llama-spm"][0] == ("ied 4 ½ months", [474, 287, 29871, 29946, 29871, 30226,
                                                        7378])
    assert pairs["llama-spm"][2] == ("", [])


@pytest.mark.parametrize("vocab", list(VOCABS))
def test_reference_ids_hold_no_special_tokens(vocab: str, pairs: dict[str, list[Case]],
                                              gguf_tokenizer: Callable[[str], GGUFTokenizer]
                                              ) -> None:
    tok = gguf_tokenizer(vocab)
    # BERT's [UNK] is a control token too, and stands for unknown words in the ids
    control = {i for i in range(tok.vocab_size) if tok.token_type(i) == CONTROL} - {tok.unk_id}
    bos_eos = {v for k, v in tok.gguf["special_ids"].items() if k in ("bos", "eos", "cls", "sep")}
    assert bos_eos and bos_eos <= control
    used = {i for _, ids in pairs[vocab] for i in ids}
    assert not used & control


@pytest.mark.parametrize(("vocab", "index"), VOCAB_CASES,
                         ids=[f"{v}-{i:02d}" for v, i in VOCAB_CASES])
def test_gguf_ids_match_reference(vocab: str, index: int, pairs: dict[str, list[Case]],
                                  gguf_tokenizer: Callable[[str], GGUFTokenizer]) -> None:
    text, expected = pairs[vocab][index]
    tok = gguf_tokenizer(vocab)
    _check(tok, text, expected)
    if vocab not in LOSSY:
        assert tok.decode(expected) == text


@pytest.mark.parametrize(("name", "index"), CATALOG_CASES,
                         ids=[f"{n}-{i:02d}" for n, i in CATALOG_CASES])
def test_catalog_ids_match_reference(name: str, index: int, pairs: dict[str, list[Case]],
                                     catalog_tokenizer: Callable[[str], Tokenizer]) -> None:
    text, expected = pairs[CATALOG[name]][index]
    _check(catalog_tokenizer(name), text, expected)


#: the shared test strings on which XLM-R's tokenizer.json and its SentencePiece original
#: differ: whitespace-only text, where SentencePiece (remove_extra_whitespaces) gives no
#: ids and the tokenizer.json run by `tokenizers` gives one "▁" (id 6)
XLMR_JSON_DIFFERS = {3: " ", 4: "  ", 5: "   ", 6: "\t", 7: "\n", 8: "\n\n", 9: "\n\n\n",
                     10: "\t\n"}


@pytest.mark.parametrize("index", range(VOCABS["llama-spm"].cases),
                         ids=[f"t5-{i:02d}" for i in range(VOCABS["llama-spm"].cases)])
def test_t5_gguf_matches_the_sentencepiece_original(
        index: int, pairs: dict[str, list[Case]], gguf_tokenizer: Callable[[str], GGUFTokenizer],
        catalog_tokenizer: Callable[[str], Tokenizer]) -> None:
    """The Unigram GGUF (XLM-R's pieces and normalization map) against XLM-R's original
    ``sentencepiece.bpe.model`` (``xlm-roberta-spm``, fairseq ids): no reference ids ship
    for this vocabulary, and SentencePiece itself is the reference the GGUF converts."""
    text, _ = pairs["llama-spm"][index]  # the shared test strings
    original = catalog_tokenizer("xlm-roberta-spm")
    _check(gguf_tokenizer("nomic-bert-moe"), text, original.encode(text))


def test_xlm_roberta_json_differs_from_its_original_only_on_whitespace_only_text(
        pairs: dict[str, list[Case]], catalog_tokenizer: Callable[[str], Tokenizer]) -> None:
    spm, js = catalog_tokenizer("xlm-roberta-spm"), catalog_tokenizer("xlm-roberta")
    differ = {i: text for i, (text, _) in enumerate(pairs["llama-spm"])
              if spm.encode(text) != js.encode(text)}
    assert differ == XLMR_JSON_DIFFERS
    assert all(spm.encode(t) == [] and js.encode(t) == [6] for t in differ.values())
    assert js.token_str(6) == spm.token_str(6) == "▁"


def test_catalog_sources_are_the_ones_described(
        catalog_tokenizer: Callable[[str], Tokenizer]) -> None:
    """The catalog comparison above is only worth something if the sources differ."""
    backends = {name: catalog_tokenizer(name).describe()["backend"] for name in CATALOG}
    assert backends == {"llama-2": "gguf", "llama-3": "tiktoken", "gpt2": "tiktoken",
                        "qwen3": "tokenizers", "bert-base-uncased": "gguf"}
