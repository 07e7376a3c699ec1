"""Names shared across tokbench: the whole-suite subset, the premium pivot, the
pseudo-suite of per-tokenizer facts and the clocks timings name."""

from __future__ import annotations

#: the subset holding every document of a suite
ALL = "all"
#: the language premiums are measured against
PIVOT = "eng_Latn"
#: rows about the tokenizer itself (no corpus) use this suite name
VOCAB_SUITE = "vocab"

#: clocks a timing is stated in (its row's ``clock``): elapsed time, the calling thread's
#: CPU time, the whole process's CPU time
WALL = "wall"
THREAD_CPU = "thread_cpu"
PROCESS_CPU = "process_cpu"
