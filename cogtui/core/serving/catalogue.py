"""Which modules a server offers, and what changed since the last look.

`cogn mcp` and `cogn serve` offer the modules of one search path. A module is *offered* when it loads and
validates without errors (its warnings travel with it); one that does not is *refused*, with the
diagnostics that say why, and the server logs them instead of offering a module it would run badly.
`Catalogue.refresh` looks again (after a file change, or at start) and says what appeared, changed,
broke or vanished, so a server can tell its clients that the list changed (MCP's list_changed). What a
client sees of an offer (its description, schemas, prompt, manifest) is summed up in its `signature`: a
change of anything else (a golden test's file) changes nothing for a client.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.module.model import Module
from cogtui.core.module.response_schema import answer_data_schema
from cogtui.core.serving.schema_parts import standalone
from cogtui.core.workspace import ModuleReport, ReportCache, Workspace

# MCP's tool names (2025-11-25): 1 to 128 of these characters. A module name is checked against it too.
TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
INPUT_KEY = "input"  # the one argument of a tool whose module takes something other than an object (SERVE-3)


@dataclass(frozen=True, eq=False)
class Offer:
    """A module as a server offers it: a validated module, its description and its schemas standing alone."""

    module: Module
    report: ModuleReport

    @property
    def name(self) -> str:
        return self.module.name

    @property
    def streaming(self) -> bool:
        """The module answers in chunks (response.mode streaming): clients get progress as they arrive."""
        return bool(self.module.contract.response_mode.value == "streaming")

    @cached_property
    def description(self) -> str:
        """The module's responsibility, then what it excludes: what an agent reads to decide to call it."""
        m = self.module
        text = (m.responsibility or "").strip() or f"The Cognitive Module {m.name}."
        if m.excludes:
            text += "\n\nIt does not do: " + "; ".join(x.strip() for x in m.excludes if x.strip()) + "."
        return text

    @cached_property
    def input_schema(self) -> dict[str, Any] | None:
        """The module's input schema, standing alone; None when it declares none (any input is taken)."""
        return standalone(self.module.schemas.input, self.module.schemas.root)

    @cached_property
    def data_schema(self) -> dict[str, Any] | None:
        """The envelope's `data` as the module answers it (with `rationale`), standing alone; None when the module
        declares no data schema with properties."""
        data = answer_data_schema(self.module)
        if data is None:
            return None
        return standalone(data, self.module.schemas.root)

    @property
    def input_is_object(self) -> bool:
        schema = self.input_schema
        return schema is None or schema.get("type") == "object"

    @cached_property
    def tool_input_schema(self) -> dict[str, Any]:
        """The input schema as a tool's arguments, which MCP wants to be an object: the module's own when it is
        one (or when it declares none), else an object with the input under `input` (SERVE-3)."""
        schema = self.input_schema
        if schema is None:
            return {"type": "object"}
        if self.input_is_object:
            return schema
        inner = {k: v for k, v in schema.items() if k != "$defs"}
        wrapped: dict[str, Any] = {"type": "object", "properties": {INPUT_KEY: inner}, "required": [INPUT_KEY]}
        if "$defs" in schema:
            wrapped["$defs"] = schema["$defs"]
        return wrapped

    def input_from_arguments(self, arguments: dict[str, Any] | None) -> Any:
        """The module's input from a tool call's arguments (the inverse of `tool_input_schema`)."""
        arguments = arguments or {}
        return arguments if self.input_is_object else arguments.get(INPUT_KEY)

    def file_text(self, part: str) -> tuple[str, str] | None:
        """(text, media type) of the module's `manifest`, `prompt` or `schema` file, as loaded; None when it has
        no such file."""
        if part == "prompt":  # the prompt as the runtime reads it (a MODULE.md's body, without its frontmatter)
            return (self.module.prompt, "text/markdown") if self.module.prompt else None
        files = self.module.files
        path = {"manifest": files.manifest, "schema": files.schema}.get(part) if files else None
        source = self.module.sources.get(path) if path is not None else None
        if path is None or source is None:
            return None
        return source.text, "application/json" if path.suffix == ".json" else "application/yaml"

    def prompt(self, input_value: Any, args: str | None = None) -> tuple[str, str]:
        """(system, user): the prompt a run of this module with `input_value` sends its model, for a client that
        runs it with a model of its own (MCP prompts). @call: lines stay as they are written: no subagent runs."""
        from cogtui.core.run.arguments import fill_arguments
        from cogtui.core.run.prompt import render_calls, system_prompt, user_prompt

        body, _calls = render_calls(self.module.prompt, args)
        filled = fill_arguments(self.module, input_value, args)
        return system_prompt(self.module), user_prompt(self.module, body, filled, "")

    @cached_property
    def signature(self) -> str:
        """A digest of everything a client sees of this offer."""
        seen: list[Any] = [
            self.description,
            self.tool_input_schema,
            self.data_schema,
            self.streaming,
            self.module.version,
        ]
        seen += [self.file_text(part) for part in ("manifest", "prompt", "schema")]
        text = json.dumps(seen, sort_keys=True, default=str, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Refusal:
    """A module on the search path that is not offered, and why (its errors, or a name no client could call)."""

    name: str
    path: Path
    reasons: tuple[str, ...]


@dataclass
class CatalogueChange:
    """What one `refresh` found: names that appeared, changed (what a client sees), broke, recovered or vanished."""

    appeared: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    vanished: list[str] = field(default_factory=list)  # offered before, not now (broken ones included)
    refused: list[Refusal] = field(default_factory=list)  # newly refused, or refused for other reasons than before

    @property
    def listing_changed(self) -> bool:
        """The list of offered modules, or what a client sees of one, changed."""
        return bool(self.appeared or self.changed or self.vanished)


def diagnostic_line(d: Diagnostic) -> str:
    where = "" if d.file is None else f"{d.file}:{d.line or 1}:{d.column or 1}: "
    return f"{where}{d.code} {d.message}"


def refusal_of(report: ModuleReport) -> Refusal | None:
    """Why the module of `report` cannot be offered; None when it can."""
    reasons = [diagnostic_line(d) for d in report.diagnostics if d.severity.value == "error"]
    if report.module is None and not reasons:
        reasons.append("it does not load")
    if report.module is not None and not TOOL_NAME.fullmatch(report.module.name):
        reasons.append(
            f"its name {report.module.name!r} is not a tool name (1 to 128 letters, digits, '_', '-' or '.')"
        )
    return Refusal(report.name, report.path, tuple(reasons)) if reasons else None


class Catalogue:
    """The modules of a search path, validated, as offers and refusals; `refresh` brings it up to date."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.cache = ReportCache()
        self.offers: dict[str, Offer] = {}
        self.refusals: dict[str, Refusal] = {}
        self.reports: dict[str, ModuleReport] = {}  # every module found, offered or not (the winner of a name)

    @classmethod
    def from_environment(cls, paths: Iterable[str | Path] = ()) -> Catalogue:
        return cls(Workspace.from_environment(paths))

    @property
    def roots(self) -> list[Path]:
        """The search path's folders that exist (what a watcher watches)."""
        return [r.path for r in self.workspace.search_path.roots if r.path.is_dir()]

    def refresh(self, changed: Iterable[Path] = ()) -> CatalogueChange:
        """Discover and validate again (files that did not change are not read again) and say what changed."""
        self.cache.invalidate(changed)
        self.workspace.refresh()
        offers: dict[str, Offer] = {}
        refusals: dict[str, Refusal] = {}
        reports: dict[str, ModuleReport] = {}
        for entry in self.workspace.entries(include_shadowed=False):
            report = self.cache.check(entry.path, entry=entry)
            reports[report.name] = report
            refusal = refusal_of(report)
            if refusal is not None:
                refusals[refusal.name] = refusal
            elif report.module is not None:
                offers[report.module.name] = Offer(report.module, report)
        change = CatalogueChange()
        for name, offer in offers.items():
            before = self.offers.get(name)
            if before is None:
                change.appeared.append(name)
            elif before.signature != offer.signature:
                change.changed.append(name)
        change.vanished = [name for name in self.offers if name not in offers]
        change.refused = [r for name, r in refusals.items() if self.refusals.get(name) != r]
        self.offers, self.refusals, self.reports = offers, refusals, reports
        return change
