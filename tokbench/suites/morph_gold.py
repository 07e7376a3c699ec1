"""A user's gold morpheme segmentations (``--morph-gold FILE``), one word per line.

Accepted formats (the file's extension decides: ``.jsonl``/``.json`` or ``.csv``/``.tsv``):

- MorphScore's item files (Arnett & Bergen 2024): CSV with columns ``full_word``, ``pt1``,
  ``rest`` (the word and its two parts; an unnamed index column is ignored; an empty
  ``rest`` is a word without a morpheme boundary).
- CSV/TSV with columns ``word`` and ``segmentation`` (morphemes joined by ``+``, e.g.
  ``un+believ+able``; spaces around ``+`` are ignored), or without a header, the word
  then its segmentation.
- JSONL: one object per line with ``word`` and ``segmentation`` (a ``+`` string or a list
  of morphemes), or MorphScore's ``full_word``/``pt1``/``rest``.

An optional ``lang``/``language`` column or key gives per-language subsets. A line whose
morphemes do not spell its word is an ``InputError`` naming the file and line.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokbench.errors import InputError

GOLD_SUITE = "morph-gold"
"""The suite name of gold-file rows in the results."""


@dataclass(frozen=True)
class GoldWord:
    """One item: the word, the character offsets of its morpheme boundaries, its line."""

    word: str
    boundaries: tuple[int, ...]
    line: int
    lang: str = ""


@dataclass(frozen=True)
class GoldFile:
    """A parsed gold file and what identifies it in the results."""

    path: str
    sha256: str
    words: tuple[GoldWord, ...]


def read_gold(path: str | Path) -> GoldFile:
    """Parse ``path`` (see the module docstring); every error names the file and line."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise InputError(f"--morph-gold {p}: cannot read it ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{p}: not UTF-8 (byte {e.start}); convert it, e.g. with "
                         "iconv -t utf-8") from None
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".json"):
        items = list(_jsonl(p, text))
    elif suffix in (".csv", ".tsv"):
        items = list(_csv(p, text, "\t" if suffix == ".tsv" else ","))
    else:
        raise InputError(f"{p}: unknown gold file type {suffix or '(none)'}; use .csv, .tsv "
                         "or .jsonl")
    if not items:
        raise InputError(f"{p}: no gold words")
    words = tuple(_word(p, line, word, parts, lang) for line, word, parts, lang in items)
    return GoldFile(str(p), hashlib.sha256(raw).hexdigest(), words)


def _split(seg: str) -> list[str]:
    return [m.strip() for m in seg.split("+")]


def _word(p: Path, line: int, word: str, parts: list[str], lang: str) -> GoldWord:
    if not word:
        raise InputError(f"{p}:{line}: empty word")
    if any(not m for m in parts):
        raise InputError(f"{p}:{line}: empty morpheme in the segmentation of {word!r} "
                         f"({'+'.join(parts)!r}); write it as e.g. un+believ+able")
    if "".join(parts) != word:
        raise InputError(f"{p}:{line}: segmentation {'+'.join(parts)!r} does not spell the "
                         f"word {word!r}; its morphemes must join to the word exactly")
    bounds, pos = [], 0
    for m in parts[:-1]:
        pos += len(m)
        bounds.append(pos)
    return GoldWord(word, tuple(bounds), line, lang)


def _lang(row: dict[str, Any]) -> str:
    return str(row.get("lang") or row.get("language") or "")


def _jsonl(p: Path, text: str) -> Any:
    for line, s in enumerate(text.splitlines(), 1):
        if not s.strip():
            continue
        try:
            obj = json.loads(s)
        except json.JSONDecodeError as e:
            raise InputError(f"{p}:{line}: not JSON ({e.msg})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{p}:{line}: expected an object with word and segmentation")
        yield (line, *_fields(p, line, obj), _lang(obj))


def _fields(p: Path, line: int, row: dict[str, Any]) -> tuple[str, list[str]]:
    """The word and its morphemes from a row with named fields."""
    if "full_word" in row:
        word, pt1, rest = row.get("full_word"), row.get("pt1"), row.get("rest")
        if not all(isinstance(x, str) for x in (word, pt1, rest)):
            raise InputError(f"{p}:{line}: full_word, pt1 and rest must all be given")
        # an empty part (MorphScore's Turkish "yendirt,yendirt,") leaves a word without a
        # boundary; it still counts in MorphScore, as a miss when the word is split
        return str(word), [x for x in (str(pt1), str(rest)) if x] or [""]
    word, seg = row.get("word"), row.get("segmentation", row.get("morphemes"))
    if not isinstance(word, str):
        raise InputError(f"{p}:{line}: no word (give word and segmentation, or MorphScore's "
                         "full_word, pt1, rest)")
    if isinstance(seg, str):
        return word, _split(seg)
    if isinstance(seg, list) and all(isinstance(m, str) for m in seg):
        return word, list(seg)
    raise InputError(f"{p}:{line}: segmentation of {word!r} must be a string like "
                     "un+believ+able or a list of morphemes")


def _csv(p: Path, text: str, delimiter: str) -> Any:
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    if not rows:
        return
    header = [h.strip().lower() for h in rows[0]]
    named = {"full_word", "word"} & set(header)
    start = 2 if named else 1
    for line, row in enumerate(rows[1:] if named else rows, start):
        if not any(c.strip() for c in row):
            continue
        if named:
            if len(row) != len(header):
                raise InputError(f"{p}:{line}: {len(row)} columns, the header has "
                                 f"{len(header)}")
            obj = dict(zip(header, row, strict=True))
            yield (line, *_fields(p, line, obj), _lang(obj))
        else:
            if len(row) < 2:
                raise InputError(f"{p}:{line}: expected word{delimiter}segmentation "
                                 "(or a header naming word and segmentation)")
            yield line, row[0], _split(row[1]), ""
