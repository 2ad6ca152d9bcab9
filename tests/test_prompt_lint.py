"""Prompt lint (core/run/prompt_lint.py): the names prompt.md gives fields, held against the input schema; nested
entries, lists and placeholders; a required field never mentioned; an @call: to nowhere; a prompt over its own
max_input_tokens. The bundled modules are clean of R001 and R003."""

from __future__ import annotations

import copy
from pathlib import Path

from modkit import SCHEMA_V22, clean_v22, make_module, text_in

from cogtui.core.module.loader import load_module
from cogtui.core.run.prompt_lint import lint_prompt, named_fields
from cogtui.core.workspace import check_path

MODULES = Path(__file__).resolve().parents[1] / "modules"

INPUT = """# Doc

## Input

- `options` (default `{}`): settings:
  - `allow_remove` (default `false`): removals;
  - `guard`: tests first.
- `project`, `version`: what is released.
- `commits`: `sha`, `subject`.

## Processing

- `not_an_input`: a bullet elsewhere.
Use {{ input.title }} and ${body} and $ARGUMENTS.
"""


def test_the_names_a_prompt_gives_its_fields() -> None:
    names = [name for name, _ in named_fields(INPUT)]
    assert names == [
        "title",
        "body",
        "options",
        "options.allow_remove",
        "options.guard",
        "project",
        "version",
        "commits",
    ]
    for name, at in named_fields(INPUT):
        assert INPUT[at:].startswith(name.split(".")[-1])


def test_nested_and_list_fields_are_followed_into_the_schema(tmp_path: Path) -> None:
    files = clean_v22()
    schema = copy.deepcopy(SCHEMA_V22)
    schema["input"] = {
        "type": "object",
        "required": ["options"],
        "properties": {
            "options": {"type": "object", "properties": {"allow_remove": {"type": "boolean"}}},
            "commits": {"type": "array", "items": {"type": "object", "properties": {"sha": {"type": "string"}}}},
            "title": {"type": "string"},
        },
    }
    files["schema.json"] = schema
    files["prompt.md"] = text_in(files, "prompt.md") + "\n" + INPUT
    files["tests/case1.input.json"] = {"options": {}}
    module = load_module(make_module(tmp_path, files))
    findings = {(d.code, d.message.split("`")[1]) for d in lint_prompt(module) if d.code == "R001"}
    assert findings == {("R001", n) for n in ("body", "options.guard", "project", "version")}


def test_bundled_modules_name_only_declared_fields_and_existing_modules() -> None:
    for folder in sorted(MODULES.iterdir()):
        if folder.is_dir():
            codes = {d.code for d in check_path(folder).diagnostics}
            assert not codes & {"R001", "R003", "R004"}, folder.name
