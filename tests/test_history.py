"""Run history on real SQLite files: round trips, aggregation, atomicity, concurrency, damage."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogtui.core.history.store import History, HistoryError, RunRecord, field_path, iso_utc
from cogtui.core.settings import locations as paths

REPO = Path(__file__).resolve().parent.parent
T0 = 1_700_000_000.0


def ok_env(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "ok": True,
        "meta": {"confidence": 0.9, "risk": "low", "explain": "fine"},
        "data": {"rationale": "r", **data},
    }


def fail_env(partial: dict[str, Any] | None, code: str = "E3001") -> dict[str, Any]:
    return {
        "ok": False,
        "meta": {"confidence": 0.4, "risk": "medium", "explain": "no"},
        "error": {"code": code, "message": "bad"},
        **({} if partial is None else {"partial_data": partial}),
    }


def insight(mapping: str | None, text: str = "t", evidence: str | None = None) -> dict[str, Any]:
    extra = {"suggested_mapping": mapping, "evidence": evidence}
    return {"text": text, **{k: v for k, v in extra.items() if v is not None}}


def with_insights(*items: dict[str, Any], **data: Any) -> dict[str, Any]:
    return ok_env({**data, "extensions": {"insights": list(items)}})


def run(module: str = "m", envelope: dict[str, Any] | None = None, started_at: float = T0, **kw: Any) -> RunRecord:
    env = envelope or ok_env({})
    base: dict[str, Any] = dict(
        module=module,
        module_version="1.0.0",
        module_format="v2.2",
        provider="anthropic",
        model="claude",
        input={"code": "x = 1", "ü": [1, 2]},
        args="--x",
        envelope=env,
        started_at=started_at,
        ttfc_ms=12.5,
        total_ms=300.0,
        usage={"input_tokens": 10, "output_tokens": 20},
        outcome="ok" if env["ok"] else "error",
    )
    return RunRecord(**{**base, **kw})


@pytest.fixture
def hist(tmp_path: Path) -> Iterator[History]:
    h = History(tmp_path / "data" / "history.sqlite3")
    yield h
    h.close()


def test_round_trip(hist: History) -> None:
    r = run(envelope=with_insights(insight("a")), session_id="s1")
    rid = hist.record(r)
    back = hist.get(rid)
    assert back == replace(r, id=rid)
    assert back is not None and back.input_hash == r.input_hash and len(back.input_hash) == 64
    assert hist.get(rid + 100) is None


def test_error_code_and_input_hash() -> None:
    assert run(envelope=fail_env(None, "E4002")).error_code == "E4002"
    assert run().error_code is None
    a = run(input={"b": 1, "a": "é"})
    assert a.input_hash == run(input={"a": "é", "b": 1}).input_hash != run(input={"a": "e", "b": 1}).input_hash


def test_newest_first_filter_count_modules(hist: History) -> None:
    for i, mod in enumerate(["b", "a", "b", "c", "a"]):
        hist.record(run(mod, started_at=T0 + i))
    hist.record(run("a", started_at=T0 + 4))  # same time as the last: recorded later, listed first
    listed = hist.runs()
    assert [r.started_at for r in listed] == sorted((r.started_at for r in listed), reverse=True)
    assert listed[0].id == 6 and listed[1].id == 5
    assert [r.id for r in hist.runs("a")] == [6, 5, 2]
    assert [r.id for r in hist.runs(limit=2, offset=1)] == [5, 4]
    assert hist.count() == 6 and hist.count("b") == 2 and hist.count("zzz") == 0
    assert hist.modules() == ["a", "b", "c"]


def test_context_manager_and_closed(tmp_path: Path) -> None:
    with History(tmp_path / "h.sqlite3") as h:
        h.record(run())
    with pytest.raises(HistoryError, match=r"closed.*cogtui bug"):
        h.count()
    h.close()  # twice is fine
    with History(tmp_path / "h.sqlite3") as h, pytest.raises(ValueError):
        h.record(run(outcome="done"))  # rejected before anything is written
    with History(tmp_path / "h.sqlite3") as h:
        assert h.count() == 1


def test_threads_share_one_history(hist: History) -> None:
    with ThreadPoolExecutor(4) as pool:  # the TUI records from worker threads
        list(pool.map(lambda _: hist.record(run("m", with_insights(insight("a")))), range(200)))
    assert hist.count() == 200 and hist.insights()["insights"][0]["count"] == 200


def test_no_secret_fields(hist: History, tmp_path: Path) -> None:
    # usage holds token *counts*; nothing else may look like a key or a token.
    suspicious = [f.name for f in fields(RunRecord) if ("key" in f.name or "token" in f.name) and f.name != "usage"]
    assert suspicious == []
    hist.record(run())
    reader = sqlite3.connect(tmp_path / "data" / "history.sqlite3")  # the file as any other program sees it
    try:
        for table in ("runs", "insights", "custom_enums"):
            cols = [c[1] for c in reader.execute(f"PRAGMA table_info({table})")]
            assert cols, f"no table {table}"
            assert not [c for c in cols if "key" in c or "token" in c]
    finally:
        reader.close()


def test_insights_grouping(hist: History) -> None:
    hist.record(run("m1", with_insights(insight("risk.level", "t1", "e1"), insight(None, "loose")), T0))
    hist.record(run("m2", with_insights(insight("risk.level", "t2")), T0 + 60))
    hist.record(run("m1", with_insights(insight("risk.level", "t3"), insight("tags", "t4")), T0 + 120))
    hist.record(run("m3", ok_env({})))  # no insights at all
    out = hist.insights(examples=2)
    assert [g["suggested_mapping"] for g in out["insights"]] == [
        "risk.level",
        "tags",
        None,
    ]  # count desc; null after names
    top = out["insights"][0]
    assert top["count"] == 3 and top["modules"] == ["m1", "m2"]
    assert top["first_seen"] == iso_utc(T0) and top["last_seen"] == iso_utc(T0 + 120)
    assert top["examples"] == [
        {"text": "t3", "evidence": None, "module": "m1", "ts": iso_utc(T0 + 120)},
        {"text": "t2", "evidence": None, "module": "m2", "ts": iso_utc(T0 + 60)},
    ]
    assert out["insights"][2] == {
        "suggested_mapping": None,
        "count": 1,
        "modules": ["m1"],
        "examples": [{"text": "loose", "evidence": None, "module": "m1", "ts": iso_utc(T0)}],
        "first_seen": iso_utc(T0),
        "last_seen": iso_utc(T0),
    }
    only_m1 = hist.insights("m1", examples=5)["insights"]
    assert [(g["suggested_mapping"], g["count"], g["modules"]) for g in only_m1] == [
        ("risk.level", 2, ["m1"]),
        ("tags", 1, ["m1"]),
        (None, 1, ["m1"]),
    ]
    assert [e["text"] for e in only_m1[0]["examples"]] == ["t3", "t1"]
    assert only_m1[0]["examples"][1]["evidence"] == "e1"
    assert all(g["examples"] == [] for g in hist.insights(examples=0)["insights"])
    assert hist.insights("nobody") == {"insights": [], "custom_enums": []}


def test_partial_data_insights_from_failures(hist: History) -> None:
    partial = {"x": {"custom": "weird", "reason": "why"}, "extensions": {"insights": [insight("p.q", "from partial")]}}
    hist.record(run("m", fail_env(partial)))
    # A failure's stray `data` is not the payload: only partial_data counts.
    hist.record(run("m", {**fail_env(None), "data": {"extensions": {"insights": [insight("ignored")]}}}))
    out = hist.insights()
    assert [(g["suggested_mapping"], g["count"]) for g in out["insights"]] == [("p.q", 1)]
    assert out["insights"][0]["examples"][0]["text"] == "from partial"
    assert out["custom_enums"] == [{"module": "m", "field": "x", "value": "weird", "count": 1, "reasons": ["why"]}]


def test_malformed_insights_do_not_break_recording(hist: History) -> None:
    env = ok_env(
        {"extensions": {"insights": ["not an object", {"suggested_mapping": 7}, {"text": "ok", "evidence": [1]}]}}
    )
    hist.record(run(envelope=env))
    groups = {g["suggested_mapping"]: g for g in hist.insights()["insights"]}
    assert set(groups) == {"7", None} and groups[None]["examples"][0]["evidence"] == "[1]"
    hist.record(run(envelope=ok_env({"extensions": {"insights": "nope"}})))
    assert hist.count() == 2


def test_field_path_and_iso_utc() -> None:
    assert iso_utc(0) == "1970-01-01T00:00:00.000Z" and iso_utc(1.5) == "1970-01-01T00:00:01.500Z"
    assert field_path(("issues", 0, "category")) == "issues[].category"
    assert field_path(("a", "b", 3, "c")) == "a.b[].c"
    assert field_path(("kind",)) == "kind"
    assert field_path(("m", 0, 1, "x")) == "m[][].x"


def test_custom_enum_paths_and_reasons(hist: History) -> None:
    def data(cat: str, reason: str | None) -> dict[str, Any]:
        obj = {"custom": cat} if reason is None else {"custom": cat, "reason": reason}
        return {
            "kind": {"custom": "hybrid", "reason": "both"},
            "issues": [{"category": obj, "severity": "low"}, {"category": "style"}],
            "a": {"b": [{"c": {"custom": "deep", "reason": "nested"}}]},
            "extensions": {"insights": [], "other": {"custom": "not counted", "reason": "extensions"}},
        }

    for i, (cat, reason) in enumerate(
        [("perf", "slow"), ("perf", "slow"), ("perf", "alloc"), ("perf", None), ("sec", "xss")]
    ):
        hist.record(run("rev", ok_env(data(cat, reason)), T0 + i))
    enums = hist.insights()["custom_enums"]
    assert [(e["field"], e["value"], e["count"]) for e in enums] == [
        ("a.b[].c", "deep", 5),
        ("kind", "hybrid", 5),
        ("issues[].category", "perf", 4),
        ("issues[].category", "sec", 1),
    ]
    perf = enums[2]
    assert perf["module"] == "rev" and perf["reasons"] == ["slow", "alloc"]  # most frequent first, no nulls


def test_reasons_capped_at_five(hist: History) -> None:
    for i in range(8):
        for _ in range(i + 1):
            hist.record(run(envelope=ok_env({"k": {"custom": "v", "reason": f"r{i}"}})))
    (entry,) = hist.insights()["custom_enums"]
    assert entry["count"] == 36 and entry["reasons"] == ["r7", "r6", "r5", "r4", "r3"]


def test_timeline(hist: History) -> None:
    assert hist.insight_timeline() == []
    for t in (0, 1, 2, 9, 10):
        hist.record(run("m", with_insights(insight("a")), T0 + t))
    hist.record(run("n", with_insights(insight("a"), insight("b")), T0 + 5))
    tl = hist.insight_timeline(buckets=5)
    assert tl == [
        (T0, 2),
        (T0 + 2, 1),
        (T0 + 4, 2),
        (T0 + 6, 0),
        (T0 + 8, 2),
    ]  # the last edge belongs to the last bucket
    assert [n for _, n in hist.insight_timeline("n", buckets=3)] == [2, 0, 0]  # one moment: all in the first
    assert sum(n for _, n in hist.insight_timeline(buckets=30)) == 7
    with pytest.raises(ValueError):
        hist.insight_timeline(buckets=0)


def test_paths_and_open_default_honour_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "d"))
    assert paths.history_path() == tmp_path / "d" / "history.sqlite3"
    assert paths.backups_dir() == tmp_path / "d" / "backups"
    with History.open_default() as h:
        h.record(run())
        assert h.path == tmp_path / "d" / "history.sqlite3"
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


def test_newer_schema_refused(tmp_path: Path) -> None:
    p = tmp_path / "h.sqlite3"
    History(p).close()
    with sqlite3.connect(p) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(HistoryError, match="newer cogtui"):
        History(p)


WRITER = """
import sys, time
from pathlib import Path
from cogtui.core.history.store import History, RunRecord
path, tag, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
h = History(path)
print("ready", flush=True)
sys.stdin.readline()  # the parent says go: every writer starts at once
i = 0
while count < 0 or i < count:
    items = [{"text": f"{tag}{i}-{k}", "suggested_mapping": f"m{k % 7}"} for k in range(i % 25)]
    data = {"rationale": "r", "xs": [{"kind": {"custom": f"c{k}", "reason": "r"}} for k in range(i % 4)],
            "extensions": {"insights": items}, "blob": "x" * 2000}
    env = {"ok": True, "meta": {"confidence": 1, "risk": "low", "explain": ""}, "data": data}
    h.record(RunRecord(tag, None, None, "p", None, {"i": i}, None, env, time.time(), None, None, None, "ok"))
    i += 1
h.close()
"""


def _writer(path: Path, tag: str, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), tag, str(count)],
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready", proc.communicate()[1]
    return proc


def _go(*procs: subprocess.Popen[str]) -> None:
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()


def _check_whole(path: Path) -> int:
    """Every run present has all its insight and enum rows; returns the run count."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        runs = conn.execute("SELECT id, input FROM runs").fetchall()
        ins = Counter(r for (r,) in conn.execute("SELECT run_id FROM insights"))
        enums = Counter(r for (r,) in conn.execute("SELECT run_id FROM custom_enums"))
        for rid, input_json in runs:
            i = int(input_json.split(":")[1].rstrip("}"))
            assert ins[rid] == i % 25 and enums[rid] == i % 4, f"run {rid} is incomplete"
        assert sum(ins.values()) == sum(ins[r] for r, _ in runs)  # no orphans
        return len(runs)
    finally:
        conn.close()


def test_killed_mid_write_leaves_whole_runs(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    proc = _writer(path, "k", -1)
    _go(proc)
    time.sleep(0.3)  # a few hundred runs in: the kill lands inside a transaction most of the time
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert _check_whole(path) > 0
    with History(path) as h:  # and cogtui can carry on with it
        h.record(run())
        assert h.insights()["insights"]


def test_two_writer_processes(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "h.sqlite3"
    # Opened together, so both also race to create the schema.
    procs = [_writer(path, tag, 300) for tag in ("a", "b")]
    # Hold the write lock while they start: both must wait (busy_timeout), not fail.
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    _go(*procs)
    time.sleep(0.3)
    blocker.execute("COMMIT")
    blocker.close()
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert _check_whole(path) == 600
    with History(path) as h:
        assert h.count("a") == h.count("b") == 300


KEYS = st.sampled_from(["a", "b", "kind", "issues", "category", "ü"])
TEXT = st.text(alphabet="xyzé ", max_size=4)
MAPPINGS = st.sampled_from([None, "risk", "tags", "a.b", "é"])


# Each generated value comes with the custom enums it holds: (dotted field, value, reason).
Found = list[tuple[str, str, str | None]]


def _custom(value: str, reason: str | None) -> tuple[Any, Found]:
    return {"custom": value, **({} if reason is None else {"reason": reason})}, [("", value, reason)]


def _prefixed(seg: str, found: Found) -> Found:
    return [(seg + ("" if not p or p.startswith("[") else ".") + p, v, r) for p, v, r in found]


def _tree(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    def as_dict(items: dict[str, Any]) -> tuple[Any, list[Any]]:
        return {k: v for k, (v, _) in items.items()}, [x for k, (_, f) in items.items() for x in _prefixed(k, f)]

    def as_list(items: list[Any]) -> tuple[Any, list[Any]]:
        return [v for v, _ in items], [x for _, f in items for x in _prefixed("[]", f)]

    return st.dictionaries(KEYS, children, max_size=3).map(as_dict) | st.lists(children, max_size=3).map(as_list)


CUSTOM = st.builds(_custom, st.text(alphabet="pqr", min_size=1, max_size=2), st.none() | st.sampled_from(["r1", "r2"]))
NODES = st.recursive(st.tuples(st.integers(0, 9) | TEXT | st.none(), st.just([])) | CUSTOM, _tree, max_leaves=8)
TOP = st.dictionaries(KEYS, NODES, max_size=4)
INSIGHTS = st.lists(st.tuples(MAPPINGS, TEXT), max_size=4)
RUNS = st.lists(
    st.tuples(st.sampled_from(["m1", "m2", "m3"]), st.booleans(), TOP, INSIGHTS, CUSTOM, st.integers(0, 10_000)),
    max_size=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RUNS)
def test_aggregation_matches_python(spec: list[Any]) -> None:
    counts: Counter[str | None] = Counter()
    mods: dict[str | None, set[str]] = defaultdict(set)
    seen: dict[str | None, list[float]] = defaultdict(list)
    enum_counts: Counter[tuple[str, str, str]] = Counter()
    reasons: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    with tempfile.TemporaryDirectory() as d, History(Path(d) / "h.sqlite3") as h:
        for module, ok, top, ins, (ext_enum, _), t in spec:
            data = {k: v for k, (v, _) in top.items()}
            data["extensions"] = {"insights": [insight(m, text) for m, text in ins], "x": ext_enum}
            env = ok_env(data) if ok else fail_env(data)
            h.record(run(module, env, T0 + t))
            for m, _ in ins:
                counts[m] += 1
                mods[m].add(module)
                seen[m].append(T0 + t)
            for k, (_, found) in top.items():
                for segs, value, reason in _prefixed(k, found):
                    key = (module, segs, value)
                    enum_counts[key] += 1
                    if reason is not None:
                        reasons[key][reason] += 1
        out = h.insights(examples=2)
    got = {g["suggested_mapping"]: g for g in out["insights"]}
    assert {m: g["count"] for m, g in got.items()} == dict(counts)
    assert [g["count"] for g in out["insights"]] == sorted(counts.values(), reverse=True)
    for m, g in got.items():
        assert g["modules"] == sorted(mods[m])
        assert (g["first_seen"], g["last_seen"]) == (iso_utc(min(seen[m])), iso_utc(max(seen[m])))
        assert len(g["examples"]) == min(2, counts[m])
    assert {(e["module"], e["field"], e["value"]): e["count"] for e in out["custom_enums"]} == dict(enum_counts)
    for e in out["custom_enums"]:
        c = reasons[(e["module"], e["field"], e["value"])]
        assert set(e["reasons"]) <= set(c) and len(e["reasons"]) == min(5, len(c))
        assert [c[r] for r in e["reasons"]] == sorted((c[r] for r in e["reasons"]), reverse=True)
