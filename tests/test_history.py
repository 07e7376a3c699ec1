"""The SQLite history: recording runs, trends with changes and notes, the history command."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests._toy import ToyTokenizer
from tokbench.ci.history import History, history_path
from tokbench.cli import main
from tokbench.engine.runner import run
from tokbench.errors import InputError, UnknownNameError
from tokbench.record import RunMeta
from tokbench.render.history import plot_trend
from tokbench.results import Results, Row
from tokbench.suites.model import Document, Suite


def _run(commit: str, created: str, value: float, suite_sha: str = "s1", host: str = "ci-1",
         tok_sha: str = "t1", backend: str = "0.20.0", extra_rows: list[Row] | None = None
         ) -> Results:
    meta: dict[str, Any] = {
        "git_commit": commit, "created": created, "complete": True,
        "machine": {"hostname": host, "cpus": 2},
        "tokenizers": {"tok": {"backend_version": backend, "source": {"sha256": tok_sha}}},
        "suites": {"multi": {"sha256": suite_sha}},
    }
    rows = [Row("tok", "multi", "all", "bytes_per_token", value),
            Row("tok", "multi", "fra_Latn", "bytes_per_token", value - 0.5),
            *(extra_rows or [])]
    return Results(rows=rows, meta=RunMeta.from_dict(meta))


def test_record_and_trend(tmp_path):
    db = tmp_path / "h.sqlite"
    with History(db) as h:
        assert h.record(_run("c1", "2024-05-01T10:00:00Z", 4.0)) is not None
        assert h.record(_run("c2", "2024-05-02T10:00:00Z", 3.8)) is not None
        assert h.record(_run("c3", "2024-05-03T10:00:00Z", 3.8, suite_sha="s2")) is not None
        assert h.record(_run("c4", "2024-05-04T10:00:00Z", 4.18, backend="0.21.0", suite_sha="s2",
                             host="laptop")) is not None
        # the same run again is not stored twice
        assert h.record(_run("c2", "2024-05-02T10:00:00Z", 3.8)) is None
        assert h.runs() == 4
        points = h.trend("bytes_per_token", "tok", "multi")
    assert [(p.commit, p.value) for p in points] == [("c1", 4.0), ("c2", 3.8), ("c3", 3.8),
                                                     ("c4", 4.18)]
    assert points[0].change is None
    assert points[1].change == pytest.approx(-0.05)
    assert points[2].change == 0.0
    assert points[3].change == pytest.approx(0.1)
    assert [p.notes for p in points] == [[], [], ["suite changed"],
                                         ["backend 0.20.0 → 0.21.0", "machine laptop"]]


def test_trend_is_in_time_order_and_filters(tmp_path):
    with History(tmp_path / "h.sqlite") as h:
        h.record(_run("late", "2024-06-01T00:00:00Z", 4.2))
        h.record(_run("early", "2024-01-01T00:00:00Z", 4.0))
        h.record(_run("other", "2024-03-01T00:00:00Z", 9.0, host="laptop"))
        assert [p.commit for p in h.trend("bytes_per_token", "tok", "multi")] == \
            ["early", "other", "late"]
        assert [p.commit for p in h.trend("bytes_per_token", "tok", "multi", machine="ci-1")] \
            == ["early", "late"]
        assert [p.value for p in h.trend("bytes_per_token", "tok", "multi", "fra_Latn",
                                         last=1)] == [3.7]
        assert h.values("subset", metric="bytes_per_token") == ["all", "fra_Latn"]


def test_resolve_names(tmp_path):
    with History(tmp_path / "h.sqlite") as h:
        h.record(_run("c1", "2024-01-01T00:00:00Z", 4.0))
        assert h.resolve("tokenizer", None, metric="bytes_per_token") == "tok"
        with pytest.raises(UnknownNameError, match="did you mean 'tok'"):
            h.resolve("tokenizer", "tokk", metric="bytes_per_token")
        h.record(_run("c2", "2024-01-02T00:00:00Z", 4.0,
                      extra_rows=[Row("gpt2", "multi", "all", "bytes_per_token", 4.4)]))
        with pytest.raises(InputError, match=r"several tokenizers recorded .*\(gpt2, tok\); "
                                             "pass --tokenizer"):
            h.resolve("tokenizer", None, metric="bytes_per_token")


def test_bad_databases(tmp_path):
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database at all " * 100, encoding="utf-8")
    with pytest.raises(InputError, match="not a tokbench history database"):
        History(text)
    foreign = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE users (id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="an SQLite database, but not a tokbench history"):
        History(foreign)
    newer = tmp_path / "newer.sqlite"
    with History(newer):
        pass
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version = 99")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="history schema version 99 is newer"):
        History(newer)
    with pytest.raises(InputError, match="no history here yet"):
        History(tmp_path / "missing.sqlite", create=False)


def test_history_path(monkeypatch, tmp_path):
    monkeypatch.delenv("TOKBENCH_HISTORY", raising=False)
    assert history_path() == Path("reports/history.sqlite")
    monkeypatch.setenv("TOKBENCH_HISTORY", str(tmp_path / "env.sqlite"))
    assert history_path() == tmp_path / "env.sqlite"
    assert history_path("given.sqlite") == Path("given.sqlite")


def test_plot(tmp_path):
    with History(tmp_path / "h.sqlite") as h:
        for k, v in enumerate((4.0, 3.9, 4.1)):
            h.record(_run(f"c{k}", f"2024-01-0{k + 1}T00:00:00Z", v, suite_sha=f"s{k // 2}"))
        points = h.trend("bytes_per_token", "tok", "multi")
    png = plot_trend(points, tmp_path / "plots" / "trend.png", "bytes_per_token")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_history_command(tmp_path, monkeypatch, capsys):
    db = tmp_path / "h.sqlite"
    monkeypatch.setenv("TOKBENCH_HISTORY", str(db))
    for k, v in enumerate((4.0, 3.6)):
        _run(f"abcdef{k}", f"2024-01-0{k + 1}T00:00:00Z", v).save(tmp_path / f"run{k}")
    assert main(["history", "--add", str(tmp_path / "run0"), "--add",
                 str(tmp_path / "run1")]) == 0
    assert main(["history", "--add", str(tmp_path / "run1")]) == 0
    assert "already recorded" in capsys.readouterr().out
    png = tmp_path / "t.png"
    assert main(["history", "bytes_per_token", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "abcdef0" in out and "abcdef1" in out and "−10.00%" in out and png.exists()
    assert main(["history", "bytes_per_token", "--json", "--subset", "fra_Latn"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert [p["value"] for p in data["points"]] == [3.5, 3.1]
    assert data["points"][1]["change"] == pytest.approx(-0.4 / 3.5)

    assert main(["history", "bytes_per_tokn"]) == 2
    assert "did you mean 'bytes_per_token'" in capsys.readouterr().err
    assert main(["history", "bytes_per_token", "--history", str(tmp_path / "none.sqlite")]) == 2
    assert "no history here yet" in capsys.readouterr().err
    assert main(["history"]) == 2
    assert "give a METRIC" in capsys.readouterr().err


def test_a_real_run_is_recorded_with_its_hashes(tmp_path):
    tok = ToyTokenizer(["a", "b", " "])
    suite = Suite("s", "1", [Document("d1", "eng_Latn", "x", "ab ba")])
    results = run([tok], [suite], ["compression"])
    with History(tmp_path / "h.sqlite") as h:
        h.record(results)
        row = h.db.execute("SELECT value, suite_sha256, backend_version FROM measurements "
                           "WHERE metric = 'tokens' AND subset = 'all'").fetchone()
    assert row == (5, suite.sha256, "0")


def test_a_run_recorded_by_tokbench_run_is_not_added_again(tmp_path, capsys):
    """``tokbench run`` records its run keyed by the digest of the results.json it wrote
    (not made again from the results); ``history --add`` of that folder finds it stored."""
    db = tmp_path / "h.sqlite"
    out = tmp_path / "out"
    assert main(["run", "-t", "bytes", "-s", "numbers", "-m", "compression", "--jobs", "1",
                 "--no-plots", "--no-html", "--history", str(db), "-o", str(out)]) == 0
    results = Results.load(out)
    assert hashlib.sha256((out / "results.json").read_bytes()).hexdigest() == \
        hashlib.sha256(results.to_json().encode("utf-8")).hexdigest()
    capsys.readouterr()
    assert main(["history", "--add", str(out), "--history", str(db)]) == 0
    assert "already recorded" in capsys.readouterr().out
    with History(db) as h:
        assert h.runs() == 1
