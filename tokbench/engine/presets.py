"""Ready comparisons for ``tokbench run --preset NAME``: tokenizers, suites, metrics, output.

``japanese`` is the classic comparison of Japanese tokenization (GPT-2, cl100k_base,
Llama 2, XLM-R, multilingual BERT and the Tohoku Japanese BERT; the last loads from the
hub or from ``$TOKBENCH_TOKENIZER_DIR`` and is reported as skipped where neither has it);
``japanese-modern`` the current large-vocabulary families on the same suites.
"""

from __future__ import annotations

from typing import Any

_JAPANESE_SUITES = ["japanese", "multilingual?languages=eng_Latn,jpn_Jpan"]
_JAPANESE_METRICS = ["compression", "fertility", "morph", "morph_sudachi", "robustness", "premium",
                     "unknown", "roundtrip", "throughput"]
_JAPANESE_FOCUS = {"japanese": "all", "multilingual": "jpn_Jpan"}

PRESETS: dict[str, dict[str, Any]] = {
    "japanese": {
        "tokenizers": ["gpt2", "cl100k_base", "llama-2", "xlm-roberta", "mbert",
                       "japanese-bert"],
        "suites": _JAPANESE_SUITES,
        "metrics": _JAPANESE_METRICS,
        "out": "reports/japanese",
        "focus": _JAPANESE_FOCUS,
    },
    "japanese-modern": {
        "tokenizers": ["o200k_base", "llama-3", "qwen3", "gemma-3", "deepseek-v3"],
        "suites": _JAPANESE_SUITES,
        "metrics": _JAPANESE_METRICS,
        "out": "reports/japanese-modern",
        "focus": _JAPANESE_FOCUS,
    },
}


def get_preset(name: str) -> dict[str, Any]:
    """A copy of preset ``name`` (lists copied too, so callers may change them)."""
    from tokbench.errors import UnknownNameError

    if name not in PRESETS:
        raise UnknownNameError("preset", name, list(PRESETS))
    return {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
            for k, v in PRESETS[name].items()}
