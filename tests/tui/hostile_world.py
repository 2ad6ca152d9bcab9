"""A module folder, a legacy module and a run history whose every text field carries terminal escapes.

EVIL holds what a terminal acts on: OSC 0 and OSC 2 (window and pane title), OSC 52 (clipboard), CSI
(clear screen, colours), 8-bit C1 CSI and NEL, BEL, backspace, carriage return and a bidi override. It goes
into the module's name (folder and manifest), its responsibility and excludes, its prompt, its schema's
titles, descriptions and enum values, a golden's file name, the answers the replay provider gives back
(values, keys, insights, a custom enum, a refused verdict that the error message quotes), a legacy module
due for migration, and history rows (provider, model, module, input, envelope, error).
"""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from pathlib import Path
from typing import Any

from tuikit import MODULES

from cogtui.core.history.store import History, RunRecord
from cogtui.tui.app import CogtuiApp

EVIL = "\x1b]0;PWNED\x07\x1b]2;PWNED\x1b\\\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\x85\x07\x08\r\u202eevil"
SHORT = "\x1b]2;T\x07\x9b\u202e"  # for fields with a length limit (a custom enum value: 32 characters)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
NAME = f"hostile{EVIL}"
LEGACY = f"legacy{EVIL}"
GOLDEN = f"case{EVIL}"


def _schema() -> dict[str, Any]:
    schema = json.loads((MODULES / "code-reviewer" / "schema.json").read_text(encoding="utf-8"))
    data = schema["data"]
    data["title"] = f"Review {EVIL}"
    data["description"] = f"What the review found {EVIL}"
    data["properties"]["verdict"]["enum"].append(f"block{EVIL}")
    data["properties"]["verdict"]["description"] = f"The verdict {EVIL}"
    data["properties"]["summary"]["title"] = f"Summary {EVIL}"
    schema["input"]["properties"]["diff"]["description"] = f"Unified diff {EVIL}"
    return schema


def _answer(expected: dict[str, Any], verdict: str) -> dict[str, Any]:
    answer = json.loads(json.dumps(expected))
    answer["meta"]["explain"] = f"explain {EVIL}"
    data = answer["data"]
    data["verdict"] = verdict
    data["summary"] = f"summary {EVIL}"
    data["rationale"] = f"rationale {EVIL}"
    data[f"key{EVIL}"] = {f"inner{EVIL}": [EVIL]}
    data["issues"][0]["title"] = f"title {EVIL}"
    data["issues"][0]["category"] = {"custom": f"custom{SHORT}", "reason": f"reason {EVIL}"}
    data["extensions"]["insights"] = [
        {"text": f"insight {EVIL}", "suggested_mapping": f"data.map{EVIL}", "evidence": f"evidence {EVIL}"}
    ]
    return answer


def hostile_module(root: Path) -> Path:
    """code-reviewer made hostile: its first golden answers with EVIL everywhere, its second is refused."""
    module = root / NAME
    shutil.copytree(MODULES / "code-reviewer", module)
    manifest = (module / "module.yaml").read_text(encoding="utf-8")
    escaped = json.dumps(EVIL)[1:-1]  # YAML double-quoted strings take JSON's escapes
    manifest = manifest.replace("name: code-reviewer", f'name: "hostile{escaped}"')
    manifest = re.sub(r"responsibility: .*", lambda _: f'responsibility: "Review {escaped}"', manifest)
    manifest = manifest.replace("  - running the code or its tests", f'  - "running {escaped}"')
    tests = module / "tests"
    (tests / "case1.input.json").rename(tests / f"{GOLDEN}.input.json")
    expected = json.loads((tests / "case1.expected.json").read_text(encoding="utf-8"))
    (tests / "case1.expected.json").unlink()
    (tests / f"{GOLDEN}.expected.json").write_text(
        json.dumps(_answer(expected, f"block{EVIL}"), ensure_ascii=False), encoding="utf-8"
    )
    second = json.loads((tests / "case2.expected.json").read_text(encoding="utf-8"))
    (tests / "case2.expected.json").write_text(  # a verdict outside the enum: the error message quotes it
        json.dumps(_answer(second, f"refused{EVIL}"), ensure_ascii=False), encoding="utf-8"
    )
    manifest = manifest.replace(
        "tests/case1.input.json -> tests/case1.expected.json",
        f'"tests/case{escaped}.input.json -> tests/case{escaped}.expected.json"',
    )
    (module / "module.yaml").write_text(manifest, encoding="utf-8")
    (module / "schema.json").write_text(json.dumps(_schema(), ensure_ascii=False, indent=2), encoding="utf-8")
    prompt = (module / "prompt.md").read_text(encoding="utf-8")
    (module / "prompt.md").write_text(f"Note: {EVIL}\n{prompt}", encoding="utf-8")
    return module


def hostile_legacy(root: Path) -> Path:
    """legacy-summarizer (v0, due for migration) with EVIL in its name, responsibility, prompt and rules."""
    module = root / LEGACY
    shutil.copytree(MODULES / "legacy-summarizer", module)
    escaped = json.dumps(EVIL)[1:-1]
    card = (module / "module.md").read_text(encoding="utf-8")
    card = card.replace("name: legacy-summarizer", f'name: "legacy{escaped}"')
    card = re.sub(r"responsibility: .*", lambda _: f'responsibility: "Summarize {escaped}"', card, count=1)
    (module / "module.md").write_text(card, encoding="utf-8")
    prompt = (module / "prompt.txt").read_text(encoding="utf-8")
    (module / "prompt.txt").write_text(f"{prompt}\n{EVIL}\n", encoding="utf-8")
    return module


def hostile_history() -> None:
    """Runs of a hostile provider, model and module, with hostile input, output and error (the default store)."""

    def record(module: str, at: float, envelope: dict[str, Any], outcome: str) -> RunRecord:
        return RunRecord(
            module,
            "1.0.0",
            "v2.2",
            f"prov{EVIL}",
            f"model{EVIL}",
            {"diff": EVIL},
            None,
            envelope,
            at,
            1.0,
            2.0,
            None,
            outcome,
        )

    ok = {
        "ok": True,
        "meta": {"confidence": 0.8, "risk": "low", "explain": EVIL},
        "data": {
            "rationale": EVIL,
            "verdict": f"other{EVIL}",
            "extensions": {"insights": [{"text": EVIL, "suggested_mapping": f"data.hist{EVIL}", "evidence": EVIL}]},
        },
    }
    failed = {
        "ok": False,
        "meta": {"confidence": 0.1, "risk": "high", "explain": EVIL},
        "error": {"code": "E3001", "message": f"failed {EVIL}"},
        "partial_data": {EVIL: EVIL},
    }
    with History.open_default() as history:
        history.record_many(
            [record(NAME, 1.7e9 + i, ok, "ok") for i in range(2)]
            + [record(NAME, 1.7e9 + 2, failed, "error"), record(f"gone{EVIL}", 1.7e9 + 3, ok, "ok")]
        )


def screen_text(app: CogtuiApp) -> str:
    """What the screen shows now, as text: the screenshot's text runs (Textual's public export_screenshot)."""
    svg = app.export_screenshot(title="cogtui")
    body = svg.split("</defs>", 1)[-1]
    return unescape(re.sub(r"<[^>]+>", "", body)).replace("\xa0", " ")
