"""Where the history lives: COGTUI_HISTORY_URL, then config's history.url, then the data folder's file;
URLs shown without passwords; psycopg loaded only for a PostgreSQL history."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from history_kit import is_postgres, run

from cogtui.core.history.location import HistoryLocation, default_location, parse_location, redact
from cogtui.core.history.store import History, HistoryError

REPO = Path(__file__).resolve().parent.parent


def test_parse_locations(tmp_path: Path) -> None:
    assert parse_location(str(tmp_path / "h.db")) == HistoryLocation(path=tmp_path / "h.db")
    assert parse_location(f"sqlite://{tmp_path}/h.db") == HistoryLocation(path=tmp_path / "h.db")
    assert parse_location("postgresql://u@db/cog").url == "postgresql://u@db/cog"
    assert parse_location(" postgres://u@db/cog ").is_postgres
    with pytest.raises(HistoryError, match="mysql://u:\\*\\*\\*@h/d is not a history location"):
        parse_location("mysql://u:hunter2@h/d")
    with pytest.raises(HistoryError, match="needs a path"):
        parse_location("sqlite://")


def test_passwords_are_never_shown() -> None:
    assert redact("postgresql://ann:s3cret@db:5432/cog") == "postgresql://ann:***@db:5432/cog"
    assert redact("postgresql://db/cog?password=s3cret&sslmode=require") == (
        "postgresql://db/cog?password=***&sslmode=require"
    )
    assert "s3cret" not in str(parse_location("postgresql://ann:s3cret@db/cog").display)


def test_a_server_that_refuses_is_a_clear_error_without_the_password() -> None:
    # 127.0.0.1 port 1: nothing listens there; the error names the URL (redacted) and what to check.
    url = "postgresql://ann:s3cret@127.0.0.1:1/cog?connect_timeout=2"
    with pytest.raises(HistoryError) as info:
        History(url)
    text = str(info.value)
    assert "s3cret" not in text and "ann:***@127.0.0.1:1/cog" in text
    assert "the database server is unreachable at 127.0.0.1:1 (Connection refused. Is the server running" in text
    assert "check that it is running" in text and "bug" not in text


def test_a_url_that_does_not_parse_says_so_not_a_bug() -> None:
    with pytest.raises(HistoryError) as info:
        History("postgresql://u:pw@[bad")
    text = str(info.value)
    assert "check the URL's form: postgresql://USER@HOST:PORT/DATABASE" in text and "bug" not in text
    assert "pw" not in text and "\n" not in text


def test_env_then_config_then_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "data"))
    config = tmp_path / "config.yaml"
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(config))
    monkeypatch.delenv("COGTUI_HISTORY_URL", raising=False)
    assert default_location() == HistoryLocation(path=tmp_path / "data" / "history.sqlite3")
    config.write_text(f"history:\n  url: sqlite://{tmp_path}/team.sqlite3\n")
    assert default_location() == HistoryLocation(path=tmp_path / "team.sqlite3")
    monkeypatch.setenv("COGTUI_HISTORY_URL", str(tmp_path / "env.sqlite3"))
    assert default_location() == HistoryLocation(path=tmp_path / "env.sqlite3")
    config.write_text("history: [not, a, mapping]\n")
    monkeypatch.delenv("COGTUI_HISTORY_URL")
    assert default_location() == HistoryLocation(path=tmp_path / "data" / "history.sqlite3")


PROBE = """
import contextlib, io, json, sys
from cogtui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["history", "--json"])
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] in ("psycopg", "psycopg_pool"))]))
"""


def test_psycopg_is_imported_only_for_a_postgresql_history(new_store: Callable[[], str], tmp_path: Path) -> None:
    where = new_store()
    with History(where) as h:
        h.record(run())
    env = {**os.environ, "PYTHONPATH": str(REPO), "COGTUI_HISTORY_URL": where, "COGTUI_CONFIG_FILE": "/nonexistent"}
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    code, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert code == 0
    assert bool(loaded) == is_postgres(where), loaded


def test_without_the_postgres_extra_a_postgresql_history_is_refused_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """psycopg not importable (as in an install without `cogtui[postgres]`): the message names the extra; `cogn
    run` stops before running (exit 2) and writes nothing: no output file, no outbox, no data folder."""
    from cli_inprocess import run_cli

    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` raises ImportError
    url = "postgresql://ann:s3cret@db.internal/team"
    with pytest.raises(HistoryError, match=r"pip install 'cogtui\[postgres\]'") as info:
        History(url)
    assert "s3cret" not in str(info.value)
    env = {
        **os.environ,
        "COGTUI_HISTORY_URL": url,
        "COGTUI_DATA_DIR": str(tmp_path / "data"),
        "COGTUI_CONFIG_FILE": str(tmp_path / "config.yaml"),
    }
    case = REPO / "modules" / "code-reviewer" / "tests" / "case1.input.json"
    argv = ["--path", str(REPO / "modules"), "run", "code-reviewer", "--input", str(case), "-o", "out.json", "--json"]
    proc = run_cli(argv, cwd=tmp_path, env=env)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert "has no PostgreSQL support" in proc.stderr and "pip install 'cogtui[postgres]'" in proc.stderr
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "data").exists()
    with_no_history = run_cli([*argv[:-3], "--no-history", "--json"], cwd=tmp_path, env=env)
    assert with_no_history.returncode == 0, with_no_history.stderr  # a run that records nothing needs no driver
