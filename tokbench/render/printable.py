"""User text (names, ids, file names) made safe to show: invisible characters spelled out.

A tokenizer or suite name, a document id or a path may hold control or format characters:
U+202E (right-to-left override) and the other bidi controls reorder what follows on
screen, so ``exe.txt`` can show as ``txt.exe``; a zero-width or control character hides or
breaks a line. Every renderer (Markdown, HTML, terminal) shows them as ``<U+202E>``.
In CSV, a text cell a spreadsheet would run as a formula (``=HYPERLINK(...)``) is quoted.
"""

from __future__ import annotations

import unicodedata

#: control, format (bidi controls, zero-width), surrogate and line/paragraph separators
_HIDDEN = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def printable(text: str) -> str:
    """``text`` with every control/format character as ``<U+XXXX>`` (others unchanged)."""
    if text.isprintable() or all(ch == " " or ch.isprintable() for ch in text):
        return text
    return "".join(f"<U+{ord(ch):04X}>" if unicodedata.category(ch) in _HIDDEN else ch
                   for ch in text)


#: what makes a spreadsheet read a cell as a formula (OWASP "CSV injection")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(value: object) -> object:
    """A CSV cell: text a spreadsheet would evaluate gets a leading ``'`` (shown as text);
    numbers and other text unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
