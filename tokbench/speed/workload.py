"""The inputs speed is measured on: request-sized texts and hard long inputs.

Requests are drawn from suite texts, deterministically (a seeded shuffle), in three
realistic sizes: a chat message (one document of 40-400 bytes), a paragraph
(consecutive documents joined to 1-2 KB) and a long document (joined to 8-12 KB).
Hard inputs for length scaling are generated (seeded) or built from suite text:
ordinary text, one character repeated, CJK text with no spaces, digit strings,
base64 and minified code; each is a 1 KB unit repeated to length.
"""

from __future__ import annotations

import base64
import hashlib
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: request size classes: name -> (min bytes, max bytes)
REQUEST_SIZES: dict[str, tuple[int, int]] = {
    "chat": (40, 400),
    "paragraph": (1024, 2048),
    "document": (8192, 12288),
}
MAX_REQUESTS = 64  # distinct requests per class

SCALING_KINDS = ("ordinary", "repeated_char", "cjk_nospace", "digits", "base64",
                 "minified_code")
LENGTH_SIZES = (1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20)  # 1 KB .. 1 MB
UNIT_BYTES = 1 << 10  # the repeated unit of every length-scaling input

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class Requests:
    """Texts of one request size class."""

    name: str
    texts: tuple[str, ...]

    @property
    def mean_bytes(self) -> float:
        return sum(len(t.encode("utf-8")) for t in self.texts) / max(len(self.texts), 1)


def nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def draw_requests(texts: Sequence[str], seed: int = 0) -> list[Requests]:
    """Up to ``MAX_REQUESTS`` texts per size class (a class with no text is left out)."""
    pool = [t for t in texts if t.strip()]
    order = list(range(len(pool)))
    random.Random(seed).shuffle(order)
    out = []
    for name, (lo, hi) in REQUEST_SIZES.items():
        picked: list[str] = []
        for start in order:
            if len(picked) >= MAX_REQUESTS:
                break
            text = _grow(pool, start, lo, hi)
            if text is not None:
                picked.append(text)
        if picked:
            out.append(Requests(name, tuple(picked)))
    return out


def _grow(pool: Sequence[str], start: int, lo: int, hi: int) -> str | None:
    """Documents from ``start`` on, joined by newlines, while under ``hi`` bytes; None when
    they cannot reach ``lo`` without passing ``hi``."""
    parts: list[str] = []
    size = 0
    k = start
    while size < lo and k < len(pool):
        add = nbytes(pool[k]) + (1 if parts else 0)
        if size + add > hi:
            return None
        parts.append(pool[k])
        size += add
        k += 1
    return "\n".join(parts) if size >= lo else None


def fit_bytes(unit: str, size: int) -> str:
    """``unit`` repeated and cut to at most ``size`` UTF-8 bytes (on a character boundary)."""
    if not unit:
        return ""
    reps = size // max(nbytes(unit), 1) + 1
    return (unit * reps).encode("utf-8")[:size].decode("utf-8", errors="ignore")


def length_sources(texts: Sequence[str], seed: int = 0) -> dict[str, Callable[[int], str]]:
    """Kind -> a function giving a text of (about) N bytes of that kind.

    Every size of a kind repeats one unit of ``UNIT_BYTES`` (text kinds: a seeded sample
    of suite documents), so the content per byte is the same at every length and only
    the length changes. A kind that needs suite text the suites do not have (no CJK, no
    code) is left out.
    """
    rng = random.Random(seed)
    pool = [t for t in texts if t.strip()]
    rng.shuffle(pool)
    plain = "\n".join(t for t in pool if not _CJK.search(t))
    cjk = "".join(re.sub(r"\s+", "", t) for t in pool if len(_CJK.findall(t)) > len(t) / 2)
    code = "\n".join(t for t in pool if t.count("\n") > 5 and any(c in t for c in "{}();="))
    digits = "".join(rng.choice("0123456789") for _ in range(UNIT_BYTES))
    b64 = base64.b64encode(hashlib.shake_256(str(seed).encode()).digest(UNIT_BYTES)).decode()
    units: dict[str, str] = {"ordinary": plain, "repeated_char": "a", "cjk_nospace": cjk,
                             "digits": digits, "base64": b64, "minified_code": minify(code)}
    return {kind: _sized(fit_bytes(units[kind], UNIT_BYTES))
            for kind in SCALING_KINDS if units[kind]}


def _sized(unit: str) -> Callable[[int], str]:
    return lambda n: fit_bytes(unit, n)


def minify(code: str) -> str:
    """Code on one line: line breaks and indentation collapsed to single spaces, spaces
    around punctuation dropped (like a JavaScript minifier's output)."""
    one_line = re.sub(r"\s+", " ", code)
    return re.sub(r" ?([{}();,=:+\-*/<>\[\]]) ?", r"\1", one_line).strip()
