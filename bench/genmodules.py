"""Generate a search path of N modules of mixed formats (v0, v1, v2.1, v2.2, v2.5) for benchmarks.

python bench/genmodules.py OUT_DIR [--count 1000] [--legacy-only]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cogtui.core.module.standard_parts import meta_schema

META = meta_schema(core_only=True)
INPUT = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}, "lang": {"type": "string"}}}
EXTENSIONS = {
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
CATEGORY = {
    "oneOf": [
        {"type": "string", "enum": ["bug", "style", "perf"]},
        {
            "type": "object",
            "required": ["custom", "reason"],
            "properties": {"custom": {"type": "string", "maxLength": 32}, "reason": {"type": "string"}},
        },
    ]
}
DATA: dict[str, Any] = {
    "type": "object",
    "required": ["summary", "rationale"],
    "properties": {
        "summary": {"type": "string"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"category": CATEGORY}}},
        "rationale": {"type": "string"},
        "extensions": {"$ref": "#/$defs/extensions"},
    },
}
PROMPT_V22 = """# {name}

Summarise the text.

## Response Format (Envelope v2.2)
Return meta (confidence, risk, explain <= 280 chars) and data (summary, rationale,
extensions.insights).
"""


def _w(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _j(path: Path, value: object) -> None:
    _w(path, json.dumps(value, indent=2, ensure_ascii=False))


def golden(folder: Path, n: int, v1: bool = False) -> None:
    inp = {"text": f"sample text {n}", "lang": "en"}
    data = {
        "summary": f"summary {n}",
        "items": [{"category": "bug"}, {"category": {"custom": "naming", "reason": "r"}}],
        "rationale": "Because the text says so.",
    }
    if v1:
        _j(folder / "examples" / "input.json", inp)
        _j(folder / "examples" / "output.json", {**data, "confidence": 0.8})
        return
    _j(folder / "tests" / "case1.input.json", inp)
    _j(
        folder / "tests" / "case1.expected.json",
        {"ok": True, "meta": {"confidence": 0.8, "risk": "low", "explain": "Summarised."}, "data": data},
    )


def _vary(schema: dict[str, Any], n: int) -> dict[str, Any]:
    """A copy with fields unique to module n, so no two modules share their input/data schemas."""
    out: dict[str, Any] = json.loads(json.dumps(schema))
    out["properties"][f"field_{n}"] = {"type": "string", "description": f"Specific to module {n}", "maxLength": 100 + n}
    out["properties"][f"count_{n}"] = {"type": "integer", "minimum": n % 7}
    return out


def make_v22(folder: Path, name: str, v25: bool) -> None:
    extra = "response:\n  mode: streaming\nmodalities:\n  input: [text]\n  output: [text]\n" if v25 else ""
    _w(
        folder / "module.yaml",
        f"""# generated
name: {name}
version: 2.2.0
responsibility: Summarise a text
tier: decision
schema_strictness: medium
excludes:
  - inventing facts
policies:
  network: deny
overflow:
  enabled: true
  max_items: 5
  require_suggested_mapping: true
enums:
  strategy: extensible
io:
  input: ./schema.json#/input
  data: ./schema.json#/data
  meta: ./schema.json#/meta
tests:
  - tests/case1.input.json -> tests/case1.expected.json
{extra}""",
    )
    _w(folder / "prompt.md", PROMPT_V22.format(name=name))
    n = int(name.split("-")[1])
    _j(
        folder / "schema.json",
        {
            "$schema": "https://cognitive-modules.dev/schema/v2.2.json",
            "meta": META,
            "input": _vary(INPUT, n),
            "data": _vary(DATA, n),
            "error": {"type": "object", "required": ["code", "message"]},
            "$defs": {"extensions": EXTENSIONS},
        },
    )
    golden(folder, 1)


def make_v21(folder: Path, name: str) -> None:
    _w(
        folder / "module.yaml",
        f"name: {name}\nversion: 2.1.0\nresponsibility: Summarise a text\n"
        "excludes:\n  - inventing facts\npolicies:\n  network: deny\n",
    )
    _w(folder / "prompt.md", f"# {name}\n\nSummarise $ARGUMENTS.\n")
    data = {k: v for k, v in DATA.items()}
    data["properties"] = {k: v for k, v in DATA["properties"].items() if k != "extensions"}
    data["properties"]["confidence"] = {"type": "number"}
    n = int(name.split("-")[1])
    _j(folder / "schema.json", {"input": _vary(INPUT, n), "output": _vary(data, n)})
    golden(folder, 1)


def make_v1(folder: Path, name: str) -> None:
    _w(
        folder / "MODULE.md",
        f"---\nname: {name}\nversion: 1.0.0\nresponsibility: Summarise a text\n"
        "excludes:\n  - inventing facts\nconstraints:\n  no_network: true\n  require_confidence: true\n"
        f"  require_rationale: true\n---\n\n# {name}\n\nSummarise: $ARGUMENTS\n",
    )
    out = {
        "type": "object",
        "required": ["summary", "rationale", "confidence"],
        "properties": {
            "summary": {"type": "string"},
            "items": DATA["properties"]["items"],
            "rationale": {"type": "string"},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        },
    }
    n = int(name.split("-")[1])
    _j(folder / "schema.json", {"input": _vary(INPUT, n), "output": _vary(out, n)})
    golden(folder, 1, v1=True)


def make_v0(folder: Path, name: str) -> None:
    _w(
        folder / "module.md",
        f"---\nname: {name}\nversion: 0.1.0\nresponsibility: Summarise a text\n"
        "excludes:\n  - inventing facts\n---\n\nLegacy module.\n",
    )
    _j(folder / "input.schema.json", INPUT)
    _j(
        folder / "output.schema.json",
        {
            "type": "object",
            "required": ["summary", "rationale", "confidence"],
            "properties": {
                "summary": {"type": "string"},
                "rationale": {"type": "string"},
                "confidence": {"type": "number"},
            },
        },
    )
    _w(folder / "constraints.yaml", "no_network: true\nrequire_confidence: true\n")
    _w(folder / "prompt.txt", "Summarise the input text.\n")
    _j(folder / "examples" / "input.json", {"text": "t"})
    _j(folder / "examples" / "output.json", {"summary": "s", "rationale": "r", "confidence": 0.7})


MAKERS = ("v2.2", "v2.5", "v2.1", "v1", "v0")


def generate(out: Path, count: int, legacy_only: bool = False) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    kinds = ("v2.1", "v1", "v0") if legacy_only else MAKERS
    for i in range(count):
        kind = kinds[i % len(kinds)]
        name = f"mod-{i:04d}-{kind.replace('.', '')}"
        folder = out / name
        if kind in ("v2.2", "v2.5"):
            make_v22(folder, name, kind == "v2.5")
        elif kind == "v2.1":
            make_v21(folder, name)
        elif kind == "v1":
            make_v1(folder, name)
        else:
            make_v0(folder, name)
    return out


def stale_example(module: Path, count: int, item_bytes: int | None = None) -> Path:
    """The bundled api-naming-reviewer copied to `module`, its example answer listing `count` changes that each
    lack the required `risk` (a located problem each); with `item_bytes`, each change is padded to about that
    many bytes of the file."""
    import shutil

    shutil.copytree(Path(__file__).resolve().parents[1] / "modules" / "api-naming-reviewer", module)
    example = module / "examples" / "output.json"
    answer = json.loads(example.read_text(encoding="utf-8"))
    item = {k: v for k, v in answer["changes"][0].items() if k != "risk"}
    width = item_bytes - len(json.dumps({**item, "location": ""}, indent=2)) - 12 if item_bytes else 0
    answer["changes"] = [{**item, "location": f"/items/{n}".ljust(width, "x")} for n in range(count)]
    example.write_text(json.dumps(answer, indent=2), encoding="utf-8")
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--legacy-only", action="store_true")
    args = ap.parse_args()
    generate(args.out, args.count, args.legacy_only)


if __name__ == "__main__":
    main()
