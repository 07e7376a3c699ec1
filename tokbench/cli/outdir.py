"""A run's output folder: locked while a run writes it, replaced at the end, never a
user's file deleted.

``tokbench run --out OUT`` takes ``OutputFolder(OUT)``:

* a lock file ``.OUT.lock`` beside ``OUT`` (``flock``, released by the kernel when the
  process dies, so a lock left by a killed run is simply taken over) records the pid,
  host and start time of the holder; a second run names them and stops; a run that ends
  removes it (a killed one leaves it, harmless);
* the run writes into ``OUT.partial`` beside ``OUT`` (its checkpoints too, so ``--resume``
  after ``kill -9`` or Ctrl-C finds them, and a complete earlier ``OUT`` stays as it was
  until this run is complete); ``publish()`` swaps that folder in for ``OUT``, so files
  of an earlier run (stale plots) never mix with this run's.

A folder is tokbench's only when it holds tokbench's marker file (``MARKER``: the run's
identity and the names of the files it wrote). Only the files a marker lists are ever
removed, and a folder holding anything else is refused with one line, never deleted.
A folder written by a tokbench before markers (``results.json`` of a run, with only its
CSV, reports, viewer and the plots that run draws) is recognised by those exact names.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tokbench.atomic import write_atomic
from tokbench.errors import InputError, TokbenchError

#: the marker of a folder tokbench owns: which run wrote it, and which files
MARKER = ".tokbench-out.json"
#: finished shards of a run in progress (removed when the run completes)
STATE_FILE = ".tokbench-state.json"
#: what a run writes into its working folder before its last step
RUN_FILES = ("results.json", STATE_FILE)
#: what ``run --baseline`` writes into OUT after it is published
LATER_FILES = ("compare.md",)
#: the files of a folder written before markers existed (besides its plots)
LEGACY_FILES = frozenset({"results.json", "results.csv", "report.md", "report.html",
                          "viewer.json", "compare.md"})
LEGACY_PLOTS = ("premium", "fairness", "bytes_per_token", "fertility_japanese")
#: what file browsers leave in any folder they show (recreated at will): never refused
LITTER = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
#: ``atomic_open``'s temporary file of NAME (left only by ``kill -9`` mid-write)
_TEMP = re.compile(r"^\.(?P<name>.+)\.[A-Za-z0-9_]+\.tmp$")


class OutputLockedError(TokbenchError):
    """Another run is writing the same output folder."""


class OutputFolder:
    """Lock, staging folder and final swap of one run's output folder (a context manager)."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        if self.out.is_symlink() and self.out.is_dir():  # the folder it points to is OUT
            self.out = self.out.resolve()
        self.lock_path = self.out.parent / f".{self.out.name}.lock"
        self.staging = self.out.parent / f"{self.out.name}.partial"
        self.legacy_staging = self.out.parent / f".{self.out.name}.partial"  # before markers
        self.run_id = uuid.uuid4().hex
        self._lock_file: IO[str] | None = None

    # -- checks ----------------------------------------------------------------------------
    def check(self) -> None:
        """Refuse an ``OUT`` that is a file, or a folder tokbench did not mark as its own."""
        if not self.out.name or self.out.name in (".", ".."):
            raise InputError(f"--out {self.out}: name a folder of its own, e.g. "
                             f"{self.out / 'tokbench-run'}")
        for path in (self.out, *self.out.parents):
            if path.exists() and not path.is_dir():
                raise InputError(f"--out {self.out}: {path} is a file; give a folder for the "
                                 "run's files")
        owned_files(self.out, "--out")
        if self.staging.exists() and not self.staging.is_dir():
            raise InputError(f"--out {self.out}: {self.staging} is a file; tokbench keeps an "
                             "unfinished run there, so move it or choose another --out")
        owned_files(self.staging, f"--out {self.out}: its working folder")

    # -- locking ---------------------------------------------------------------------------
    def __enter__(self) -> OutputFolder:
        self.check()
        while True:
            try:
                self.out.parent.mkdir(parents=True, exist_ok=True)
                f = open(self.lock_path, "a+", encoding="utf-8")  # held until exit
            except OSError as e:
                raise InputError(f"--out {self.out}: cannot write there ({e.strerror or e})") \
                    from None
            if not _try_lock(f):
                f.seek(0)
                holder = _describe_holder(f.read())
                f.close()
                raise OutputLockedError(f"--out {self.out} is being written by another "
                                        f"tokbench run ({holder}); wait for it or choose "
                                        "another --out")
            if _same_file(f, self.lock_path):
                break
            f.close()  # its holder removed it on exit after we opened it: lock the new one
        f.seek(0)
        f.truncate()
        f.write(json.dumps({"pid": os.getpid(), "host": platform.node(),
                            "started": _now()}))
        f.flush()
        self._lock_file = f
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._lock_file is not None:
            # removed while still locked, then released: a run that opened the old file
            # meanwhile sees that it is no longer the one at the path and locks a new one
            # (``_same_file``); a run killed here leaves the file, which the next run takes
            # over since the kernel released the lock
            with contextlib.suppress(OSError):
                os.unlink(self.lock_path)
            self._lock_file.close()  # closing releases the lock
            self._lock_file = None

    # -- staging and the swap --------------------------------------------------------------
    def resume_source(self) -> Path | None:
        """Where ``--resume`` reads: the unfinished run beside ``OUT`` (``OUT.partial``, or
        ``.OUT.partial`` of an older tokbench), else ``OUT``."""
        for folder in (self.staging, self.legacy_staging, self.out):
            if (folder / "results.json").is_file():
                return folder
        return None

    def start(self, carry: Sequence[str] = ()) -> Path:
        """A fresh staging folder for this run's files.

        It is empty but for the files named in ``carry`` (a resumed run's checkpoints),
        kept from the unfinished run beside ``OUT``, else copied from ``OUT``. Only files
        the earlier unfinished run recorded are removed.
        """
        try:
            kept = {}
            for name in carry:
                for folder in (self.staging, self.legacy_staging, self.out):
                    if (folder / name).is_file():
                        kept[name] = (folder / name).read_bytes()
                        break
            self.discard()
            self.staging.mkdir(parents=True)
            self._mark(self.staging, [*RUN_FILES, *kept], complete=False)
            for name, data in kept.items():
                write_atomic(self.staging / name, data)
        except OSError as e:
            raise InputError(f"--out {self.out}: cannot create {self.staging} "
                             f"({e.strerror or e})") from None
        return self.staging

    def publish(self, files: Iterable[str | Path] = ()) -> Path:
        """Replace ``OUT`` by the staging folder; of the old ``OUT`` only the files its
        marker lists are removed. ``files`` are what this run wrote besides ``RUN_FILES``."""
        names = [*RUN_FILES, *LATER_FILES, *(Path(f).name for f in files)]
        old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
        try:
            self._mark(self.staging, names, complete=True)
            try:
                recorded = owned_files(self.out, "--out") if self.out.exists() else None
            except InputError as e:  # a file of the user's appeared in OUT during the run
                raise InputError(f"{e}; this run's files are in {self.staging}") from None
            if recorded is not None:
                os.replace(self.out, old)
            os.replace(self.staging, self.out)
        except OSError as e:
            if old.exists() and not self.out.exists():
                os.replace(old, self.out)
            raise InputError(f"--out {self.out}: cannot replace it ({e.strerror or e}); this "
                             f"run's files are in {self.staging}") from None
        if recorded is not None:
            _remove(old, recorded)
        return self.out

    def discard(self) -> None:
        """Remove the staging folder: only the files its marker lists (an unmarked folder
        holding anything is refused)."""
        if self.staging.is_dir():
            _remove(self.staging, owned_files(self.staging,
                                              f"--out {self.out}: its working folder"))
        with contextlib.suppress(InputError):  # an older tokbench's; left alone unless ours
            _remove(self.legacy_staging, owned_files(self.legacy_staging, ""))

    def _mark(self, folder: Path, names: Iterable[str], complete: bool) -> None:
        present = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
        files = sorted({*names, *present} - {MARKER})
        write_atomic(folder / MARKER, json.dumps(
            {"tokbench": "output folder", "run": self.run_id, "written": _now(),
             "complete": complete, "files": files}, indent=1) + "\n")


def add_files(staged: Path, folder: Path, what: str) -> list[Path]:
    """Move every file of ``staged`` into ``folder`` (created if need be) and list them in
    its marker; a file already there that tokbench did not record is never overwritten
    (refused with one line, before anything moves). ``staged`` is removed."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = {p.name: p for p in folder.iterdir()}
    marked = MARKER in entries
    recorded = (_recorded(folder, entries) if marked else None) or _legacy(folder) or set()
    names = sorted(p.name for p in staged.iterdir())
    for name in names:
        if name in entries and name not in recorded:
            raise InputError(f"{what} {folder} holds {name!r}, which tokbench did not write; "
                             "move it or give another --out (tokbench never overwrites files "
                             "it did not write)")
    files = (recorded if marked else {n for n in recorded if n in entries}) | set(names)
    data: dict[str, Any] = {"tokbench": "output folder", "run": None, "complete": True}
    if marked:
        with contextlib.suppress(OSError, ValueError):
            data.update(json.loads((folder / MARKER).read_text(encoding="utf-8")))
    data.update(written=_now(), files=sorted(files - {MARKER}))
    write_atomic(folder / MARKER, json.dumps(data, indent=1) + "\n")
    for name in names:
        os.replace(staged / name, folder / name)
    staged.rmdir()
    return [folder / n for n in names]


def owned_files(folder: Path, what: str) -> list[str] | None:
    """The names of the files tokbench wrote into ``folder`` (its marker included);
    None when it does not exist. An empty folder owns nothing; a folder holding anything
    tokbench did not record is refused with an ``InputError`` naming it."""
    if not folder.is_dir():
        return None
    entries = {p.name: p for p in folder.iterdir()}
    if not set(entries) - LITTER:  # empty, but for what a file browser left
        return list(entries)
    recorded = _recorded(folder, entries)
    if recorded is None:
        known = _legacy(folder) or LEGACY_FILES
        example = min(entries, key=lambda n: (n in known or bool(_TEMP.match(n)), n))
        raise InputError(f"{what} {folder} holds {example!r}, which tokbench did "
                         f"not write (no {MARKER} marks the folder as tokbench's); give an "
                         "empty or new folder: tokbench never deletes files it did not write")
    for name, path in sorted(entries.items()):
        temp = _TEMP.match(name)
        if name in recorded or (temp and temp["name"] in recorded):
            if path.is_dir() and not path.is_symlink():
                raise InputError(f"{what} {folder}: {name!r} is a folder; tokbench writes only "
                                 "files there, so move it or give another folder")
            continue
        raise InputError(f"{what} {folder} holds {name!r}, which tokbench did not write; "
                         "move it out or give another folder (tokbench never deletes files "
                         "it did not write)")
    return [n for n in entries if n in recorded or ((t := _TEMP.match(n)) and
                                                   t["name"] in recorded)]


def _recorded(folder: Path, entries: dict[str, Path]) -> set[str] | None:
    """What the marker lists (with the marker), or a pre-marker run's files; else None."""
    if MARKER in entries:
        try:
            data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
            files = data["files"] if isinstance(data, dict) else None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError):
            files = None
        if isinstance(files, list) and all(isinstance(f, str) and "/" not in f
                                           and f not in ("", ".", "..") for f in files):
            return {*files, MARKER, *LITTER}
        raise InputError(f"{folder / MARKER} is not a readable tokbench marker; remove it only "
                         "if the folder holds nothing of yours, or give another folder")
    names = _legacy(folder)
    return names if names is not None and all(n in names or _TEMP.match(n)
                                              for n in entries) else None


def _legacy(folder: Path) -> set[str] | None:
    """The files a tokbench before markers wrote into ``folder``, when it holds a run's
    ``results.json``: fixed names and the plots named after its suites."""
    from tokbench.render.figures import safe_filename

    try:
        data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        meta = data["meta"]
        suites = list(meta["suites"]) if isinstance(meta["suites"], dict) else None
        if suites is None or "tokbench_version" not in meta:
            return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        return None
    plots = {"throughput.png"} | {f"{kind}_{safe_filename(s)}.png"
                                  for s in suites for kind in LEGACY_PLOTS}
    return set(LEGACY_FILES) | plots | {STATE_FILE} | LITTER


def _remove(folder: Path, names: Sequence[str] | None) -> None:
    """Remove exactly ``names`` from ``folder``, then the folder if that emptied it."""
    for name in names or ():
        with contextlib.suppress(FileNotFoundError):
            (folder / name).unlink()
    with contextlib.suppress(OSError):  # something appeared meanwhile: the folder stays
        folder.rmdir()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _try_lock(f: IO[str]) -> bool:
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (the staging swap still keeps runs apart)
        return True
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _same_file(f: IO[str], path: Path) -> bool:
    """Whether the open file ``f`` is still the file at ``path`` (not removed or replaced)."""
    try:
        return os.path.samestat(os.fstat(f.fileno()), os.stat(path))
    except OSError:
        return False


def _describe_holder(text: str) -> str:
    try:
        info: Any = json.loads(text)
    except json.JSONDecodeError:
        info = None
    if not isinstance(info, dict):
        return "holder unknown"
    return (f"pid {info.get('pid', '?')} on {info.get('host', '?')}, started "
            f"{info.get('started', '?')}")
