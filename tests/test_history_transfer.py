"""`cogn history export` / `import` on both backends: round trips, idempotence, bad lines by number, filters."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_json import document
from history_kit import T0, fail_env, insight, ok_env, run, with_insights

from cogtui.cli import main
from cogtui.core.history.records import digest, iso_utc
from cogtui.core.history.store import History
from cogtui.core.history.transfer import import_runs, to_line

REPO = Path(__file__).resolve().parent.parent
NewStore = Callable[[], str]


def fill(where: str) -> list[int]:
    with History(where) as h:
        return [
            h.record(run("a", with_insights(insight("risk", "one"), k={"custom": "v", "reason": "r"}), T0 + 1)),
            h.record(run("b", fail_env({"x": 1}, "E4002"), T0 + 2, input={"other": True})),
            h.record(run("a", ok_env({"n": "é"}), T0 + 3.25, session_id="s")),
        ]


def cli(monkeypatch: pytest.MonkeyPatch, where: str, *argv: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    monkeypatch.setenv("COGTUI_HISTORY_URL", where)
    monkeypatch.setenv("COGTUI_CONFIG_FILE", "/nonexistent/config.yaml")
    out, errs = io.StringIO(), io.StringIO()
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", errs)
    code = main(list(argv))
    return code, out.getvalue(), errs.getvalue()


def test_export_then_import_into_another_store(
    new_store: NewStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, target = new_store(), new_store()
    fill(source)
    code, out, _ = cli(monkeypatch, source, "history", "export")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(x["module"], x["time"]) for x in lines] == [
        ("a", iso_utc(T0 + 1)),
        ("b", iso_utc(T0 + 2)),
        ("a", iso_utc(T0 + 3.25)),
    ]
    assert lines[1]["input_digest"] == digest({"other": True}) and lines[1]["envelope"]["error"]["code"] == "E4002"
    dump = tmp_path / "runs.ndjson"
    dump.write_text(out, encoding="utf-8")
    code, out, _ = cli(monkeypatch, target, "history", "import", str(dump), "--json")
    assert code == 0 and document(out, "history import") == {
        "format": 1,
        "command": "history import",
        "items": [],
        "summary": {"file": str(dump), "imported": 3, "duplicates": 0, "bad": 0},
    }
    with History(source) as a, History(target) as b:
        assert a.insights() == b.insights()
        mine = sorted(a.runs(), key=lambda r: r.started_at)
        theirs = sorted(b.runs(), key=lambda r: r.started_at)
        assert [to_line(r) for r in mine] == [to_line(r) for r in theirs]
    # Idempotent: the same file again changes nothing, and so does re-importing into the source.
    for where in (target, source):
        code, out, _ = cli(monkeypatch, where, "history", "import", str(dump), "--json")
        assert code == 0 and document(out, "history import")["summary"]["duplicates"] == 3
        assert document(out, "history import")["summary"]["imported"] == 0
        with History(where) as h:
            assert h.count() == 3


def test_export_filters(new_store: NewStore, monkeypatch: pytest.MonkeyPatch) -> None:
    where = new_store()
    fill(where)
    _, out, _ = cli(monkeypatch, where, "history", "export", "--module", "a")
    assert [json.loads(x)["time"] for x in out.splitlines()] == [iso_utc(T0 + 1), iso_utc(T0 + 3.25)]
    _, out, _ = cli(monkeypatch, where, "history", "export", "--since", iso_utc(T0 + 2))
    assert [json.loads(x)["module"] for x in out.splitlines()] == ["b", "a"]
    code, out, _ = cli(monkeypatch, where, "history", "export", "--since", str(T0 + 3), "--module", "b")
    assert code == 0 and out == ""  # epoch seconds, as --help says
    code, out, _ = cli(monkeypatch, where, "history", "export", "--since", str(int(T0 + 2)))
    assert code == 0 and [json.loads(x)["module"] for x in out.splitlines()] == ["b", "a"]
    code, _, errs = cli(monkeypatch, where, "history", "export", "--since", "yesterday")
    assert code == 2 and "--since" in errs and "ISO-8601" in errs
    code, _, errs = cli(monkeypatch, where, "history", "import")
    assert code == 2 and "needs a file" in errs
    code, _, errs = cli(monkeypatch, where, "history", "a", "--since", "2026-01-01")
    assert code == 2 and "--since goes with export" in errs
    code, _, errs = cli(monkeypatch, where, "history", "a", "--module", "b")
    assert code == 2 and "give the module once" in errs
    code, _, errs = cli(monkeypatch, where, "history", "import", "runs.ndjson", "--module", "b")
    assert code == 2 and "--module goes with listing or export" in errs


def test_a_module_named_export_or_import_is_listed_with_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: `cogn history export` exports (a module called export cannot be named that way), and `--module`
    went only with export; now `cogn history --module export` lists that module's runs."""
    where = str(tmp_path / "history.sqlite3")
    with History(where) as h:
        for n, name in enumerate(("export", "import", "other")):
            h.record(run(name, ok_env({"n": n}), T0 + n))
    for name in ("export", "import"):
        code, out, errs = cli(monkeypatch, where, "history", "--module", name, "--json")
        assert code == 0, errs
        assert {r["module"] for r in document(out, "history")["items"]} == {name}


GOOD = {
    "module": "prod",
    "input_digest": "a" * 64,
    "provider": "anthropic",
    "model": "m",
    "time": "2026-11-25T07:00:00Z",
}


def line(**changes: Any) -> str:
    base: dict[str, Any] = {**GOOD, "envelope": with_insights(insight("p.q", "from prod"))}
    base.update(changes)
    return json.dumps({k: v for k, v in base.items() if v is not ...})


def test_bad_lines_are_reported_by_number_and_the_rest_imported(
    new_store: NewStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = new_store()
    bad_envelope = {"ok": True, "meta": {"confidence": 7, "risk": "low", "explain": "x"}, "data": {"rationale": "r"}}
    text = (
        "\n".join(
            [
                line(),  # 1: fine, input only as a digest (a production envelope)
                "{not json",  # 2
                line(module=...),  # 3
                line(envelope=bad_envelope),  # 4
                "",  # 5: blank lines are skipped, and still counted
                line(input={"a": 1}),  # 6: digest does not match
                line(time="last tuesday"),  # 7
                '{"module": "x", "confidence": NaN}',  # 8
                line(time=1_700_000_000.5, model=None, input={"a": 1}, input_digest=...),  # 9: fine
                line(outcome="ok", envelope=fail_env(None)),  # 10
                "[1, 2]",  # 11
            ]
        ).encode()
        + b"\n\xff\xfe{}\n"
        + line(input_digest="XYZ").encode()
    )  # 12, 13
    dump = tmp_path / "prod.ndjson"
    dump.write_bytes(text)
    code, out, errs = cli(monkeypatch, where, "history", "import", str(dump))
    assert code == 1 and "imported 2, skipped 0 already stored, 10 bad lines" in out
    numbers = [int(n) for n in re.findall(r"prod\.ndjson:(\d+): ", errs)]
    assert numbers == [2, 3, 4, 6, 7, 8, 10, 11, 12, 13]
    assert f"{dump}:4: the envelope breaks the envelope rules: E3001" in errs
    assert f"{dump}:6: input_digest does not match input" in errs
    assert f"{dump}:12: not UTF-8" in errs
    with History(where) as h:
        runs = sorted(h.runs(), key=lambda r: r.started_at)
        assert [(r.module, r.model, r.input_hash) for r in runs] == [
            ("prod", None, digest({"a": 1})),
            ("prod", "m", "a" * 64),
        ]
        assert h.insights()["insights"][0]["suggested_mapping"] == "p.q"
    code, out, _ = cli(monkeypatch, where, "history", "import", "-", stdin=text)  # again, from stdin
    assert code == 1 and "imported 0, skipped 2 already stored, 10 bad lines" in out


def test_times_an_export_could_not_write_back_are_bad_lines(
    new_store: NewStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = new_store()
    dump = tmp_path / "times.ndjson"
    dump.write_text("\n".join([line(time=1e20), line(time=-1e12), line(time="1e20"), line()]) + "\n", encoding="utf-8")
    code, out, errs = cli(monkeypatch, where, "history", "import", str(dump))
    assert code == 1 and "imported 1, skipped 0 already stored, 3 bad lines" in out
    assert errs.count("between 1970 and the year 9999") == 3
    code, exported, _ = cli(monkeypatch, where, "history", "export")
    again = tmp_path / "again.ndjson"
    again.write_text(exported, encoding="utf-8")
    code, out, errs = cli(monkeypatch, new_store(), "history", "import", str(again))
    assert code == 0 and "imported 1" in out, (out, errs)  # what export writes, import takes


def test_module_provider_model_may_come_from_the_envelope(new_store: NewStore) -> None:
    env = {**with_insights(), "module": "from-env", "provider": "openai", "model": "gpt"}
    text = line(module=..., provider=..., model=..., envelope=env).encode() + b"\n"
    with History(new_store()) as h:
        report = import_runs(h, io.BytesIO(text))
        assert report.bad == [] and report.imported == 1
        (r,) = h.runs()
        assert (r.module, r.provider, r.model) == ("from-env", "openai", "gpt")


IMPORTER = """
import sys
from cogtui.cli import main
sys.stdin.readline()
sys.exit(main(["history", "import", sys.argv[1], "--json"]))
"""


def test_concurrent_imports_of_one_file_store_each_run_once(new_store: NewStore, tmp_path: Path) -> None:
    where = new_store()
    dump = tmp_path / "many.ndjson"
    dump.write_text("".join(line(time=T0 + i) + "\n" for i in range(1500)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "COGTUI_HISTORY_URL": where, "COGTUI_CONFIG_FILE": "/nonexistent"}
    History(where).close()  # created first: this test is about the imports racing, not the schema
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", IMPORTER, str(dump)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = [p.communicate("go\n", timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e for _, e in results]
    reports = [document(out, "history import")["summary"] for out, _ in results]
    assert sum(r["imported"] for r in reports) == 1500
    assert all(r["imported"] + r["duplicates"] == 1500 for r in reports)
    with History(where) as h:
        assert h.count() == 1500 and h.insights()["insights"][0]["count"] == 1500
