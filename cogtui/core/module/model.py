"""The normalized, immutable Module: one shape whatever the source format.

Values are frozen dataclasses and tuples. Schemas and free-form manifest
sections stay plain dicts (JSON Schema tooling needs them), and are read-only
by convention: nothing in cogtui mutates a loaded Module; editing code works
on copies and reloads.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.sourcemap import SourceFile
from cogtui.core.module.tiers import ContractSettings
from cogtui.core.records import field, record


class ModuleFormat(StrEnum):
    V0 = "v0"
    V1 = "v1"
    V2_1 = "v2.1"
    V2_2 = "v2.2"
    V2_5 = "v2.5"

    @property
    def deprecated(self) -> bool:
        """v0 (M014), v1 and v2.1 (`cogn validate` notes each: migrate it); the browser marks them alike."""
        return self.value in DEPRECATED_FORMATS

    @property
    def is_v2(self) -> bool:
        return self in (ModuleFormat.V2_1, ModuleFormat.V2_2, ModuleFormat.V2_5)

    @property
    def has_envelope_contract(self) -> bool:
        """v2.2 and v2.5 separate meta from data."""
        return self in (ModuleFormat.V2_2, ModuleFormat.V2_5)

    @property
    def badge(self) -> str:
        return f"{self.value}, deprecated" if self.deprecated else self.value


DEPRECATED_FORMATS = frozenset({"v0", "v1", "v2.1"})  # the formats `cogn migrate` upgrades: v2.2 and v2.5 are current


# Sentinel for a file that exists but did not parse (None is a valid JSON value).
class _Unparsed:
    def __repr__(self) -> str:
        return "UNPARSED"

    def __bool__(self) -> bool:
        return False


UNPARSED: Any = _Unparsed()


@record
class GoldenTest:
    """One golden case: an input and the envelope it should produce."""

    name: str
    input_path: Path
    expected_path: Path | None
    input: Any = UNPARSED
    expected: Any = UNPARSED
    declared: bool = False  # listed under `tests:` in module.yaml


@record
class Example:
    """A v0/v1 example pair (examples/input.json, examples/output.json) or a v2 example."""

    name: str
    input_path: Path | None
    output_path: Path | None
    input: Any = UNPARSED
    output: Any = UNPARSED


@record
class Schemas:
    """The contract. `data` is what the file calls `data` or, failing that, `output`."""

    input: dict[str, Any] | None = None
    data: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    root: dict[str, Any] = field(default_factory=dict)  # the whole document, for $ref to root $defs
    data_key: str | None = None  # "data", "output", or None
    # Where each part came from: a JSON-pointer-like path into its file.
    locations: dict[str, tuple[Path, tuple[str | int, ...]]] = field(default_factory=dict)


@record
class ModuleFiles:
    """The files a module is made of, those it has."""

    root: Path
    manifest: Path | None = None
    prompt: Path | None = None
    schema: Path | None = None
    input_schema: Path | None = None  # v0
    output_schema: Path | None = None  # v0
    constraints: Path | None = None  # v0

    def all(self) -> tuple[Path, ...]:
        return tuple(
            p
            for p in (self.manifest, self.prompt, self.schema, self.input_schema, self.output_schema, self.constraints)
            if p is not None
        )


@record
class Module:
    """A loaded module, whatever its format: manifest fields, prompt, schemas, examples and goldens."""

    name: str
    path: Path
    format: ModuleFormat
    version: str | None
    responsibility: str | None
    contract: ContractSettings
    excludes: tuple[str, ...] = ()
    prompt: str = ""
    schemas: Schemas = field(default_factory=Schemas)
    files: ModuleFiles | None = None
    examples: tuple[Example, ...] = ()
    tests: tuple[GoldenTest, ...] = ()
    # v2 manifest sections (SPEC-v2.2 §1.4, SPEC-v2.5 §2.2), raw dicts as written.
    policies: dict[str, Any] = field(default_factory=dict)
    tools: dict[str, Any] = field(default_factory=dict)
    overflow: dict[str, Any] = field(default_factory=dict)
    enums: dict[str, Any] = field(default_factory=dict)
    failure: dict[str, Any] = field(default_factory=dict)
    runtime_requirements: dict[str, Any] = field(default_factory=dict)
    io: dict[str, Any] = field(default_factory=dict)
    compat: dict[str, Any] = field(default_factory=dict)
    tests_declared: tuple[str, ...] = ()
    response: dict[str, Any] = field(default_factory=dict)
    modalities: dict[str, Any] = field(default_factory=dict)
    error_codes: dict[str, Any] = field(default_factory=dict)
    # v0/v1 sections.
    constraints: dict[str, Any] = field(default_factory=dict)
    invocation: dict[str, Any] = field(default_factory=dict)
    context: str = "main"  # "fork" or "main", normalized from a string or an object
    manifest: dict[str, Any] = field(default_factory=dict)  # the whole manifest, unknown fields included
    sources: dict[Path, SourceFile] = field(default_factory=dict, repr=False, compare=False)
    load_diagnostics: tuple[Diagnostic, ...] = ()

    # ------------------------------------------------------------ derived

    def __hash__(self) -> int:
        """Equal modules hash alike; dicts in the fields are left out, so a Module can key a dict or a cache.

        The dataclass compares every field (value equality); hashing the identity fields only is
        consistent with it: equal modules share path, name, format and version.
        """
        return hash((self.path, self.name, self.format, self.version))

    @property
    def tier(self) -> str:
        return self.contract.tier.value

    @property
    def known_tier(self) -> str | None:
        """The tier to show: None while the manifest cannot be read (the default would be a guess, FMT-16)."""
        return self.contract.tier.value if self.contract.known else None

    @property
    def all_files(self) -> tuple[Path, ...]:
        out: list[Path] = list(self.files.all()) if self.files else []
        for t in self.tests:
            out.append(t.input_path)
            if t.expected_path is not None:
                out.append(t.expected_path)
        for e in self.examples:
            out.extend(p for p in (e.input_path, e.output_path) if p is not None)
        seen: set[Path] = set()
        return tuple(p for p in out if not (p in seen or seen.add(p)))  # type: ignore[func-returns-value]

    @property
    def input_modalities(self) -> tuple[str, ...]:
        raw = self.modalities.get("input") if isinstance(self.modalities, dict) else None
        return tuple(m for m in raw if isinstance(m, str)) if isinstance(raw, list) else ("text",)

    @property
    def declared_error_codes(self) -> frozenset[str]:
        return frozenset(str(k) for k in self.error_codes) if isinstance(self.error_codes, dict) else frozenset()

    def policy_denies(self, name: str) -> bool:
        """True when policies (v2.2 `network: deny`, v2.5 `network_allowed: false`) or v1 constraints forbid `name`."""
        pol = self.policies
        if pol.get(name) == "deny" or pol.get(f"{name}_allowed") is False:
            return True
        return self.constraints.get(f"no_{name}") is True

    def policy_allows(self, name: str) -> bool:
        """Explicitly allowed: `network: allow` or `network_allowed: true`."""
        pol = self.policies
        return pol.get(name) == "allow" or pol.get(f"{name}_allowed") is True
