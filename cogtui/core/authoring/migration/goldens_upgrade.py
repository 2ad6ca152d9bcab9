"""Examples become golden tests; v2.1 goldens get a meta block (SPEC-v2.2 §6.3).

An example pair (examples/input.json + output.json, or NAME.input.json +
NAME.output.json) becomes tests/NAME.input.json (the input, byte for byte)
and tests/NAME.expected.json (the output wrapped into a v2.2 envelope by the
runtime's own `wrap_v21`). v2.2 wants `data.rationale` to be text, so a
structured v1 rationale ({decisions, assumptions, ...}) is written out as text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogtui.core.authoring.migration.jsondoc import JsonDoc, JsonEditError, detect_style, scan
from cogtui.core.authoring.migration.plan import MigrationIssue
from cogtui.core.files.json_pointer import object_at
from cogtui.core.files.text_codec import SourceText, read_source
from cogtui.core.module.model import UNPARSED, Module
from cogtui.core.run.normalize import wrap_v21


def rationale_text(value: Any) -> str:
    """A structured rationale as readable text: one paragraph per key, lists as bullets."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        paragraphs = []
        for key, item in value.items():
            title = str(key).replace("_", " ").capitalize()
            if isinstance(item, list):
                bullets = "\n".join(f"- {x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)}" for x in item)
                paragraphs.append(f"{title}:\n{bullets}")
            elif isinstance(item, str):
                paragraphs.append(f"{title}: {item}")
            else:
                paragraphs.append(f"{title}: {json.dumps(item, ensure_ascii=False)}")
        return "\n\n".join(paragraphs)
    return json.dumps(value, ensure_ascii=False)


def envelope_for(output: Any) -> tuple[dict[str, Any], bool]:
    """(v2.2 envelope, rationale was rewritten as text) for a legacy example output."""
    if isinstance(output, dict) and isinstance(output.get("ok"), bool):
        env = dict(output)
        payload_key = "data" if env["ok"] else "partial_data"
    else:
        env = {"ok": True, "data": output}
        payload_key = "data"
    data = env.get(payload_key)
    rewritten = False
    if isinstance(data, dict) and "rationale" in data and not isinstance(data["rationale"], str):
        data = {**data, "rationale": rationale_text(data["rationale"])}
        env[payload_key] = data
        rewritten = True
    if "meta" not in env:
        if env["ok"]:
            meta = wrap_v21({"data": data if isinstance(data, dict) else {}})["meta"]
        else:
            err = object_at(env, "error")
            meta = {"confidence": 0.0, "risk": "high", "explain": str(err.get("message") or "Failed")[:200]}
        env = {"ok": env["ok"], "meta": meta, **{k: v for k, v in env.items() if k != "ok"}}
    return env, rewritten


@dataclass(frozen=True)
class GoldenDraft:
    name: str
    input_src: SourceText
    output_src: SourceText
    envelope: dict[str, Any]
    rationale_rewritten: bool

    def expected_text(self) -> str:
        """The expected envelope in the example output's JSON style (LF)."""
        text = self.output_src.lf
        try:
            style = detect_style(text, scan(text))
        except (JsonEditError, RecursionError):
            style = None
        doc = JsonDoc.new(self.envelope, style) if style is not None else None
        return doc.text if doc is not None else json.dumps(self.envelope, indent=2, ensure_ascii=False) + "\n"


def _free_name(module: Module, name: str, taken: set[str]) -> str:
    candidate, n = name, 2
    while (
        candidate in taken
        or (module.path / "tests" / f"{candidate}.input.json").exists()
        or (module.path / "tests" / f"{candidate}.expected.json").exists()
    ):
        candidate, n = f"{name}-{n}", n + 1
    return candidate


def example_goldens(module: Module, notes: list[str]) -> tuple[list[GoldenDraft], list[MigrationIssue]]:
    drafts: list[GoldenDraft] = []
    issues: list[MigrationIssue] = []
    taken: set[str] = set()
    for ex in module.examples:
        if ex.input_path is None or ex.output_path is None:
            present = ex.input_path or ex.output_path
            notes.append(
                f"examples: {present.relative_to(module.path).as_posix() if present else ex.name} has no "
                "matching input/output file; it stays in examples/ and is not made a golden test"
            )
            if ex.output_path is not None and ex.output is not UNPARSED:
                issues += _lone_output_issues(ex.output_path, ex.output)
            continue
        if ex.input is UNPARSED or ex.output is UNPARSED:
            continue  # a P002 already blocks the plan
        envelope, rewritten = envelope_for(ex.output)
        payload = envelope.get("data") if envelope.get("ok") else None
        if envelope.get("ok") and not (isinstance(payload, dict) and "rationale" in payload):
            issues.append(
                MigrationIssue(
                    "the example output has no rationale, which v2.2 requires in data (SPEC-v2.2 §3.3)",
                    ex.output_path,
                    1,
                    1,
                    hint="Add a rationale to the example output, then migrate.",
                )
            )
            continue
        name = _free_name(module, ex.name, taken)
        taken.add(name)
        drafts.append(GoldenDraft(name, read_source(ex.input_path), read_source(ex.output_path), envelope, rewritten))
    return drafts, issues


def _lone_output_issues(path: Path, output: Any) -> list[MigrationIssue]:
    """An example output that stays in examples/ is checked against the v2.2 data schema too."""
    data = output.get("data") if isinstance(output, dict) and isinstance(output.get("ok"), bool) else output
    if not isinstance(data, dict) or isinstance(data.get("rationale"), str):
        return []
    problem = "has no rationale" if "rationale" not in data else "has a structured rationale"
    return [
        MigrationIssue(
            f"the example output {problem}, but v2.2 data needs a text rationale (SPEC-v2.2 §3.3), "
            "and without a matching input it cannot become a golden test",
            path,
            1,
            1,
            hint="Add the matching .input.json (or remove the file), then migrate.",
        )
    ]


def fixed_expected(path: Path, value: Any, rationale_is_text: bool) -> tuple[SourceText, str] | None:
    """(source, new LF text) for a v2.1 expected envelope that lacks meta or has a structured rationale."""
    if not isinstance(value, dict) or value.get("ok") is not True:
        return None
    data = value.get("data")
    if not isinstance(data, dict):
        return None
    needs_meta = "meta" not in value
    needs_text = rationale_is_text and "rationale" in data and not isinstance(data["rationale"], str)
    if not (needs_meta or needs_text):
        return None
    src = read_source(path)
    doc = JsonDoc(src.lf, value)
    if needs_text:
        doc.replace(("data", "rationale"), rationale_text(data["rationale"]))
    if needs_meta:
        doc.insert((), "meta", wrap_v21({"data": doc.value["data"]})["meta"], after="ok")
    text, _ = doc.finish()
    return src, text
