"""Delta debugging for tokenizer differences: the shortest substring that still differs.

``minimize(text, differs)`` first cuts chunks off both ends while the difference stays
(halving the chunk when neither end can go: a 1-minimal substring in O(log n) tries per
cut), then looks for a strictly shorter substring exhaustively, length by length, in a
window around what it found. Every try calls ``differs`` (two encodes), so the number of
calls is bounded (``max_calls``).
"""

from __future__ import annotations

from collections.abc import Callable

Differs = Callable[[str], bool]


def minimize(text: str, differs: Differs, *, anchor: int | None = None, max_calls: int = 4000,
             exhaustive: int = 16, window: int = 24) -> str | None:
    """The shortest substring of ``text`` found for which ``differs`` holds (None when
    ``text`` itself does not differ). With ``anchor`` (a character index) only substrings
    holding that character are tried, so the reproducer is of the difference found there
    and not of another one elsewhere in the text."""
    calls = [0]

    def test(s: str) -> bool:
        if calls[0] >= max_calls or not s:
            return False
        calls[0] += 1
        return differs(s)

    if not test(text):
        return None
    start, end = 0, len(text)
    keep = min(max(anchor, 0), len(text) - 1) if anchor is not None else None
    chunk = max(1, (end - start) // 2)
    while chunk >= 1 and end - start > 1:
        left_ok = keep is None or start + chunk <= keep
        right_ok = keep is None or end - chunk > keep
        if end - start > chunk and left_ok and test(text[start + chunk:end]):
            start += chunk
        elif end - start > chunk and right_ok and test(text[start:end - chunk]):
            end -= chunk
        else:
            chunk //= 2
        chunk = min(chunk, max(1, (end - start) // 2)) if chunk else 0
    best = (start, end)
    lo, hi = max(0, start - window), min(len(text), end + window)
    for length in range(1, min(end - start, exhaustive + 1)):
        for s in range(lo, hi - length + 1):
            if keep is not None and not s <= keep < s + length:
                continue
            if test(text[s:s + length]):
                return text[s:s + length]
    return text[best[0]:best[1]]
