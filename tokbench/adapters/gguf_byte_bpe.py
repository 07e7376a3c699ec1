"""GGUF ``gpt2`` vocabularies rebuilt as a ``tokenizers`` byte-level BPE, with the
pre-tokenizer and normalizer of the original ``tokenizer.json`` chosen by
``tokenizer.ggml.pre`` (``PRE_TOKENIZERS``); an unknown name is an error, not a guess."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tokbench.adapters.gguf_reader import GGUFVocab, UnsupportedGGUFError
from tokbench.adapters.gguf_tokenizers import add_tokens, added_tokens, import_tokenizers
from tokbench.errors import CorruptFileError

if TYPE_CHECKING:
    import tokenizers

_CONTRACTIONS_CI = "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
LLAMA3_PATTERN = (_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
                  r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_PATTERN = (_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
                 r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN35_PATTERN = (_CONTRACTIONS_CI + r"|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"
                  r"| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_CJK_RUNS = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
_DEEPSEEK_LLM_LETTERS = (
    "\\s?[A-Za-z\xb5\xc0-\xd6\xd8-\xf6\xf8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af"
    "\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1"
    "\u03a3-\u03f5\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5"
    "\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a"
    "\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57\u1f59\u1f5b\u1f5d"
    "\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-\u1fd3"
    "\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107\u210a-\u2113\u2115"
    "\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f"
    "\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3"
    "\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf"
    "\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f"
    "\U000104b0-\U000104d3\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2"
    "\U000118a0-\U000118df\U0001e900-\U0001e943]+")
_DEEPSEEK_LLM_PUNCT = "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+"

# A pre-tokenizer step: ("split", regex) isolates every match; ("digits", individual);
# ("punct",) isolates punctuation runs; ("bytelevel", use_gpt2_regex) is always last.
_Step = tuple[Any, ...]


@dataclass(frozen=True)
class BytePreTokenizer:
    """How an original byte-level BPE ``tokenizer.json`` normalizes and splits text."""

    steps: tuple[_Step, ...]
    nfc: bool = False
    ignore_merges: bool = False  # a pre-token that is a whole vocabulary entry is kept whole
    models: str = ""


_GPT2 = BytePreTokenizer((("bytelevel", True),), models="GPT-2")
_LLAMA3 = BytePreTokenizer((("split", LLAMA3_PATTERN), ("bytelevel", False)),
                           ignore_merges=True, models="Llama 3")
#: ``tokenizer.ggml.pre`` values this adapter knows, each checked against the ids of the
#: original tokenizer (llama.cpp's ``ggml-vocab-*.gguf.inp/.out`` test pairs).
PRE_TOKENIZERS: dict[str, BytePreTokenizer] = {
    "gpt-2": _GPT2,
    "llama-bpe": _LLAMA3,
    "llama3": _LLAMA3,  # older names llama.cpp gave the same pre-tokenizer
    "llama-v3": _LLAMA3,
    "qwen2": BytePreTokenizer((("split", QWEN2_PATTERN), ("bytelevel", False)), nfc=True,
                              models="Qwen 1.5 / 2 / 2.5"),
    "qwen35": BytePreTokenizer((("split", QWEN35_PATTERN), ("bytelevel", False)),
                               models="Qwen 3.5"),
    "mpt": BytePreTokenizer((("bytelevel", True),), nfc=True, models="MPT (GPT-NeoX)"),
    "starcoder": BytePreTokenizer((("digits", True), ("bytelevel", True)), models="StarCoder"),
    "refact": BytePreTokenizer((("digits", True), ("bytelevel", True)), models="Refact"),
    "command-r": BytePreTokenizer((("digits", True), ("bytelevel", True)), nfc=True,
                                  models="Command-R"),
    "falcon": BytePreTokenizer((("punct",), ("bytelevel", True), ("digits", False),
                                ("split", "[0-9][0-9][0-9]")), models="Falcon"),
    "deepseek-coder": BytePreTokenizer(
        (("split", "[\r\n]"), ("split", r"\s?\p{L}+"), ("split", r"\s?\p{P}+"),
         ("split", _CJK_RUNS), ("digits", True), ("bytelevel", False)),
        models="DeepSeek Coder"),
    "deepseek-llm": BytePreTokenizer(
        (("split", "[\r\n]"), ("split", _DEEPSEEK_LLM_LETTERS), ("split", _DEEPSEEK_LLM_PUNCT),
         ("split", r"\s+$"), ("split", _CJK_RUNS), ("digits", False), ("bytelevel", False)),
        models="DeepSeek LLM"),
}


def _pre_tokenizer(spec: BytePreTokenizer) -> Any:
    tk = import_tokenizers()
    pre = tk.pre_tokenizers
    steps = []
    for step in spec.steps:
        if step[0] == "split":
            steps.append(pre.Split(tk.Regex(step[1]), behavior="isolated", invert=False))
        elif step[0] == "digits":
            steps.append(pre.Digits(individual_digits=step[1]))
        elif step[0] == "punct":
            steps.append(pre.Punctuation(behavior="contiguous"))
        else:
            steps.append(pre.ByteLevel(add_prefix_space=False, use_regex=step[1]))
    return steps[0] if len(steps) == 1 else pre.Sequence(steps)


def supported_pre() -> str:
    """The known ``tokenizer.ggml.pre`` values, for messages."""
    return ", ".join(sorted(PRE_TOKENIZERS))


def bpe_merges(vocab: GGUFVocab) -> list[tuple[str, str]]:
    """``tokenizer.ggml.merges`` as pairs (split at the first space after the first character,
    as llama.cpp does)."""
    if not vocab.merges:
        raise CorruptFileError(f"{vocab.path}: byte-level BPE vocabulary without "
                               "tokenizer.ggml.merges")
    out = []
    for i, merge in enumerate(vocab.merges):
        cut = merge.find(" ", 1)
        if cut < 0:
            raise CorruptFileError(f"{vocab.path}: tokenizer.ggml.merges[{i}] {merge[:40]!r} is "
                                   "not two pieces separated by a space")
        out.append((merge[:cut], merge[cut + 1:]))
    return out


def build_byte_bpe(vocab: GGUFVocab, pre: str) -> tokenizers.Tokenizer:
    """A ``tokenizers`` byte-level BPE equivalent to a ``gpt2`` GGUF vocabulary."""
    spec = PRE_TOKENIZERS.get(pre)
    if spec is None:
        raise UnsupportedGGUFError(
            f"{vocab.path}: unsupported GGUF pre-tokenizer {pre!r}; supported: "
            f"{supported_pre()} (pass pre=NAME if the model uses one of these)")
    tk = import_tokenizers()
    pieces: dict[str, int] = {}
    for i, tok in enumerate(vocab.tokens):
        pieces.setdefault(tok, i)
    try:
        model = tk.models.BPE(pieces, bpe_merges(vocab), ignore_merges=spec.ignore_merges)
    except Exception as e:  # tokenizers names the merge whose pieces are not in the vocab
        raise CorruptFileError(f"{vocab.path}: inconsistent BPE merges "
                               f"({str(e).splitlines()[0][:200]})") from e
    backend: tokenizers.Tokenizer = tk.Tokenizer(model)
    if spec.nfc:
        backend.normalizer = tk.normalizers.NFC()
    backend.pre_tokenizer = _pre_tokenizer(spec)
    backend.decoder = tk.decoders.ByteLevel()
    add_tokens(backend, added_tokens(tk, vocab.tokens, vocab.token_types))
    return backend
