"""Issue 12: diagnostics on real modules quoted whole JSON objects; now values are cut to a short excerpt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from modkit import clean_v22, make_module

from cogtui.core.diagnostics import EXCERPT_CHARS, Severity, diag, short_values
from cogtui.core.rules.validate_module import validate_path


def test_long_quoted_values_are_cut_and_the_rest_kept() -> None:
    big = {"verdict": "approve", "summary": "s" * 400, "issues": [{"file": "a.py"}] * 30}
    message = short_values(f"{big!r} is not valid under any of the given schemas")
    assert message.startswith("{'verdict': 'approve', …}") and message.endswith(
        "is not valid under any of the given schemas"
    )
    assert short_values("'" + "y" * 300 + "' is too long").endswith("…' is too long")
    short = "data.issues[0].severity: 'urgent' is not one of ['low', 'medium', 'high']"
    assert short_values(short) == short
    prose = "the author's module.yaml names a tier that isn't one of exec, decision or exploration; see SPEC §2.1"
    assert short_values(prose) == prose
    d = diag("T001", f"input does not match the input schema: {big}", None, hint=f"got {big}")
    assert len(d.message) < 150 and len(d.hint) < 100 and d.severity is Severity.ERROR


def test_a_real_module_with_a_big_bad_golden_reads_short(tmp_path: Path) -> None:
    files: dict[str, Any] = clean_v22()
    files["tests/case1.expected.json"]["data"] = {
        "label": {"custom": 7, "reason": ["not", "a", "string"] * 50},
        "rationale": "r" * 2000,
    }
    files["tests/case1.input.json"] = {"text": "t" * 3000, "extra": {"k": list(range(500))}}
    _module, diagnostics = validate_path(make_module(tmp_path, files), v22=True)
    assert diagnostics, "the bad golden must be reported"
    for d in diagnostics:
        assert "t" * (EXCERPT_CHARS + 1) not in d.message and "r" * (EXCERPT_CHARS + 1) not in d.message
        assert len(d.message) < 400, d.message
