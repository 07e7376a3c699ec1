"""Plots kept between runs: a plot job (``plot_jobs``) draws the same picture from the same
inputs, so a run whose values did not change (the default run's compression, premium and
fertility on the built-in suites, with the same tokenizer files) copies its pictures
instead of drawing them again (about 0.5-1.3 s each; the default run's 8 of them ~6 s).

An entry is keyed by everything the picture depends on: the job's function and inputs
(its ``path`` aside), the code that draws (its module, ``plots``, ``figures`` and the
caveat legend of ``tokbench.metrics.trust``) and the drawing stack (matplotlib, FreeType,
Pillow and zlib versions, every rcParam but the backend, the font files matplotlib knows
with their sizes and times). A new value, tokbench, library, style or font is a new key,
never a stale picture. Inputs that cannot be pickled are never cached. Entries live in
``$TOKBENCH_CACHE/plots/``, written atomically; an entry that is not a whole PNG is drawn
again. The folder keeps the ``MAX_ENTRIES`` last used (an entry is touched when used).
Plots of timings (``plots.timed``), new on every run, have no key.

Computing a key imports matplotlib (``drawing_stack``), unless the stack is given: a
render worker computes its own and tells the run's process (``RenderWorker.finish``),
which then takes the kept plots itself without importing matplotlib.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

from tokbench.hashing import module_sha256

FORMAT = 2
#: entries kept: the last used (the default run keeps 8 plots, 35-220 KB each)
MAX_ENTRIES = 200
#: the modules whose code every picture depends on, besides its function's own
CODE = ("tokbench.render.plots", "tokbench.render.figures", "tokbench.metrics.trust")
PNG_START = b"\x89PNG\r\n\x1a\n"
PNG_END = b"IEND\xaeB`\x82"
#: an entry of a job that had nothing to draw
NOTHING = b""

Job = Callable[[], "Path | None"]


def plot_key(job: Job, stack: bytes | None = None) -> str | None:
    """The cache key of plot ``job`` (a ``functools.partial`` of ``plot_jobs``); None when
    it is not kept: a plot of timings, inputs that do not pickle, code without a source.
    ``stack``: the ``drawing_stack`` of the process that draws, when not this one (a run's
    process looks up what its render worker would draw without importing matplotlib)."""
    from tokbench.render.plots import timed

    func = getattr(job, "func", None)
    if func is None or timed(job):
        return None
    keywords = {k: v for k, v in getattr(job, "keywords", {}).items() if k != "path"}
    code = _code(getattr(func, "__module__", ""))
    if code is None:
        return None
    try:
        inputs = pickle.dumps((func.__module__, func.__qualname__, getattr(job, "args", ()),
                               sorted(keywords.items())), protocol=4)
    except Exception:  # an input of its own kind, unpicklable: drawn every time
        return None
    if stack is None:
        stack = drawing_stack()
    return hashlib.sha256(stack + code + inputs).hexdigest()


def drawing_stack() -> bytes:
    """What every picture depends on besides its inputs and tokbench's code (see the
    module's doc): the libraries' versions, the settings and the fonts, as a digest. The
    settings and fonts are read each time: a process may change them between two plots."""
    from matplotlib import font_manager, rcParams

    rc = sorted((k, repr(v)) for k, v in dict.items(rcParams) if not k.startswith("backend"))
    fonts = sorted(_font(f.fname) for f in font_manager.fontManager.ttflist)
    return hashlib.sha256(repr([FORMAT, _libraries(), rc, fonts]).encode("utf-8")).digest()


def _font(path: str) -> tuple[str, int, int]:
    """A font file as it is now: a font updated in place draws other glyphs."""
    try:
        st = os.stat(path)
    except OSError:
        return path, -1, -1
    return path, st.st_size, st.st_mtime_ns


@cache
def _libraries() -> str:
    """The versions of the libraries that draw and write a picture."""
    import zlib

    import matplotlib
    import PIL
    from matplotlib import ft2font

    return repr([matplotlib.__version__, ft2font.__freetype_version__, PIL.__version__,
                 zlib.ZLIB_RUNTIME_VERSION])


@cache
def _code(module: str) -> bytes | None:
    """The code a picture of ``module``'s functions depends on (that module and ``CODE``),
    as a digest; None when some of it has no source to hash."""
    code = [module_sha256(m) for m in (module, *CODE)]
    if None in code:
        return None
    return hashlib.sha256(repr(code).encode("utf-8")).digest()


def _entry(key: str) -> Path | None:
    from tokbench.paths import cache_folder

    folder = cache_folder("plots")
    return None if folder is None else folder / f"{key}.png"


def lookup(job: Job, stack: bytes | None = None) -> tuple[bool, bytes | None]:
    """Whether ``job``'s picture is kept, and if so its PNG bytes (None: the job had
    nothing to draw); ``stack``: see ``plot_key``."""
    return _read(_keyed_entry(job, stack))


def keep(job: Job, made: Path | None) -> None:
    """Keep the picture ``job`` drew (``made``, its file; None: nothing to draw), in a
    process that has matplotlib (one that drew); then forget the least recently used
    entries beyond ``MAX_ENTRIES``. Nothing happens when the cache cannot be written."""
    if "matplotlib" in sys.modules:
        _write(_keyed_entry(job), made)


def draw(job: Job) -> Path | None:
    """``job`` done through the cache: its file written from the kept picture, or drawn
    and kept (the key computed once)."""
    entry = _keyed_entry(job)
    hit, data = _read(entry)
    if hit:
        from tokbench.atomic import write_atomic

        return None if data is None else write_atomic(
            Path(job.keywords["path"]), data)  # type: ignore[attr-defined]
    made = job()
    _write(entry, made)
    return made


def _keyed_entry(job: Job, stack: bytes | None = None) -> Path | None:
    key = plot_key(job, stack)
    return _entry(key) if key is not None else None


def _read(entry: Path | None) -> tuple[bool, bytes | None]:
    if entry is None:
        return False, None
    try:
        data = entry.read_bytes()
    except OSError:
        return False, None
    if data != NOTHING and not (data.startswith(PNG_START) and data.endswith(PNG_END)):
        return False, None  # torn or foreign: drawn again, and kept anew
    with contextlib.suppress(OSError):
        os.utime(entry)  # used: kept longer
    return True, (None if data == NOTHING else data)


def _write(entry: Path | None, made: Path | None) -> None:
    if entry is None:
        return
    try:
        data = made.read_bytes() if made is not None else NOTHING
    except OSError:
        return
    from tokbench.atomic import write_entry

    write_entry(entry, data)
    _prune(entry.parent)


def _prune(folder: Path) -> None:
    """Remove the least recently used entries of ``folder`` beyond ``MAX_ENTRIES``."""
    try:
        entries = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(folder)
                   if e.name.endswith(".png")]
    except OSError:
        return
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort()
    for _, path in entries[:len(entries) - MAX_ENTRIES]:
        with contextlib.suppress(OSError):
            os.unlink(path)
