"""Issue 11 regressions: hostile module folders and providers end with a code, never leak, hang or crash.

A tripwire file sits next to each module folder; no output, request or history
row may ever contain its text. Providers are real (anthropic SDK, httpx)
against tests/llmserver.py on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document, envelope, report
from llmserver import text
from rtkit import (
    PROTOCOLS,
    CountingReplay,
    cli_env,
    cogn,
    collect,
    copy_module,
    golden,
    model_answer,
    options,
    provider,
    set_keys,
)

from cogtui.core.module.loader import load_module

TRIPWIRE = "TRIPWIRE-3f9c-this-must-never-leave-the-machine"
REVIEW_IN, REVIEW_OUT = golden("code-reviewer")
ANSWER = json.dumps(model_answer(REVIEW_OUT))
both = pytest.mark.parametrize("proto", PROTOCOLS)


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def hostile_copy(tmp_path: Path) -> tuple[Path, Path]:
    """(module folder, tripwire file outside it)."""
    tripwire = tmp_path / "secret.txt"
    tripwire.write_text(TRIPWIRE + "\n")
    return copy_module(tmp_path / "mods", "code-reviewer"), tripwire


# ------------------------------------------------------------ bounded runs


@both
async def test_dripping_provider_ends_at_the_run_deadline_with_e2002(
    tmp_path: Path, llm_server: Any, proto: str
) -> None:
    # One byte every 0.3 s: the silence timeout (5 s) never fires; only the overall deadline can end it.
    module, _ = hostile_copy(tmp_path)
    llm_server.enqueue(text(ANSWER, chunk_size=1, delay=0.3))
    chunks, result, _ = await collect(
        load_module(module), REVIEW_IN, options(provider(proto, llm_server), deadline=1.5)
    )
    error = result.envelope["error"]
    assert error["code"] == "E2002", error
    assert "deadline of 1.5 s" in error["message"] and "--deadline" in error["message"]
    assert chunks[-1]["error"]["code"] == "E2002"


def test_cli_deadline_from_config_and_flag(tmp_path: Path, llm_server: Any) -> None:
    module, _ = hostile_copy(tmp_path)
    env = cli_env(tmp_path, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=llm_server.openai_base_url)
    (tmp_path / "config.yaml").write_text("run_deadline: 1\n")
    (tmp_path / "in.json").write_text(json.dumps(REVIEW_IN))
    llm_server.enqueue(text(ANSWER, chunk_size=1, delay=0.3))
    proc = cogn(
        tmp_path, "run", str(module), "--input", "in.json", "--provider", "openai", "--json", env=env, path=None
    )
    assert proc.returncode == 1
    error = envelope(proc.stdout)["error"]
    assert error["code"] == "E2002" and "deadline of 1 s" in error["message"]
    llm_server.enqueue(text(ANSWER, chunk_size=1, delay=0.3))
    args = ("run", str(module), "--input", "in.json", "--provider", "openai", "--json", "--deadline", "0.5")
    proc = cogn(tmp_path, *args, env=env, path=None)
    assert envelope(proc.stdout)["error"]["code"] == "E2002" and "0.5 s" in proc.stdout


# ------------------------------------------------------------ confined reads


async def test_prompt_symlinked_outside_is_never_sent(tmp_path: Path, llm_server: Any) -> None:
    module, tripwire = hostile_copy(tmp_path)
    (module / "prompt.md").unlink()
    (module / "prompt.md").symlink_to(tripwire)
    llm_server.enqueue(text(ANSWER))
    _, result, _ = await collect(load_module(module), REVIEW_IN, options(provider("openai", llm_server)))
    assert result.envelope["error"]["code"] == "E4007"
    assert "outside the module folder" in result.envelope["error"]["message"]
    assert llm_server.requests == []  # nothing was sent
    assert TRIPWIRE not in json.dumps(result.envelope)


def test_validate_and_test_refuse_outside_links(tmp_path: Path) -> None:
    module, tripwire = hostile_copy(tmp_path)
    (module / "tests" / "case1.input.json").unlink()
    (module / "tests" / "case1.input.json").symlink_to(tripwire)
    proc = cogn(tmp_path, "validate", str(module), "--json", path=None)
    assert proc.returncode == 1
    assert "F001" in proc.stdout and TRIPWIRE not in proc.stdout + proc.stderr
    proc = cogn(tmp_path, "test", str(module), "--json", path=None)
    assert proc.returncode == 1 and TRIPWIRE not in proc.stdout + proc.stderr
    cases = {
        c["name"]: c for c in document(proc.stdout, "test")["modules"][0]["cases"]
    }  # the link fails its case (GOLD-4)
    assert [d["code"] for d in cases["case1"]["diagnostics"]] == ["F001"] and not cases["case1"]["passed"]
    assert cases["case2"]["passed"] and cases["case3"]["passed"]


def test_fifo_and_dev_zero_never_block_list_validate_or_run(tmp_path: Path) -> None:
    module, _ = hostile_copy(tmp_path)
    (module / "prompt.md").unlink()
    os.mkfifo(module / "prompt.md")  # opened blocking, this hangs every command
    (module / "schema.json").unlink()
    (module / "schema.json").symlink_to("/dev/zero")  # read whole, this runs out of memory
    proc = cogn(tmp_path, "list", path=module.parent, timeout=30)
    assert proc.returncode == 0 and "code-reviewer" in proc.stdout
    proc = cogn(tmp_path, "validate", str(module), "--json", path=None, timeout=30)
    assert proc.returncode == 1 and "F002" in proc.stdout and "F001" in proc.stdout
    proc = cogn(tmp_path, "run", str(module), "--json", path=None, timeout=30)
    assert proc.returncode == 1 and envelope(proc.stdout)["error"]["code"] == "E4007"


def test_a_refused_file_is_said_once_not_also_described_as_missing_or_incomplete(tmp_path: Path) -> None:
    """A prompt linked outside is F001 only (no V005 about text never read); a FIFO golden is F002 only (no
    T004 'does not exist': it exists, it is not a regular file)."""
    module, tripwire = hostile_copy(tmp_path)
    (module / "prompt.md").unlink()
    (module / "prompt.md").symlink_to(tripwire)
    (module / "tests" / "case2.expected.json").unlink()
    os.mkfifo(module / "tests" / "case2.expected.json")
    proc = cogn(tmp_path, "validate", str(module), "--json", path=None, timeout=30)
    codes = [d["code"] for d in report(proc.stdout)["diagnostics"]]
    assert "F001" in codes and "F002" in codes, codes
    assert "V005" not in codes and "T004" not in codes, codes


def test_symlink_loop_is_a_diagnostic(tmp_path: Path) -> None:
    module, _ = hostile_copy(tmp_path)
    (module / "prompt.md").unlink()
    (module / "prompt.md").symlink_to(module / "again.md")
    (module / "again.md").symlink_to(module / "prompt.md")
    proc = cogn(tmp_path, "validate", str(module), "--json", path=None)
    assert proc.returncode == 1 and "F004" in proc.stdout


def test_yaml_bomb_in_v1_frontmatter_is_refused_fast_by_migrate_dry_run(tmp_path: Path) -> None:
    folder = tmp_path / "bomb"
    folder.mkdir()
    rows = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    rows += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 10)]
    (folder / "MODULE.md").write_text("---\nname: bomb\nversion: 1.0.0\n" + "\n".join(rows) + "\n---\nbody\n")
    (folder / "schema.json").write_text('{"input": {}, "output": {}}')
    proc = cogn(tmp_path, "migrate", str(folder), "--dry-run", path=None, timeout=60)
    assert "P007" in proc.stdout + proc.stderr


# ------------------------------------------------------------ terminal output


def test_escape_sequences_from_modules_and_models_are_shown_escaped(tmp_path: Path, llm_server: Any) -> None:
    module, _ = hostile_copy(tmp_path)
    evil = module.parent / "code\x1b]0;pwned\x07reviewer"  # the folder name is the module name
    module.rename(evil)
    for command in (("list",), ("validate", "--all")):
        proc = cogn(tmp_path, *command, path=evil.parent)
        assert "\x1b" not in proc.stdout + proc.stderr and "\\x1b]0;pwned\\x07" in proc.stdout, command
    module = copy_module(tmp_path / "clean", "code-reviewer")
    answer = model_answer(REVIEW_OUT)
    answer["meta"]["explain"] = "\x1b[31mred\x1b[0m \u202egnp.exe"
    env = cli_env(tmp_path, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=llm_server.openai_base_url)
    (tmp_path / "in.json").write_text(json.dumps(REVIEW_IN))
    llm_server.enqueue(text(json.dumps(answer)))
    proc = cogn(tmp_path, "run", str(module), "--input", "in.json", "--provider", "openai", env=env, path=None)
    assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout
    assert "\\x1b[31mred" in proc.stdout and "\\u202e" in proc.stdout
    proc = cogn(tmp_path, "history", env=env, path=None)
    assert "\x1b" not in proc.stdout + proc.stderr


# ------------------------------------------------------------ smaller findings


async def test_base64_media_does_not_count_toward_max_input_tokens(tmp_path: Path) -> None:
    import base64

    folder = copy_module(tmp_path, "screenshot-auditor")
    png = (folder / "assets" / "login-form.png").read_bytes()
    padded = png + b"\0" * 200_000  # ~270 kB of base64, ~67k "tokens" if it were counted as text
    inp: dict[str, Any] = {
        "screenshot": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(padded).decode()},
        "question": "Does this login form meet WCAG 2.2 AA contrast requirements? List every failure.",
    }
    module = load_module(folder)
    assert module.runtime_requirements["max_input_tokens"] == 8000
    counted = CountingReplay()
    _, result, _ = await collect(module, inp, options(counted))
    assert counted.requests >= 1, result.envelope  # past the input checks: the model was asked
    as_text = CountingReplay()  # the same characters as text are counted, and over the limit
    _, result, _ = await collect(module, {**inp, "question": inp["screenshot"]["data"]}, options(as_text))
    assert result.envelope["error"]["code"] == "E1005" and as_text.requests == 0, result.envelope


async def test_lone_surrogates_in_input_never_crash_a_run(tmp_path: Path) -> None:
    module = load_module(copy_module(tmp_path, "code-reviewer"))
    counted = CountingReplay()
    _, result, _ = await collect(module, {"diff": "+ x \ud800 y\n"}, options(counted))
    assert result.envelope["ok"] is True and counted.requests >= 1, result.envelope  # a run like any other
    json.dumps(result.envelope, ensure_ascii=False).encode("utf-8")  # an envelope that can be written out


def test_cli_history_with_damaged_rows_warns_and_lists_the_rest(tmp_path: Path) -> None:
    import sqlite3

    env = cli_env(tmp_path)
    inp = str(Path(__file__).parent.parent / "modules" / "code-reviewer" / "tests" / "case1.input.json")
    assert cogn(tmp_path, "run", "code-reviewer", "--input", inp, "--json", env=env).returncode == 0
    db = next((tmp_path / "data").rglob("*.sqlite3"))
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO runs (module, provider, input, input_hash, envelope, started_at, outcome) "
        "VALUES ('code-reviewer', 'replay', '{', 'h', ?, 1.0, 'ok')",
        ["[" * 100_000],
    )
    conn.execute(
        "INSERT INTO runs (module, provider, input, input_hash, envelope, started_at, outcome) "
        "VALUES (?, 'replay', '{}', 'h', ?, 2.0, 'ok')",
        [b"\x00\xff blob", b"\x1b[2J"],
    )
    conn.commit()
    conn.close()
    for command in (("history",), ("history", "--json"), ("insights",), ("insights", "--json")):
        proc = cogn(tmp_path, *command, env=env)
        assert proc.returncode == 0, (command, proc.stderr)
        assert "\x1b" not in proc.stdout
    proc = cogn(tmp_path, "history", "--json", env=env)
    assert len(document(proc.stdout, "history")["items"]) == 1 and proc.stderr.count("skipped") == 2


def test_a_full_disk_while_recording_history_says_so(tmp_path: Path) -> None:
    """The history file cannot grow (a file size limit stands in for a full disk): the run's result is still
    printed, and the warning says the disk is full, not that the history file is damaged."""
    import resource
    import signal
    import subprocess

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    inp = str(Path(__file__).parent.parent / "modules" / "code-reviewer" / "tests" / "case1.input.json")
    argv = [sys.executable, "-m", "cogtui.cli", "--path", str(Path(__file__).parent.parent / "modules")]
    proc = subprocess.run(
        [*argv, "run", "code-reviewer", "--input", inp, "--json"],
        env=cli_env(tmp_path, PYTHONDONTWRITEBYTECODE="1"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
        check=False,
    )
    assert proc.returncode == 0 and envelope(proc.stdout)["ok"] is True, proc.stderr
    assert "the run was not recorded" in proc.stderr and "is full" in proc.stderr
    assert "damaged" not in proc.stderr and "Traceback" not in proc.stderr


async def test_a_5000_digit_number_is_no_answer(tmp_path: Path, llm_server: Any) -> None:
    """Once Python refused the number, the nested `data` object was taken for a v2.1 payload, meta invented (RUN-10)."""
    from cogtui.core.files.json_extract import extract_json

    answer = '{"n": ' + "9" * 5000 + ', "data": {"rationale": "nested", "confidence": 0.99}}'
    assert extract_json(answer) is None
    assert extract_json(f"Sure: {answer} done") is None
    module = load_module(copy_module(tmp_path, "code-reviewer"))
    llm_server.enqueue(answer, answer)
    _, result, _ = await collect(module, REVIEW_IN, options(provider("openai", llm_server)))
    assert result.envelope["ok"] is False and result.envelope["error"]["code"] == "E1000"
