"""The outbox: a run the history cannot take is kept on disk, exactly, and delivered once when the history opens;
a damaged line is set aside with its line number; concurrent deliveries store each run once."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from history_kit import fail_env, insight, raw, run, with_insights

from cogtui.core.history.location import HistoryLocation, parse_location
from cogtui.core.history.outbox import Outbox, decode, encode, identity
from cogtui.core.history.run_record import record_run
from cogtui.core.history.store import History, HistoryConfigError, HistoryError, RunRecord

NewStore = Callable[[], str]


def runs(n: int, module: str = "m") -> list[RunRecord]:
    """n distinct runs with insights and a custom enum value, and one that failed its contract."""
    out = [
        run(module, with_insights(insight("a.b", f"t{i}"), tag={"custom": "c", "reason": "r"}), started_at=1e9 + i)
        for i in range(n - 1)
    ]
    return [*out, run(module, fail_env({"extensions": {"insights": [insight("x")]}}), started_at=2e9)]


def kept_in_outbox(location: str, kept: list[RunRecord], why: str = "the database was down") -> Outbox:
    outbox = Outbox(parse_location(location))
    for r in kept:
        outbox.keep(r, why)
    return outbox


def stored_once(location: str, expected: list[RunRecord]) -> None:
    """Each expected run is in the store exactly once, nothing else is, and the totals agree with the rows."""
    keys = sorted(k for (k,) in raw(location, "SELECT run_digest FROM runs"))
    assert keys == sorted(r.key for r in expected)
    with History(location) as h:
        report = h.check()
        assert report.agrees, [str(d) for d in report.differences]


def test_a_line_is_the_run_exactly() -> None:
    odd = run(
        input={"lone": "\ud800", "nul": "a\x00b", "path": Path("/x"), "n": 1e308},
        envelope=with_insights(insight("m", "\u202e\x1b[2J")),
        started_at=1_700_000_000.123456,
        session_id="s",
    )
    line = encode(odd, "here", "why")
    assert "\n" not in line and line.isascii()
    back = decode(line)
    assert back.key == odd.key and back.started_at == odd.started_at and back.input["lone"] == "\ud800"
    assert back.envelope == odd.envelope and back.input_hash == odd.input_hash


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda line: line[:-20], "not JSON"),
        (lambda line: line.replace('"outcome":"ok"', '"outcome":"fine"'), "outcome"),
        (lambda line: line.replace('"provider":"anthropic"', '"provider":"openai"'), "does not match its key"),
        (lambda line: line.replace('"started_at":', '"started":'), "lacks started_at"),
        (lambda line: '{"outbox": 9}', "not an outbox record"),
    ],
)
def test_a_damaged_line_says_what_is_wrong(damage: Callable[[str], str], why: str) -> None:
    from cogtui.core.history.outbox import Damaged

    with pytest.raises(Damaged, match=why):
        decode(damage(encode(run(), "here", "why")))


def test_one_history_one_outbox_whatever_the_spelling(tmp_path: Path) -> None:
    same = [
        "postgresql://ann:secret@db:5432/team?sslmode=require",
        "postgresql://ann@db:5432/team?options=-c%20statement_timeout%3D100",
        "postgres://ann:other@db:5432/team",
    ]
    assert len({identity(parse_location(u)) for u in same}) == 1
    assert identity(parse_location("postgresql://ann@db/other")) != identity(parse_location(same[0]))
    assert identity(parse_location("postgresql://bob@db:5432/team")) != identity(parse_location(same[0]))
    assert "secret" not in Outbox(parse_location(same[0]), tmp_path).where
    relative = HistoryLocation(path=Path("h.db"))
    assert identity(relative) == identity(HistoryLocation(path=Path.cwd() / "h.db"))


def test_kept_runs_are_delivered_once_on_the_next_open(new_store: NewStore, data_dir: Path) -> None:
    location = new_store()
    kept = runs(4)
    outbox = kept_in_outbox(location, kept)
    assert outbox.waiting() == 4 and outbox.path.is_relative_to(data_dir)
    with History(location) as h:
        assert (h.delivery.delivered, h.delivery.already, h.waiting) == (4, 0, 0)
        assert h.count() == 4 and h.insights()["excluded"]
    assert not outbox.path.exists()
    with History(location) as h:  # nothing left to deliver
        assert h.delivery.delivered == 0 and h.count() == 4
    stored_once(location, kept)


def test_a_run_stored_before_its_failure_was_reported_is_not_stored_twice(new_store: NewStore, data_dir: Path) -> None:
    """The commit reached the database but the answer never came back (a killed connection): the run is both
    stored and kept. Delivery finds it stored and keeps nothing twice."""
    location = new_store()
    kept = runs(3)
    with History(location) as h:
        h.record(kept[0])
    outbox = kept_in_outbox(location, kept, "the connection was lost")
    outbox.keep(kept[1], "kept twice by two failed attempts")
    with History(location) as h:
        assert (h.delivery.delivered, h.delivery.already) == (2, 2)
    stored_once(location, kept)


def test_a_damaged_line_is_set_aside_with_its_number_and_the_rest_delivered(
    new_store: NewStore, data_dir: Path
) -> None:
    location = new_store()
    kept = runs(3)
    outbox = kept_in_outbox(location, kept)
    lines = outbox.path.read_text().splitlines()
    lines[1] = lines[1].replace('"provider":"anthropic"', '"provider":"someone-else"')
    outbox.path.write_text("\n".join([*lines, "{half a line"]) + "\n")
    with History(location) as h:
        d = h.delivery
        assert d.delivered == 2 and [n for n, _ in d.set_aside] == [2, 4] and h.waiting == 0
        assert "does not match its key" in d.set_aside[0][1] and "not JSON" in d.set_aside[1][1]
        notes = d.notes(h.outbox)
    assert any(f"{outbox.path}:2: a kept run cannot be read" in n and str(outbox.set_aside_path) in n for n in notes)
    aside = [json.loads(x) for x in outbox.set_aside_path.read_text().splitlines()]
    assert [a["line"] for a in aside] == [2, 4] and aside[0]["text"] == lines[1] and aside[1]["text"] == "{half a line"
    stored_once(location, [kept[0], kept[2]])


def refused_by_the_store(location: str, base: RunRecord) -> list[RunRecord]:
    """Runs that read back from their line as they were written, yet the store refuses their values: a run
    without a provider (NOT NULL, every backend), and what only one backend cannot hold (PostgreSQL's jsonb
    has no Infinity; SQLite has no integer beyond 64 bits)."""
    nameless = dataclasses.replace(base, provider=None, started_at=5e8)  # type: ignore[arg-type]  # on purpose
    if location.startswith("postgresql://"):
        odd = dataclasses.replace(base, usage={"input_tokens": float("inf")}, started_at=5e8 + 1)  # type: ignore[dict-item]
    else:
        odd = dataclasses.replace(base, total_ms=10**30, started_at=5e8 + 1)
    return [nameless, odd]


def test_a_run_the_history_refuses_is_set_aside_and_the_rest_delivered(new_store: NewStore, data_dir: Path) -> None:
    """The refused runs are in one batch with good ones, before and after them: each good run is stored, each
    refused one is set aside with its line number and the store's words (HIST-7)."""
    location = new_store()
    kept = runs(3)
    nameless, odd = refused_by_the_store(location, kept[0])
    outbox = kept_in_outbox(location, [kept[0], nameless, kept[1], odd, kept[2]])
    lines = outbox.path.read_text().splitlines()
    with History(location) as h:
        d = h.delivery
        assert (d.delivered, d.already, h.waiting, d.set_aside) == (3, 0, 0, [])
        assert [n for n, _ in d.refused] == [2, 4], d.refused
        assert "provider" in d.refused[0][1] and all("cogtui bug" not in why for _, why in d.refused)
        notes = d.notes(h.outbox)
    assert any(
        f"{outbox.path}:2: the history refused a kept run" in n and str(outbox.set_aside_path) in n for n in notes
    )
    aside = [json.loads(x) for x in outbox.set_aside_path.read_text().splitlines()]
    assert [a["line"] for a in aside] == [2, 4] and [a["text"] for a in aside] == [lines[1], lines[3]]
    assert aside[0]["why"].startswith("the history refused it: ")
    assert not outbox.path.exists()
    stored_once(location, kept)


def test_a_history_that_fails_stops_the_delivery_and_keeps_the_rest_in_order(pg_server: Any, data_dir: Path) -> None:
    """A role without INSERT fails every write: not a refusal of one run, so nothing is set aside, the refused
    run included (the history never judged it); once the role may write, each goes where it belongs."""
    team = pg_server.new_database()
    try:
        kept = runs(3)
        (nameless, _) = refused_by_the_store(team, kept[0])
        with History(team) as owner:  # the owner made the schema
            owner.record(kept[0])
        from psycopg.conninfo import conninfo_to_dict

        role = f"deliverer_{conninfo_to_dict(team)['dbname']}"  # roles are the server's: one per database here
        raw(team, f'CREATE ROLE "{role}" LOGIN')
        raw(team, f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')
        as_reader = team.replace("postgresql://postgres@", f"postgresql://{role}@")
        outbox = kept_in_outbox(as_reader, [kept[1], nameless, kept[2]])
        before = outbox.path.read_text()
        with History(as_reader) as h:
            d = h.delivery
            assert (d.delivered, d.set_aside, d.refused, h.waiting) == (0, [], [], 3)
            assert d.problem is not None and "lacks a privilege" in d.problem
        assert outbox.path.read_text() == before and not outbox.set_aside_path.exists()
        raw(team, f'GRANT INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO "{role}"')
        with History(as_reader) as h:
            d = h.delivery
            assert (d.delivered, [n for n, _ in d.refused], h.waiting) == (2, [2], 0)
        stored_once(team, kept)
    finally:
        pg_server.drop_databases([team])


def test_a_line_cut_short_by_a_crash_does_not_swallow_the_next(tmp_path: Path, data_dir: Path) -> None:
    location = str(tmp_path / "h.sqlite3")
    outbox = Outbox(parse_location(location))
    first, second = runs(2)
    outbox.keep(first, "down")
    text = outbox.path.read_text()
    outbox.path.write_text(text[:-30])  # the process died mid-write: no newline at the end
    outbox.keep(second, "down")
    with History(location) as h:
        assert h.delivery.delivered == 1 and [n for n, _ in h.delivery.set_aside] == [1]
    stored_once(location, [second])


def test_two_deliveries_at_once_store_each_run_once(new_store: NewStore, data_dir: Path) -> None:
    location = new_store()
    kept = runs(30)
    kept_in_outbox(location, kept)
    results: list[tuple[int, int]] = []

    def deliver() -> None:
        with History(location) as h:
            d = h.flush()  # waits for the other delivery, then finds nothing (or the rest) left
            results.append((d.delivered, d.waiting))

    threads = [threading.Thread(target=deliver) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(n for n, _ in results) == 30 and all(w == 0 for _, w in results)
    stored_once(location, kept)


def test_record_run_keeps_what_the_history_refuses(tmp_path: Path, data_dir: Path) -> None:
    """A SQLite history whose folder cannot be written: the run is kept, the warning says where and why."""
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the history's folder should be")
    location = HistoryLocation(path=blocked / "history.sqlite3")
    recorded = record_run(runs(1)[0], location)
    assert recorded.run_id is None and recorded.kept == Outbox(location).path and recorded.waiting == 1
    warning = recorded.warning() or ""
    assert warning.startswith("the run was not recorded: cannot open run history")
    assert f"It is kept in {recorded.kept}" in warning and "cogn history flush" in warning


def test_nothing_is_kept_for_a_location_cogtui_cannot_use(tmp_path: Path, data_dir: Path) -> None:
    with pytest.raises(HistoryConfigError):
        record_run(run(), parse_location("postgresql://u@[bad"))
    assert not (data_dir / "outbox").exists()


def test_a_run_that_can_be_neither_stored_nor_kept_says_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("not a folder")
    monkeypatch.setenv("COGTUI_DATA_DIR", str(blocked / "data"))  # the data folder cannot be made either
    with pytest.raises(HistoryError, match=r"nor could the run be kept in .* it is lost"):
        record_run(run(), HistoryLocation(path=blocked / "history.sqlite3"))


def test_a_postgresql_outbox_is_named_without_the_password(pg_server: Any, data_dir: Path) -> None:
    location = pg_server.url("team")
    with_password = location.replace("postgres@", "postgres:s3cret@")
    outbox = Outbox(parse_location(with_password))
    outbox.keep(run(), "down")
    assert "s3cret" not in outbox.path.read_text() and outbox.path == Outbox(parse_location(location)).path


def test_text_with_a_byte_that_is_not_utf8_is_stored(new_store: NewStore) -> None:
    """`cogn run -a` with a non-UTF-8 byte gives Python a lone surrogate, which neither database's driver can
    send: the text column holds its escape, as the JSON columns do, and the run is stored, not refused."""
    location = new_store()
    odd = run(args="--note \udcff\udcfe", session_id="s\udcff")
    with History(location) as h:
        h.record(odd)
        (back,) = h.runs()
    assert back.args == "--note \\udcff\\udcfe" and back.session_id == "s\\udcff"
