"""Every run in an embedded SQLite database, keyed by git commit, time and machine.

``tokbench run`` records each run in ``history.sqlite`` beside its output folder
(``reports/history.sqlite`` for the default ``--out reports/latest``), or in
``$TOKBENCH_HISTORY`` or ``--history``; ``History.trend`` gives one metric of one
tokenizer, suite and subset over time, with the change against the previous run and a
note where an input changed (the suite's content, the tokenizer file, the backend
version, the machine).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from tokbench.errors import InputError, UnknownNameError
from tokbench.paths import user_path
from tokbench.record import TokenizerInfo
from tokbench.results import Results

DEFAULT_PATH = Path("reports") / "history.sqlite"
ENV = "TOKBENCH_HISTORY"
SCHEMA_VERSION = 1
#: seconds to wait for another process's write lock on the history
LOCK_TIMEOUT = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    git_commit TEXT NOT NULL,
    created TEXT NOT NULL,
    machine TEXT NOT NULL,
    machine_json TEXT,
    tokbench_version TEXT,
    complete INTEGER,
    recorded TEXT,
    source TEXT,
    digest TEXT NOT NULL,
    UNIQUE (git_commit, created, machine, digest)
);
CREATE TABLE IF NOT EXISTS measurements (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    tokenizer TEXT NOT NULL,
    suite TEXT NOT NULL,
    subset TEXT NOT NULL,
    metric TEXT NOT NULL,
    value,
    extra TEXT,
    tokenizer_sha256 TEXT,
    backend_version TEXT,
    suite_sha256 TEXT,
    PRIMARY KEY (run_id, tokenizer, suite, subset, metric)
);
CREATE INDEX IF NOT EXISTS series ON measurements (metric, tokenizer, suite, subset);
"""


HISTORY_FILE = "history.sqlite"


def history_path(explicit: str | Path | None = None, out: str | Path | None = None) -> Path:
    """``explicit``, else ``$TOKBENCH_HISTORY``, else ``history.sqlite`` beside the run's
    output folder ``out`` (``reports/latest`` -> ``reports/history.sqlite``), else
    ``reports/history.sqlite``."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(ENV)
    if env:
        return user_path(env)
    if out is not None:
        return Path(out).parent / HISTORY_FILE
    return DEFAULT_PATH


@dataclass
class Point:
    """One run's value of a series, and how it moved since the previous run."""

    run_id: int
    commit: str
    created: str
    machine: str
    value: Any
    change: float | None = None  # (value - previous) / |previous|
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        if d["change"] is not None and not math.isfinite(d["change"]):
            d["change"] = None  # from zero: JSON has no infinity
        return d


class History:
    """An open history database (a context manager)."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path)
        if str(self.path).startswith("~"):  # ~user of no user: not a folder named "~user"
            raise InputError(f"{self.path}: {str(self.path).split('/')[0]!r} names no user "
                             f"whose home ~ could stand for; give a full --history path or "
                             f"${ENV}")
        if not create and not self.path.exists():
            raise InputError(f"{self.path}: no history here yet; `tokbench run` records every "
                             f"run there (or pass --history PATH / set {ENV})")
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise InputError(f"{self.path}: cannot create the history there "
                             f"({e.strerror or e}); pass --history PATH or set {ENV}") from None
        try:
            self.db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT)
        except sqlite3.Error as e:
            raise InputError(f"{self.path}: cannot open the history ({e}); pass another "
                             f"--history path or set {ENV}") from None
        try:
            with self._errors("open"):
                self.db.execute("PRAGMA foreign_keys = ON")
                self._check_schema(create)
        except BaseException:
            self.db.close()
            raise

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """SQLite's errors as one line naming the file and the fix."""
        try:
            yield
        except sqlite3.OperationalError as e:
            if "locked" in str(e) or "busy" in str(e):
                raise InputError(f"{self.path}: cannot {doing} the history: another process "
                                 f"holds it locked ({LOCK_TIMEOUT:g} s waited); retry when it "
                                 f"is done, or pass another --history path") from None
            raise self._damaged(doing, e) from None
        except sqlite3.DatabaseError as e:
            raise self._damaged(doing, e) from None

    def _damaged(self, doing: str, e: Exception) -> InputError:
        if "not a database" in str(e) or "file is encrypted" in str(e):
            return InputError(f"{self.path}: not a tokbench history database ({e}); pass "
                              "another --history path")
        return InputError(f"{self.path}: cannot {doing} the history ({e}); the file is "
                          f"damaged: move it away (a new history starts there) or pass another "
                          "--history path")

    def _check_schema(self, create: bool) -> None:
        self.db.isolation_level = None  # transactions as written here
        try:
            version, tables = self._schema_state()
        finally:
            self.db.isolation_level = "DEFERRED"
        if version == 0 and not tables and create:
            # one transaction, taken before looking again: of several processes creating
            # a new history at once, one creates it and the others find it made
            self.db.isolation_level = None
            try:
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    version, tables = self._schema_state()
                    if version == 0 and not tables:
                        for statement in filter(str.strip, _SCHEMA.split(";")):
                            self.db.execute(statement)
                        self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                        version = SCHEMA_VERSION
                    self.db.execute("COMMIT")
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
            finally:
                self.db.isolation_level = "DEFERRED"
        if version > SCHEMA_VERSION:
            raise InputError(f"{self.path}: history schema version {version} is newer than this "
                             f"tokbench understands ({SCHEMA_VERSION}); upgrade tokbench")
        if version == 0 and tables:
            raise InputError(f"{self.path}: an SQLite database, but not a tokbench history; "
                             "pass another --history path")

    def _schema_state(self) -> tuple[int, set[str]]:
        """Schema version and tables, read in one transaction (one consistent view)."""
        outside = not self.db.in_transaction
        if outside:
            self.db.execute("BEGIN")
        try:
            version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
            tables = {r[0] for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            if outside:
                self.db.execute("COMMIT")
        return version, tables

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- writing ----------------------------------------------------------------------------
    def record(self, results: Results, source: str | None = None,
               digest: str | None = None) -> int | None:
        """Store a run; returns its id, or None when this very run is already stored.

        A run is keyed by commit, time and machine, plus a digest of its results (runs
        are timed to the second: two runs of one second are told apart by their content):
        the sha256 of ``results.to_json()``, or ``digest`` when the caller has it (the
        run's results.json as just written: the default run's JSON took 0.8 s to make
        again).
        """
        meta = results.meta
        machine = meta.machine
        digest = digest or hashlib.sha256(results.to_json().encode("utf-8")).hexdigest()
        key = (meta.git_commit or "", meta.created or "", machine.get("hostname") or "", digest)
        tokenizers, suites = meta.tokenizers, meta.suites
        with self._errors("record the run in"):
            # never add a run beside a damaged table of runs (an insert can succeed beside
            # a broken page). Only that table is checked: checking the whole file cost 0.45 s
            # per run at 240 MB of history and grows with it; a damaged page of measurements
            # is found by the insert that touches it, or by the next read.
            check = self.db.execute("PRAGMA quick_check(runs)").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"quick_check: {check}")
        with self._errors("record the run in"), self.db:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO runs (git_commit, created, machine, digest, machine_json, "
                "tokbench_version, complete, recorded, source) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*key, json.dumps(machine, sort_keys=True), meta.tokbench_version,
                 int(meta.complete),
                 datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), source))
            if cur.rowcount == 0:
                return None
            run_id = int(cur.lastrowid or 0)
            self.db.executemany(
                "INSERT OR REPLACE INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, r.tokenizer, r.suite, r.subset, r.metric, _storable(r.value),
                  json.dumps(r.extra, sort_keys=True) if r.extra else None,
                  *_tokenizer_facts(tokenizers.get(r.tokenizer)),
                  suite.sha256 if (suite := suites.get(r.suite)) is not None else None)
                 for r in results.rows])
        return run_id

    # -- reading ----------------------------------------------------------------------------
    def values(self, column: str, **where: str | None) -> list[str]:
        """Distinct values of ``column`` (tokenizer, suite, subset, metric) under filters."""
        if column not in ("tokenizer", "suite", "subset", "metric"):
            raise ValueError(column)
        clauses = [f"{k} = ?" for k, v in where.items() if v is not None]
        args = [v for v in where.values() if v is not None]
        sql = f"SELECT DISTINCT {column} FROM measurements"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        with self._errors("read"):
            return sorted(r[0] for r in self.db.execute(sql, args))

    def runs(self) -> int:
        with self._errors("read"):
            return int(self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def trend(self, metric: str, tokenizer: str, suite: str, subset: str = "all",
              machine: str | None = None, last: int | None = None) -> list[Point]:
        """One series over time (oldest first), with the change against the previous run."""
        sql = ("SELECT runs.id, runs.git_commit, runs.created, runs.machine, m.value, "
               "m.tokenizer_sha256, m.backend_version, m.suite_sha256 "
               "FROM measurements AS m JOIN runs ON runs.id = m.run_id "
               "WHERE metric = ? AND tokenizer = ? AND suite = ? AND subset = ?")
        args: list[Any] = [metric, tokenizer, suite, subset]
        if machine is not None:
            sql += " AND runs.machine = ?"
            args.append(machine)
        sql += " ORDER BY runs.created, runs.id"
        with self._errors("read"):
            found = self.db.execute(sql, args).fetchall()
        points: list[Point] = []
        prev: tuple[Any, ...] | None = None
        for run_id, commit, created, host, value, tok_sha, backend, suite_sha in found:
            p = Point(run_id, commit, created, host, value)
            if prev is not None:
                p_value, p_tok, p_backend, p_suite, p_host = prev
                p.change = _relative(p_value, value)
                if p_suite and suite_sha and p_suite != suite_sha:
                    p.notes.append("suite changed")
                if p_tok and tok_sha and p_tok != tok_sha:
                    p.notes.append("tokenizer file changed")
                if p_backend and backend and p_backend != backend:
                    p.notes.append(f"backend {p_backend} → {backend}")
                if p_host != host:
                    p.notes.append(f"machine {host or '?'}")
            prev = (value, tok_sha, backend, suite_sha, host)
            points.append(p)
        return points[-last:] if last else points

    def resolve(self, column: str, given: str | None, **where: str | None) -> str:
        """``given`` checked against the stored values (did-you-mean), or the only one stored."""
        known = self.values(column, **where)
        scope = ", ".join(f"{k} {v}" for k, v in where.items() if v)
        if given is not None:
            if given not in known:
                raise UnknownNameError(column, given, known,
                                       hint=f"in {self.path}" + (f" for {scope}" if scope else ""))
            return given
        if len(known) == 1:
            return known[0]
        if not known:
            raise InputError(f"{self.path}: no {column} recorded"
                             + (f" for {scope}" if scope else "") + "; check the names")
        raise InputError(f"{self.path}: several {column}s recorded"
                         + (f" for {scope}" if scope else "") + f" ({', '.join(known[:10])}"
                         + (", …" if len(known) > 10 else "") + f"); pass --{column}")


def _storable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _relative(prev: Any, value: Any) -> float | None:
    numbers = (int, float)
    if not isinstance(prev, numbers) or not isinstance(value, numbers):
        return None
    if prev == 0:
        return None if value == 0 else math.copysign(math.inf, value)
    return (value - prev) / abs(prev)


__all__ = ["DEFAULT_PATH", "ENV", "History", "Point", "history_path"]


def _tokenizer_facts(info: TokenizerInfo | None) -> tuple[str | None, str | None]:
    """(file sha256, backend version) of a tokenizer as a run recorded it."""
    if info is None:
        return None, None
    return info.source.sha256, info.backend_version
