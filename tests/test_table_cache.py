"""The per-token table kept on disk per tokenizer file (``tokbench.metrics.tablecache``):
a table read back is the table filled id by id, and an entry that does not fit is
filled again, never believed."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from tests._toy import ToyTokenizer
from tests._trained import adapter
from tokbench.adapters.base import Tokenizer, is_utf8
from tokbench.metrics import tablecache
from tokbench.metrics.compute import TokenTable
from tokbench.record import TokenizerSource


def entries(root: Path) -> list[Path]:
    return sorted((root / "tables").rglob("*.npz"))


class Counted:
    """Counts ``token_bytes`` calls of a tokenizer (the table asks nothing else per id)."""

    def __init__(self, tok: Tokenizer, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = tok.token_bytes

        def counted(token_id: int) -> bytes:
            self.calls += 1
            return real(token_id)

        monkeypatch.setattr(tok, "token_bytes", counted)
        monkeypatch.setattr(tok, "all_token_bytes", lambda: None)  # always id by id


class GappyToy(ToyTokenizer):
    """A toy read from a file whose id 2 the backend does not define."""

    def __init__(self, sha: str | None = "ab" * 32) -> None:
        super().__init__(["a", "é", "-", "\u00e9\u00e9", " b"], unk=False, name="gappy")
        self.source = TokenizerSource("file", "gappy.json", sha, "/somewhere/gappy.json")

    def token_bytes(self, token_id: int) -> bytes:
        if token_id == 2:
            raise KeyError("no token 2")
        return super().token_bytes(token_id)


def by_id(table: TokenTable, ids: list[int]) -> list[tuple[bytes, int, bool, bool]]:
    return [(table.token_bytes(t), int(table.length[t]), bool(table.partial[t]),
             bool(table.fallback[t])) for t in ids]


@pytest.mark.parametrize("kind", ["tiktoken", "hf-bpe", "hf-unigram", "hf-wordpiece",
                                  "sp-bpe", "sp-unigram"])
def test_a_table_read_back_is_the_table_filled_id_by_id(kind: str, cache: Path) -> None:
    tok = adapter(kind)
    every = np.arange(tok.vocab_size)
    filled = TokenTable(tok)
    filled.ensure(every)
    [entry] = entries(cache)
    read = TokenTable(tok)
    read.ensure(every[:1])
    assert read.known.all()
    # the same facts as the backend's, id by id
    ids = every.tolist()
    expected = [(tok.token_bytes(t), len(tok.token_bytes(t)),
                 not is_utf8(tok.token_bytes(t)), tok.is_byte_fallback_token(t)) for t in ids]
    assert by_id(read, ids) == by_id(filled, ids) == expected
    assert bytes(read.flat) == bytes(filled.flat) == b"".join(e[0] for e in expected)
    assert entries(cache) == [entry]  # read, not written again
    if kind == "sp-bpe":  # a byte-fallback vocabulary: its 256 byte tokens are stored so
        assert int(read.fallback.sum()) == 256


def test_a_stored_table_asks_the_backend_nothing(cache: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    tok = GappyToy()
    counted = Counted(tok, monkeypatch)
    TokenTable(tok).ensure(np.array([0]))
    assert counted.calls == 5  # every id once, the gap too
    counted.calls = 0
    table = TokenTable(tok)
    table.ensure(np.array([0, 1, 3, 4]))
    assert counted.calls == 0
    assert [table.token_bytes(t) for t in (0, 1, 3, 4)] == [b"a", "é".encode(), "éé".encode(),
                                                            b" b"]
    assert table.known.tolist() == [True, True, False, True, True]
    assert table.length.tolist() == [1, 2, 0, 4, 2]
    with pytest.raises(KeyError, match="no token 2"):  # the gap, met: as without a cache
        table.ensure(np.array([2]))


def test_a_tokenizer_without_file_hash_fills_only_the_ids_met(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tok = GappyToy(sha=None)
    counted = Counted(tok, monkeypatch)
    table = TokenTable(tok)
    table.ensure(np.array([0, 4, 4]))
    assert counted.calls == 2
    assert entries(cache) == []
    assert table.token_bytes(4) == b" b"


def _rewrite(path: Path, **changed: np.ndarray) -> None:
    with np.load(path) as z:
        arrays = {name: z[name] for name in z.files}
    arrays.update(changed)
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    path.write_bytes(buf.getvalue())


@pytest.mark.parametrize("damage", [
    "torn", "not an npz", "another key", "lengths too long", "bytes for an unknown id",
    "a member missing", "partial of another length",
])
def test_a_damaged_entry_is_filled_again_never_believed(
        damage: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tok = GappyToy()
    fresh = TokenTable(tok)
    fresh.ensure(np.array([0]))
    [entry] = entries(cache)
    data = entry.read_bytes()
    if damage == "torn":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "not an npz":
        entry.write_bytes(b"not an npz")
    elif damage == "another key":
        _rewrite(entry, key=np.array("0" * 64))
    elif damage == "lengths too long":
        _rewrite(entry, length=np.array([1, 2, 0, 4, 3], dtype=np.int32))
    elif damage == "bytes for an unknown id":
        _rewrite(entry, known=np.array([True, True, False, False, True]))
    elif damage == "a member missing":
        with np.load(entry) as z:
            kept = {n: z[n] for n in z.files if n != "fallback"}
        buf = io.BytesIO()
        np.savez(buf, **kept)  # type: ignore[arg-type]
        entry.write_bytes(buf.getvalue())
    else:
        _rewrite(entry, partial=np.zeros(4, dtype=bool))
    counted = Counted(tok, monkeypatch)
    again = TokenTable(tok)
    again.ensure(np.array([0]))
    assert counted.calls == 5  # filled again
    ids = [0, 1, 3, 4]
    assert by_id(again, ids) == by_id(fresh, ids)
    assert tablecache.read_table(entry.stem) is not None  # and written whole again


def test_an_unwritable_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("TOKBENCH_CACHE", str(blocker / "sub"))  # cannot be a folder
    table = TokenTable(GappyToy())
    table.ensure(np.array([1]))
    assert table.token_bytes(1) == "é".encode()
    assert bool(table.partial[1]) is False


def test_the_key_is_the_files_and_the_code(cache: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    key = tablecache.table_key(GappyToy())
    assert key is not None
    assert tablecache.table_key(GappyToy(sha="cd" * 32)) != key  # another file
    moved = GappyToy()
    moved.name = "renamed"
    moved.source = TokenizerSource("file", "gappy.json", "ab" * 32, "/elsewhere/gappy.json")
    assert tablecache.table_key(moved) == key  # the same file elsewhere, under a name
    from tokbench.metrics import factcache

    monkeypatch.setattr(factcache, "module_sha256", lambda module: module + "-v2")
    assert tablecache.table_key(GappyToy()) != key  # new code: a new table
