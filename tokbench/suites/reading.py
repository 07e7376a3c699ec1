"""Reading suite files exactly: strict UTF-8, line and JSON Lines splitting, options.

Texts are kept as written: no Unicode normalization, no stripping. A text file's
lines end at ``\\n`` only (a ``\\r`` right before it is part of the line ending);
U+2028, U+0085 and other characters that ``str.splitlines`` would break on stay in
the text. A UTF-8 byte order mark at the start of a file is dropped.

Invalid UTF-8 is handled by ``errors``: ``"strict"`` raises one line naming the
file and byte offset, ``"replace"`` puts U+FFFD for bad bytes, ``"skip"`` drops
the document that holds them. Text that cannot be encoded as UTF-8 at all (lone
surrogates from JSON ``\\ud800`` escapes) is treated the same way.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from tokbench.errors import InputError, TokbenchError
from tokbench.suites.model import Document

ERRORS = ("strict", "replace", "skip")
BOM = b"\xef\xbb\xbf"


def check_errors(errors: str) -> str:
    if errors not in ERRORS:
        raise InputError(f"errors={errors!r} is not one of {', '.join(ERRORS)}")
    return errors


def fix_hint(errors_hint: str) -> str:
    """How to get past invalid UTF-8: fix it, or the errors= option."""
    return (f"fix the file, or add ?errors=replace to the suite spec (errors=\"replace\" in "
            f"Python) to replace bad bytes with U+FFFD, or ?errors=skip to skip {errors_hint}")


@dataclass
class Counts:
    """What was left out while loading, kept in ``Suite.meta``."""

    skipped_empty: int = 0
    skipped_invalid: int = 0
    replaced_invalid: int = 0
    other: dict[str, int] = field(default_factory=dict)

    def meta(self) -> dict[str, int]:
        out = {"skipped_empty": self.skipped_empty, "skipped_invalid": self.skipped_invalid}
        if self.replaced_invalid:
            out["replaced_invalid"] = self.replaced_invalid
        out.update(self.other)
        return out

    def add(self, key: str, n: int = 1) -> None:
        self.other[key] = self.other.get(key, 0) + n


class Reader:
    """Reads files of one suite; errors are raised as ``error`` (InputError for a user's
    files, CorruptFileError for the built-in data)."""

    def __init__(self, errors: str = "strict", error: type[TokbenchError] = InputError,
                 counts: Counts | None = None, fingerprint: bool = False) -> None:
        self.errors = check_errors(errors)
        self.error = error
        self.counts = counts or Counts()
        #: with ``fingerprint``: each file read, as (path, sha256 of its bytes), in order
        #: (what a suite's content hash is keyed by: ``tokbench.suites.digests``)
        self.files: list[tuple[str, str]] | None = [] if fingerprint else None

    def read_bytes(self, path: Path) -> bytes:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise self.error(f"{path}: file not found") from None
        except OSError as e:
            raise self.error(f"{path}: cannot read: {e.strerror or e}") from None
        if self.files is not None:
            self.files.append((str(path), hashlib.sha256(data).hexdigest()))
        return data

    def _bad_utf8(self, path: Path | str, data: bytes, e: UnicodeDecodeError, base: int,
                  what: str, line: int | None = None) -> TokbenchError:
        offset = base + e.start
        if line is None and base == 0:
            line = data.count(b"\n", 0, e.start) + 1
        where = f"line {line}, " if line else ""
        bad = data[e.start:e.end].hex(" ")
        return self.error(f"{path}: invalid UTF-8 at byte {offset} ({where}bytes {bad}); "
                          + fix_hint(what))

    def decode(self, path: Path | str, data: bytes, base: int = 0,
               what: str = "that document", line: int | None = None) -> str | None:
        """``data`` (at byte ``base`` of ``path``, on ``line`` if known) as text; None if
        skipped."""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            if self.errors == "strict":
                raise self._bad_utf8(path, data, e, base, what, line) from None
            if self.errors == "skip":
                self.counts.skipped_invalid += 1
                return None
            self.counts.replaced_invalid += 1
            return data.decode("utf-8", errors="replace")

    def check_text(self, text: str, where: str) -> str | None:
        """``text`` if it is valid Unicode (no lone surrogates); else per ``errors``."""
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError as e:
            if self.errors == "strict":
                raise self.error(f"{where}: text has a lone surrogate U+{ord(text[e.start]):04X} "
                                 f"at character {e.start}, which is not valid Unicode; "
                                 + fix_hint("that document")) from None
            if self.errors == "skip":
                self.counts.skipped_invalid += 1
                return None
            self.counts.replaced_invalid += 1
            return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)

    def lines(self, path: Path) -> list[str | None]:
        """The lines of a text file (None for a line skipped as invalid UTF-8)."""
        data = self.read_bytes(path)
        if self.errors == "strict" or self.errors == "replace":
            text = self.decode(path, data, what="the lines that hold them")
            assert text is not None
            parts = text.removeprefix("\ufeff").split("\n")
            if parts and parts[-1] == "":
                parts.pop()
            if "\r" not in text:
                return list[str | None](parts)
            return [p[:-1] if p.endswith("\r") else p for p in parts]
        out: list[str | None] = []
        offset = len(BOM) if data.startswith(BOM) else 0
        raw = data[offset:].split(b"\n")
        if raw and raw[-1] == b"":
            raw.pop()
        for chunk in raw:
            line = chunk[:-1] if chunk.endswith(b"\r") else chunk
            out.append(self.decode(path, line, offset))
            offset += len(chunk) + 1
        return out

    def text(self, path: Path) -> str | None:
        """The whole file as one text (None if skipped as invalid UTF-8)."""
        text = self.decode(path, self.read_bytes(path), what="that file")
        return text.removeprefix("\ufeff") if text is not None else None

    def jsonl(self, path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(line number, record)`` for each JSON object of a JSON Lines file.

        Blank lines are ignored; a line that is not a JSON object is an error.
        """
        for n, line in enumerate(self.lines(path), 1):
            if line is None or not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise self.error(f"{path}:{n}: not valid JSON ({e.msg} at column {e.colno}); "
                                 "each line must be one JSON object") from None
            if not isinstance(record, dict):
                raise self.error(f"{path}:{n}: expected a JSON object, got "
                                 f"{type(record).__name__}")
            yield n, record


def record_field(reader: Reader, record: dict[str, Any], key: str, where: str,
                 required: bool = True, kinds: tuple[type, ...] = (str,)) -> Any:
    """``record[key]`` checked to be one of ``kinds`` (ints allowed for ids)."""
    if key not in record:
        if required:
            raise reader.error(f"{where}: missing {key!r}")
        return None
    value = record[key]
    if not isinstance(value, kinds) or isinstance(value, bool):
        names = " or ".join(k.__name__ for k in kinds)
        raise reader.error(f"{where}: {key!r} must be a {names}, got {type(value).__name__}")
    return value


class Options:
    """Options of one suite spec, converted from strings (query syntax) as needed.

    Each ``get_*`` takes its key; ``finish()`` raises for keys nobody asked for.
    """

    def __init__(self, where: str, options: dict[str, Any]) -> None:
        self.where = where
        self._left = dict(options)
        self._known: list[str] = []

    def _take(self, key: str) -> Any:
        self._known.append(key)
        return self._left.pop(key, None)

    @overload
    def get_str(self, key: str, default: str, choices: Iterable[str] | None = None) -> str: ...

    @overload
    def get_str(self, key: str, default: None = None,
                choices: Iterable[str] | None = None) -> str | None: ...

    def get_str(self, key: str, default: str | None = None,
                choices: Iterable[str] | None = None) -> str | None:
        value = self._take(key)
        if value is None:
            return default
        value = str(value)
        if choices is not None and value not in choices:
            raise InputError(f"{self.where}: option {key}={value!r} must be one of "
                             + ", ".join(choices))
        return value

    def get_bool(self, key: str, default: bool = False) -> bool:
        value = self._take(key)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        low = str(value).strip().lower()
        if low in ("1", "true", "yes", "on", ""):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise InputError(f"{self.where}: option {key}={value!r} must be true or false")

    @overload
    def get_int(self, key: str, default: int, minimum: int = 0) -> int: ...

    @overload
    def get_int(self, key: str, default: None = None, minimum: int = 0) -> int | None: ...

    def get_int(self, key: str, default: int | None = None, minimum: int = 0) -> int | None:
        value = self._take(key)
        if value is None:
            return default
        try:
            number = value if isinstance(value, int) and not isinstance(value, bool) \
                else int(str(value))
        except ValueError:
            raise InputError(f"{self.where}: option {key}={value!r} must be an integer") \
                from None
        if number < minimum:
            raise InputError(f"{self.where}: option {key}={number} must be >= {minimum}")
        return number

    def get_list(self, key: str) -> list[str] | None:
        """A list given as a list or a comma-separated string."""
        value = self._take(key)
        if value is None:
            return None
        items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
        return [i.strip() for i in items if i.strip()]

    def finish(self) -> None:
        """Raise InputError for the first option no one took, suggesting a close one."""
        if self._left:
            key = sorted(self._left)[0]
            known = sorted(set(self._known))
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(f"{self.where}: unknown option {key!r}; {hint}"
                             f"(options: {', '.join(known) or 'none'})")


def unique_ids(documents: Iterable[Document], where: str, error: type[TokbenchError]) -> None:
    """Raise ``error`` if two documents share an id."""
    seen: set[str] = set()
    for doc in documents:
        if doc.id in seen:
            raise error(f"{where}: document id {doc.id!r} appears twice; ids must be unique")
        seen.add(doc.id)


def parallel_lines(reader: Reader, files: dict[str, Path], pivot: str, *,
                   split: str | None = None, domain: str = "",
                   domains: list[str] | None = None, domains_where: str = "domains"
                   ) -> list[Document]:
    """Documents of line-aligned files ``{lang: path}``: line N of each file translates
    line N of the ``pivot`` language's file.

    ``align`` is the line number (``"split:line"`` with a ``split``); ``domain`` comes
    from ``domains`` (one per line) or is ``domain`` (default: the split).
    Languages come pivot first, then sorted by code.
    """
    lines = {lang: reader.lines(path) for lang, path in files.items()}
    n = len(lines[pivot])
    pivot_name = files[pivot].name
    for lang, got in lines.items():
        if len(got) != n:
            longer = files[lang].name if len(got) > n else pivot_name
            raise reader.error(
                f"{files[lang]}: {len(got)} lines but {pivot_name} has {n}: line "
                f"{min(len(got), n) + 1} of {longer} has no counterpart (line N of every "
                f"file must translate line N of {pivot_name}; add or remove lines to match)")
    if domains is not None and len(domains) != n:
        raise reader.error(f"{domains_where}: {len(domains)} lines but {pivot_name} has {n}; "
                           "give one domain per line")
    # what every language's line N shares: its align key and domain
    aligns = [f"{split}:{i}" if split else str(i) for i in range(1, n + 1)]
    doms = domains if domains is not None else [domain or split or ""] * n
    docs: list[Document] = []
    for lang in [pivot, *sorted(k for k in lines if k != pivot)]:
        got = lines[lang]
        reader.counts.skipped_empty += got.count("")
        docs += [Document(f"{lang}:{align}", lang, dom, text, align)
                 for align, dom, text in zip(aligns, doms, got, strict=True) if text]
    return docs
