"""Documents and suites: named, versioned, content-hashed sets of text."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any


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
    streaming = False

    @cached_property
    def sha256(self) -> str:
        """Hash of the content (ids, languages, domains, alignment, text), order included."""
        h = hashlib.sha256()
        for d in self.documents:
            h.update(json.dumps([d.id, d.lang, d.domain, d.align, d.text],
                                ensure_ascii=False).encode("utf-8"))
            h.update(b"\n")
        return h.hexdigest()

    def subset_of(self, doc: Document) -> str:
        return doc.lang if self.subset_by == "lang" else doc.domain

    def subsets(self) -> dict[str, list[Document]]:
        """Documents grouped by subset, in first-seen order (no "all")."""
        groups: dict[str, list[Document]] = {}
        for d in self.documents:
            groups.setdefault(self.subset_of(d), []).append(d)
        return groups

    def languages(self) -> list[str]:
        return list(dict.fromkeys(d.lang for d in self.documents))

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
            "bytes": sum(len(d.text.encode("utf-8")) for d in self.documents),
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
