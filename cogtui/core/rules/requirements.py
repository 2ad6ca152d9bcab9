"""runtime_requirements against a provider's capability declaration (`cogn capabilities`): one rule for
`cogn validate` (M021, with the chosen or default provider), the details pane and the run (RUN-4).

`structured_output: true` requires structured output: a provider without it, a schema it cannot take,
or an endpoint that refuses it fails the run with E4007. Absent, it is used where the provider has it
and the run falls back to the prompt contract otherwise; `false` turns it off (prompt only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from cogtui.core.module.model import Module

if TYPE_CHECKING:
    from cogtui.core.module.response_schema import ResponseSchema

Requirement = Literal["required", "preferred", "off"]
Finding = tuple[str, tuple[str | int, ...]]  # (message, manifest path)
ProviderCaps = tuple[str, dict[str, Any]]  # (provider name, its capability declaration)
FIELD = ("runtime_requirements", "structured_output")


def structured_requirement(module: Module) -> Requirement:
    value = module.runtime_requirements.get("structured_output")
    return "required" if value is True else "off" if value is False else "preferred"


def structured_format(capabilities: dict[str, Any]) -> str | None:
    """The provider's way of taking a response schema: json_schema, output_config, replay; None without one."""
    caps = capabilities.get("capabilities") if isinstance(capabilities, dict) else None
    if not isinstance(caps, dict) or caps.get("structured_output") is not True:
        return None
    fmt = caps.get("structured_output_format")
    return fmt if isinstance(fmt, str) else None


def schema_for(module: Module, fmt: str | None) -> ResponseSchema | None:
    """The converted answer schema for a provider format (None for replay or no format)."""
    if fmt is None or fmt == "replay":  # replay answers from goldens: nothing to convert (no converter import)
        return None
    from cogtui.core.module.response_schema import DIALECTS, response_schema

    for dialect in DIALECTS:
        if fmt == dialect:
            return response_schema(module, dialect)
    return None


def missing_capabilities(module: Module, capabilities: dict[str, Any]) -> list[str]:
    caps = capabilities.get("capabilities") if isinstance(capabilities, dict) else None
    features = {str(f) for f in (caps.get("features") or ())} if isinstance(caps, dict) else set()
    preferred = module.runtime_requirements.get("preferred_capabilities")
    return [str(p) for p in preferred if str(p) not in features] if isinstance(preferred, list) else []


def requirement_findings(module: Module, capabilities: dict[str, Any], provider: str) -> list[Finding]:
    """What the provider cannot do of what the manifest's runtime_requirements ask, located in the manifest."""
    out: list[Finding] = []
    need = structured_requirement(module)
    fmt = structured_format(capabilities)
    if need != "off":
        if fmt is None and need == "required":
            out.append(
                (
                    f"runtime_requirements.structured_output: provider {provider} has no structured output; "
                    "runs of this module fail with E4007 on it",
                    FIELD,
                )
            )
        converted = schema_for(module, fmt)
        if converted is not None and converted.schema is None:
            then = "runs fail with E4007" if need == "required" else "runs use the prompt contract only"
            out.append(
                (
                    f"runtime_requirements.structured_output: the data schema cannot be sent to provider {provider} "
                    f"as {fmt} ({converted.reason}); {then}",
                    FIELD,
                )
            )
        elif converted is not None and converted.dropped and need == "required":
            out.append(
                (
                    f"runtime_requirements.structured_output: provider {provider} ({fmt}) cannot enforce "
                    f"{', '.join(converted.dropped_keywords)}; the answer is checked against them afterwards",
                    FIELD,
                )
            )
    missing = missing_capabilities(module, capabilities)
    if missing:
        out.append(
            (
                f"runtime_requirements.preferred_capabilities: provider {provider} lacks {', '.join(missing)}",
                ("runtime_requirements", "preferred_capabilities"),
            )
        )
    return out
