"""A golden's `$judge`: the rubric a judge scores the answer against, and the score from which the case passes.

    "$judge": {"rubric": "Names the SQL injection in get_user and proposes a parameterised query.", "pass_score": 0.7}

It sits beside the expected file's `data` or `$validate`, and tools that do not know it ignore it. `cogn
validate` reports one that cannot be used (T009); the contract checks read the file without it
(`without_judge`); run/judge.py runs the judge.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.records import record

KEY = "$judge"
DEFAULT_PASS_SCORE = 0.7
KNOWN = ("rubric", "pass_score", "$comment")


@record
class JudgeSpec:
    """A golden's `$judge`: the rubric, and the score from which the case passes."""

    rubric: str
    pass_score: float = DEFAULT_PASS_SCORE


def spec_problems(value: Any) -> list[tuple[tuple[str, ...], str]]:
    """(where inside `$judge`, what is wrong) for a `$judge` value; empty when it can be used."""
    if not isinstance(value, dict):
        return [((), "$judge must be an object with a rubric (text) and an optional pass_score (0 to 1)")]
    out: list[tuple[tuple[str, ...], str]] = []
    rubric = value.get("rubric")
    if not isinstance(rubric, str) or not rubric.strip():
        out.append((("rubric",) if "rubric" in value else (), "$judge.rubric must be the rubric, as non-empty text"))
    score = value.get("pass_score", DEFAULT_PASS_SCORE)
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
        out.append((("pass_score",), "$judge.pass_score must be a number from 0 to 1"))
    return out


def unknown_keys(value: Any) -> list[str]:
    return [str(k) for k in value if k not in KNOWN] if isinstance(value, dict) else []


def judge_spec(expected: Any) -> tuple[JudgeSpec | None, str]:
    """The expected file's rubric, or (None, why it cannot be used); (None, "") when it has none."""
    if not isinstance(expected, dict) or KEY not in expected:
        return None, ""
    value = expected[KEY]
    problems = spec_problems(value)
    if problems:
        return None, "; ".join(message for _, message in problems)
    return JudgeSpec(value["rubric"].strip(), float(value.get("pass_score", DEFAULT_PASS_SCORE))), ""


def without_judge(expected: Any) -> Any:
    """The expected file as the contract checks read it: without its `$judge`."""
    if isinstance(expected, dict) and KEY in expected:
        return {k: v for k, v in expected.items() if k != KEY}
    return expected


__all__ = ["DEFAULT_PASS_SCORE", "KEY", "JudgeSpec", "judge_spec", "spec_problems", "unknown_keys", "without_judge"]
