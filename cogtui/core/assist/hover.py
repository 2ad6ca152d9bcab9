"""What a hover says, as Markdown: a manifest key's meaning, allowed values and default (the field data); a
diagnostic's code explained (the docs' row) with its link; the schema a `$ref` points at; the responsibility of
the module an `@call:name` calls.

Every text from a module is quoted in a code block or code span and shortened, never read as Markdown.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cogtui.core.assist.complete import manifest_format
from cogtui.core.assist.documents import Doc, Point, Span, value_at, word_at
from cogtui.core.assist.fields import BY_PATH, Field, field_at, keys_of
from cogtui.core.assist.links import code_href
from cogtui.core.assist.reference import code_help
from cogtui.core.assist.refs import ref_target
from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.module_folder import is_module_dir
from cogtui.core.records import record
from cogtui.core.run.prompt import CALL

MAX_SCHEMA_LINES = 40  # a $ref's target shown at most this long


@record
class Hover:
    markdown: str
    span: Span | None = None


def code_span(text: str) -> str:
    """`text` as inline code, whatever backticks it holds."""
    text = text.replace("\n", " ")
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def field_markdown(field: Field, fmt: str = "") -> str:
    lines = [f"**{field.path}** ({' or '.join(field.types)})"]
    if field.values:
        lines.append("Values: " + ", ".join(code_span(_shown(v)) for v in field.values))
    if field.items:
        lines.append("Items: " + ", ".join(code_span(str(v)) for v in field.items))
    if field.default:
        lines.append(f"Default: {field.default}")
    meaning = field.meaning()
    if meaning:
        lines.append(meaning)
    elif "object" in field.types:
        inside = [f.name for f in keys_of(field.path, fmt)] if fmt else []
        if inside:
            lines.append("Keys: " + ", ".join(code_span(k) for k in inside))
    lines.append("See docs/manifest-fields.md.")
    return "\n\n".join(lines)


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def code_markdown(d: Diagnostic, docs_url: str | None = None) -> str:
    found = code_help(d.code)
    head = f"**{d.code}** ({d.severity.value})"
    if found is None:
        return head
    link = code_href(d.code, docs_url)
    tail = f"\n\n[{d.code} in docs/diagnostics.md]({link})" if link else "\n\nSee docs/diagnostics.md."
    return f"{head} · {found.section}\n\n{found.meaning}{tail}"


def hover(
    doc: Doc,
    point: Point,
    diagnostics: list[tuple[Diagnostic, Span]],
    fmt: str = "",
    docs_url: str | None = None,
    paths: list[str] | None = None,
) -> Hover | None:
    """The hover at `point`: a diagnostic's code first (what the author is looking at), then the file's own."""
    parts: list[str] = []
    span: Span | None = None
    for d, (start, end) in diagnostics:
        if start <= point <= end:
            parts.append(code_markdown(d, docs_url))
            span = span or (start, end)
    own = _own(doc, point, fmt, paths or [])
    if own is not None:
        parts.append(own.markdown)
        span = span or own.span
    return Hover("\n\n---\n\n".join(parts), span) if parts else None


def _own(doc: Doc, point: Point, fmt: str, paths: list[str]) -> Hover | None:
    if doc.role == "prompt":
        return _call_hover(doc, point, paths)
    pointer, on_key = doc.at(point)
    if doc.role in ("manifest", "frontmatter") and pointer:
        fmt = fmt or manifest_format(doc)
        field = field_at(pointer)
        if field is None and len(pointer) == 1:
            field = BY_PATH.get(str(pointer[0]))
        if field is not None and (on_key or len(pointer) <= 2):
            return Hover(field_markdown(field, fmt), doc.span(pointer, key=on_key))
    if doc.role in ("schema", "json") and pointer and pointer[-1] == "$ref" and doc.source is not None:
        ref = value_at(doc.source.value, pointer)
        if isinstance(ref, str):
            return _ref_hover(doc, ref, doc.span(pointer))
    return None


def _ref_hover(doc: Doc, ref: str, span: Span | None) -> Hover | None:
    target = ref_target(doc, ref)
    if target is None:
        return Hover(f"{code_span(ref)} points at nothing in this module", span)
    text = json.dumps(target.value, indent=2, ensure_ascii=False)
    lines = text.split("\n")
    if len(lines) > MAX_SCHEMA_LINES:
        lines = [*lines[:MAX_SCHEMA_LINES], f"… ({len(lines) - MAX_SCHEMA_LINES} more lines)"]
    body = "\n".join(lines).replace("```", "`\u200b``")
    where = target.path.name + (f"#{target.fragment}" if target.fragment else "")
    return Hover(f"{code_span(ref)} → {code_span(where)}\n\n```json\n{body}\n```", span)


def call_at(line: str, column: int) -> tuple[str, int, int] | None:
    """(module name, start, end) of the `@call:name` whose name (or `@call:`) holds `column`."""
    for match in CALL.finditer(line):
        if match.start() <= column <= match.end(1):
            return match.group(1), match.start(1), match.end(1)
    return None


def module_near(name: str, folder: Path, paths: list[str]) -> Path | None:
    """The module an `@call:name` in the module at `folder` calls: a folder beside it, else the search path's."""
    sibling = folder.parent / name
    if is_module_dir(sibling):
        return sibling
    from cogtui.core.workspace import Workspace

    return Workspace.from_environment([*paths, folder.parent]).resolve(name)


def _call_hover(doc: Doc, point: Point, paths: list[str]) -> Hover | None:
    found = call_at(doc.line(point[0]), point[1])
    if found is None:
        return None
    name, start, end = found
    span = ((point[0], start), (point[0], end))
    from cogtui.core.module.loader import NotAModule, load_module

    target = module_near(name, doc.path.parent, paths)
    if target is None:
        return Hover(f"@call:{code_span(name)}: no module of that name beside this one or on the search path", span)
    try:
        module = load_module(target)
    except (NotAModule, OSError):
        return Hover(f"@call:{code_span(name)}: {code_span(str(target))} cannot be read", span)
    what = module.responsibility or "(no responsibility written)"
    return Hover(f"**@call:{name}** · {module.format.value} · tier {module.tier}\n\n{code_span(what)}", span)


__all__ = ["Hover", "call_at", "field_markdown", "hover", "module_near", "word_at"]
