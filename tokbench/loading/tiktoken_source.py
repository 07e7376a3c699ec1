"""tiktoken's own encodings (``tiktoken.get_encoding``), written as a rank file and cached."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokbench.errors import MissingDependencyError, SourceError
from tokbench.loading.hash_cache import tampered_cache_error, verified_file, write_verified
from tokbench.loading.source_model import Fetched
from tokbench.record import TokenizerSource

if TYPE_CHECKING:
    from tokbench.loading.pypi import FetchSession

def write_tiktoken_ranks(ranks: Mapping[bytes, int]) -> Iterator[bytes]:
    """The ``.tiktoken`` rank file format: ``base64(token) rank`` per line, by rank."""
    import base64

    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        yield base64.b64encode(token) + b" " + str(rank).encode() + b"\n"


@dataclass(frozen=True)
class TiktokenSource:
    """A tiktoken encoding by name, loaded by tiktoken itself (it downloads its own files).

    The encoding's ranks are written to the cache as a ``.tiktoken`` file, so the same
    pinned sha256 as the PyPI copy verifies it and one adapter recipe loads either. An
    unpinned source (any encoding tiktoken knows) also yields the encoding's split pattern
    and special tokens as adapter options.
    """

    encoding: str
    sha256: str | None = None
    kind: str = field(default="tiktoken", init=False)

    def describe(self) -> str:
        return f"tiktoken {self.encoding}"

    def cache_path(self, cache: Path) -> Path:
        return cache / "tiktoken" / f"{self.encoding}.tiktoken"

    def cached_path(self, cache: Path) -> Path | None:
        path = self.cache_path(cache)
        return path if path.is_file() else None

    def fetch(self, session: FetchSession) -> Fetched:
        target = self.cache_path(session.cache)
        location = f"tiktoken:{self.encoding}"
        if self.sha256 is not None and verified_file(target, self.sha256):
            return Fetched(target, TokenizerSource("tiktoken", location, self.sha256, str(target)))
        try:
            import tiktoken
        except ImportError as e:
            raise MissingDependencyError("tiktoken", purpose=location) from e
        if session.offline:
            if self.sha256 is not None and target.is_file():
                raise tampered_cache_error(target, self.sha256)
            raise SourceError(f"{location}: not cached (offline mode)")
        session.status(f"loading {location} with tiktoken")
        try:
            enc = tiktoken.get_encoding(self.encoding)
        except ValueError as e:
            if "Unknown encoding" in str(e):
                raise SourceError(f"{location}: tiktoken has no such encoding; known: "
                                  + ", ".join(tiktoken.list_encoding_names())) from e
            raise SourceError(f"{location}: {e}") from e
        except Exception as e:  # network errors from requests/blobfile
            raise SourceError(f"{location}: tiktoken could not download its file "
                              f"({type(e).__name__}; it needs network access); catalog names "
                              "take the same files from PyPI (tokbench list tokenizers)") from e
        digest = write_verified(target, write_tiktoken_ranks(enc._mergeable_ranks), self.sha256,
                                f"{location} ranks")
        options: dict[str, Any] = {}
        if self.sha256 is None:
            options = {"pat_str": enc._pat_str, "special_tokens": dict(enc._special_tokens)}
        return Fetched(target, TokenizerSource("tiktoken", location, digest, str(target)), options,
                       fresh=True)
