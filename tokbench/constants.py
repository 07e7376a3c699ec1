"""Names shared across tokbench: the whole-suite subset, the premium pivot, and the
pseudo-suite of per-tokenizer facts."""

from __future__ import annotations

#: the subset holding every document of a suite
ALL = "all"
#: the language premiums are measured against
PIVOT = "eng_Latn"
#: rows about the tokenizer itself (no corpus) use this suite name
VOCAB_SUITE = "vocab"
