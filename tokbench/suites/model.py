"""Documents and suites: named, versioned, content-hashed sets of text."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

#: in-memory suites are cut into shards of about this many bytes (at least one per
#: worker and a few more, so workers stay busy); streaming suites plan their own
MAX_SHARD_BYTES = 2 * 1024 * 1024
#: ... and no smaller: a suite under 512 KB is cut in fewer than four. Four, not three,
#: for a suite of 0.5-1 MB: a process and the helper it forks once its tokenizer is
#: loaded then take two shards each (the flores4 job's 0.76 MB in three shards of 256 KB
#: left one process with two and the other idle for one: 0.2 s of its 2.9 s)
MIN_SHARD_BYTES = 128 * 1024


@dataclass(frozen=True)
class Document:
    """One text of a suite.

    ``lang`` is a FLORES-style code (``jpn_Jpan``); ``align`` is the key shared by
    translations of the same text in a parallel suite (None otherwise).
    """

    id: str
    lang: str
    domain: str
    text: str
    align: str | None = None


def _json_line(d: Document) -> str:
    """``json.dumps([id, lang, domain, align, text], ensure_ascii=False)`` and a newline,
    what the suite hash has always read, built from the encoder's own string quoting
    (a json.dumps call per document was most of the hash's time)."""
    fields = (d.id, d.lang, d.domain, d.align, d.text)
    if not all(type(v) is str or v is None for v in fields):  # not as typed: say it as JSON does
        return json.dumps(list(fields), ensure_ascii=False) + "\n"
    quote = _quote
    return "[" + ", ".join("null" if v is None else quote(v) for v in fields) + "]\n"


_quote = json.encoder.encode_basestring


class Shard(Protocol):
    """A part of a suite a worker reads: its documents and what reading left out;
    picklable, readable in any process."""

    @property
    def nbytes(self) -> int: ...

    def read(self) -> tuple[list[Document], dict[str, int]]: ...


@dataclass(frozen=True)
class InlineDocs:
    """A slice of an in-memory suite, carried with the task."""

    documents: tuple[Document, ...]
    nbytes: int

    def read(self) -> tuple[list[Document], dict[str, int]]:
        return list(self.documents), {}


@dataclass(frozen=True)
class ReadReport:
    """What a run learnt by reading a suite: its languages and breakdown (None: the suite
    knew them before) and what was left out while reading (``skipped_*``, ``replaced_*``)."""

    languages: list[str] | None
    subset_by: str | None
    counts: Mapping[str, Any]


class RunnableSuite(Protocol):
    """What a run needs of a suite, in memory (``Suite``) or streamed (``StreamingSuite``)."""

    name: str
    parallel: bool
    families: tuple[str, ...]
    meta: dict[str, Any]

    @property
    def sha256(self) -> str: ...

    @property
    def subset_by(self) -> Any: ...

    def describe(self) -> dict[str, Any]: ...

    def subset_of(self, doc: Document) -> str: ...

    def plan_shards(self, workers: int) -> tuple[list[Shard], int]:
        """The shards workers read and the shard size they were cut at (part of the resume
        key)."""
        ...

    def sample_documents(self) -> list[Document]:
        """Documents throughput is timed on (all of an in-memory suite, the first shard's
        that holds any of a streamed one)."""
        ...

    def after_reading(self, languages: list[str], counts: Mapping[str, int],
                      documents: int | None) -> ReadReport:
        """What the run learnt by reading ``documents`` documents (None: not counted); an
        error when a streamed suite turned out empty."""
        ...

    def reuse_reading(self, languages: list[str]) -> bool:
        """Take the languages an earlier run learnt by reading (``--resume`` reads no shard
        again when every unit is reused); whether this suite learns them only by reading."""
        ...

    @property
    def documents(self) -> list[Document]:
        """Every document, in memory (a streamed suite reads them all)."""
        ...

    def languages(self) -> list[str]:
        """The languages known before the run reads the suite."""
        ...

    def sample_record(self) -> dict[str, Any] | None:
        """How the documents were drawn (a sample's method, units, strata), as recorded in
        the results; None: the suite is read whole."""
        ...

    def growable_sample(self) -> GrowableSample | None:
        """The sample ``--precision`` reads more of; None: read whole or sampled once."""
        ...


class GrowableSample(Protocol):
    """A sample drawn in a fixed order, read block by block until precise enough."""

    #: blocks read so far (None: the sample's own size)
    drawn: int | None

    @property
    def population(self) -> dict[str, int]:
        """Blocks of each stratum."""
        ...

    def order(self) -> list[Any]:
        """Every block (a ``Shard``), in the order they are drawn."""
        ...

    def initial_size(self) -> int:
        """Blocks of the sample size asked for."""
        ...

    def sample_info(self) -> dict[str, Any]:
        """What was drawn: method, seed, size, blocks per stratum."""
        ...


@dataclass
class Suite:
    """A named, versioned set of documents.

    ``subset_by`` says how results are broken down: by ``"lang"`` or ``"domain"``.
    Every suite also has the subset ``"all"``.
    """

    name: str
    version: str
    documents: list[Document]
    parallel: bool = False
    subset_by: str = "lang"
    description: str = ""
    source: str = "builtin"
    meta: dict[str, Any] = field(default_factory=dict)
    #: metric families measured on this suite even when a run leaves them out elsewhere
    #: by default (the numbers suite's digit metrics)
    families: tuple[str, ...] = ()

    #: what the documents were made of (files' bytes, options, code), when a loader knows:
    #: the hash is then kept on disk under it (``tokbench.suites.digests``); not carried
    #: over by ``dataclasses.replace``, whose documents may differ
    digest_key: str | None = field(default=None, init=False, repr=False, compare=False)

    @cached_property
    def sha256(self) -> str:
        """Hash of the content (ids, languages, domains, alignment, text), order included."""
        if self.digest_key is None:
            return self._content_hash()
        from tokbench.suites.digests import read_digest, write_digest

        digest = read_digest(self.digest_key)
        if digest is None:
            digest = self._content_hash()
            write_digest(self.digest_key, digest)
        return digest

    def _content_hash(self) -> str:
        h = hashlib.sha256()
        lines: list[str] = []
        for d in self.documents:
            lines.append(_json_line(d))
            if len(lines) >= 4096:  # hashed in blocks: one update per document was slow
                h.update("".join(lines).encode("utf-8"))
                lines.clear()
        h.update("".join(lines).encode("utf-8"))
        return h.hexdigest()

    @cached_property
    def doc_bytes(self) -> list[int]:
        """Each document's UTF-8 bytes (for the results and for cutting shards)."""
        return [len(d.text.encode("utf-8")) for d in self.documents]

    def subset_of(self, doc: Document) -> str:
        return doc.lang if self.subset_by == "lang" else doc.domain

    def subsets(self) -> dict[str, list[Document]]:
        """Documents grouped by subset, in first-seen order (no "all")."""
        groups: dict[str, list[Document]] = {}
        for d in self.documents:
            groups.setdefault(self.subset_of(d), []).append(d)
        return groups

    def plan_shards(self, workers: int) -> tuple[list[Shard], int]:
        """Consecutive documents of about ``MAX_SHARD_BYTES`` (fewer bytes for a small suite
        on many workers, never under ``MIN_SHARD_BYTES``); the translations of one text of
        a parallel suite are one unit (of its intervals), never cut apart."""
        docs, sizes = self.documents, self.doc_bytes
        if self.parallel:
            order = {k: i for i, k in enumerate(dict.fromkeys(d.align for d in docs))}
            at = sorted(range(len(docs)), key=lambda i: order[docs[i].align])
            docs, sizes = [docs[i] for i in at], [sizes[i] for i in at]
        target = min(MAX_SHARD_BYTES, max(MIN_SHARD_BYTES, sum(sizes) // max(1, 4 * workers)))
        shards: list[Shard] = []
        start = acc = 0
        for i, n in enumerate(sizes):
            acc += n
            if acc >= target and (not self.parallel or i + 1 == len(docs)
                                  or docs[i + 1].align is None
                                  or docs[i + 1].align != docs[i].align):
                shards.append(InlineDocs(tuple(docs[start:i + 1]), acc))
                start, acc = i + 1, 0
        if start < len(docs):
            shards.append(InlineDocs(tuple(docs[start:]), acc))
        return shards, target

    def sample_documents(self) -> list[Document]:
        return self.documents

    def after_reading(self, languages: list[str], counts: Mapping[str, int],
                      documents: int | None) -> ReadReport:
        """Loading already counted what was left out (``meta``); the languages are known."""
        return ReadReport(None, None, self.meta)

    def reuse_reading(self, languages: list[str]) -> bool:
        return False  # loading told everything

    def languages(self) -> list[str]:
        return list(dict.fromkeys(d.lang for d in self.documents))

    def sample_record(self) -> dict[str, Any] | None:
        sample: dict[str, Any] | None = self.meta.get("sample")
        return sample

    def growable_sample(self) -> GrowableSample | None:
        return None

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    def describe(self) -> dict[str, Any]:
        """What this suite is, for results."""
        return {
            "name": self.name,
            "version": self.version,
            "sha256": self.sha256,
            "source": self.source,
            "spec": self.meta.get("spec"),
            "parallel": self.parallel,
            "subset_by": self.subset_by,
            "documents": len(self.documents),
            "languages": self.languages(),
            "bytes": sum(self.doc_bytes),
            "left_out": self.left_out(),
            **({"sample": self.meta["sample"]} if "sample" in self.meta else {}),
        }

    def left_out(self) -> dict[str, int]:
        """What loading left out or changed, by reason (``skipped_invalid``,
        ``replaced_invalid`` with ``?errors=skip|replace``, ``skipped_empty``...); only
        non-zero counts."""
        return {k: int(v) for k, v in sorted(self.meta.items())
                if k.startswith(("skipped_", "replaced_")) and isinstance(v, int)
                and not isinstance(v, bool) and v}
