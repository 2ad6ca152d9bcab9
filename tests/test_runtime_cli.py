"""`cogn run` as a real process: exit codes, --json, --stream ndjson|sse, --no-validate, --args, Ctrl-C, secrets.

Each process is isolated in tmp_path (HOME, COGTUI_DATA_DIR, COGTUI_CONFIG_FILE;
no COGNITIVE_* variables) and finds the example modules through --path.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_json import envelope

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from llmserver import error, text
from rtkit import (
    ANTHROPIC_KEY,
    MODULES,
    OPENAI_KEY,
    cli_env,
    cogn,
    copy_module,
    example,
    free_port,
    golden,
    model_answer,
    popen_cogn,
    user_text,
)

from cogtui.core.history.store import History
from cogtui.core.rules.chunk_rules import check_stream, chunk_kind
from cogtui.core.rules.document_checker import check_document
from cogtui.core.rules.stream_text import sse_frame


def case(name: str, n: str = "case1") -> str:
    return str(MODULES / name / "tests" / f"{n}.input.json")


def history(tmp_path: Path) -> History:
    return History(tmp_path / "data" / "history.sqlite3")


# ---------------------------------------------------------------- exit codes and --json


def test_ok_run_prints_the_final_envelope(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", case("code-reviewer"), "--json")
    assert proc.returncode == 0, proc.stderr
    env = envelope(proc.stdout)
    assert env["ok"] is True and env["data"] == golden("code-reviewer")[1]["data"]
    assert env["meta"]["model"] == "replay"
    assert check_document(env, "envelope", example("code-reviewer")).valid
    with history(tmp_path) as h:
        assert h.runs()[0].envelope == env  # what was printed is what was recorded


@pytest.mark.parametrize("command", ["run", "test", "eval"])
def test_a_config_that_does_not_parse_is_said_not_silently_ignored(tmp_path: Path, command: str) -> None:
    """The run still goes ahead (with the defaults), but not without a word about the configured provider."""
    (tmp_path / "config.yaml").write_text("provider: openai\nkeymap: {browser.filter: [\n", encoding="utf-8")
    extra = ["--input", case("code-reviewer")] if command == "run" else []
    proc = cogn(tmp_path, command, "code-reviewer", *extra)
    assert proc.returncode == 0, proc.stderr
    assert f"cogn: warning: {tmp_path / 'config.yaml'}:" in proc.stderr and "YAML" in proc.stderr, proc.stderr


def test_not_ok_run_exits_1(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", case("code-reviewer", "case3"), "--json")
    assert proc.returncode == 1
    env = envelope(proc.stdout)
    assert env["ok"] is False and env["error"]["code"] == "E2006"


def test_readable_output(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", case("code-reviewer"))
    assert proc.returncode == 0
    assert "✓ ok" in proc.stdout and "via replay" in proc.stdout and '"verdict": "request_changes"' in proc.stdout
    bad = cogn(tmp_path, "run", "code-reviewer", "--input", '{"diff": 5}')
    assert bad.returncode == 1 and "E1003" in bad.stdout and "suggestion:" in bad.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["code-reviewer", "--input", "{not json"],
        ["code-reviewer", "--input", "missing-file.json"],
        ["no-such-module", "--input", "{}"],
        ["code-reviewer", "--stream", "websocket"],
        ["code-reviewer", "--provider", "nope"],
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str]) -> None:
    proc = cogn(tmp_path, "run", *args)
    assert proc.returncode == 2 and proc.stderr.strip()
    assert not (tmp_path / "data" / "history.sqlite3").exists()  # nothing ran, nothing recorded


def test_unknown_module_with_json_prints_an_e4006_envelope(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "run", "no-such-module", "--json")
    assert proc.returncode == 2
    env = envelope(proc.stdout)
    assert env["error"]["code"] == "E4006" and check_document(env, "envelope").valid


def test_input_from_stdin(tmp_path: Path) -> None:
    inp = Path(case("code-reviewer")).read_text(encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "cogtui.cli", "--path", str(MODULES), "run", "code-reviewer", "--input", "-", "--json"],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        input=inp,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and envelope(proc.stdout)["data"] == golden("code-reviewer")[1]["data"]


# ---------------------------------------------------------------- streaming transports


def test_stream_ndjson_lines_pass_check_stream(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "run", "incident-narrator", "--input", case("incident-narrator"), "--stream", "ndjson")
    assert proc.returncode == 0, proc.stderr
    chunks = [json.loads(line) for line in proc.stdout.splitlines()]
    assert check_stream(chunks, example("incident-narrator")) == []
    kinds = [chunk_kind(c) for c in chunks]
    assert kinds[0] == "meta" and kinds[-1] == "final" and kinds.count("delta") >= 3
    # response.buffer_size: 512 (STREAM-8): every delta but a field's last carries at least 512 bytes
    by_field: dict[str, list[str]] = {}
    for c in chunks:
        if chunk_kind(c) == "delta":
            by_field.setdefault(c["chunk"]["field"], []).append(c["chunk"]["delta"])
    assert all(len(p.encode("utf-8")) >= 512 for parts in by_field.values() for p in parts[:-1])


def parse_sse(text: str) -> tuple[list[tuple[str, dict[str, Any]]], int]:
    """(event name, data) per frame, and the number of heartbeat comments."""
    frames, beats = [], 0
    assert text.endswith("\n\n")
    for block in text[:-2].split("\n\n"):
        lines = block.split("\n")
        if lines == [": heartbeat"]:
            beats += 1
            continue
        assert len(lines) == 2 and lines[0].startswith("event: ") and lines[1].startswith("data: "), block
        frames.append((lines[0][7:], json.loads(lines[1][6:])))
    return frames, beats


SSE_EVENT = {
    "meta": "meta",
    "delta": "chunk",
    "snapshot": "chunk",
    "progress": "progress",
    "final": "final",
    "error": "error",
}


@pytest.mark.parametrize(
    ("name", "n", "code"),
    [("code-reviewer", "case1", 0), ("code-reviewer", "case3", 1), ("json-patch-generator", "case1", 0)],
)
def test_stream_sse_frames(tmp_path: Path, name: str, n: str, code: int) -> None:
    proc = cogn(tmp_path, "run", name, "--input", case(name, n), "--stream", "sse")
    assert proc.returncode == code, proc.stderr
    frames, _ = parse_sse(proc.stdout)
    for event, data in frames:
        kind = chunk_kind(data)
        assert kind is not None, data
        assert event == SSE_EVENT[kind]
    chunks = [data for _, data in frames]
    assert check_stream(chunks, example(name)) == []
    assert frames[0][0] == "meta" and frames[-1][0] == ("final" if code == 0 else "error")
    if name == "json-patch-generator":  # response.mode: sync degrades (STREAM-7), said on stderr too
        assert ("progress", chunks[1]) == frames[1] and chunks[1]["progress"]["stage"] == "degraded"
        assert "degraded" in proc.stderr and not any(e == "chunk" for e, _ in frames)


def test_sse_heartbeat_is_a_comment() -> None:
    assert sse_frame({}) == ": heartbeat\n\n"
    frames, beats = parse_sse(sse_frame({"ok": True, "streaming": True, "session_id": "s", "meta": {}}) + sse_frame({}))
    assert beats == 1 and frames[0][0] == "meta"


# ---------------------------------------------------------------- --no-validate


def test_no_validate_skips_output_validation(tmp_path: Path) -> None:
    mods = tmp_path / "mods"
    root = copy_module(mods, "code-reviewer")
    expected = json.loads((root / "tests/case1.expected.json").read_text(encoding="utf-8"))
    expected["data"]["verdict"] = "ship it"
    expected["data"]["extensions"]["insights"] *= 7
    (root / "tests/case1.expected.json").write_text(json.dumps(expected), encoding="utf-8")
    strict = cogn(tmp_path, "run", "code-reviewer", "--input", case("code-reviewer"), "--json", path=mods)
    assert strict.returncode == 1 and envelope(strict.stdout)["error"]["code"] == "E3004"
    loose = cogn(
        tmp_path, "run", "code-reviewer", "--input", case("code-reviewer"), "--json", "--no-validate", path=mods
    )
    assert loose.returncode == 0, loose.stdout
    env = envelope(loose.stdout)
    assert env["data"]["verdict"] == "ship it" and len(env["data"]["extensions"]["insights"]) == 7


# ---------------------------------------------------------------- providers through the CLI


def test_args_reach_the_prompt_and_keys_never_print(tmp_path: Path, llm_server: Any) -> None:
    module = example("commit-message-writer")
    answer = (module.path / "examples/output.json").read_text(encoding="utf-8")
    llm_server.enqueue(answer, answer)
    env = cli_env(
        tmp_path, OPENAI_BASE_URL=llm_server.openai_base_url, OPENAI_API_KEY=OPENAI_KEY, ANTHROPIC_API_KEY=ANTHROPIC_KEY
    )
    inp = str(module.path / "examples/input.json")
    for extra in (["--json"], ["--stream", "ndjson"]):
        proc = cogn(
            tmp_path,
            "run",
            "commit-message-writer",
            "--input",
            inp,
            "--provider",
            "openai",
            "--model",
            "m-1",
            "--args",
            "fixes the rounding bug finance reported",
            *extra,
            env=env,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert OPENAI_KEY not in proc.stdout + proc.stderr and ANTHROPIC_KEY not in proc.stdout + proc.stderr
    req = llm_server.last_request
    assert "Author's note: fixes the rounding bug finance reported" in user_text(req)
    assert req.model == "m-1" and req.headers["authorization"] == f"Bearer {OPENAI_KEY}"


@pytest.mark.parametrize(("where", "modes"), [("server-401", [[], ["--stream", "sse"]]), ("refused", [["--json"]])])
def test_provider_failures_never_print_keys(
    tmp_path: Path, llm_server: Any, where: str, modes: list[list[str]]
) -> None:
    base = llm_server.base_url if where == "server-401" else f"http://127.0.0.1:{free_port()}"
    llm_server.enqueue(*[error(401, message="invalid x-api-key")] * len(modes))
    env = cli_env(tmp_path, ANTHROPIC_BASE_URL=base, ANTHROPIC_API_KEY=ANTHROPIC_KEY, OPENAI_API_KEY=OPENAI_KEY)
    for extra in modes:
        proc = cogn(
            tmp_path,
            "run",
            "code-reviewer",
            "--input",
            case("code-reviewer"),
            "--provider",
            "anthropic",
            *extra,
            env=env,
        )
        assert proc.returncode == 1
        assert "E4001" in proc.stdout
        assert ANTHROPIC_KEY not in proc.stdout + proc.stderr and OPENAI_KEY not in proc.stdout + proc.stderr
    with history(tmp_path) as h:
        runs = h.runs()
        assert len(runs) == len(modes) and {r.error_code for r in runs} == {"E4001"}
    raw = (tmp_path / "data" / "history.sqlite3").read_bytes()
    assert ANTHROPIC_KEY.encode() not in raw and OPENAI_KEY.encode() not in raw


# ---------------------------------------------------------------- Ctrl-C


def interrupt(proc: subprocess.Popen[str], ready: Any) -> str:
    """Ctrl-C once `ready()` returns; the process must exit 130 without a traceback. Its stdout."""
    try:
        ready()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    return out


@pytest.mark.parametrize(("interval", "wait_for_data"), [("0.2", False), ("0.02", True)])
def test_ctrl_c_exits_130_and_records_an_interrupted_run(tmp_path: Path, interval: str, wait_for_data: bool) -> None:
    env = cli_env(tmp_path, COGTUI_REPLAY_INTERVAL=interval)
    proc = popen_cogn(
        tmp_path, "run", "incident-narrator", "--input", case("incident-narrator"), "--stream", "ndjson", env=env
    )
    seen: list[dict[str, Any]] = []
    stdout = proc.stdout
    assert stdout is not None

    def ready() -> None:
        seen.append(json.loads(stdout.readline()))
        assert seen[0]["streaming"] is True
        while wait_for_data and not seen[-1].get("chunk", {}).get("field", "").startswith("data."):
            seen.append(json.loads(stdout.readline()))

    out = interrupt(proc, ready)
    chunks = [*seen, *(json.loads(line) for line in out.splitlines())]
    first, last = chunks[0], chunks[-1]
    assert last["ok"] is False and last["error"]["code"] == "E2010" and last["session_id"] == first["session_id"]
    assert check_stream(chunks, example("incident-narrator")) == []
    with history(tmp_path) as h:
        (run,) = h.runs()
    assert run.outcome == "interrupted" and run.error_code == "E2010" and run.module == "incident-narrator"
    assert run.session_id == first["session_id"]
    assert run.envelope["error"] == last["error"]
    if wait_for_data:  # what had streamed comes back, in the chunk and in the record
        title = golden("incident-narrator")[1]["data"]["title"]
        partial = run.envelope["partial_data"]
        assert last["partial_data"] == partial and title.startswith(partial["title"]) and partial["title"]


def test_ctrl_c_with_json_prints_the_cancelled_envelope(tmp_path: Path, llm_server: Any) -> None:
    """`cogn run --json` answers even when interrupted: the E2010 envelope on stdout and in `-o FILE`."""
    answer = json.dumps(model_answer(golden("code-reviewer")[1]))
    llm_server.enqueue(text(answer, chunk_size=2, delay=0.2))  # minutes of dripping: only Ctrl-C ends it
    env = cli_env(tmp_path, ANTHROPIC_BASE_URL=llm_server.base_url, ANTHROPIC_API_KEY=ANTHROPIC_KEY)
    out_file = tmp_path / "out.json"
    args = ("run", "code-reviewer", case("code-reviewer"), "--provider", "anthropic", "--json", "-o", str(out_file))
    proc = popen_cogn(tmp_path, *args, env=env)
    out = interrupt(proc, lambda: llm_server.wait_for_requests(1, timeout=60))
    cancelled = envelope(out)
    assert cancelled["ok"] is False and cancelled["error"]["code"] == "E2010"
    assert json.loads(out_file.read_text(encoding="utf-8")) == cancelled
    with history(tmp_path) as h:
        (run,) = h.runs()
    assert run.outcome == "interrupted" and run.envelope["error"] == cancelled["error"]
