"""Derived sources: recipes on small synthetic inputs, and refusal by hash (no network).

A tiny wheel holding synthetic inputs of every recipe is served to the real ``pip
download`` with ``--no-index --find-links``; a second index holds a tampered wheel of the
same name and version. Each derived source of the catalog has its recipe run here on
such inputs: a tampered input is refused when extracted, a recipe output that differs
from the pinned sha256 is refused before anything is cached.
"""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokbench.errors import HashMismatchError, SourceError
from tokbench.loading import derived
from tokbench.loading.derived import DerivedFile, c_byte_array, concat, wordpiece_vocab
from tokbench.loading.sources import FetchSession, PypiFile


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# synthetic inputs, one per recipe
PARTS = [b"GGUF\x03\x00", b"part two ", b"end"]  # a file split over parts (gemma-3)
JSON = b'{"model": {"type": "Unigram"}}\n'
HEADER = (b"static const unsigned char other[] = {\n    0x41,\n};\n"
          b"static const unsigned char t5_json[] = {\n"
          + b"".join(b"    0x%02x,\n" % c for c in JSON) + b"};\n")
ZIPPED = io.BytesIO()
with zipfile.ZipFile(ZIPPED, "w") as _zf:
    _zf.writestr("tokenizer.json", JSON)
ZIP = ZIPPED.getvalue()
# a stand-in for blingfire's decoder: "[anchor, i]" joined as blingfire joins WordPiece ids
TABLE = ["[PAD]", "[UNK]", "Let", "##s", "go", "##ne", "日本"]
VOCAB = "".join(f"{p}\n" for p in TABLE).encode()
LIB, I2W = b"\x7fELF fake library", b"fake i2w table"

INPUTS = {"data/g.part00": PARTS[0], "data/g.part01": PARTS[1], "data/g.part02": PARTS[2],
          "data/t5.hpp": HEADER, "data/tokenizer.json.zip": ZIP, "data/lib.so": LIB,
          "data/vocab.i2w": I2W}


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _wheel(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    info = "derivedtok-1.0.dist-info"
    members = {**{f"derivedtok/{k}": v for k, v in files.items()},
               f"{info}/METADATA": b"Metadata-Version: 2.1\nName: derivedtok\nVersion: 1.0\n",
               f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                b"Tag: py3-none-any\n"}
    record = "\n".join([*(_record_line(n, d) for n, d in members.items()),
                        f"{info}/RECORD,,"]) + "\n"
    with zipfile.ZipFile(root / "derivedtok-1.0-py3-none-any.whl", "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.writestr(f"{info}/RECORD", record)
    return root


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """"good": the synthetic inputs; "tampered": every input changed by one byte."""
    root = tmp_path_factory.mktemp("derived-index")
    tampered = {k: v[:-1] + bytes([v[-1] ^ 1]) for k, v in INPUTS.items()}
    return {"good": _wheel(root / "good", INPUTS), "tampered": _wheel(root / "bad", tampered)}


def session(index: Path, cache: Path) -> FetchSession:
    return FetchSession(cache, pip_args=["--no-index", "--find-links", str(index)],
                        offline=False)


def inp(member: str) -> PypiFile:
    return PypiFile("derivedtok", "1.0", f"derivedtok/{member}", sha(INPUTS[member]))


def fake_decoder(library: Path, model: Path) -> derived.IdsToText:
    assert (library.read_bytes(), model.read_bytes()) == (LIB, I2W)

    def decode(ids: Sequence[int]) -> bytes:
        text = ""
        for i in ids:
            piece = TABLE[i]
            text += piece[2:] if piece.startswith("##") else (" " if text else "") + piece
        return text.encode()
    return decode


#: name -> (the derived source as the catalog builds it, with synthetic inputs; its output)
SOURCES: dict[str, tuple[DerivedFile, bytes]] = {
    "gemma-3 (concat)": (DerivedFile(tuple(inp(f"data/g.part0{k}") for k in range(3)), "concat",
                                     "g.gguf", sha(b"".join(PARTS)), transient=True),
                         b"".join(PARTS)),
    "t5 (c-byte-array)": (DerivedFile((inp("data/t5.hpp"),), "c-byte-array", "tokenizer.json",
                                      sha(JSON), (("symbol", "t5_json"),)), JSON),
    "deepseek-v3, glm-4 (unzip)": (DerivedFile((inp("data/tokenizer.json.zip"),), "unzip",
                                               "tokenizer.json", sha(JSON),
                                               (("member", "tokenizer.json"),)), JSON),
    "mbert (blingfire-vocab)": (DerivedFile((inp("data/lib.so"), inp("data/vocab.i2w")),
                                            "blingfire-vocab", "vocab.txt", sha(VOCAB),
                                            (("anchor", "2"), ("size", str(len(TABLE))))),
                                VOCAB),
}


@pytest.fixture(autouse=True)
def _fake_blingfire(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(derived, "_decoder_factory", fake_decoder)


@pytest.mark.parametrize("name", list(SOURCES))
def test_builds_the_pinned_output_and_caches_it(name: str, indexes: dict[str, Path],
                                                tmp_path: Path) -> None:
    source, output = SOURCES[name]
    with session(indexes["good"], tmp_path) as s:
        got = source.fetch(s)
        assert got.fresh and got.path is not None and got.path.read_bytes() == output
        assert got.info.kind == "derived" and got.info.sha256 == sha(output)
        assert s.pip_calls == 1  # every input from one wheel, downloaded once
    kept = [f.cached_path(tmp_path) is not None for f in source.inputs]
    assert kept == [not source.transient] * len(source.inputs)
    with session(indexes["good"], tmp_path) as s:  # second time: the cached output, no pip
        again = source.fetch(s)
        assert not again.fresh and s.pip_calls == 0


@pytest.mark.parametrize("name", list(SOURCES))
def test_tampered_input_is_refused(name: str, indexes: dict[str, Path], tmp_path: Path) -> None:
    source, _ = SOURCES[name]
    with session(indexes["tampered"], tmp_path) as s, \
            pytest.raises(HashMismatchError, match="sha256 mismatch"):
        source.fetch(s)
    assert source.cached_path(tmp_path) is None


@pytest.mark.parametrize("name", list(SOURCES))
def test_changed_recipe_output_is_refused(name: str, indexes: dict[str, Path],
                                          tmp_path: Path) -> None:
    source, output = SOURCES[name]
    pinned_elsewhere = DerivedFile(source.inputs, source.recipe, source.output,
                                   sha(output + b"\n"), source.params)
    with session(indexes["good"], tmp_path) as s, pytest.raises(HashMismatchError) as e:
        pinned_elsewhere.fetch(s)
    assert f"made by recipe {source.recipe!r}" in str(e.value)
    assert pinned_elsewhere.cached_path(tmp_path) is None
    assert not list((tmp_path / "derived").rglob("*.tmp"))


def test_a_damaged_cached_output_is_rebuilt(indexes: dict[str, Path], tmp_path: Path) -> None:
    source, output = SOURCES["t5 (c-byte-array)"]
    with session(indexes["good"], tmp_path) as s:
        path = source.fetch(s).path
    assert path is not None
    path.write_bytes(b"{}")
    with session(indexes["good"], tmp_path) as s:
        assert source.fetch(s).path == path
    assert path.read_bytes() == output


# -- the recipes on their own ----------------------------------------------------------------


def _run(recipe: derived.Recipe, paths: list[Path], **params: str) -> bytes:
    return b"".join(recipe(paths, params, lambda m: None))


def test_concat_reports_progress(tmp_path: Path) -> None:
    paths = []
    for k, data in enumerate(PARTS):
        paths.append(tmp_path / f"p{k}")
        paths[-1].write_bytes(data)
    seen: list[str] = []
    assert b"".join(concat(paths, {"name": "g.gguf"}, seen.append)) == b"".join(PARTS)
    assert seen[-1] == "assembling g.gguf: 0 of 0 MB"


def test_c_byte_array_finds_the_named_array(tmp_path: Path) -> None:
    header = tmp_path / "x.hpp"
    header.write_bytes(HEADER)
    assert _run(c_byte_array, [header], symbol="t5_json") == JSON
    assert _run(c_byte_array, [header], symbol="other") == b"A"


def test_wordpiece_vocab_from_pair_decodes() -> None:
    table = ["Let", "##s", "go"]

    def dec(ids: Sequence[int]) -> bytes:
        return {(0,): b"Let", (0, 0): b"Let Let", (0, 1): b"Lets", (0, 2): b"Let go"}[tuple(ids)]
    assert b"".join(wordpiece_vocab(dec, 0, len(table))) == b"Let\n##s\ngo\n"


def test_unknown_recipe_is_refused(tmp_path: Path, indexes: dict[str, Path]) -> None:
    source = DerivedFile((inp("data/t5.hpp"),), "no-such-recipe", "x", sha(b""))
    with session(indexes["good"], tmp_path) as s, \
            pytest.raises(SourceError, match="no recipe 'no-such-recipe'; known: concat"):
        source.fetch(s)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300), per_line=st.integers(1, 16), upper=st.booleans())
def test_c_byte_array_reads_back_any_bytes(tmp_path: Path, data: bytes, per_line: int,
                                           upper: bool) -> None:
    """Whatever the bytes and however the array is laid out, the recipe gives them back."""
    fmt = "0x%02X" if upper else "0x%02x"
    items = [fmt % b for b in data]
    rows = [", ".join(items[k:k + per_line]) for k in range(0, len(items), per_line)]
    header = tmp_path / "gen.hpp"
    header.write_text("static const unsigned char before[] = { 0x00 };\n"
                      "static const unsigned char gen_data[] = {\n    "
                      + ",\n    ".join(rows) + ("," if rows else "") + "\n};\n",
                      encoding="ascii")
    assert _run(c_byte_array, [header], symbol="gen_data") == data
