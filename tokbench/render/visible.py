"""User text made safe to print on one line of a terminal, a CI log or Markdown.

Names, reasons and error messages can come from files a user (or a pull request) wrote. A new
line in them would start a line of its own in a CI log, where ``::warning::...`` at the start
of a line is a workflow command; an escape sequence would move the cursor; a bidi override
would reorder what is shown. ``shown`` writes such characters as ``<U+XXXX>``. In CSV, a
text cell a spreadsheet would run as a formula (``=HYPERLINK(...)``) is quoted
(``spreadsheet_text``).
"""

from __future__ import annotations

import unicodedata

#: bidirectional formatting characters (embeddings, overrides, isolates, marks)
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def shown(text: str) -> str:
    """``text`` with control characters, line and paragraph separators and bidi controls
    as ``<U+XXXX>`` (other characters, tabs and spaces included, as they are)."""
    if text.isprintable():
        return text
    return "".join(f"<U+{ord(c):04X}>" if c in BIDI or (c != "\t" and unicodedata.category(c)
                                                          in ("Cc", "Zl", "Zp")) else c
                   for c in text)


#: what makes a spreadsheet read a cell as a formula (OWASP "CSV injection")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(value: object) -> object:
    """A CSV cell: text a spreadsheet would evaluate gets a leading ``'`` (shown as text);
    numbers and other text unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
