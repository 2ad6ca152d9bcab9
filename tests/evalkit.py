"""A module with many goldens, and a scripted-server responder that answers each case by the id in its input.

Every golden input is `{"text": "ticket case-007"}`; the responder finds `case-NNN`
in the request and answers the golden's envelope, a wrong label for the cases in
`wrong` (a mismatch), or prose for those in `prose` (not JSON). `delay` holds each
answer back (silence before the headers), like a model's latency.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from llmserver import RecordedRequest, Text, silence
from modkit import GOOD_EXPECTED, clean_v22, make_module

CASE = re.compile(r"case-(\d{3})")


def case_name(k: int) -> str:
    return f"case-{k:03d}"


def eval_module(root: Path, n: int = 6, name: str = "ticket") -> Path:
    files = clean_v22(name)
    del files["tests/case1.input.json"], files["tests/case1.expected.json"]
    tests = []
    for k in range(n):
        files[f"tests/{case_name(k)}.input.json"] = {"text": f"ticket {case_name(k)}"}
        files[f"tests/{case_name(k)}.expected.json"] = GOOD_EXPECTED
        tests.append(f"tests/{case_name(k)}.input.json -> tests/{case_name(k)}.expected.json")
    manifest = files["module.yaml"]
    assert isinstance(manifest, dict)
    manifest["tests"] = tests
    return make_module(root, files, name)


def answer(label: str = "bug") -> str:
    env = json.loads(json.dumps(GOOD_EXPECTED))
    env["data"]["label"] = label
    return json.dumps(env)


def request_text(req: RecordedRequest) -> str:
    return req.raw_body.decode("utf-8", "replace")


def case_of(req: RecordedRequest) -> int:
    found = CASE.search(request_text(req))
    assert found, "a request without a case id"
    return int(found.group(1))


def responder(
    wrong: frozenset[int] = frozenset(), prose: frozenset[int] = frozenset(), delay: float = 0.0, tokens: bool = True
) -> Any:
    def respond(req: RecordedRequest) -> Any:
        k = case_of(req)
        body = "I think it is a bug." if k in prose else answer("feature" if k in wrong else "bug")
        reply = Text(body, chunk_size=64, input_tokens=100 if tokens else None, output_tokens=20 if tokens else None)
        return silence(delay, reply) if delay else reply

    return respond
