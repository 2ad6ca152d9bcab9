"""Prompt lint: what prompt.md says against what the module declares (`cogn validate`, the TUI; R001-R004).

- R001: a field prompt.md names that the input schema does not declare: a placeholder (`{{name}}`,
  `{{input.name}}`, `${name}`) or an entry of its `## Input` section (`` - `name`: ... ``), typically left
  behind by a rename in schema.json. Dotted names (`options.allow_remove`) are followed into the schema.
- R002 (info): a required input field the prompt never mentions: the model is given it without being told
  what it is for.
- R003: an `@call:` to a module that is not on the search path (every run would fail with E4006).
- R004: the prompt alone, before any input, is over `runtime_requirements.max_input_tokens` (estimated as a
  run estimates the input, core/run/prompt.py), so no input is small enough.

Only what can be read for sure is said: a module whose input schema has no properties, or is not an object,
gets no R001/R002 (D257). Names come from the prompt's own text, located in prompt.md (or MODULE.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Diagnostic, diag
from cogtui.core.module.model import Module
from cogtui.core.module.schema_merge import merged_schema
from cogtui.core.run.prompt import CALL, estimate_tokens, system_prompt, user_prompt

PLACEHOLDER = re.compile(
    r"\{\{\s*(?:input\.)?([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\s*\}\}|\$\{(?:input\.)?([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\}"
)
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
NAME = re.compile(r"`([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)`")
PARENS = re.compile(r"\([^()]*\)")
KNOWN_PLACEHOLDERS = frozenset({"ARGUMENTS", "MEDIA_INPUTS"})
MAX_NAMES = 200  # a prompt that names more fields than this is not read further (bounded work on any prompt)


def lint_prompt(module: Module, has_module: Callable[[str], bool] | None = None) -> list[Diagnostic]:
    """The prompt's findings; `has_module(name)` says whether an `@call:` target exists (None: not checked)."""
    prompt_file = module.files.prompt if module.files else None
    if prompt_file is None or not module.prompt:
        return []
    text = module.prompt
    source = module.sources.get(prompt_file)  # MODULE.md: the prompt is its body; prompt.md is the prompt itself
    whole = source.text if source is not None and text in source.text else text
    offset = whole.find(text)
    out: list[Diagnostic] = []

    def at(index: int) -> tuple[int, int]:
        before = whole[: offset + index]
        return before.count("\n") + 1, offset + index - (before.rfind("\n") + 1) + 1

    schema = module.schemas.input
    root = module.schemas.root if isinstance(module.schemas.root, dict) else {}
    top = merged_schema(root, schema) if isinstance(schema, dict) else {}
    declared = top.get("properties") or {}
    if declared:
        for name, index in named_fields(text):
            if not _declares(root, top, name.split(".")):
                line, col = at(index)
                out.append(
                    diag(
                        "R001",
                        f"the prompt names `{name}`, which the input schema does not declare",
                        prompt_file,
                        line,
                        col,
                        hint="Rename it in prompt.md to the field the schema has (a rename in schema.json leaves the "
                        "prompt behind), or declare it in the input schema.",
                    )
                )
        for required in top.get("required") or []:
            if not re.search(rf"(?<![\w-]){re.escape(required)}(?![\w-])", text):
                out.append(_required_unmentioned(module, required))
    if has_module is not None:
        for match in CALL.finditer(text):
            if not has_module(match.group(1)):
                line, col = at(match.start())
                out.append(
                    diag(
                        "R003",
                        f"@call:{match.group(1)} names a module that is not on the search path",
                        prompt_file,
                        line,
                        col,
                        hint="Every run would fail with E4006: fix the name, or add the module's folder to the search "
                        "path (--path, COGNITIVE_MODULES_PATH).",
                    )
                )
    if (over := _over_limit(module)) is not None:
        out.append(over)
    return out


def named_fields(text: str) -> list[tuple[str, int]]:
    """(field name, offset in the prompt) of each placeholder and each `## Input` entry's name."""
    found: list[tuple[str, int]] = []
    for match in PLACEHOLDER.finditer(text):
        group = 1 if match.group(1) else 2
        if match.group(group) not in KNOWN_PLACEHOLDERS:
            found.append((match.group(group), match.start(group)))
    in_input, pos = False, 0
    parents: list[tuple[int, str | None]] = []  # (indent, the one name a bullet gives) of the bullets around
    for line in text.splitlines(keepends=True):
        heading = HEADING.match(line.rstrip("\n"))
        if heading:
            in_input, parents = heading.group(2).strip().lower() in ("input", "inputs"), []
        elif in_input and (bullet := BULLET.match(line.rstrip("\n"))):
            indent = bullet.start(1)
            while parents and parents[-1][0] >= indent:
                parents.pop()
            lead = bullet.group(1)
            head = PARENS.sub(lambda m: " " * len(m.group(0)), lead).split(":", 1)[0]  # the names before the colon
            names = [(m.group(1), pos + indent + m.start(1)) for m in NAME.finditer(head)]
            parent = parents[-1][1] if parents else None  # a nested entry names a field of its parent's
            found += [(f"{parent}.{name}" if parent else name, where) for name, where in names]
            own = names[0][0] if len(names) == 1 else None
            parents.append((indent, f"{parent}.{own}" if parent and own else own))
        pos += len(line)
        if len(found) > MAX_NAMES:
            break
    return found[:MAX_NAMES]


def _declares(root: dict[str, Any], schema: dict[str, Any], path: list[str]) -> bool:
    props = schema.get("properties") or {}
    if path[0] not in props:
        return False
    if len(path) == 1:
        return True
    inner = merged_schema(root, props[path[0]])
    items = inner.get("items")
    if not inner.get("properties") and isinstance(items, dict):  # a list's entries: `commits.sha`
        inner = merged_schema(root, items)
    if not inner.get("properties"):
        return True  # an object without declared properties (or not an object): nothing to hold the name against
    return _declares(root, inner, path[1:])


def _required_unmentioned(module: Module, name: str) -> Diagnostic:
    file: Path | None = None
    line: int | None = None
    col: int | None = None
    loc = module.schemas.locations.get("input")
    if loc is not None:
        file = loc[0]
        source = module.sources.get(file)
        if source is not None:
            line, col = source.locate((*loc[1], "properties", name), key=True)
    return diag(
        "R002",
        f"the input field {name!r} is required, and the prompt never mentions it",
        file,
        line,
        col,
        hint="Tell the model what the field is for in prompt.md's ## Input section, or stop requiring it.",
    )


def _over_limit(module: Module) -> Diagnostic | None:
    limit = module.runtime_requirements.get("max_input_tokens")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        return None
    tokens = estimate_tokens(system_prompt(module) + user_prompt(module, module.prompt, {}))
    if tokens <= limit:
        return None
    manifest = module.files.manifest if module.files else None
    source = module.sources.get(manifest) if manifest is not None else None
    line, col = source.locate(("runtime_requirements", "max_input_tokens")) if source is not None else (None, None)
    return diag(
        "R004",
        f"the prompt alone is about {tokens:,} tokens, over max_input_tokens {limit:,}: every run is over the "
        "limit before any input",
        manifest,
        line,
        col,
        "Raise max_input_tokens, or shorten the prompt or the schemas it carries (cogn prompt shows the whole "
        "request).",
    )


__all__ = ["lint_prompt", "named_fields"]
