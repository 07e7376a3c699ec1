"""tokbench: evaluate and benchmark tokenizers.

The public API is imported lazily so ``import tokbench`` stays light (it imports
none of transformers, sentencepiece or tokenizers)::

    tok = tokbench.load_tokenizer("cl100k_base")
    suite = tokbench.load_suite("japanese")
    results = tokbench.run(tokenizers=["gpt2", "llama-3"], suites=["japanese"])
    results.to_frame()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tokbench.version import __version__

_LAZY = {
    "load_tokenizer": "tokbench.loading.loader:load_tokenizer",
    "load_suite": "tokbench.suites:load_suite",
    "run": "tokbench.engine.runner:run",
    "Tokenizer": "tokbench.adapters.base:Tokenizer",
    "Suite": "tokbench.suites.model:Suite",
    "Document": "tokbench.suites.model:Document",
    "Results": "tokbench.results:Results",
    "TokbenchError": "tokbench.errors:TokbenchError",
    "Settings": "tokbench.engine.runner:Settings",
    "compare": "tokbench.ci.compare:compare",
    "list_tokenizers": "tokbench.loading.catalog:list_tokenizers",
    "list_suites": "tokbench.suites:list_suites",
    "list_metrics": "tokbench.metrics:list_metrics",
}

__all__ = [
    "Document",
    "Results",
    "Settings",
    "Suite",
    "TokbenchError",
    "Tokenizer",
    "__version__",
    "compare",
    "list_metrics",
    "list_suites",
    "list_tokenizers",
    "load_suite",
    "load_tokenizer",
    "run",
]

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.ci.compare import compare
    from tokbench.engine.runner import Settings, run
    from tokbench.errors import TokbenchError
    from tokbench.loading.catalog import list_tokenizers
    from tokbench.loading.loader import load_tokenizer
    from tokbench.metrics import list_metrics
    from tokbench.results import Results
    from tokbench.suites import list_suites, load_suite
    from tokbench.suites.model import Document, Suite


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from tokbench.registry import import_object

        obj = import_object(_LAZY[name])
        globals()[name] = obj
        return obj
    raise AttributeError(f"module 'tokbench' has no attribute {name!r}")
