"""Suites read shard by shard: corpora of any size in bounded memory.

A ``StreamingSuite`` never holds its documents. It is planned once (one sequential
pass over its files: content hash, and cut points every ``shard_bytes`` at line
boundaries) into ``TextRange`` shards, small picklable descriptions of "lines
first_line.. of this file, between these byte offsets". Any process (a local worker
or a Dask worker that sees the same path, local or an fsspec URL) reads a shard with
``TextRange.read()``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import IO, Any

from tokbench.errors import InputError
from tokbench.suites.model import Document, GrowableSample, ReadReport, Suite
from tokbench.suites.reading import BOM, Counts, Reader, fix_hint

#: target size of one shard: big enough that per-shard costs vanish, small enough that
#: a worker's memory stays low and progress moves
SHARD_BYTES = 2 * 1024 * 1024
_BLOCK = 8 * 1024 * 1024


def is_url(path: str) -> bool:
    return "://" in path


def open_binary(path: str) -> IO[bytes]:
    """Open a local path or an fsspec URL (s3://, gs://, ...) for reading bytes."""
    try:
        if is_url(path):
            try:
                import fsspec
            except ImportError:
                from tokbench.errors import MissingDependencyError

                raise MissingDependencyError("fsspec", purpose="reading URLs") from None
            opened: IO[bytes] = fsspec.open(path, "rb").open()
            return opened
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found (was it moved or deleted during the run?)"
                         ) from None
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None


@dataclass(frozen=True)
class TextRange:
    """Lines of a ``.txt`` (one document per line) or ``.jsonl`` file between two byte
    offsets; ``first_line`` is the 1-based number of the first line in the range."""

    path: str
    rel: str
    start: int
    end: int
    first_line: int
    file_lang: str
    domain: str
    jsonl: bool = False
    errors: str = "strict"
    lang: str | None = None  # the spec's lang option: overrides records' own
    domain_opt: str | None = None
    languages: tuple[str, ...] | None = None  # keep only these
    domains: tuple[str, ...] | None = None
    sha256: str | None = None  # of the range's bytes when planned: a changed file is refused

    @property
    def nbytes(self) -> int:
        return self.end - self.start

    def read(self) -> tuple[list[Document], dict[str, int]]:
        """The range's documents and what was left out (``Counts.meta()`` keys)."""
        with open_binary(self.path) as f:
            f.seek(self.start)
            data = f.read(self.end - self.start)
        if len(data) != self.end - self.start:
            raise InputError(f"{self.path}: file shrank during the run (expected "
                             f"{self.end - self.start} bytes at offset {self.start}); rerun "
                             "once it is no longer being written")
        if self.sha256 is not None and hashlib.sha256(data).hexdigest() != self.sha256:
            raise InputError(f"{self.path}: file changed during the run (bytes "
                             f"{self.start}-{self.end}, line {self.first_line} on, differ "
                             "from when the run planned it); rerun once it is no longer "
                             "being written")
        reader = Reader(self.errors)
        offset = self.start
        if self.start == 0 and data.startswith(BOM):
            data = data[len(BOM):]
            offset += len(BOM)
        docs: list[Document] = []
        chunks = data.split(b"\n")
        if chunks and chunks[-1] == b"":
            chunks.pop()
        for k, chunk in enumerate(chunks):
            n = self.first_line + k
            raw = chunk[:-1] if chunk.endswith(b"\r") else chunk
            text = reader.decode(self.path, raw, offset, "the lines that hold them", line=n)
            offset += len(chunk) + 1
            if text is None:
                continue
            doc = self._jsonl_doc(reader, text, n) if self.jsonl else self._line_doc(
                reader, text, n)
            if doc is not None and self._keep(doc):
                docs.append(doc)
        return docs, reader.counts.meta()

    def _line_doc(self, reader: Reader, text: str, n: int) -> Document | None:
        if text == "":
            reader.counts.skipped_empty += 1
            return None
        return Document(f"{self.rel}:{n}", self.file_lang, self.domain, text)

    def _jsonl_doc(self, reader: Reader, line: str, n: int) -> Document | None:
        from tokbench.suites.langs import canonical_lang
        from tokbench.suites.reading import record_field

        if not line.strip():
            return None
        where = f"{self.path}:{n}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{where}: not valid JSON ({e.msg} at column {e.colno}); "
                             "each line must be one JSON object") from None
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
        text = reader.check_text(record_field(reader, record, "text", where), where)
        rid = record_field(reader, record, "id", where, required=False, kinds=(str, int))
        rlang = record_field(reader, record, "lang", where, required=False)
        rdomain = record_field(reader, record, "domain", where, required=False)
        if text is None:
            return None
        if text == "":
            reader.counts.skipped_empty += 1
            return None
        lang = self.lang or (canonical_lang(rlang, where=where) if rlang else self.file_lang)
        return Document(f"{self.rel}:{rid if rid is not None else n}", lang,
                        self.domain_opt or rdomain or self.domain, text)

    def _keep(self, doc: Document) -> bool:
        return ((self.languages is None or doc.lang in self.languages)
                and (self.domains is None or doc.domain in self.domains))


@dataclass
class FileEntry:
    """One file of a streaming suite, as given to the planner."""

    path: str
    rel: str
    file_lang: str
    domain: str
    jsonl: bool


#: how far ``StreamingSuite.sample_documents`` reads past shards without documents
SAMPLE_SCAN_BYTES = 4 << 20


@dataclass
class StreamingSuite:
    """A suite of line-per-document text or JSONL files, read shard by shard.

    Quacks like ``Suite`` for the runner: ``name``, ``version``, ``sha256``,
    ``describe()``, ``parallel`` (never), ``subset_by``, plus ``shards()``.
    ``subset_by`` None means "by language when the documents turn out to have more than
    one, else by domain" (decided after the run, like an in-memory text suite).
    ``documents`` reads the whole suite into memory, for callers that need a list.
    """

    name: str
    files: list[FileEntry]
    source: str
    errors: str = "strict"
    lang: str | None = None
    domain_opt: str | None = None
    subset_option: str | None = None
    only_languages: tuple[str, ...] | None = None
    only_domains: tuple[str, ...] | None = None
    shard_bytes: int = SHARD_BYTES
    meta: dict[str, Any] = field(default_factory=dict)
    version: str = "external"
    description: str = ""
    parallel = False
    families: tuple[str, ...] = ()
    seen_languages: list[str] | None = None

    @cached_property
    def _plan(self) -> tuple[list[TextRange], str, int]:
        ranges: list[TextRange] = []
        h = hashlib.sha256()
        h.update(json.dumps({"lang": self.lang, "domain": self.domain_opt,
                             "languages": self.only_languages, "domains": self.only_domains},
                            sort_keys=True).encode())
        total = 0
        for entry in self.files:
            cuts, digest, size, hashes = _scan(entry.path, self.shard_bytes,
                                               validate=self.errors == "strict")
            h.update(f"{entry.rel}\0{digest}\n".encode())
            total += size
            for (start, line), (end, _), sha in zip(cuts, [*cuts[1:], (size, 0)], hashes,
                                                    strict=True):
                if end > start:
                    ranges.append(TextRange(
                        entry.path, entry.rel, start, end, line, entry.file_lang,
                        self.domain_opt or entry.domain, entry.jsonl, self.errors, self.lang,
                        self.domain_opt, self.only_languages, self.only_domains, sha))
        return ranges, h.hexdigest(), total

    @property
    def sha256(self) -> str:
        """Hash of every file's bytes and the options that select documents."""
        return self._plan[1]

    @property
    def nbytes(self) -> int:
        return self._plan[2]

    def shards(self) -> list[Any]:
        return list(self._plan[0])

    def plan_shards(self, workers: int) -> tuple[list[Any], int]:
        """The planned ranges (the same for any number of workers)."""
        return self.shards(), self.shard_bytes

    def sample_documents(self) -> list[Document]:
        """The documents of the first shard that holds any (a shard may hold none: blank
        lines, a language filter), reading at most ``SAMPLE_SCAN_BYTES``."""
        read = 0
        for shard in self.shards():
            if read >= SAMPLE_SCAN_BYTES:
                break
            docs: list[Document] = shard.read()[0]
            if docs:
                return docs
            read += shard.nbytes
        return []

    def reuse_reading(self, languages: list[str]) -> bool:
        self.seen_languages = list(languages)
        return True

    def after_reading(self, languages: list[str], counts: Mapping[str, int],
                      documents: int | None) -> ReadReport:
        """The languages seen, and what was left out, counted by the workers."""
        self.seen_languages = sorted(languages)
        if documents == 0:
            self.meta.update(counts)
            raise self.no_documents()
        return ReadReport(sorted(languages), self.subset_by, counts)

    def iter_documents(self) -> Iterator[Document]:
        """Every document, shard by shard; what was left out is counted in ``meta``."""
        counts = []
        found = 0
        langs: set[str] = set()
        for shard in self.shards():
            docs, skipped = shard.read()
            counts.append(skipped)
            found += len(docs)
            langs.update(d.lang for d in docs)
            yield from docs
        self.meta.update(streaming_counts(counts))
        self.seen_languages = sorted(langs)
        if not found:
            raise self.no_documents()

    def no_documents(self) -> InputError:
        skipped = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in self.meta.items()
                            if k.startswith("skipped") and v)
        return InputError(f"suite {self.meta.get('spec') or self.name!r} has no documents"
                          + (f" ({skipped})" if skipped else ""))

    @cached_property
    def documents(self) -> list[Document]:
        """Every document, read into memory (avoid for large corpora)."""
        return list(self.iter_documents())

    def __iter__(self) -> Iterator[Document]:
        return self.iter_documents()

    def __len__(self) -> int:
        return len(self.documents)

    def languages_known(self) -> list[str]:
        """Languages known before reading (from file names or the lang option)."""
        if self.only_languages:
            return list(self.only_languages)
        if self.lang:
            return [self.lang]
        return list(dict.fromkeys(f.file_lang for f in self.files))

    def languages(self) -> list[str]:
        return self.languages_known()

    def sample_record(self) -> dict[str, Any] | None:
        sample: dict[str, Any] | None = self.meta.get("sample")
        return sample

    def growable_sample(self) -> GrowableSample | None:
        return None

    @property
    def subset_by(self) -> str | None:
        """``lang`` or ``domain``: the option, else by language when the documents read
        so far have more than one; None until known."""
        if self.subset_option:
            return self.subset_option
        if self.seen_languages is None:
            return None
        return "lang" if len(self.seen_languages) > 1 else "domain"

    def subset_of(self, doc: Document) -> str:
        return doc.lang if self.subset_by == "lang" else doc.domain

    def with_filters(self, languages: Sequence[str] | None, domains: Sequence[str] | None,
                     name: str | None) -> StreamingSuite:
        selected = dict(self.meta.get("selected", {}))
        if languages is not None:
            selected["languages"] = sorted(languages)
        if domains is not None:
            selected["domains"] = sorted(domains)
        only = tuple(languages) if languages is not None else self.only_languages
        return replace(self, seen_languages=None, only_languages=only,
                       only_domains=tuple(domains) if domains is not None
                       else self.only_domains,
                       name=name or self.name, meta={**self.meta, "selected": selected})

    def materialize(self) -> Suite:
        """The same documents as an in-memory ``Suite``."""
        docs = self.documents
        return Suite(name=self.name, version=self.version, documents=docs, parallel=False,
                     subset_by=self.subset_by or "domain", description=self.description,
                     source=self.source, meta=dict(self.meta))

    def head(self, subset_by: str | None = None, max_bytes: int = SHARD_BYTES) -> Suite:
        """The first documents of every file, up to about ``max_bytes`` in all, as an
        in-memory ``Suite`` (for samples); ``subset_by`` as the run resolved it."""
        docs: list[Document] = []
        size = 0
        seen: set[object] = set()
        for shard in self.shards():
            where = getattr(shard, "path", id(shard))
            if where in seen or size >= max_bytes:
                continue
            seen.add(where)
            docs += shard.read()[0]
            size += shard.nbytes
        by = subset_by or self.subset_by or (
            "lang" if len({d.lang for d in docs}) > 1 else "domain")
        return Suite(name=self.name, version=self.version, documents=docs, parallel=False,
                     subset_by=by, description=self.description, source=self.source,
                     meta=dict(self.meta))

    def describe(self) -> dict[str, Any]:
        """What this suite is, for results (documents and languages are filled in by
        the run, which is the first to read them)."""
        return {
            "name": self.name, "version": self.version, "sha256": self.sha256,
            "source": self.source, "spec": self.meta.get("spec"), "parallel": False,
            "subset_by": self.subset_by, "documents": None,
            "languages": self.languages_known(), "bytes": self.nbytes, "streaming": True,
            "shards": len(self.shards()),
        }


def _scan(path: str, shard_bytes: int, validate: bool = False
          ) -> tuple[list[tuple[int, int]], str, int, list[str]]:
    """One pass over a file: its sha256, its size, shard cut points and the sha256 of
    each shard's bytes (so a shard read later can tell the file changed in place).

    Cuts are ``(byte offset, line number)`` pairs at line starts, about every
    ``shard_bytes`` bytes; the first is ``(0, 1)``. With ``validate``, invalid UTF-8
    is reported now (file, line, byte offset), before any work is done.
    """
    h = hashlib.sha256()
    shard_h = hashlib.sha256()
    hashes: list[str] = []
    cuts = [(0, 1)]
    pos = 0
    lines = 0  # newlines before pos
    next_cut = shard_bytes
    rest = b""  # bytes after the last newline seen, not yet validated
    with open_binary(path) as f:
        while True:
            block = f.read(_BLOCK)
            if not block:
                break
            h.update(block)
            base = pos
            pos += len(block)
            fed = 0  # bytes of block already in shard_h
            while next_cut < pos:
                nl = block.find(b"\n", max(next_cut - base, 0))
                if nl < 0:
                    break
                cut = base + nl + 1
                cuts.append((cut, lines + block.count(b"\n", 0, nl + 1) + 1))
                next_cut = cut + shard_bytes
                shard_h.update(block[fed:nl + 1])
                hashes.append(shard_h.hexdigest())
                shard_h, fed = hashlib.sha256(), nl + 1
            shard_h.update(block[fed:] if fed else block)
            if validate:
                buf = rest + block
                end = buf.rfind(b"\n") + 1
                _validate(path, buf[:end], base - len(rest), lines - rest.count(b"\n"))
                rest = buf[end:]
            lines += block.count(b"\n")
    if validate and rest:
        _validate(path, rest, pos - len(rest), lines)
    hashes.append(shard_h.hexdigest())
    if cuts[-1][0] >= pos and len(cuts) > 1:
        cuts.pop()
        hashes.pop()  # the empty range after the last cut
    return cuts, h.hexdigest(), pos, hashes


def _validate(path: str, data: bytes, offset: int, lines_before: int) -> None:
    """Raise InputError naming the line and byte of the first invalid UTF-8 in ``data``."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = lines_before + data.count(b"\n", 0, e.start) + 1
        bad = data[e.start:e.end].hex(" ")
        raise InputError(f"{path}: invalid UTF-8 at byte {offset + e.start} (line {line}, "
                         f"bytes {bad}); " + fix_hint("the lines that hold them")) from None


AnySuite = Suite | StreamingSuite
"""Either kind of suite: in memory, or read shard by shard."""


def streaming_counts(counts: list[dict[str, int]]) -> dict[str, int]:
    """Sum the ``Counts.meta()`` dicts of several shards."""
    total = Counts().meta()
    for c in counts:
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
    return total


def file_entry(path: Path | str, rel: str, file_lang: str, domain: str) -> FileEntry:
    p = str(path)
    return FileEntry(p, rel, file_lang, domain, p.endswith(".jsonl"))
