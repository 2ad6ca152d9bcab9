"""`cogn history flush` and `cogn history check` on the default SQLite history: what they print, what they
return, and what `cogn run` and `cogn history` say about runs waiting in the outbox."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import cli_json
import pytest
from history_kit import fail_env, insight, run, with_insights

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from rtkit import MODULES, cli_env, cogn

from cogtui.core.history.location import HistoryLocation
from cogtui.core.history.outbox import Outbox
from cogtui.core.history.store import History

CASE = str(MODULES / "code-reviewer" / "tests" / "case1.input.json")


def history_file(tmp_path: Path) -> Path:
    return tmp_path / "data" / "history.sqlite3"


def outbox_of(tmp_path: Path) -> Outbox:
    return Outbox(HistoryLocation(path=history_file(tmp_path)), tmp_path / "data" / "outbox")


def test_a_run_the_history_cannot_take_is_kept_and_flush_records_it(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    history_file(tmp_path).parent.mkdir(parents=True)
    history_file(tmp_path).mkdir()  # a folder where the history file should be: SQLite cannot open it
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", CASE, "--json", env=env)
    assert proc.returncode == 0 and cli_json.envelope(proc.stdout)["ok"] is True
    assert f"It is kept in {outbox_of(tmp_path).path}" in proc.stderr, proc.stderr
    assert "cogtui bug" not in proc.stderr
    waiting = cogn(tmp_path, "history", "flush", env=env)
    assert waiting.returncode == 2 and f"1 run waiting in {outbox_of(tmp_path).path}" in waiting.stderr
    history_file(tmp_path).rmdir()
    flushed = cogn(tmp_path, "history", "flush", env=env)
    assert flushed.returncode == 0, flushed.stderr
    assert flushed.stdout.strip() == f"1 kept run recorded in {history_file(tmp_path)}; 0 waiting"
    again = cogn(tmp_path, "history", "flush", env=env)
    assert again.returncode == 0 and again.stdout.startswith("0 kept runs recorded")
    listed = cli_json.document(cogn(tmp_path, "history", "--json", env=env).stdout, "history")
    assert listed["summary"]["waiting"] == 0 and len(listed["items"]) == 1


def test_flush_sets_aside_a_damaged_line_and_says_so(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    outbox = outbox_of(tmp_path)
    outbox.keep(run(), "down")
    with outbox.path.open("a") as fh:
        fh.write("not json at all\n")
    proc = cogn(tmp_path, "history", "flush", env=env)
    assert proc.returncode == 1, proc.stderr
    assert f"{outbox.path}:2: a kept run cannot be read (not JSON" in proc.stderr
    assert f"moved to {outbox.set_aside_path}" in proc.stderr and "1 kept run recorded" in proc.stdout
    assert json.loads(outbox.set_aside_path.read_text())["text"] == "not json at all"


def test_check_agrees_then_finds_a_total_changed_by_hand(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    with History(history_file(tmp_path)) as h:
        h.record(run(envelope=with_insights(insight("risk.level"), insight(None), tag={"custom": "x"})))
        h.record(run(envelope=fail_env({"extensions": {"insights": [insight("q")]}}), started_at=2e9))
    proc = cogn(tmp_path, "history", "check", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("2 runs; the insights totals agree with a recount of the rows (6 totals)")
    conn = sqlite3.connect(history_file(tmp_path))
    conn.execute("UPDATE insight_stats SET n = n + 1 WHERE mapping_key = '=risk.level'")
    conn.execute("DELETE FROM insight_exclusions")
    conn.commit()
    conn.close()
    proc = cogn(tmp_path, "history", "check", env=env)
    assert proc.returncode == 1
    assert (
        "insight_stats (m, =risk.level): stored 2 / 1700000000.0 / 1700000000.0, recounted from the rows 1"
        in proc.stdout
    )
    assert "insight_exclusions (m): stored nothing, recounted from the rows 1 / 1 / 0" in proc.stdout
    report = cli_json.document(cogn(tmp_path, "history", "check", "--json", env=env).stdout, "history check")
    assert not report["summary"]["agrees"] and [d["table"] for d in report["items"]] == [
        "insight_stats",
        "insight_exclusions",
    ]


@pytest.mark.parametrize("extra", [["file.ndjson"], ["--module", "m"], ["--since", "2026-01-01"]])
@pytest.mark.parametrize("action", ["flush", "check"])
def test_flush_and_check_take_nothing_else(tmp_path: Path, action: str, extra: list[str]) -> None:
    proc = cogn(tmp_path, "history", action, *extra)
    assert proc.returncode == 2 and f"cogn history {action} takes no" in proc.stderr


def test_a_module_called_flush_is_listed_with_module(tmp_path: Path) -> None:
    with History(history_file(tmp_path)) as h:
        h.record(run("flush"))
    listed = cli_json.document(cogn(tmp_path, "history", "--module", "flush", "--json").stdout, "history")
    assert [r["module"] for r in listed["items"]] == ["flush"]
