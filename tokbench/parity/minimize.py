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


def minimize(text: str, differs: Differs, *, max_calls: int = 4000, exhaustive: int = 16,
             window: int = 24) -> str | None:
    """The shortest substring of ``text`` found for which ``differs`` holds (None when
    ``text`` itself does not differ)."""
    calls = [0]

    def test(s: str) -> bool:
        if calls[0] >= max_calls or not s:
            return False
        calls[0] += 1
        return differs(s)

    if not test(text):
        return None
    start, end = 0, len(text)
    chunk = max(1, (end - start) // 2)
    while chunk >= 1 and end - start > 1:
        if end - start > chunk and test(text[start + chunk:end]):
            start += chunk
        elif end - start > chunk and test(text[start:end - chunk]):
            end -= chunk
        else:
            chunk //= 2
        chunk = min(chunk, max(1, (end - start) // 2)) if chunk else 0
    best = (start, end)
    lo, hi = max(0, start - window), min(len(text), end + window)
    for length in range(1, min(end - start, exhaustive + 1)):
        for s in range(lo, hi - length + 1):
            if test(text[s:s + length]):
                return text[s:s + length]
    return text[best[0]:best[1]]
