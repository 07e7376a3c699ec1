"""User-facing errors.

Every error a user can cause (a bad name, a missing file, a corrupt input) is a
``TokbenchError``. The CLI prints ``str(error)`` as one line and exits with code 2;
it never shows a traceback for these. Messages name the thing at fault and the fix.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable
from types import ModuleType


class TokbenchError(Exception):
    """An error caused by input or environment, reported to the user as one line."""

    exit_code = 2

    def __reduce__(self) -> tuple[object, ...]:
        # across processes (a worker's error) the message is kept as it is: pickle would
        # call __init__ again with the message as its first argument and wrap it twice
        return (_rebuild, (type(self), str(self), dict(self.__dict__)))


def _rebuild(cls: type[TokbenchError], message: str, state: dict[str, object]
             ) -> TokbenchError:
    """A ``TokbenchError`` with this message and attributes, ``__init__`` not called."""
    err = cls.__new__(cls)
    Exception.__init__(err, message)
    err.__dict__.update(state)
    return err


def tokenizer_raised(e: BaseException) -> bool:
    """Whether ``e``, raised by a tokenizer on one input, is that input's failure: any
    ``Exception``, and a Rust panic (pyo3's ``PanicException`` derives from
    ``BaseException`` and is a class of its own in each extension); never Ctrl-C or exit.
    Use as ``except BaseException as e: if not tokenizer_raised(e): raise``."""
    return isinstance(e, Exception) or (type(e).__name__ == "PanicException"
                                        and not isinstance(e, (KeyboardInterrupt, SystemExit)))


class UnknownNameError(TokbenchError, KeyError):
    """A name that is not in a registry; the message suggests close matches."""

    def __init__(self, kind: str, name: str, known: Iterable[str], hint: str = "") -> None:
        known = sorted(set(known))
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        if not close:
            lowered = name.lower()
            close = [k for k in known if lowered in k.lower() or k.lower() in lowered][:3]
        msg = f"unknown {kind} {name!r}"
        if close:
            msg += "; did you mean " + " or ".join(repr(c) for c in close) + "?"
        else:
            msg += f"; known {kind}s: " + ", ".join(known)
        if hint:
            msg += f" ({hint})"
        self.kind, self.name, self.suggestions = kind, name, close
        super().__init__(msg)

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class MissingDependencyError(TokbenchError, ImportError):
    """An optional library is not installed; the message gives the exact pip command."""

    def __init__(self, module: str, package: str | None = None, extra: str | None = None,
                 purpose: str = "") -> None:
        package = package or module
        fix = f'pip install "tokbench[{extra}]"' if extra else f"pip install {package}"
        what = f" (needed for {purpose})" if purpose else ""
        super().__init__(f"the Python package {package!r} is not installed{what}; run: {fix}")


def require(module: str, package: str | None = None, extra: str | None = None,
            purpose: str = "") -> ModuleType:
    """Import an optional library, or raise ``MissingDependencyError`` with the pip command."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(module, package, extra, purpose) from exc


class SourceError(TokbenchError):
    """No source of a tokenizer file could be used."""


class HashMismatchError(SourceError):
    """A downloaded or cached file does not have the pinned sha256; it is refused."""


class CorruptFileError(TokbenchError):
    """A file exists but cannot be parsed."""


class InputError(TokbenchError):
    """A user's input file or option is invalid."""
