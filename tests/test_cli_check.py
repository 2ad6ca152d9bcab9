"""`cogn check` on what it could not judge before (D145): SSE from `cogn run --stream sse`, conformance vectors
whose verdict disagrees with their `$test`, and an input without a module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_json import checked
from modkit import run_cogn

MODULES = Path(__file__).resolve().parents[1] / "modules"
CASE = MODULES / "code-reviewer" / "tests" / "case1.input.json"


@pytest.fixture(scope="module")
def sse(tmp_path_factory: pytest.TempPathFactory) -> str:
    cwd = tmp_path_factory.mktemp("sse")
    proc = run_cogn(
        ["run", "--path", str(MODULES), "code-reviewer", "--input", str(CASE), "--stream", "sse", "--no-history"],
        cwd=cwd,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("event: meta\n"), proc.stderr
    return proc.stdout


def test_the_sse_cogn_run_writes_is_a_valid_stream(sse: str, tmp_path: Path) -> None:
    target = tmp_path / "s.sse"
    target.write_text(sse, encoding="utf-8")
    for args in (["--kind", "stream", str(target)], [str(target)], ["--kind", "stream", "-"]):
        proc = run_cogn(["check", *args], cwd=tmp_path, stdin=sse)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "✓ valid stream" in proc.stdout
    proc = run_cogn(["check", "--json", "--module", str(MODULES / "code-reviewer"), str(target)], cwd=tmp_path)
    assert proc.returncode == 0 and checked(proc.stdout)["kind"] == "stream", proc.stdout + proc.stderr


def test_an_sse_stream_with_a_wrong_event_or_frame_is_located(sse: str, tmp_path: Path) -> None:
    wrong = sse.replace("event: final", "event: chunk")
    line = wrong.splitlines().index("event: chunk", len(wrong.splitlines()) - 4) + 1
    proc = run_cogn(["check", "--json", "-"], cwd=tmp_path, stdin=wrong)
    assert proc.returncode == 1
    [v] = checked(proc.stdout)["violations"]
    assert (v["rule"], v["code"], v["line"]) == ("stream.sse.event", "E3001", line)
    proc = run_cogn(["check", "-"], cwd=tmp_path, stdin=wrong)
    assert proc.returncode == 1 and f"stream.sse.event (line {line})" in proc.stdout
    cut = sse[: sse.index("event: final")] + 'event: final\ndata: {"final": tru\n'
    proc = run_cogn(["check", "--kind", "stream", "-"], cwd=tmp_path, stdin=cut)
    assert proc.returncode == 2 and f"line {cut.count(chr(10))}, column 17: not JSON" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_vector_whose_verdict_disagrees_says_so(tmp_path: Path) -> None:
    envelope = {"ok": True, "meta": {"confidence": 0.5, "risk": "low", "explain": "e"}, "data": {"rationale": "r"}}
    target = tmp_path / "v.json"
    target.write_text(json.dumps({"$test": {"name": "odd", "expects": "reject"}, "envelope": envelope}))
    proc = run_cogn(["check", str(target)], cwd=tmp_path)
    assert proc.returncode == 0  # the exit code is the verdict on the envelope, as for a bare envelope
    assert "✓ valid envelope" in proc.stdout
    assert "conformance vector odd expects reject: the verdict disagrees" in proc.stdout
    proc = run_cogn(["check", "--json", str(target)], cwd=tmp_path)
    assert checked(proc.stdout)["vector"]["agrees"] is False


@pytest.mark.parametrize("args", [[], ["--kind", "input"], ["--json"]])
def test_an_input_without_a_module_is_not_judged(args: list[str], tmp_path: Path) -> None:
    proc = run_cogn(["check", *args, "-"], cwd=tmp_path, stdin='{"foo": 1}')
    assert proc.returncode == 2 and proc.stdout == ""
    assert "cannot be judged" in proc.stderr and "--module NAME" in proc.stderr
    assert ("not an envelope" in proc.stderr) is ("--kind" not in args)


def test_each_violation_in_a_json_document_is_located(tmp_path: Path) -> None:
    """A JSON envelope's violations say the line (text) and the line and column (--json) of the value at their
    path, or of its deepest ancestor the document has; a conformance vector's are found inside its envelope."""
    text = '{\n  "ok": true,\n  "meta": {\n    "confidence": 7,\n    "risk": "low"\n  },\n  "data": {}\n}\n'
    target = tmp_path / "e.json"
    target.write_text(text, encoding="utf-8")
    proc = run_cogn(["check", "--json", str(target)], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    located = {v["path"]: (v["line"], v["column"]) for v in checked(proc.stdout)["violations"]}
    assert located["meta.confidence"] == (4, 19)
    assert located["meta.explain"] == (3, 11)  # missing: its object
    assert located["data.rationale"] == (7, 11)
    proc = run_cogn(["check", str(target)], cwd=tmp_path)
    assert "(line 4)" in proc.stdout and "(line 7)" in proc.stdout
    vector = '{"$test": {"name": "v", "expects": "reject"},\n "envelope":\n' + text + "}"
    target.write_text(vector, encoding="utf-8")
    proc = run_cogn(["check", "--json", str(target)], cwd=tmp_path)
    located = {v["path"]: (v["line"], v["column"]) for v in checked(proc.stdout)["violations"]}
    assert located["meta.confidence"] == (6, 19)
