"""Judged goldens against the scripted server: a module whose goldens carry `$judge`, and a responder that tells
the judge's requests (the built-in `cogtui-judge`) from the module's and answers each with its own script.

The module is evalkit's ticket module (every input names its case, `ticket case-007`); the judge's request
carries that input inside `case_input`, so both kinds of request say which case they are about.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalkit import answer, case_of, eval_module, request_text
from llmserver import RecordedRequest, Text

RUBRIC = "Calls the ticket a bug and says why."


def judged_module(root: Path, n: int = 2, pass_score: float = 0.7, name: str = "ticket") -> Path:
    """evalkit's module with a `$judge` rubric in every expected file."""
    folder = eval_module(root, n, name)
    for expected in sorted((folder / "tests").glob("*.expected.json")):
        doc = json.loads(expected.read_text(encoding="utf-8"))
        doc["$judge"] = {"rubric": RUBRIC, "pass_score": pass_score}
        expected.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return folder


def judge_answer(score: float, verdict: str | None = None, rationale: str = "It names the bug.") -> str:
    """The judge's envelope as a model would write it."""
    data = {
        "score": score,
        "verdict": verdict or ("pass" if score >= 0.7 else "fail"),
        "evidence": ["bug"],
        "rationale": rationale,
    }
    meta = {"confidence": 0.9, "risk": "low", "explain": f"{data['verdict']}, {score}"}
    return json.dumps({"ok": True, "meta": meta, "data": data})


def is_judge(req: RecordedRequest) -> bool:
    return "cogtui-judge" in request_text(req)


def routed(
    judge: Callable[[RecordedRequest], Any], module: Callable[[RecordedRequest], Any] | None = None
) -> Callable[[RecordedRequest], Any]:
    """A responder: the judge's requests to `judge`, the module's to `module` (default: the golden's answer)."""

    def respond(req: RecordedRequest) -> Any:
        if is_judge(req):
            return judge(req)
        return (
            module(req)
            if module is not None
            else Text(answer("bug"), chunk_size=64, input_tokens=100, output_tokens=20)
        )

    return respond


def scores(by_case: dict[int, float]) -> Callable[[RecordedRequest], Any]:
    """A judge scoring each case as given."""
    return lambda req: Text(judge_answer(by_case[case_of(req)]), chunk_size=64, input_tokens=300, output_tokens=40)


def judge_requests(requests: list[RecordedRequest]) -> list[RecordedRequest]:
    return [r for r in requests if is_judge(r)]
