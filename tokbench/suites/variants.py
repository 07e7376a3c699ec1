"""Text variants a user meets, made from a document with a map of what changed.

Each variant rewrites a text piece by piece (a *piece* is a character, or characters a
Unicode normalizer joins); ``Variant.segments`` says, for every piece, where it was and is,
and whether it changed, so a tokenization of the unchanged parts can be compared.

Variants and the languages they apply to (ISO 639-3 part of the document's language):

- ``nfkc``, ``nfd``: Unicode normal forms; every language.
- ``fullwidth``: ASCII letters, digits and punctuation to their full-width forms (Ａ１！);
  ``halfwidth``: full-width ASCII forms to ASCII and katakana to half-width katakana
  (ガ → ｶﾞ). Japanese, Chinese, Korean (their scripts have both widths).
- ``katakana``: hiragana to katakana; ``hiragana``: katakana to hiragana. Japanese only.
- ``lower``, ``upper``: case, for languages written in a cased script (Latin, Cyrillic,
  Greek, Armenian, Georgian, Cherokee, Adlam, Deseret).
- ``space_add``: a space on both sides of every punctuation mark that has none;
  ``space_remove``: spaces next to punctuation removed. Every language.
- ``typo``: one typo per document, seeded by the document's id: two adjacent letters of
  one word swapped. Every language.

A variant that leaves a document unchanged is not made (the document does not count for it).
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from tokbench.suites.langs import ALIASES

VARIANTS = ("nfkc", "nfd", "fullwidth", "halfwidth", "katakana", "hiragana", "lower", "upper",
            "space_add", "space_remove", "typo")
CJK = frozenset({"jpn", "zho", "cmn", "yue", "kor"})
CASED_SCRIPTS = frozenset({"Latn", "Cyrl", "Grek", "Armn", "Geor", "Cher", "Adlm", "Dsrt"})


@dataclass(frozen=True)
class Variant:
    """A variant text; ``segments`` are ``(old_start, old_end, new_start, new_end,
    changed)`` character ranges covering both texts in order."""

    name: str
    text: str
    segments: tuple[tuple[int, int, int, int, bool], ...]

    @functools.cached_property
    def unchanged(self) -> tuple[tuple[int, int, int], ...]:
        """Maximal runs of unchanged text: ``(old_start, old_end, new_start)`` (kept: every
        tokenizer of a run looks at them)."""
        runs: list[tuple[int, int, int]] = []
        for a, b, na, _nb, changed in self.segments:
            if changed or b == a:
                continue
            if runs and runs[-1][1] == a and runs[-1][2] + (a - runs[-1][0]) == na:
                runs[-1] = (runs[-1][0], b, runs[-1][2])
            else:
                runs.append((a, b, na))
        return tuple(runs)


def applies(name: str, lang: str) -> bool:
    """Whether variant ``name`` is made for documents in ``lang`` (see the module doc)."""
    lang = ALIASES.get(lang.lower(), lang)
    iso, _, script = lang.partition("_")
    iso = iso.lower()
    if name in ("fullwidth", "halfwidth"):
        return iso in CJK
    if name in ("katakana", "hiragana"):
        return iso == "jpn"
    if name in ("lower", "upper"):
        return script.capitalize() in CASED_SCRIPTS
    return True


def _pieces(text: str, form: str = "NFKC") -> list[tuple[int, int]]:
    """Characters, with those the normalizer ``form`` joins to the previous kept together."""
    out: list[tuple[int, int]] = []
    for i, ch in enumerate(text):
        if out:
            a = out[-1][0]
            joined = unicodedata.normalize(form, text[a:i + 1])  # type: ignore[arg-type]
            if joined != (unicodedata.normalize(form, text[a:i])  # type: ignore[arg-type]
                          + unicodedata.normalize(form, ch)):  # type: ignore[arg-type]
                out[-1] = (a, i + 1)
                continue
        out.append((i, i + 1))
    return out


def _rewrite(name: str, text: str, pieces: list[tuple[int, int]],
             change: Callable[[str], str]) -> Variant | None:
    new: list[str] = []
    segs = []
    pos = 0
    for a, b in pieces:
        old = text[a:b]
        rep = change(old)
        segs.append((a, b, pos, pos + len(rep), rep != old))
        new.append(rep)
        pos += len(rep)
    out = "".join(new)
    return Variant(name, out, tuple(segs)) if out != text else None


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


_HALF_KANA: dict[str, str] = {}
for _cp in range(0xFF61, 0xFFA0):
    _full = unicodedata.normalize("NFKC", chr(_cp))
    _HALF_KANA.setdefault(_full, chr(_cp))
for _cp in range(0xFF66, 0xFF9E):  # voiced and semi-voiced kana: ガ -> ｶﾞ, パ -> ﾊﾟ
    for _mark in ("\uff9e", "\uff9f"):
        _composed = unicodedata.normalize("NFKC", chr(_cp) + _mark)
        if len(_composed) == 1:
            _HALF_KANA.setdefault(_composed, chr(_cp) + _mark)


def _halfwidth(s: str) -> str:
    out = []
    for c in s:
        if "\uff01" <= c <= "\uff5e":
            out.append(chr(ord(c) - 0xFEE0))
        elif "\u30a0" <= c <= "\u30ff" or c in "\u3001\u3002\u300c\u300d\u30fb\u30fc":
            out.append(_HALF_KANA.get(c, c))
        else:
            out.append(c)
    return "".join(out)


def _kana(s: str, to_katakana: bool) -> str:
    lo, hi, shift = (0x3041, 0x3096, 0x60) if to_katakana else (0x30A1, 0x30F6, -0x60)
    return "".join(chr(ord(c) + shift) if lo <= ord(c) <= hi else c for c in s)


def _is_punct(c: str) -> bool:
    return unicodedata.category(c).startswith("P")


def _spaces(name: str, text: str) -> Variant | None:
    """Spaces added around punctuation that has none, or removed next to punctuation."""
    segs = []
    new: list[str] = []
    pos = 0

    def put(a: int, b: int, rep: str, changed: bool) -> None:
        nonlocal pos
        segs.append((a, b, pos, pos + len(rep), changed))
        new.append(rep)
        pos += len(rep)

    n = len(text)
    for i, c in enumerate(text):
        if name == "space_add":
            if _is_punct(c):
                before = " " if i > 0 and not text[i - 1].isspace() else ""
                after = " " if i + 1 < n and not text[i + 1].isspace() else ""
                put(i, i + 1, before + c + after, bool(before or after))
            else:
                put(i, i + 1, c, False)
        else:
            near = (i > 0 and _is_punct(text[i - 1])) or (i + 1 < n and _is_punct(text[i + 1]))
            if c == " " and near:
                put(i, i + 1, "", True)
            else:
                put(i, i + 1, c, False)
    out = "".join(new)
    return Variant(name, out, tuple(segs)) if out != text else None


def _typo(text: str, key: str) -> Variant | None:
    """Two adjacent letters swapped at a position chosen by ``key`` (deterministic)."""
    spots = [i for i in range(len(text) - 1)
             if text[i].isalpha() and text[i + 1].isalpha() and text[i] != text[i + 1]]
    if not spots:
        return None
    i = spots[int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")
              % len(spots)]
    segs = ((0, i, 0, i, False), (i, i + 2, i, i + 2, True),
            (i + 2, len(text), i + 2, len(text), False))
    out = text[:i] + text[i + 1] + text[i] + text[i + 2:]
    return Variant("typo", out, tuple(s for s in segs if s[1] > s[0]))


def make_variant(name: str, text: str, lang: str, key: str = "") -> Variant | None:
    """Variant ``name`` of ``text`` (None: it does not apply to ``lang``, or changes
    nothing); ``key`` seeds the typo (the document id)."""
    if not applies(name, lang) or not text:
        return None
    if name == "nfkc":
        return _rewrite(name, text, _pieces(text, "NFKC"),
                        lambda s: unicodedata.normalize("NFKC", s))
    if name == "nfd":
        return _rewrite(name, text, _pieces(text, "NFC"),
                        lambda s: unicodedata.normalize("NFD", s))
    chars = [(i, i + 1) for i in range(len(text))]
    if name == "fullwidth":
        return _rewrite(name, text, chars, _fullwidth)
    if name == "halfwidth":
        return _rewrite(name, text, chars, _halfwidth)
    if name in ("katakana", "hiragana"):
        return _rewrite(name, text, chars, lambda s: _kana(s, name == "katakana"))
    if name == "lower":
        return _rewrite(name, text, chars, str.lower)
    if name == "upper":
        return _rewrite(name, text, chars, str.upper)
    if name in ("space_add", "space_remove"):
        return _spaces(name, text)
    if name == "typo":
        return _typo(text, key or text)
    raise ValueError(f"unknown variant {name!r}")
