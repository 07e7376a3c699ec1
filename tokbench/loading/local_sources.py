"""Local files and folders (``file:``, ``$TOKBENCH_TOKENIZER_DIR``) and the built-in baselines."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tokbench.errors import InputError, SourceError
from tokbench.hashing import sha256_file
from tokbench.loading.hash_cache import hash_mismatch
from tokbench.loading.source_model import TOKENIZER_DIR_ENV, Fetched
from tokbench.paths import user_path
from tokbench.record import TokenizerSource

if TYPE_CHECKING:
    from tokbench.loading.pypi import FetchSession


@dataclass(frozen=True)
class LocalSource:
    """A file or folder on this machine."""

    path: str
    kind: str = field(default="file", init=False)

    def describe(self) -> str:
        return f"file {self.path}"

    def cached_path(self, cache: Path) -> Path | None:
        p = user_path(self.path)
        return p if p.exists() else None

    def fetch(self, session: FetchSession) -> Fetched:
        p = user_path(self.path)
        if not p.exists():
            raise InputError(f"no such file or folder: {self.path}")
        p = p.resolve()
        digest = sha256_file(p) if p.is_file() else None
        return Fetched(p, TokenizerSource("file", str(p), digest, str(p)))


@dataclass(frozen=True)
class FolderSource:
    """A tokenizer folder under ``$TOKBENCH_TOKENIZER_DIR``, its main file pinned by sha256.

    For tokenizers no package registry carries: a user (or CI) who has a copy of the
    files points ``$TOKBENCH_TOKENIZER_DIR`` at the folder holding it.
    """

    folder: str
    main_file: str
    sha256: str
    kind: str = field(default="file", init=False)

    def describe(self) -> str:
        return f"folder ${TOKENIZER_DIR_ENV}/{self.folder}"

    def _path(self) -> Path | None:
        root = os.environ.get(TOKENIZER_DIR_ENV, "").strip()
        return Path(root).expanduser() / self.folder if root else None

    def cached_path(self, cache: Path) -> Path | None:
        p = self._path()
        return p if p is not None and (p / self.main_file).is_file() else None

    def fetch(self, session: FetchSession) -> Fetched:
        p = self._path()
        if p is None:
            raise SourceError(f"${TOKENIZER_DIR_ENV} is not set (set it to a folder holding "
                              f"{self.folder}/)")
        main = p / self.main_file
        if not main.is_file():
            raise SourceError(f"no {main}")
        digest = sha256_file(main)
        if digest != self.sha256:
            raise hash_mismatch(str(main), self.sha256, digest)
        return Fetched(p, TokenizerSource("file", str(p), digest, str(main)))


@dataclass(frozen=True)
class BuiltinSource:
    """A tokenizer that needs no file (the byte and character baselines)."""

    name: str
    kind: str = field(default="builtin", init=False)

    def describe(self) -> str:
        return f"built-in {self.name}"

    def cached_path(self, cache: Path) -> Path | None:
        return None

    def fetch(self, session: FetchSession) -> Fetched:
        return Fetched(None, TokenizerSource("builtin", f"builtin:{self.name}"))
