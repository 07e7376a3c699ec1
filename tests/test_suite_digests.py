"""A suite's content hash kept on disk (``tokbench.suites.digests``): the same value as
hashing the documents, and hashed again once a byte of a file, an option or the choice
of documents changes."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tokbench.suites import load_suite
from tokbench.suites.digests import _path


def _flores(root: Path, eng: str = "Hi.\nBye.\n", fra: str = "Salut.\nAdieu.\n") -> Path:
    for split in ("dev", "devtest"):
        (root / split).mkdir(parents=True, exist_ok=True)
        (root / split / f"eng_Latn.{split}").write_text(eng, encoding="utf-8")
        (root / split / f"fra_Latn.{split}").write_text(fra, encoding="utf-8")
    return root


def _hash(docs: list[tuple[str, str, str, str, str]]) -> str:
    """The documented format: one JSON list [id, lang, domain, align, text] a line."""
    lines = "".join(f'["{i}", "{lang}", "{dom}", "{al}", "{text}"]\n'
                    for i, lang, dom, al, text in docs)
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def _docs(eng: tuple[str, str], fra: tuple[str, str], langs: tuple[str, ...] = ("eng_Latn",
                                                                               "fra_Latn")
          ) -> list[tuple[str, str, str, str, str]]:
    texts = {"eng_Latn": eng, "fra_Latn": fra}
    return [(f"{lang}:{split}:{n}", lang, split, f"{split}:{n}", texts[lang][n - 1])
            for lang in langs for split in ("dev", "devtest") for n in (1, 2)]


def test_the_kept_hash_is_the_documents_hash_until_a_file_changes(tmp_path: Path,
                                                                  cache: Path) -> None:
    root = _flores(tmp_path / "flores")
    want = _hash(_docs(("Hi.", "Bye."), ("Salut.", "Adieu.")))
    first = load_suite(f"flores200:{root}")
    assert first.digest_key is not None and first.sha256 == want
    entry = _path(first.digest_key)
    assert entry.read_text() == want + "\n"
    # the next load reads the entry: a value planted there is what it says
    entry.write_text("ab" * 32 + "\n")
    assert load_suite(f"flores200:{root}").sha256 == "ab" * 32
    # one byte changed, same size and modification time: another key, hashed again
    path = root / "dev" / "fra_Latn.dev"
    st = path.stat()
    path.write_text("Salut!\nAdieu.\n", encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    changed = load_suite(f"flores200:{root}")
    assert changed.digest_key != first.digest_key
    assert changed.sha256 == _hash([d if d[0] != "fra_Latn:dev:1" else
                                    (*d[:4], "Salut!") for d in _docs(("Hi.", "Bye."),
                                                                      ("Salut.", "Adieu."))])


def test_options_and_selections_change_the_hash(tmp_path: Path, cache: Path) -> None:
    root = _flores(tmp_path / "flores")
    docs = _docs(("Hi.", "Bye."), ("Salut.", "Adieu."))
    dev = load_suite(f"flores200:{root}?split=dev")
    assert dev.sha256 == _hash([d for d in docs if d[2] == "dev"])
    both = load_suite(f"flores200:{root}")
    assert both.digest_key != dev.digest_key
    picked = load_suite(f"flores200:{root}?languages=fra_Latn")
    assert picked.digest_key is None  # its documents are not the files' own
    assert picked.sha256 == _hash([d for d in docs if d[1] == "fra_Latn"])


def test_a_damaged_entry_is_hashed_again(tmp_path: Path, cache: Path) -> None:
    root = _flores(tmp_path / "flores")
    want = _hash(_docs(("Hi.", "Bye."), ("Salut.", "Adieu.")))
    first = load_suite(f"flores200:{root}")
    key = first.digest_key
    assert key is not None and first.sha256 == want
    _path(key).write_text("not a hash\n")
    assert load_suite(f"flores200:{root}").sha256 == want
    assert _path(key).read_text() == want + "\n"
