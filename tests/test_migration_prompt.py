"""Migration writes one truth (MIG-7): the old response format a prompt states is rewritten to agree with the v2.2
section appended after it, shown in the diff; what cannot be told is left and quoted in a note to confirm."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogtui.core.authoring.migration import MigrationPlan, plan_migration
from cogtui.core.authoring.migration.plan import severity_of
from cogtui.core.authoring.migration.prompt_rewrite import rewrite_response_format
from cogtui.core.authoring.migration.prompt_section import SECTION_TITLE
from cogtui.core.module.loader import load_module

ROOT = Path(__file__).resolve().parents[1]
MODULES, REALWORLD = ROOT / "modules", ROOT / "tests" / "realworld"
REDIRECT = "If the instructions above ask for `confidence` in the result"


def _plan(path: Path) -> MigrationPlan:
    plan = plan_migration(load_module(path))
    assert plan.ok, plan.errors
    return plan


def _prompt(plan: MigrationPlan) -> tuple[str, str, str]:
    """(the prompt above the appended section, the section, the prompt's diff)."""
    change = next(f for f in plan.files if f.path == "prompt.md")
    above, title, section = (change.new_text or "").partition(SECTION_TITLE)
    assert title
    return above, section, change.diff


def _confirm(plan: MigrationPlan) -> list[str]:
    return [n for n in plan.notes if severity_of(n) == "confirm" and n.startswith("prompt.md")]


def test_a_v21_prompt_returns_the_v22_envelope_once() -> None:
    """The issue's case: a v2.1 prompt said "Return {ok, data…confidence}" above the new v2.2 section."""
    plan = _plan(MODULES / "api-naming-reviewer")
    above, section, diff = _prompt(plan)
    assert 'Return `{"ok": true, "meta": {...}, "data": {...}}` where `data` contains:' in above
    assert 'On failure return `{"ok": false, "meta": {...}, "error": {"code": ..., "message": ...}}` with' in above
    assert "confidence" not in above  # `- `confidence`: 0-1;` was a result field: it is meta's now
    assert REDIRECT not in section  # nothing above asks for it any more
    # The preview's diff shows each rewritten line.
    assert '-Return `{"ok": true, "data": {...}}` where `data` contains:' in diff.splitlines()
    assert "-- `confidence`: 0-1;" in diff.splitlines()
    assert any("is removed: confidence is meta.confidence now" in n for n in plan.notes)
    assert _confirm(plan) == []


def test_a_result_field_list_in_a_sentence_loses_confidence() -> None:
    plan = _plan(REALWORLD / "changelog-writer")
    above, _, diff = _prompt(plan)
    assert "+in the imperative, for end users. Return JSON with `sections` and `rationale`." in diff.splitlines()
    assert "confidence" not in above and _confirm(plan) == []


def test_a_v1_prompt_keeps_what_it_cannot_tell_and_asks_to_review_it() -> None:
    plan = _plan(MODULES / "commit-message-writer")
    above, section, _ = _prompt(plan)
    assert "- `rationale`: why this type, scope and wording.\n" in above  # the list ends where it ended
    assert "- `confidence`: 0-1." not in above
    line = next(n for n, text in enumerate(above.splitlines(), 1) if "lower `confidence` below 0.6" in text)
    [note] = _confirm(plan)
    assert note.startswith("prompt.md: review this line, which still mentions confidence")
    assert f"line {line}: 'unrelated things, still write one message, but lower `confidence` below 0.6'" in note
    assert REDIRECT in section  # the section still says where a confidence the prompt asks for goes


@pytest.mark.parametrize(
    ("module", "kept"),
    [(MODULES / "legacy-summarizer", "- confidence: number from 0 to 1. Below 0.6 when the text is ambiguous or")],
)
def test_a_result_field_that_says_more_than_its_range_is_left_for_review(module: Path, kept: str) -> None:
    plan = _plan(module)
    above, _, _ = _prompt(plan)
    assert kept in above.splitlines()
    [note] = _confirm(plan)
    assert kept in note


def test_a_chinese_result_field_list_loses_its_confidence_item() -> None:
    plan = _plan(REALWORLD / "ui-spec-generator")
    above, section, diff = _prompt(plan)
    assert "-- `confidence`：0-1 的置信度" in diff.splitlines()
    assert "置信度" not in above and _confirm(plan) == [] and REDIRECT not in section


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Return {ok, data} or {ok, error}.", "Return {ok, meta, data} or {ok, meta, error}."),
        ("Answer {'ok': True, 'data': {}}", "Answer {'ok': True, 'meta': {...}, 'data': {}}"),
        ('Return `{"ok": true, "meta": {}, "data": {}}`', 'Return `{"ok": true, "meta": {}, "data": {}}`'),
        ("Fields: `confidence`, `a`, `b`.", "Fields: `a`, `b`."),
        ("Fields: `a`, `confidence` or `b`.", "Fields: `a` or `b`."),
        ("Fields: `a`, `b`, and `confidence`.", "Fields: `a` and `b`."),
        ("Fields: `a`, `b`, `c`, and `confidence`.", "Fields: `a`, `b`, and `c`."),
        ("返回 `a`、`b`和`confidence`", "返回 `a`和`b`"),
        ("- `summary`: one line;\n- `confidence`: 0-1.\n\nDone.", "- `summary`: one line.\n\nDone."),
        ("- `confidence`: 0-1;\n- `summary`: one line.", "- `summary`: one line."),
    ],
)
def test_what_is_rewritten_and_how(before: str, after: str) -> None:
    assert rewrite_response_format(before).text == after


def test_line_ends_and_other_mentions_are_kept() -> None:
    text = "# T\r\n\r\nReturn {ok, data}.\r\nInclude a `confidence` score.\r\n"
    rewrite = rewrite_response_format(text)
    assert rewrite.text == "# T\r\n\r\nReturn {ok, meta, data}.\r\nInclude a `confidence` score.\r\n"
    assert rewrite.review == [(4, "Include a `confidence` score.")]
