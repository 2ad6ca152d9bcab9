"""The manifest's fields as data: each field's type, allowed values, default and the formats that define it.

One source for the hover on a manifest key, the completion of keys and values, and the JSON Schemas of
`cogn schema manifest`: the names are validate's (`KNOWN_FIELDS`, `SECTION_KEYS`), the allowed values and the
tier defaults are the constants validate and the runtime judge with (`core/module/tiers.py`), and the words are
the docs' row for the field (docs/manifest-fields.md, through reference.json). A test checks that every field
validate knows is here and the other way round.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cogtui.core.assist.reference import field_help
from cogtui.core.module.tiers import (
    CHUNK_TYPES,
    ENUM_STRATEGIES,
    MODALITIES,
    RESPONSE_MODES,
    STRICTNESS,
    TIER_DEFAULTS,
    TIERS,
)
from cogtui.core.rules.manifest_fields import KNOWN_CAPABILITIES, SECTION_KEYS
from cogtui.core.rules.validate_module import KNOWN_CONSTRAINTS, KNOWN_FIELDS

V1, V22, V25 = "v1", "v2.2", "v2.5"
FORMATS = (V22, V25, V1)
ALL = (V1, V22, V25)
V2 = (V22, V25)


class Field(NamedTuple):
    path: str  # `tier`, `overflow.max_items`
    types: tuple[str, ...]  # JSON Schema types
    values: tuple[Any, ...] = ()  # the allowed values (an enum), empty when any of its type
    items: tuple[Any, ...] = ()  # a list's allowed items
    default: str = ""  # in words: `decision` / by tier
    formats: tuple[str, ...] = V2  # the formats whose manifest defines it
    minimum: int | None = None

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]

    @property
    def section(self) -> str:
        return self.path.split(".", 1)[0] if "." in self.path else ""

    def meaning(self) -> str:
        """The docs' words for it ("What it does"), or the section's for a section."""
        found = field_help(self.path)
        return found.what if found is not None else ""


def _by_tier(key: str) -> str:
    return "by tier: " + ", ".join(f"{tier} {_shown(TIER_DEFAULTS[tier][key])}" for tier in TIERS)


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


POLICY = ("allow", "deny")
FIELDS: tuple[Field, ...] = (
    Field("name", ("string",), default="the folder's name", formats=ALL),
    Field("version", ("string",), default="none: required (MAJOR.MINOR.PATCH)", formats=ALL),
    Field("responsibility", ("string",), default="none: required", formats=ALL),
    Field("description", ("string",), formats=ALL),
    Field("excludes", ("array",), default="none: required (at least one item)", formats=ALL),
    Field("tier", ("string",), TIERS, default="none: required in v2.2 and v2.5 (decision when absent)"),
    Field("schema_strictness", ("string",), STRICTNESS, default=_by_tier("schema_strictness")),
    Field("context", ("string", "object"), ("fork", "main"), default="main", formats=ALL),
    Field("policies", ("object",)),
    Field("policies.network", ("string",), POLICY, default="deny"),
    Field("policies.filesystem_write", ("string",), POLICY, default="deny"),
    Field("policies.side_effects", ("string",), POLICY, default="deny"),
    Field("policies.code_execution", ("string",), POLICY, default="deny"),
    Field("policies.network_allowed", ("boolean",), default="false", formats=(V25,)),
    Field("policies.tools_allowed", ("boolean",), default="false", formats=(V25,)),
    Field("tools", ("object",)),
    Field("tools.policy", ("string",), ("deny_by_default", "allow_by_default"), default="deny_by_default"),
    Field("tools.allowed", ("array",), default="[]"),
    Field("tools.denied", ("array",), default="[]"),
    Field("overflow", ("object",)),
    Field("overflow.enabled", ("boolean",), (True, False), default=_by_tier("overflow.enabled")),
    Field("overflow.max_items", ("integer",), default=_by_tier("overflow.max_items"), minimum=0),
    Field("overflow.recoverable", ("boolean",), (True, False), default="true"),
    Field("overflow.require_suggested_mapping", ("boolean",), (True, False), default="true"),
    Field("enums", ("object",)),
    Field("enums.strategy", ("string",), ENUM_STRATEGIES, default=_by_tier("enums.strategy")),
    Field("enums.unknown_tag", ("string",), default="custom"),
    Field("failure", ("object",)),
    Field("failure.contract", ("string",), ("error_union",), default="error_union"),
    Field("failure.partial_allowed", ("boolean",), (True, False), default="true"),
    Field("failure.must_return_error_schema", ("boolean",), (True, False), default="true"),
    Field("error_codes", ("object", "array"), formats=(V25,)),
    Field("io", ("object",)),
    Field("io.input", ("string",), default="./schema.json#/input"),
    Field("io.data", ("string",), default="./schema.json#/data"),
    Field("io.output", ("string",), default="the same as io.data"),
    Field("io.meta", ("string",), default="./schema.json#/meta"),
    Field("io.error", ("string",), default="./schema.json#/error"),
    Field("runtime_requirements", ("object",)),
    Field("runtime_requirements.structured_output", ("boolean",), (True, False), default="used where available"),
    Field("runtime_requirements.max_input_tokens", ("integer",), minimum=1),
    Field("runtime_requirements.preferred_capabilities", ("array",), items=KNOWN_CAPABILITIES, default="[]"),
    Field("compat", ("object",)),
    Field("compat.accepts_v21_payload", ("boolean",), (True, False), default="true"),
    Field("compat.runtime_auto_wrap", ("boolean",), (True, False), default="true"),
    Field("compat.schema_output_alias", ("string",), ("data",), default="data"),
    Field("compat.accepts_v22_payload", ("boolean",), (True, False), default="true", formats=(V25,)),
    Field("tests", ("array",), default="the files under tests/"),
    Field("response", ("object",), formats=(V25,)),
    Field("response.mode", ("string",), RESPONSE_MODES, default=_by_tier("response.mode"), formats=(V25,)),
    Field("response.chunk_type", ("string",), CHUNK_TYPES, default="delta", formats=(V25,)),
    Field("response.buffer_size", ("integer",), minimum=1, formats=(V25,)),
    Field("modalities", ("object",), formats=(V25,)),
    Field("modalities.input", ("array",), items=MODALITIES, default="[text]", formats=(V25,)),
    Field("modalities.output", ("array",), items=MODALITIES, default="[text]", formats=(V25,)),
    Field("invocation", ("object",), formats=ALL),
    Field("invocation.user_invocable", ("boolean",), (True, False), default="true", formats=ALL),
    Field("invocation.agent_invocable", ("boolean",), (True, False), default="true", formats=ALL),
    Field("constraints", ("object",), formats=(V1,)),
)
BY_PATH: dict[str, Field] = {f.path: f for f in FIELDS}
REQUIRED = {
    V1: ("name", "version", "responsibility", "excludes"),
    V22: ("name", "version", "responsibility", "excludes", "tier"),
}
REQUIRED[V25] = REQUIRED[V22]
CONSTRAINTS = tuple(sorted(KNOWN_CONSTRAINTS))


def field_at(parts: tuple[Any, ...]) -> Field | None:
    """The field a manifest path names (`("overflow", "max_items")`), or None."""
    if not parts or not all(isinstance(p, str) for p in parts[:2]):
        return None
    if parts[0] == "constraints" and len(parts) == 2:
        return BY_PATH["constraints"]
    return BY_PATH.get(".".join(str(p) for p in parts[:2])) if len(parts) <= 2 else None


def keys_of(section: str, fmt: str) -> list[Field]:
    """The fields directly inside `section` ("" for the top level) that the format defines."""
    if section == "constraints":
        return [Field(f"constraints.{c}", ("boolean",), (True, False), formats=(V1,)) for c in CONSTRAINTS]
    return [f for f in FIELDS if f.section == section and fmt in f.formats]


def known_names() -> tuple[set[str], dict[str, set[str]]]:
    """(top-level names, keys by section) as validate knows them: what FIELDS must cover."""
    return set(KNOWN_FIELDS), {section: set(keys) for section, keys in SECTION_KEYS.items()}
