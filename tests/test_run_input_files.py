"""`cogn run`'s input file and time limits, and `cogn eval --baseline FILE`: what cannot be used is a usage
error that names the file and the place (as `cogn check` does), never a codec's message or a run that starts."""

from __future__ import annotations

import codecs
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import envelope
from rtkit import cogn

GOOD = {"diff": "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"}


def test_an_input_file_that_is_not_utf8_is_said_with_its_place(tmp_path: Path) -> None:
    bad = tmp_path / "input.json"
    bad.write_bytes(b'{"diff": "caf\xe9"}')  # Latin-1
    proc = cogn(tmp_path, "run", "code-reviewer", "--input", str(bad), "--no-history")
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{bad}:1:14: the input is not valid UTF-8 (byte 0xe9)" in proc.stderr
    assert "codec" not in proc.stderr


def test_utf16_and_bom_inputs_are_read(tmp_path: Path) -> None:
    for name, data in (
        ("utf16.json", codecs.BOM_UTF16_LE + json.dumps(GOOD).encode("utf-16-le")),
        ("bom.json", codecs.BOM_UTF8 + json.dumps(GOOD).encode("utf-8")),
    ):
        (tmp_path / name).write_bytes(data)
        proc = cogn(tmp_path, "run", "code-reviewer", "--input", str(tmp_path / name), "--no-history", "--json")
        assert proc.returncode == 0, proc.stderr
        assert envelope(proc.stdout)["ok"] is True


@pytest.mark.parametrize("value", ["-5", "0", "nan", "soon"])
def test_a_deadline_or_timeout_that_is_not_a_positive_number_is_a_usage_error(tmp_path: Path, value: str) -> None:
    for option in ("--deadline", "--timeout"):
        proc = cogn(tmp_path, "run", "code-reviewer", "--input", json.dumps(GOOD), f"{option}={value}")
        assert proc.returncode == 2 and proc.stdout == ""
        assert f"argument {option}: {value!r}" in proc.stderr


def test_a_baseline_that_is_not_utf8_is_said_with_its_place(tmp_path: Path) -> None:
    bad = tmp_path / "baseline.json"
    bad.write_bytes(b"\x8b\x00garbage")
    proc = cogn(tmp_path, "eval", "code-reviewer", "--baseline", str(bad), "--no-history")
    assert proc.returncode == 2
    assert f"baseline {bad}:1:1: not valid UTF-8 (byte 0x8b)" in proc.stderr
    assert "codec" not in proc.stderr
