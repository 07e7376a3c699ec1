"""Where tokbench keeps things: cache, built-in suite data, shared corpora."""

from __future__ import annotations

import os
from pathlib import Path


def user_path(text: str | os.PathLike[str]) -> Path:
    """``text`` as a path with ``~`` expanded; ``~nobody`` (an unknown user, or a name no
    user can have: a NUL byte, a lone surrogate) stays as it is (``Path.expanduser``
    would raise RuntimeError or ValueError), so it is then simply not found."""
    path = Path(text)
    try:
        return path.expanduser()
    except (RuntimeError, ValueError):
        return path


def env_path(name: str) -> Path | None:
    """The path in environment variable ``name`` (``~`` expanded), None when unset or
    empty. A ``~user`` that cannot be expanded is refused: it would otherwise become a
    folder literally named ``~user`` in the current directory."""
    env = os.environ.get(name)
    if not env:
        return None
    path = user_path(env)
    if str(path).startswith("~"):
        from tokbench.errors import InputError

        raise InputError(f"${name}={env}: {str(path).split('/')[0]!r} names no user whose "
                         f"home ~ could stand for; give a full path")
    return path


def cache_dir() -> Path:
    """Tokenizer file cache: ``$TOKBENCH_CACHE`` or the user cache directory."""
    env = os.environ.get("TOKBENCH_CACHE")
    path = env_path("TOKBENCH_CACHE")
    if path is not None:
        if path.exists() and not path.is_dir():
            from tokbench.errors import InputError

            raise InputError(f"$TOKBENCH_CACHE={env} is a file, not a folder; point it to a "
                             "folder tokbench may write tokenizer files into")
        return path
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("tokbench"))


def cache_folder(name: str) -> Path | None:
    """``name`` under ``cache_dir()``, where one kind of entry is kept between runs; None
    when no cache folder can be used (``$TOKBENCH_CACHE`` is a file, say): the caller
    then computes what it would have read, and keeps nothing."""
    from tokbench.errors import TokbenchError

    try:
        return cache_dir() / name
    except TokbenchError:
        return None


def suites_dir() -> Path:
    """Built-in suite data: inside the installed package, or ``suites/`` of a source checkout."""
    packaged = Path(__file__).parent / "_suites"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "suites"


def flores_dir() -> Path | None:
    """FLORES-200 folder from ``$TOKBENCH_FLORES`` or ``../shared/corpora/flores200``."""
    env = env_path("TOKBENCH_FLORES")
    if env is not None:
        return env
    guess = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "flores200"
    return guess if guess.is_dir() else None
