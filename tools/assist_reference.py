"""Writes cogtui/core/assist/reference.json from the docs: what a hover says of a diagnostic code and of a manifest
field is the text of its row in docs/diagnostics.md and docs/manifest-fields.md, shipped with the package (the docs
folder is not part of the wheel). `python -m tools.assist_reference` rewrites it; a test fails while it is stale.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "cogtui" / "core" / "assist" / "reference.json"
CODE_ROW = re.compile(r'^\| <a id="([a-z]\d{3})"></a>`([A-Z]\d{3})` \| (\w+) \| (.*) \|$')
FIELD_NAME = re.compile(r"`([^`]+)`")


def cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split(" | ")]


def codes(text: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        match = CODE_ROW.match(line)
        if match:
            _anchor, code, severity, meaning = match.groups()
            out[code] = {"severity": severity, "meaning": meaning, "section": section, "anchor": code.lower()}
    return out


def field_names(label: str) -> list[str]:
    """The fields a row's first cell names: `policies.filesystem_write`, `side_effects` names
    policies.side_effects too (a bare name after a dotted one is in its section)."""
    names: list[str] = []
    section = ""
    for name in FIELD_NAME.findall(label):
        name = name.removesuffix(".*")
        if "." in name:
            section = name.split(".", 1)[0]
            names.append(name)
        elif section and name not in ("constraints",):
            names.append(f"{section}.{name}")
        else:
            names.append(name)
    return names


def fields(text: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        if not line.startswith("| `"):
            continue
        label, what, _tested = cells(line)
        for name in field_names(label):
            out.setdefault(name, {"what": what, "section": section, "row": label})
    return out


def reference() -> dict[str, Any]:
    docs = ROOT / "docs"
    return {
        "generated_from": ["docs/diagnostics.md", "docs/manifest-fields.md"],
        "codes": codes((docs / "diagnostics.md").read_text(encoding="utf-8")),
        "fields": fields((docs / "manifest-fields.md").read_text(encoding="utf-8")),
    }


def rendered() -> str:
    return json.dumps(reference(), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def main() -> int:
    OUT.write_text(rendered(), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
