"""Where what an adapter derives from a tokenizer file is kept between runs.

An entry is keyed by the file (the sha256 of its bytes), by the code that derives it (a
change of that module starts afresh) and by anything else its format depends on; it is
written atomically, and a cache that cannot be written is skipped: the next load derives
it again (``tokbench.atomic.write_entry``). Readers ignore an entry they cannot read
(``hf_facts``, ``tiktoken_ranks``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tokbench.hashing import module_sha256


def entry_path(folder: str, module: str, sha256: str, suffix: str, *extra: str
               ) -> Path | None:
    """``$TOKBENCH_CACHE/<folder>/..<suffix>`` for the file of ``sha256`` as ``module``
    derives it (``extra``: the format's own parts); None when the code cannot be hashed
    or no cache folder can be used."""
    from tokbench.paths import cache_folder

    code = module_sha256(module)
    where = cache_folder(folder)
    if code is None or where is None:
        return None
    key = hashlib.sha256(":".join([*extra, code, sha256]).encode("utf-8")).hexdigest()
    return where / key[:2] / f"{key}{suffix}"
