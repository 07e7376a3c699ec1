"""Tokenizer files from the Hugging Face hub (``huggingface_hub``), pinned by revision or
sha256 where the catalog knows one."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from tokbench.errors import MissingDependencyError, SourceError
from tokbench.hashing import sha256_file
from tokbench.loading.hash_cache import hash_mismatch
from tokbench.loading.source_model import HUB_TOKENIZER_FILES, Fetched
from tokbench.record import TokenizerSource

if TYPE_CHECKING:
    from tokbench.loading.pypi import FetchSession

def _hub_endpoint_unreachable() -> str | None:
    """Why the hub cannot be reached, or None if it might be (checked by name lookup only)."""
    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return None  # a proxy resolves names for us
    from huggingface_hub import constants

    host = urlparse(constants.ENDPOINT).hostname or "huggingface.co"
    try:
        socket.getaddrinfo(host, 443)
    except OSError as e:
        return f"cannot reach {host} ({e.strerror or e}); the hub needs network access"
    return None


def _hub_reason(e: BaseException) -> str:
    name = type(e).__name__
    if name == "GatedRepoError":
        return "the repository is gated: accept its license on the hub and set HF_TOKEN"
    if name == "RepositoryNotFoundError":
        return "no such repository on the hub (or it is private: set HF_TOKEN)"
    if name == "RevisionNotFoundError":
        return "no such revision"
    if name in ("EntryNotFoundError", "RemoteEntryNotFoundError"):
        return "no such file in the repository"
    if name == "LocalEntryNotFoundError":
        return "not in the local hub cache and the hub is unreachable or offline mode is on"
    first = str(e).strip().splitlines()[0] if str(e).strip() else name
    return f"{name}: {first}"


def _commit_of(path: str | Path) -> str | None:
    parts = Path(path).parts
    if "snapshots" in parts:
        i = parts.index("snapshots")
        if i + 1 < len(parts):
            return parts[i + 1]
    return None


@dataclass(frozen=True)
class HubSource:
    """A Hugging Face hub repository at a revision: one file, or its tokenizer files."""

    repo_id: str
    filename: str | None = None  # None: the tokenizer files of the repo, as a folder
    revision: str | None = None
    sha256: str | None = None  # pinned hash of ``filename``, when known
    kind: str = field(default="hub", init=False)

    def describe(self) -> str:
        rev = f"@{self.revision}" if self.revision else ""
        return f"hub {self.repo_id}{rev}" + (f" {self.filename}" if self.filename else "")

    def _location(self, local: str | Path) -> str:
        rev = self.revision or _commit_of(local) or "main"
        return f"hf:{self.repo_id}@{rev}" + (f":{self.filename}" if self.filename else "")

    def cached_path(self, cache: Path) -> Path | None:
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:
            return None
        got = try_to_load_from_cache(self.repo_id, self.filename or "tokenizer_config.json",
                                     revision=self.revision)
        if isinstance(got, str):
            return Path(got) if self.filename else Path(got).parent
        return None

    def fetch(self, session: FetchSession) -> Fetched:
        try:
            import huggingface_hub as hub
        except ImportError as e:
            raise MissingDependencyError("huggingface_hub", purpose="loading from the hub") from e
        where = self.describe()
        local = self._local(hub)
        fresh = local is None
        if local is None:
            if session.offline or hub.constants.HF_HUB_OFFLINE:
                raise SourceError(f"{where}: not in the local hub cache (offline mode)")
            reason = _hub_endpoint_unreachable()
            if reason:
                raise SourceError(f"{where}: {reason}")
            session.status(f"downloading {where}")
            try:
                if self.filename:
                    local = Path(hub.hf_hub_download(self.repo_id, self.filename,
                                                     revision=self.revision))
                else:
                    local = Path(hub.snapshot_download(self.repo_id, revision=self.revision,
                                                       allow_patterns=list(HUB_TOKENIZER_FILES)))
            except Exception as e:  # the hub raises many kinds; all mean "not from here"
                raise SourceError(f"{where}: {_hub_reason(e)}") from e
        digest = None
        if self.filename:
            digest = sha256_file(local)
            if self.sha256 is not None and digest != self.sha256:
                raise hash_mismatch(f"{self.filename} from {self.repo_id}", self.sha256, digest)
        return Fetched(local, TokenizerSource("hub", self._location(local), digest, str(local)),
                       fresh=fresh)

    def _local(self, hub: Any) -> Path | None:
        """The file or folder from the local hub cache, without network."""
        try:
            if self.filename:
                got = hub.try_to_load_from_cache(self.repo_id, self.filename,
                                                 revision=self.revision)
                return Path(got) if isinstance(got, str) else None
            return Path(hub.snapshot_download(self.repo_id, revision=self.revision,
                                              allow_patterns=list(HUB_TOKENIZER_FILES),
                                              local_files_only=True))
        except Exception:
            return None
