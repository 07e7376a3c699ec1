"""Files taken out of pinned PyPI distributions, downloaded with the user's own ``pip``
(``FetchSession`` keeps each archive for its lifetime) and extracted, verified and cached."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tokbench.errors import CorruptFileError, SourceError, TokbenchError
from tokbench.hashing import sha256_file
from tokbench.loading.hash_cache import (
    tampered_cache_error,
    verified_file,
    write_verified,
)
from tokbench.loading.source_model import (
    OFFLINE_ENV,
    ArchiveKind,
    Fetched,
    StatusCallback,
    offline_from_env,
    pip_args_from_env,
)
from tokbench.record import TokenizerSource


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
        return Fetched(path, TokenizerSource("pypi", self.location, sha256_file(path),
                                             str(path)), fresh=path in session.written)


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
