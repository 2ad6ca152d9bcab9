"""What only the SQLite backend has: a file in the data folder, damaged files, unusable paths, old files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from history_kit import insight, run, with_insights

from cogtui.core.history.backend import SQLiteTx
from cogtui.core.history.schema import SCHEMA_VERSION, create_v1
from cogtui.core.history.store import History, HistoryError
from cogtui.core.settings import locations as paths


def test_paths_and_open_default_honour_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COGTUI_HISTORY_URL", raising=False)
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "d"))
    assert paths.history_path() == tmp_path / "d" / "history.sqlite3"
    assert paths.backups_dir() == tmp_path / "d" / "backups"
    with History.open_default() as h:
        h.record(run())
        assert h.path == tmp_path / "d" / "history.sqlite3" and h.backend_name == "sqlite"
    assert (tmp_path / "d" / "history.sqlite3").is_file()
    assert not (tmp_path / "d" / "backups").exists()  # paths are computed, not created
    monkeypatch.delenv("COGTUI_CONFIG_FILE", raising=False)
    assert paths.config_file() == paths.config_dir() / "config.yaml"
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "c.yaml"))
    assert paths.config_file() == tmp_path / "c.yaml"


def test_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "history.sqlite3"
    bad.write_bytes(b"this is not a database, just text " * 200)
    with pytest.raises(HistoryError) as info:
        History(bad)
    assert str(bad) in str(info.value) and "move it aside" in str(info.value)
    assert info.value.path == bad


def test_unusable_paths_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "dir.sqlite3").mkdir()
    (tmp_path / "file").write_text("")
    for bad in (tmp_path / "dir.sqlite3", tmp_path / "file" / "h.sqlite3"):
        with pytest.raises(HistoryError, match=str(bad)):
            History(bad)


def test_a_version_1_file_is_migrated_in_place(tmp_path: Path) -> None:
    """A history written before run digests existed: opened, it gains them, and keeps every run."""
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    create_v1(SQLiteTx(conn))
    old = run("old", with_insights(insight("a")))
    conn.execute(
        "INSERT INTO runs (module, provider, model, input, input_hash, envelope, started_at, outcome) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (old.module, old.provider, old.model, '{"code":"x = 1","ü":[1,2]}', old.input_hash, '{"ok": true}', 5.0, "ok"),
    )
    conn.execute(
        "INSERT INTO runs (module, provider, input, input_hash, envelope, started_at, outcome) "
        "VALUES ('bad', 'p', 'null', 'h', 'not json', 6.0, 'ok')"
    )
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with History(path) as h:
        assert h.count() == 2
        h.record(run("new"))
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        digests = [d for (d,) in conn.execute("SELECT run_digest FROM runs ORDER BY id")]
        assert len(digests) == 3 and all(isinstance(d, str) and len(d) == 64 for d in digests)
        plan = " ".join(str(r) for r in conn.execute("EXPLAIN QUERY PLAN SELECT 1 FROM runs WHERE run_digest = 'x'"))
        assert "runs_by_digest" in plan
    finally:
        conn.close()
