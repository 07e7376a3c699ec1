"""Seeded samples of suites: ``?sample=1%`` or ``?sample=50MB`` (``&seed=N``).

An in-memory suite is sampled by simple random sampling without replacement of its
units: documents, or, in a parallel suite, aligned texts (a text with all its
translations, so premiums still compare the same texts). A streamed corpus is never
read whole: each file is cut, by offset alone, into blocks of ``BLOCK_BYTES`` (a line
belongs to the block its first byte falls in; a block finds its first line by reading
back to the previous newline), files into strata of at most ``STRATUM_BYTES``, and
blocks are drawn in a seeded order: two of every stratum first, then strata interleaved
by share, each in its own random order (a stratified sample; strata read in different
shares are weighted by their known sizes in bytes). A sample
is a prefix of that order, so ``--precision`` can read more of the same order until the
intervals are narrow enough. What was drawn (method, seed, size, units per stratum) is
recorded in the suite's ``sample`` entry; the same spec draws the same sample.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from tokbench.errors import InputError
from tokbench.suites.model import Document, Suite
from tokbench.suites.stream import StreamingSuite, TextRange, is_url, open_binary

BLOCK_BYTES = 64 * 1024
STRATUM_BYTES = 64 * 1024 * 1024
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%|b|kb|mb|gb|tb|kib|mib|gib|tib)?\s*$", re.I)
_UNITS = {"b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12,
          "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}


@dataclass(frozen=True)
class SampleSpec:
    """``fraction`` of the units, or units up to ``nbytes`` of text; ``seed``."""

    text: str
    fraction: float | None = None
    nbytes: int | None = None
    seed: int = 0

    @classmethod
    def parse(cls, text: str, seed: int | None, where: str) -> SampleSpec:
        m = _SIZE.match(str(text))
        if m is None:
            raise InputError(f"{where}: sample={text!r} is not a size; use a share like 1% or "
                             "an amount of text like 50MB")
        number, unit = float(m.group(1)), (m.group(2) or "").lower()
        if unit == "%":
            if not 0 < number <= 100:
                raise InputError(f"{where}: sample={text} must be a share above 0% and at "
                                 "most 100%")
            return cls(text.strip(), fraction=number / 100, seed=seed or 0)
        if not unit:
            raise InputError(f"{where}: sample={text} needs a unit: % (share) or B, KB, MB, "
                             "GB (amount of text)")
        nbytes = int(number * _UNITS[unit])
        if nbytes <= 0:
            raise InputError(f"{where}: sample={text} must be more than 0 bytes")
        return cls(text.strip(), nbytes=nbytes, seed=seed or 0)


def sample_suite(suite: Suite | StreamingSuite, spec: SampleSpec
                 ) -> Suite | SampledStreamingSuite:
    """The seeded sample ``spec`` of ``suite``."""
    if isinstance(suite, StreamingSuite):
        if type(suite) is not StreamingSuite or not suite.files:
            raise InputError(f"suite {suite.name!r}: sample= reads blocks of local or fsspec "
                             "files (text:); this stream has none (take a slice of it "
                             "instead, e.g. a dataset split like train[:1%])")
        return SampledStreamingSuite.of(suite, spec)
    return _sample_documents(suite, spec)


def _sample_documents(suite: Suite, spec: SampleSpec) -> Suite:
    docs = suite.documents
    if suite.parallel:
        keys = list(dict.fromkeys(d.align if d.align is not None else f"\0{d.id}"
                                  for d in docs))
        unit_of = [d.align if d.align is not None else f"\0{d.id}" for d in docs]
        unit_name = "aligned text (a text and its translations)"
    else:
        keys = [d.id for d in docs]
        unit_of = keys
        unit_name = "document"
    size: dict[str, int] = {}
    for d, k in zip(docs, unit_of, strict=True):
        size[k] = size.get(k, 0) + len(d.text.encode("utf-8"))
    order = np.random.default_rng(spec.seed).permutation(len(keys))
    if spec.fraction is not None:
        n = min(len(keys), max(1, round(spec.fraction * len(keys))))
    else:
        total, n = 0, 0
        for i in order.tolist():
            if total >= (spec.nbytes or 0):
                break
            total += size[keys[i]]
            n += 1
    chosen = {keys[i] for i in order[:n].tolist()}
    kept = [d for d, k in zip(docs, unit_of, strict=True) if k in chosen]
    info = {"method": f"simple random sample of units without replacement; unit: {unit_name}",
            "seed": spec.seed, "size": spec.text, "units": n, "population_units": len(keys),
            "bytes": sum(size[k] for k in chosen)}
    return dataclasses.replace(suite, documents=kept, meta={**suite.meta, "sample": info})


@dataclass(frozen=True)
class BlockRange:
    """Block ``index`` of a file: the lines that start in bytes [start, end), found by
    offset alone (a read back to the previous newline), in ``stratum``."""

    path: str
    rel: str
    start: int
    end: int
    size: int
    stratum: str
    file_lang: str
    domain: str
    jsonl: bool = False
    errors: str = "strict"
    lang: str | None = None
    domain_opt: str | None = None
    languages: tuple[str, ...] | None = None
    domains: tuple[str, ...] | None = None

    @property
    def nbytes(self) -> int:
        return self.end - self.start

    def read(self) -> tuple[list[Document], dict[str, int]]:
        with open_binary(self.path) as f:
            start = _line_start(f, self.start)
            end = _line_start(f, self.end) if self.end < self.size else self.size
        if end <= start:
            return [], {}
        inner = TextRange(self.path, self.rel, start, end, 1, self.file_lang, self.domain,
                          self.jsonl, self.errors, self.lang, self.domain_opt, self.languages,
                          self.domains)
        docs, counts = inner.read()
        # line numbers are not known without reading the file from its start: the id
        # names the block's first byte and the line within the block
        tag = f"{self.rel}:"
        return [dataclasses.replace(d, id=f"{self.rel}@{start}+{d.id[len(tag):]}")
                if d.id.startswith(tag) else d for d in docs], counts


def _line_start(f: Any, offset: int) -> int:
    """The first line start at or after ``offset`` (0 stays 0)."""
    if offset == 0:
        return 0
    f.seek(offset - 1)
    pos: int = offset - 1
    while True:
        chunk = f.read(BLOCK_BYTES)
        if not chunk:
            return pos
        nl: int = chunk.find(b"\n")
        if nl >= 0:
            return pos + nl + 1
        pos += len(chunk)


def _file_size(path: str) -> int:
    if is_url(path):
        import fsspec

        fs, p = fsspec.core.url_to_fs(path)
        return int(fs.size(p))
    try:
        return os.path.getsize(path)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None


def _identity(path: str) -> str:
    if is_url(path):
        return ""
    st = os.stat(path)
    return f"{st.st_size}:{st.st_mtime_ns}"


@dataclass
class SampledStreamingSuite(StreamingSuite):
    """A streamed corpus read as a stratified sample of blocks (see the module doc).

    ``shards()`` is the sample; ``order()`` every block in drawing order (``--precision``
    reads more of it). ``population`` is the number of blocks of each stratum.
    """

    spec: SampleSpec = field(default_factory=lambda: SampleSpec("0%"))
    block_bytes: int = BLOCK_BYTES
    drawn: int | None = None  # blocks read (set by --precision); None: the spec's size

    @classmethod
    def of(cls, suite: StreamingSuite, spec: SampleSpec) -> SampledStreamingSuite:
        fields = {f.name: getattr(suite, f.name) for f in dataclasses.fields(StreamingSuite)
                  if f.init}
        return cls(**fields, spec=spec)

    @cached_property
    def _blocks(self) -> tuple[list[BlockRange], dict[str, list[int]], int]:
        blocks: list[BlockRange] = []
        population: dict[str, list[int]] = {}  # stratum -> [blocks, bytes]
        total = 0
        for entry in self.files:
            size = _file_size(entry.path)
            total += size
            n_strata = max(1, math.ceil(size / STRATUM_BYTES))
            per = math.ceil(math.ceil(size / self.block_bytes) / n_strata) if size else 0
            for j in range(math.ceil(size / self.block_bytes)):
                stratum = entry.rel if n_strata == 1 else f"{entry.rel}#{j // per}"
                start, end = j * self.block_bytes, min(size, (j + 1) * self.block_bytes)
                counts = population.setdefault(stratum, [0, 0])
                counts[0] += 1
                counts[1] += end - start
                blocks.append(BlockRange(
                    entry.path, entry.rel, start, end, size, stratum, entry.file_lang,
                    self.domain_opt or entry.domain, entry.jsonl, self.errors, self.lang,
                    self.domain_opt, self.only_languages, self.only_domains))
        return _draw_order(blocks, population, self.spec.seed), population, total

    def order(self) -> list[BlockRange]:
        """Every block, in the order they are drawn."""
        return list(self._blocks[0])

    @property
    def population(self) -> dict[str, int]:
        """Blocks of each stratum."""
        return {h: n for h, (n, _) in self._blocks[1].items()}

    def initial_size(self) -> int:
        """Blocks of the spec's sample size."""
        blocks = len(self._blocks[0])
        if self.spec.fraction is not None:
            return min(blocks, max(1, round(self.spec.fraction * blocks)))
        return min(blocks, max(1, math.ceil((self.spec.nbytes or 0) / self.block_bytes)))

    @cached_property
    def _plan(self) -> tuple[list[Any], str, int]:
        h = hashlib.sha256()
        h.update(json.dumps({"lang": self.lang, "domain": self.domain_opt,
                             "languages": self.only_languages, "domains": self.only_domains,
                             "sample": self.spec.text, "seed": self.spec.seed,
                             "block": self.block_bytes}, sort_keys=True).encode())
        for entry in self.files:
            h.update(f"{entry.rel}\0{_identity(entry.path)}\n".encode())
        blocks, _, total = self._blocks
        return list(blocks[:self.initial_size()]), h.hexdigest(), total

    def shards(self) -> list[Any]:
        if self.drawn is not None:
            return self.order()[:self.drawn]
        return list(self._plan[0])

    def sample_info(self, drawn: dict[str, int] | None = None) -> dict[str, Any]:
        """What was drawn: method, seed, size, blocks per stratum (drawn and in all)."""
        shards = self.shards()
        if drawn is None:
            drawn = {}
            for b in shards:
                drawn[b.stratum] = drawn.get(b.stratum, 0) + 1
        population = self._blocks[1]
        return {"method": f"stratified sample of blocks of {self.block_bytes // 1024} KiB "
                          f"(strata: files, cut every {STRATUM_BYTES // 2 ** 20} MiB), "
                          "proportional allocation, without replacement; unit: a block "
                          "(all its documents); totals estimated per stratum from its "
                          "bytes (separate ratio-to-size estimate)",
                "seed": self.spec.seed, "size": self.spec.text, "units": len(shards),
                "population_units": sum(n for n, _ in population.values()),
                "bytes": sum(b.nbytes for b in shards),
                "strata": {h: [drawn.get(h, 0), n, size]
                           for h, (n, size) in sorted(population.items())}}

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["sample"] = self.sample_info()
        return out

    def sample_record(self) -> dict[str, Any] | None:
        return self.sample_info()

    def growable_sample(self) -> SampledStreamingSuite:
        return self


def _draw_order(blocks: list[BlockRange], population: dict[str, list[int]], seed: int
                ) -> list[BlockRange]:
    """Blocks in drawing order: each stratum shuffled; first two blocks of every stratum
    (so that each stratum's spread can be estimated), then the k-th block of a stratum
    of N comes at (k + u) / N (u uniform per stratum): later prefixes are proportional."""
    rng = np.random.default_rng(seed)
    by_stratum: dict[str, list[BlockRange]] = {}
    for b in blocks:
        by_stratum.setdefault(b.stratum, []).append(b)
    keyed: list[tuple[float, int, BlockRange]] = []
    for s, (h, members) in enumerate(sorted(by_stratum.items())):
        perm = rng.permutation(len(members))
        u = float(rng.uniform())
        big_n = population[h][0]
        keyed += [((k + u) / big_n if k >= 2 else k - 2.0, s, members[i])
                  for k, i in enumerate(perm.tolist())]
    keyed.sort(key=lambda x: (x[0], x[1]))
    return [b for _, _, b in keyed]
