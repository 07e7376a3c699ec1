"""Checked settings of ``tokbench run``: a TOML config file's keys and the matching flags.

Every value is checked for its type and range and converted once; a bad one is a
one-line ``InputError`` naming the file and key (or the flag) and what is expected.
``CHECKS`` is the table of keys; a new setting adds one line.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tokbench.errors import InputError


def _names(value: Any, where: str, split: Callable[[str], list[str]] | None = None
           ) -> list[str]:
    """A non-empty list of non-empty strings (a string is split at commas)."""
    if isinstance(value, str):
        items = split(value) if split else [v.strip() for v in value.split(",")]
        items = [v for v in items if v]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
        if any(not v for v in items):
            raise InputError(f"{where}: an empty name in the list")
    else:
        raise InputError(f"{where} must be a list of strings (or one comma-separated "
                         f"string), got {_kind(value)}")
    if not items:
        raise InputError(f"{where} must name at least one")
    return items


def _suite_specs(value: Any, where: str) -> list[str]:
    from tokbench.suites import split_suite_specs

    if isinstance(value, str):
        return _names(value, where, lambda v: split_suite_specs([v]))
    return _names(value, where)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where} must be a non-empty string, got {_kind(value)}")
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{where} must be true or false, got {_kind(value)}")
    return value


def _count(minimum: int, maximum: int) -> Callable[[Any, str], int]:
    def check(value: Any, where: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{where} must be a whole number, got {_kind(value)}")
        if not minimum <= value <= maximum:
            raise InputError(f"{where} must be between {minimum} and {maximum}, got {value}")
        return value
    return check


def _fraction(value: Any, where: str, allow_none: bool = False, low: float = 0.0
              ) -> float | str:
    """A number in (0, 1) given as ``0.95``, ``95%`` or ``95`` (percent when > 1);
    with ``allow_none`` also the word ``none`` (kept as ``"none"``)."""
    if allow_none and isinstance(value, str) and value.strip().lower() == "none":
        return "none"
    text = value.strip() if isinstance(value, str) else value
    try:
        if isinstance(text, str):
            number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        elif isinstance(text, (int, float)) and not isinstance(text, bool):
            number = float(text)
        else:
            raise ValueError
    except ValueError:
        number = float("nan")
    if isinstance(text, (int, float, str)) and not isinstance(text, bool) and 1 < number < 100 \
            and not str(text).endswith("%"):
        number /= 100
    if not (0 < number < 1 and number >= low):
        extra = " or none" if allow_none else ""
        raise InputError(f"{where} must be a level like 95% or 0.95{extra}, got {_kind(value)}")
    return number


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {value!r}"
    return f"{type(value).__name__} {value!r}"


#: key -> check(value, where) -> converted value
CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "tokenizers": _names,
    "suites": _suite_specs,
    "metrics": _names,
    "out": _text,
    "premium_join": _flag,
    "repeats": _count(1, 1000),
    "threads": _count(1, 1024),
    "jobs": _count(1, 4096),
    "fertility": _text,  # the convention itself is checked by Settings
    "ci": lambda v, w: _fraction(v, w, allow_none=True, low=0.5),
    "reference": _text,
    "precision": _fraction,
    "morph_gold": _text,  # the file is read (and checked) by the run
}


def check_value(key: str, value: Any, where: str) -> Any:
    """``value`` of setting ``key`` checked and converted (``where`` names it in errors)."""
    return CHECKS[key](value, where)


def read_config(path: str | Path) -> dict[str, Any]:
    """The checked settings of a TOML file (keys at the top or under ``[tokbench]``)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a config file") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: invalid TOML ({e})") from None
    table = data.get("tokbench", data)
    prefix = "[tokbench] " if "tokbench" in data else ""
    if not isinstance(table, dict):
        raise InputError(f"{path}: 'tokbench' must be a table ([tokbench]), got "
                         f"{_kind(table)}")
    unknown = set(table) - set(CHECKS)
    if unknown:
        raise InputError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(sorted(CHECKS))}")
    return {k: check_value(k, v, f"{path}: {prefix}{k}") for k, v in table.items()}


def check_flags(values: dict[str, Any]) -> dict[str, Any]:
    """Flag values (None: not given) checked; errors name the flag, e.g. ``--threads``."""
    return {k: check_value(k, v, f"--{k.replace('_', '-')}") for k, v in values.items()
            if v is not None}
