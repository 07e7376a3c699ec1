"""Student t quantiles from ``scipy.special.stdtrit``, remembered on disk.

Importing scipy.special takes about 0.4 s, longer than every interval of a run together,
and a run needs few quantiles (one per confidence level and number of degrees of
freedom, e.g. 2008 for FLORES-200's 2009 parallel texts). Each value scipy gives is kept
in ``$TOKBENCH_CACHE/quantiles/<build>.json``, ``build`` being the sha256 of the installed
scipy's ``version.py`` (its version and git revision): another scipy reads other
entries. A table that cannot be read, or an entry that is no finite number, is ignored
(scipy is asked); a table that cannot be written is skipped.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from tokbench.errors import TokbenchError


def stdtrit(df: int, p: float) -> float:
    """``scipy.special.stdtrit(df, p)``: the t value below which a share ``p`` lies."""
    table = _table()
    key = f"{df}:{p!r}"
    if table is not None:
        known = _read(table).get(key)
        if isinstance(known, float) and math.isfinite(known):
            return known
    from scipy.special import stdtrit as scipy_stdtrit

    value = float(scipy_stdtrit(df, p))
    if table is not None and math.isfinite(value):
        _write(table, {**_read(table), key: value})
    return value


def _table() -> Path | None:
    """The cache table of the installed scipy; None when its build cannot be told."""
    import importlib.util

    from tokbench.hashing import sha256_file

    try:
        spec = importlib.util.find_spec("scipy")
        if spec is None or spec.origin is None:
            return None
        build = sha256_file(Path(spec.origin).with_name("version.py"))
        from tokbench.paths import cache_dir

        return cache_dir() / "quantiles" / f"{build}.json"
    except (OSError, ValueError, TokbenchError):
        return None


def _read(path: Path) -> dict[str, object]:
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return table if isinstance(table, dict) else {}


def _write(path: Path, table: dict[str, object]) -> None:
    from tokbench.atomic import atomic_open

    try:
        with atomic_open(path) as f:
            f.write(json.dumps(table, sort_keys=True).encode("utf-8"))
    except (OSError, TokbenchError):
        pass
