"""The history suite, run on a real SQLite file and on a real PostgreSQL server (the `new_store` fixture):
round trips, aggregation, atomicity, schema versions. Concurrency is in test_history_concurrency.py,
what only SQLite has (files, damage) in test_history_sqlite.py."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields, replace
from typing import Any

import pytest
from history_kit import T0, columns, fail_env, insight, ok_env, raw, run, with_insights
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

from cogtui.core.history.store import SCHEMA_VERSION, History, HistoryError, RunRecord, field_path, iso_utc

NewStore = Callable[[], str]


@pytest.fixture
def store(new_store: NewStore) -> str:
    return new_store()


@pytest.fixture
def hist(store: str) -> Iterator[History]:
    h = History(store)
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


def test_context_manager_and_closed(store: str) -> None:
    with History(store) as h:
        h.record(run())
    with pytest.raises(HistoryError, match=r"closed.*cogtui bug"):
        h.count()
    h.close()  # twice is fine
    with History(store) as h, pytest.raises(ValueError):
        h.record(run(outcome="done"))  # rejected before anything is written
    with History(store) as h:
        assert h.count() == 1


def test_threads_share_one_history(hist: History) -> None:
    with ThreadPoolExecutor(4) as pool:  # the TUI records from worker threads
        list(pool.map(lambda _: hist.record(run("m", with_insights(insight("a")))), range(200)))
    assert hist.count() == 200 and hist.insights()["insights"][0]["count"] == 200


def test_no_secret_fields(hist: History, store: str) -> None:
    # usage holds token *counts*; nothing else may look like a key or a token.
    suspicious = [f.name for f in fields(RunRecord) if ("key" in f.name or "token" in f.name) and f.name != "usage"]
    assert suspicious == []
    for table in ("runs", "insights", "custom_enums"):
        cols = columns(store, table)
        assert cols and not [c for c in cols if "key" in c or "token" in c]


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
    nothing = {"runs": 0, "insights": 0, "custom_enums": 0}
    assert hist.insights("nobody") == {"insights": [], "custom_enums": [], "excluded": nothing}


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


def test_timeline_over_days_uses_hourly_totals_exactly_on_hour_starts(hist: History) -> None:
    """Slices wider than an hour come from the hourly totals; with every insight on an hour's
    start they are exact, so they must match the counts computed by hand."""
    h0 = 1_699_999_200.0  # an hour's start (divisible by 3600)
    hours = [0, 1, 5, 23, 24, 47, 48, 95, 96]
    for k in hours:
        hist.record(run("m", with_insights(insight("a"), insight("b")), h0 + k * 3600))
    hist.record(run("n", with_insights(insight("a")), h0 + 50 * 3600))
    tl = hist.insight_timeline(buckets=4)  # 96 hours in 4 slices of 24
    assert [t for t, _ in tl] == [h0 + i * 24 * 3600 for i in range(4)]
    assert [n for _, n in tl] == [8, 4, 3, 4]  # hours 0,1,5,23 | 24,47 | 48 and n at 50 | 95,96 (end edge)
    assert sum(n for _, n in hist.insight_timeline("n", buckets=3)) == 1


def test_running_totals_match_the_rows(hist: History, store: str) -> None:
    for i in range(30):
        env = with_insights(*(insight(f"m{k % 3}" if k % 4 else None) for k in range(i % 5)), e={"custom": f"v{i % 2}"})
        hist.record(run(f"mod{i % 3}", env, T0 + i * 1000))
    stats = dict(((m, k), n) for m, k, n in raw(store, "SELECT module, mapping_key, n FROM insight_stats"))
    rows = raw(
        store,
        "SELECT module, CASE WHEN suggested_mapping IS NULL THEN '' ELSE '=' || suggested_mapping END, COUNT(*) "
        "FROM insights GROUP BY 1, 2",
    )
    assert stats == {(m, k): n for m, k, n in rows} and stats
    total = raw(store, "SELECT COUNT(*) FROM insights")[0][0]
    assert raw(store, "SELECT SUM(n) FROM insight_hours WHERE module <> ''")[0][0] == total
    assert raw(store, "SELECT SUM(n) FROM insight_hours WHERE module = ''")[0][0] == total
    assert raw(store, "SELECT SUM(n) FROM enum_stats") == raw(store, "SELECT COUNT(*) FROM custom_enums")


def test_newer_schema_refused(store: str) -> None:
    History(store).close()
    if store.startswith("postgresql://"):
        raw(store, "UPDATE cogtui_schema SET version = 99")
    else:
        raw(store, "PRAGMA user_version = 99")
    with pytest.raises(HistoryError, match="newer cogtui"):
        History(store)


def test_schema_is_current_and_reopening_changes_nothing(store: str) -> None:
    with History(store) as h:
        h.record(run())
    with History(store) as h:  # a second open finds the schema current and migrates nothing
        assert h.count() == 1
    version = raw(
        store, "SELECT version FROM cogtui_schema" if store.startswith("postgresql") else "PRAGMA user_version"
    )
    assert version == [(SCHEMA_VERSION,)]


def test_nul_characters_survive_or_are_replaced_visibly(hist: History, store: str) -> None:
    env = with_insights(insight("a\x00b", "t\x00"), note="x\x00y")
    rid = hist.record(run("m\x00", env, input={"k": "v\x00"}))
    back = hist.get(rid)
    assert back is not None and back.input_hash == run(input={"k": "v\x00"}).input_hash
    if store.startswith("postgresql://"):  # PostgreSQL text cannot hold U+0000 (HIST-2)
        assert back.module == "m\ufffd" and back.envelope["data"]["note"] == "x\ufffdy"
        assert hist.insights()["insights"][0]["suggested_mapping"] == "a\ufffdb"
    else:
        assert back.module == "m\x00" and back.envelope == env
    assert hist.count() == 1


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
NODES: st.SearchStrategy[tuple[Any, Found]] = st.recursive(
    st.tuples(st.integers(0, 9) | TEXT | st.none(), st.just([])) | CUSTOM, _tree, max_leaves=8
)
TOP = st.dictionaries(KEYS, NODES, max_size=4)
INSIGHTS = st.lists(st.tuples(MAPPINGS, TEXT), max_size=4)
RUNS = st.lists(
    st.tuples(st.sampled_from(["m1", "m2", "m3"]), st.booleans(), TOP, INSIGHTS, CUSTOM, st.integers(0, 10_000)),
    max_size=8,
)


@property_settings(60, shared_fixtures=True)
@given(RUNS)
def test_aggregation_matches_python(new_store: NewStore, spec: list[Any]) -> None:
    counts: Counter[str | None] = Counter()
    mods: dict[str | None, set[str]] = defaultdict(set)
    seen: dict[str | None, list[float]] = defaultdict(list)
    enum_counts: Counter[tuple[str, str, str]] = Counter()
    reasons: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    excluded = [0, 0, 0]  # runs, insights, custom enum values of failed runs
    with History(new_store()) as h:  # a fresh store for every example
        for module, ok, top, ins, (ext_enum, _), t in spec:
            data = {k: v for k, (v, _) in top.items()}
            data["extensions"] = {"insights": [insight(m, text) for m, text in ins], "x": ext_enum}
            env = ok_env(data) if ok else fail_env(data)
            h.record(run(module, env, T0 + t))
            found_enums = [e for k, (_, found) in top.items() for e in _prefixed(k, found)]
            if not ok:  # HIST-1: a failed run's partial data is only counted as left out
                if ins or found_enums:
                    excluded = [excluded[0] + 1, excluded[1] + len(ins), excluded[2] + len(found_enums)]
                continue
            for m, _ in ins:
                counts[m] += 1
                mods[m].add(module)
                seen[m].append(T0 + t)
            for segs, value, reason in found_enums:
                key = (module, segs, value)
                enum_counts[key] += 1
                if reason is not None:
                    reasons[key][reason] += 1
        out = h.insights(examples=2)
    assert out["excluded"] == dict(zip(("runs", "insights", "custom_enums"), excluded, strict=True))
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
