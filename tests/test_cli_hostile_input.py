"""Hostile command-line input gets a message and an exit code, never a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from rtkit import cogn

from cogtui.cli import internal_error


def test_deeply_nested_input_is_an_input_error(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", str(deep))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "nested too deeply" in proc.stderr + proc.stdout


@pytest.mark.parametrize("limit", ["99999999999999999999", "0", "-3", "ten"])
def test_history_limit_out_of_range_is_a_usage_error(limit: str, tmp_path: Path) -> None:
    proc = cogn(tmp_path, "history", "--limit", limit)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "--limit" in proc.stderr


def test_an_escaped_bug_is_one_line_with_keys_redacted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret-0123456789")
    code = internal_error("cogn", "run", RuntimeError("boom with sk-ant-test-secret-0123456789 inside"))
    err = capsys.readouterr().err
    assert code == 70 and "internal error (RuntimeError: boom" in err and "sk-ant-test-secret-0123456789" not in err
    assert err.count("\n") == 1


def test_check_refuses_nan_like_the_runtime(tmp_path: Path) -> None:
    doc = tmp_path / "env.json"
    doc.write_text(
        '{"ok": true, "meta": {"confidence": NaN, "risk": "low", "explain": "x"}, "data": {"rationale": "r"}}',
        encoding="utf-8",
    )
    proc = cogn(tmp_path, "check", str(doc))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "NaN" in proc.stdout + proc.stderr
