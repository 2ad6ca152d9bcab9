"""Build small module folders for the core tests, and find positions in their text.

`make_module(tmp_path, files)` writes each entry of `files` under a module
folder: strings and bytes verbatim, dicts and lists serialised by the file's
extension (YAML for .yaml/.yml, JSON otherwise; for .md a dict becomes YAML
frontmatter). `clean_v22()` is a complete, diagnostic-free v2.2 module to
mutate; `pos(text, needle, *after)` is the 1-based (line, column) of the first
character of `needle` in `text`, so expected positions come from the text a
test actually wrote, not from the code under test.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from cli_inprocess import run_cli

from cogtui.core.module.standard_parts import meta_schema

FileContent = str | bytes | dict[str, Any] | list[Any] | None


def dump(name: str, value: FileContent) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if name.endswith((".yaml", ".yml")):
        return yaml.safe_dump(value, sort_keys=False, allow_unicode=True).encode("utf-8")
    if name.endswith(".md"):
        front = yaml.safe_dump(value, sort_keys=False, allow_unicode=True)
        return f"---\n{front}---\n# Prompt\n\nInput: $ARGUMENTS\n".encode()
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def make_module(tmp_path: Path, files: dict[str, FileContent], name: str = "mod") -> Path:
    """Write a module folder `tmp_path/name`; a value of None leaves that file out."""
    root = tmp_path / name
    root.mkdir(parents=True, exist_ok=True)
    for rel, value in files.items():
        if value is None:
            continue
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(dump(rel, value))
    return root


def run_cogn(
    args: list[str],
    cwd: Path,
    home: Path | None = None,
    stdin: str | None = None,
    timeout: float = 60,
    extra_env: dict[str, str] | None = None,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI (`python -m cogtui.cli`) isolated from the developer's modules and terminal: in this
    process (tests/cli_inprocess.py), or as a child process with `process` (a test that a hang is bounded)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "FORCE_COLOR")}
    env.update(HOME=str(home or cwd), NO_COLOR="1", PYTHONIOENCODING="utf-8", **(extra_env or {}))
    if not process:
        return run_cli(args, cwd=cwd, env=env, timeout=timeout, input=stdin)
    return subprocess.run(
        [sys.executable, "-m", "cogtui.cli", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def pos(text: str, needle: str, *after: str) -> tuple[int, int]:
    """1-based (line, column) of `needle`, searched for past each of `after` in turn."""
    start = 0
    for anchor in after:
        start = text.index(anchor, start) + len(anchor)
    offset = text.index(needle, start)
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


# ---------------------------------------------------------------- a clean v2.2 module

PROMPT_V22 = """# Ticket triage

Classify the ticket in `text`.

## Response Format (Envelope v2.2)

Return `{"ok": true, "meta": {...}, "data": {...}}`.
- meta.confidence: 0-1
- meta.risk: none | low | medium | high
- meta.explain: at most 280 characters
- data.rationale: the detailed reasoning
"""

MANIFEST_V22: dict[str, Any] = {
    "name": "mod",
    "version": "1.0.0",
    "responsibility": "Classify a support ticket",
    "tier": "decision",
    "schema_strictness": "medium",
    "excludes": ["answering the ticket"],
    "policies": {"network": "deny"},
    "overflow": {"enabled": True, "recoverable": True, "max_items": 5, "require_suggested_mapping": True},
    "enums": {"strategy": "extensible"},
    "tests": ["tests/case1.input.json -> tests/case1.expected.json"],
}

META_SCHEMA: dict[str, Any] = meta_schema(core_only=True)

SCHEMA_V22: dict[str, Any] = {
    "$schema": "https://cognitive-modules.dev/schema/v2.2.json",
    "meta": META_SCHEMA,
    "input": {
        "type": "object",
        "required": ["text"],
        "properties": {"text": {"type": "string"}},
        "additionalProperties": False,
    },
    "data": {
        "type": "object",
        "required": ["label", "rationale"],
        "properties": {
            "label": {
                "oneOf": [
                    {"type": "string", "enum": ["bug", "feature"]},
                    {
                        "type": "object",
                        "required": ["custom", "reason"],
                        "properties": {"custom": {"type": "string"}, "reason": {"type": "string"}},
                    },
                ]
            },
            "rationale": {"type": "string"},
            "extensions": {"$ref": "#/$defs/extensions"},
        },
    },
    "error": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
    },
    "$defs": {
        "extensions": {
            "type": "object",
            "properties": {
                "insights": {
                    "type": "array",
                    "maxItems": 5,
                    "items": {
                        "type": "object",
                        "required": ["text", "suggested_mapping"],
                        "properties": {"text": {"type": "string"}, "suggested_mapping": {"type": "string"}},
                    },
                }
            },
        }
    },
}

GOOD_INPUT: dict[str, Any] = {"text": "The app crashes on start"}
GOOD_EXPECTED: dict[str, Any] = {
    "ok": True,
    "meta": {"confidence": 0.9, "risk": "low", "explain": "A crash report: bug."},
    "data": {"label": "bug", "rationale": "The ticket describes a crash, which is a defect."},
}


def mapping_in(files: dict[str, FileContent], rel: str) -> dict[str, Any]:
    """The file `rel` of `files`, given as data (a dict serialised on write), to change before it is written."""
    value = files[rel]
    assert isinstance(value, dict), f"{rel} is given as {type(value).__name__}, not as a mapping"
    return value


def text_in(files: dict[str, FileContent], rel: str) -> str:
    """The file `rel` of `files`, given as text."""
    value = files[rel]
    assert isinstance(value, str), f"{rel} is given as {type(value).__name__}, not as text"
    return value


def clean_v22(name: str = "mod") -> dict[str, FileContent]:
    """Files of a v2.2 module that validates with zero diagnostics in a folder called `name` (a fresh deep copy)."""
    return copy.deepcopy(
        {
            "module.yaml": {**MANIFEST_V22, "name": name},
            "prompt.md": PROMPT_V22,
            "schema.json": SCHEMA_V22,
            "tests/case1.input.json": GOOD_INPUT,
            "tests/case1.expected.json": GOOD_EXPECTED,
        }
    )


def clean_v1(name: str = "mod") -> dict[str, FileContent]:
    """A v1 module (MODULE.md + schema.json + examples/) without errors."""
    return copy.deepcopy(
        {
            "MODULE.md": f"---\nname: {name}\nversion: 1.0.0\nresponsibility: Summarise text\n"
            "excludes:\n  - inventing facts\nconstraints:\n  no_network: true\n"
            "invocation:\n  user_invocable: true\ncontext: fork\n---\n# Summariser\n\nSummarise $ARGUMENTS.\n",
            "schema.json": {
                "$schema": "https://ziel-io.github.io/cognitive-modules/schema/v1.json",
                "input": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
                "output": {
                    "type": "object",
                    "required": ["summary", "rationale", "confidence"],
                    "properties": {
                        "summary": {"type": "string"},
                        "rationale": {"type": "string"},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    },
                },
            },
            "examples/input.json": {"text": "Long text"},
            "examples/output.json": {"summary": "Short", "rationale": "Because", "confidence": 0.8},
        }
    )


def clean_v0(name: str = "mod") -> dict[str, FileContent]:
    """The legacy six-file layout."""
    return copy.deepcopy(
        {
            "module.md": f"---\nname: {name}\nversion: 0.1.0\nresponsibility: Old style module\nexcludes:\n  - anything else\n---\n",
            "input.schema.json": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
            "output.schema.json": {
                "type": "object",
                "required": ["result", "rationale", "confidence"],
                "properties": {
                    "result": {"type": "string"},
                    "rationale": {"type": "string"},
                    "confidence": {"type": "number"},
                },
            },
            "constraints.yaml": "no_network: true\nno_side_effects: true\n",
            "prompt.txt": "Do the thing with $ARGUMENTS\n",
            "examples/input.json": {"text": "x"},
            "examples/output.json": {"result": "y", "rationale": "z", "confidence": 0.5},
        }
    )
