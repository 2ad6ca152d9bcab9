"""`cogn validate`: every check the spec asks for, each a located Diagnostic.

The manifest rules live here; schema and v2.2-contract rules in contract_checks.py,
golden-test rules in golden_checks.py. `validate_module` never raises on bad content.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Diagnostic, Severity, diag, one_fact_each
from cogtui.core.files.written import as_written, key_as_written, yaml_kind
from cogtui.core.module.model import Module, ModuleFormat
from cogtui.core.module.tiers import CHUNK_TYPES, ENUM_STRATEGIES, MODALITIES, RESPONSE_MODES, STRICTNESS, TIERS
from cogtui.core.rules.error_codes import is_module_code
from cogtui.core.rules.manifest_fields import unhonoured
from cogtui.core.rules.requirements import ProviderCaps, requirement_findings

SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$"
)
KNOWN_FIELDS = frozenset(
    [
        "name",
        "version",
        "responsibility",
        "tier",
        "schema_strictness",
        "excludes",
        "policies",
        "tools",
        "overflow",
        "enums",
        "failure",
        "runtime_requirements",
        "io",
        "compat",
        "tests",
        "response",
        "modalities",
        "error_codes",
        "constraints",
        "invocation",
        "context",
        "description",
    ]
)
MAPPING_FIELDS = (
    "policies",
    "tools",
    "overflow",
    "enums",
    "failure",
    "runtime_requirements",
    "io",
    "compat",
    "response",
    "modalities",
    "constraints",
    "invocation",
)
KNOWN_CONSTRAINTS = frozenset(
    {
        "no_network",
        "no_side_effects",
        "no_inventing_data",
        "require_confidence",
        "require_rationale",
        "no_file_write",
        "no_code_execution",
        "behavior_equivalence_false_max_confidence",
    }
)


class ManifestRules:
    def __init__(self, module: Module, out: list[Diagnostic]) -> None:
        self.m = module
        self.out = out
        self.file = module.files.manifest if module.files else None
        self.src = module.sources.get(self.file) if self.file else None

    def at(self, *parts: Hashable, key: bool = False) -> tuple[int, int]:
        if self.src is not None:
            return self.src.locate(parts, key=key)
        return (1, 1)

    def add(
        self,
        code: str,
        message: str,
        *parts: Hashable,
        hint: str = "",
        key: bool = False,
        severity: Severity | None = None,
    ) -> None:
        line, col = self.at(*parts, key=key)
        self.out.append(diag(code, message, self.file, line, col, hint, severity))

    def shown(self, value: Any, *parts: Hashable) -> str:
        """The value at `parts` as the author wrote it (CODE-9)."""
        return as_written(value, self.src, parts)

    def key_shown(self, *parts: Hashable) -> str:
        """The last key of `parts` as the author wrote it, unquoted when a string (CODE-9)."""
        return key_as_written(parts[-1], self.src, parts)

    def run(self) -> None:
        if self.src is None or not self.m.contract.known:  # missing, unparseable or not a mapping: already said
            return
        man = self.m.manifest
        required = ["name", "version", "responsibility", "excludes"]
        if self.m.format.has_envelope_contract:
            required.append("tier")
        for name in required:
            if name not in man or man[name] is None:
                self.add("M001", f"required field {name!r} is missing", hint=_required_hint(name))
        self.check_identity(man)
        self.check_choices(man)
        self.check_types(man)
        self.check_overflow(man.get("overflow"))
        self.check_response(man)
        self.check_context(man)
        self.check_error_codes(man.get("error_codes"))
        self.check_policies(man)
        for message, where in unhonoured(self.m):
            self.add("M020", message, *where, hint="See docs/manifest-fields.md for what each field does.")
        for key in man:
            if str(key) not in KNOWN_FIELDS:
                self.add(
                    "M008",
                    f"{as_written(key, self.src, (key,), key=True)} is not a field the spec defines",
                    key,
                    key=True,
                    hint="Unknown fields are kept but ignored by the runtime.",
                )

    def check_identity(self, man: dict[str, Any]) -> None:
        name = man.get("name")
        if name is not None and not isinstance(name, str):
            self.add("M007", "name must be a string", "name")
        elif isinstance(name, str) and name != self.m.path.name:
            self.add(
                "M009",
                f"name {name!r} differs from the folder name {self.m.path.name!r}",
                "name",
                hint="Modules are found by folder name; rename one so they agree.",
            )
        version = man.get("version")
        if version is not None and not (isinstance(version, str) and SEMVER.match(version)):
            hint = (
                'Quote it in YAML, e.g. version: "1.0.0".'
                if not isinstance(version, str)
                else "Use MAJOR.MINOR.PATCH, e.g. 2.2.0."
            )
            self.add(
                "M002", f"version {self.shown(version, 'version')} is not a semantic version", "version", hint=hint
            )
        resp = man.get("responsibility")
        if resp is not None and (not isinstance(resp, str) or not resp.strip()):
            self.add("M007", "responsibility must be a non-empty string", "responsibility")

    def check_choices(self, man: dict[str, Any]) -> None:
        checks = (("tier", TIERS, "M003"), ("schema_strictness", STRICTNESS, "M004"))
        for name, legal, code in checks:
            if name in man and man[name] not in legal:
                self.add(code, f"{name} {self.shown(man[name], name)} is not one of {', '.join(legal)}", name)
        enums = man.get("enums")
        if isinstance(enums, dict) and "strategy" in enums and enums["strategy"] not in ENUM_STRATEGIES:
            self.add(
                "M005",
                f"enums.strategy {self.shown(enums['strategy'], 'enums', 'strategy')} is not strict or extensible",
                "enums",
                "strategy",
            )
        if isinstance(enums, dict) and "unknown_tag" in enums and not isinstance(enums["unknown_tag"], str):
            self.add("M007", "enums.unknown_tag must be a string", "enums", "unknown_tag")
        excludes = man.get("excludes")
        if "excludes" in man:
            if not isinstance(excludes, list):
                self.add("M007", "excludes must be a list of strings", "excludes")
            elif not excludes:
                self.add(
                    "M006",
                    "excludes is empty",
                    "excludes",
                    hint="List what the module must not do; the spec makes this explicit on purpose.",
                )
            else:
                for i, item in enumerate(excludes):
                    if not isinstance(item, str) or not item.strip():
                        self.add("M007", f"excludes[{i}] must be a non-empty string", "excludes", i)

    def check_types(self, man: dict[str, Any]) -> None:
        for name in MAPPING_FIELDS:
            if name in man and man[name] is not None and not isinstance(man[name], dict):
                self.add("M007", f"{name} must be a mapping, not {yaml_kind(man[name])}", name)
        tools = man.get("tools")
        if isinstance(tools, dict):
            for key in ("allowed", "denied"):
                if key in tools and not isinstance(tools[key], list):
                    self.add("M007", f"tools.{key} must be a list", "tools", key)
            if "policy" in tools and tools["policy"] not in ("deny_by_default", "allow_by_default"):
                self.add(
                    "M016",
                    f"tools.policy {self.shown(tools['policy'], 'tools', 'policy')} "
                    "is not deny_by_default or allow_by_default",
                    "tools",
                    "policy",
                )
        rr = man.get("runtime_requirements")
        if isinstance(rr, dict) and "max_input_tokens" in rr:
            v = rr["max_input_tokens"]
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                self.add(
                    "M007",
                    "runtime_requirements.max_input_tokens must be a positive integer",
                    "runtime_requirements",
                    "max_input_tokens",
                )

    def check_overflow(self, overflow: Any) -> None:
        if not isinstance(overflow, dict):
            return
        for key in ("enabled", "recoverable", "require_suggested_mapping"):
            if key in overflow and not isinstance(overflow[key], bool):
                self.add("M015", f"overflow.{key} must be true or false", "overflow", key)
        if "max_items" in overflow:
            v = overflow["max_items"]
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                self.add("M015", "overflow.max_items must be a non-negative integer", "overflow", "max_items")

    def check_response(self, man: dict[str, Any]) -> None:
        response = man.get("response")
        if isinstance(response, dict):
            if "mode" in response and response["mode"] not in RESPONSE_MODES:
                self.add(
                    "M010",
                    f"response.mode {self.shown(response['mode'], 'response', 'mode')} is not sync, streaming or both",
                    "response",
                    "mode",
                )
            if "chunk_type" in response and response["chunk_type"] not in CHUNK_TYPES:
                self.add(
                    "M010",
                    f"response.chunk_type {self.shown(response['chunk_type'], 'response', 'chunk_type')} "
                    "is not delta or snapshot",
                    "response",
                    "chunk_type",
                )
            size = response.get("buffer_size")
            if "buffer_size" in response and (not isinstance(size, int) or isinstance(size, bool) or size <= 0):
                self.add("M010", "response.buffer_size must be a positive integer", "response", "buffer_size")
        modalities = man.get("modalities")
        if isinstance(modalities, dict):
            for direction in ("input", "output"):
                items = modalities.get(direction)
                if items is None:
                    continue
                if not isinstance(items, list):
                    self.add("M011", f"modalities.{direction} must be a list", "modalities", direction)
                    continue
                for i, item in enumerate(items):
                    if item not in MODALITIES:
                        self.add(
                            "M011",
                            f"unknown modality {self.shown(item, 'modalities', direction, i)}",
                            "modalities",
                            direction,
                            i,
                            hint="Known: " + ", ".join(MODALITIES),
                        )

    def check_context(self, man: dict[str, Any]) -> None:
        if "context" not in man:
            return
        ctx = man["context"]
        mode = ctx.get("mode", ctx.get("type")) if isinstance(ctx, dict) else ctx
        if mode not in ("fork", "main"):
            self.add(
                "M012",
                f"context {self.shown(ctx, 'context')} is not fork or main",
                "context",
                hint="context: fork isolates a subagent; main (the default) shares the parent's input.",
            )

    def check_error_codes(self, codes: Any) -> None:
        if codes is None:
            return
        items: list[tuple[Any, tuple[Hashable, ...]]]  # (code, where it is)
        if isinstance(codes, dict):
            items = [(k, ("error_codes", k)) for k in codes]
        elif isinstance(codes, list):
            items = [
                (c.get("code"), ("error_codes", i, "code")) if isinstance(c, dict) else (c, ("error_codes", i))
                for i, c in enumerate(codes)
            ]
        else:
            self.add("M007", "error_codes must be a mapping or a list", "error_codes")
            return
        for code, where in items:
            if not is_module_code(str(code)):
                shown = as_written(code, self.src, where, key=isinstance(codes, dict), quote=False)
                self.add(
                    "M013",
                    f"{shown} is not a module error code (E5000-E9999)",
                    *where,
                    key=isinstance(codes, dict),
                    hint="E1xxx-E4xxx belong to the spec; declare your own codes from E5000.",
                )

    def check_policies(self, man: dict[str, Any]) -> None:
        policies = man.get("policies")
        if isinstance(policies, dict):
            for key, value in policies.items():
                ok = isinstance(value, bool) if str(key).endswith("_allowed") else value in ("allow", "deny")
                if not ok:
                    self.add(
                        "M016",
                        f"policy {self.key_shown('policies', key)}: {self.shown(value, 'policies', key)} "
                        "is not recognised",
                        "policies",
                        key,
                        hint="Use allow or deny (v2.2), or true/false for *_allowed (v2.5).",
                    )
        constraints = man.get("constraints")
        if isinstance(constraints, dict):
            for key, value in constraints.items():
                if str(key) not in KNOWN_CONSTRAINTS or not isinstance(value, (bool, int, float)):
                    self.add(
                        "M016",
                        f"constraint {self.key_shown('constraints', key)}: {self.shown(value, 'constraints', key)} "
                        "is not recognised",
                        "constraints",
                        key,
                        severity=Severity.INFO if isinstance(value, bool) else None,
                    )


def _required_hint(name: str) -> str:
    return {
        "name": "Add name: <folder name>.",
        "version": "Add version: 1.0.0.",
        "responsibility": "Add a one-sentence responsibility.",
        "excludes": "List what the module must not do under excludes:.",
        "tier": "Add tier: exec, decision or exploration.",
    }.get(name, "")


def validate_module(
    module: Module, v22: bool = False, strict: bool = False, provider: ProviderCaps | None = None
) -> list[Diagnostic]:
    """All diagnostics for a module, sorted by file and position, each fact said once (CODE-6); `strict` makes
    stale goldens errors.

    `provider` (name, capability declaration) adds M021 for the runtime_requirements it cannot meet.
    """
    from cogtui.core.rules.contract_checks import ContractRules

    out: list[Diagnostic] = list(module.load_diagnostics)
    rules = ManifestRules(module, out)
    rules.run()
    if provider is not None and rules.src is not None:
        for message, where in requirement_findings(module, provider[1], provider[0]):
            rules.add("M021", message, *where, hint="Choose another provider (--provider), or see docs/providers.md.")
    ContractRules(module, out, v22, strict).run()
    return sorted(one_fact_each(_dedupe(out)), key=Diagnostic.sort_key)


def _dedupe(items: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
    result = []
    for d in items:
        key = (d.code, d.message, str(d.file), d.line, d.column)
        if key not in seen:
            seen.add(key)
            result.append(d)
    return result


def validate_path(path: Path | str, v22: bool = False, strict: bool = False) -> tuple[Module, list[Diagnostic]]:
    from cogtui.core.module.loader import load_module

    module = load_module(path)
    return module, validate_module(module, v22, strict)


__all__ = ["ModuleFormat", "validate_module", "validate_path"]
