"""What a manifest asks of a run besides the answer's shape (docs/manifest-fields.md).

- `invocation.user_invocable: false`: a person may not run the module directly (E4007);
  golden tests still run it, and `@call` is governed by `agent_invocable` (subagents.py).
- `runtime_requirements.preferred_capabilities`: checked against the chosen provider's capability
  declaration (`cogn capabilities`); what it lacks is a warning. `structured_output` is structured.py's.
- `failure.partial_allowed: false`: no failure envelope carries partial_data.
- Everything the run had to say lands in `meta.warnings`, and a run that made more than one
  model call says how many in `meta.model_calls` (both kept in history with the envelope).
"""

from __future__ import annotations

from typing import Any

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.module.model import Module
from cogtui.core.rules.output_refs import unusable_output_refs
from cogtui.core.rules.requirements import missing_capabilities
from cogtui.core.run.envelope_builder import failure

# meta fields the runtime writes on every run: never the model's, never compared in golden tests.
RUNTIME_META = ("trace_id", "model", "latency_ms", "warnings", "model_calls", "structured_output")


def without_runtime_meta(envelope: dict[str, Any]) -> dict[str, Any]:
    """A copy of `envelope` whose meta leaves out RUNTIME_META: the answer as the model gave it, which is what a
    golden holds, a replay answers, a judge reads and a comparison or a diff shows."""
    out = dict(envelope)
    if isinstance(out.get("meta"), dict):
        out["meta"] = {k: v for k, v in out["meta"].items() if k not in RUNTIME_META}
    return out


USER = "user"  # a person: `cogn run`, the TUI's run screen
TEST = "test"  # a golden test: the module is being checked, not invoked
AGENT = "agent"  # a parent module's @call


def invocation_refusal(module: Module, caller: str) -> dict[str, Any] | None:
    if caller == USER and module.invocation.get("user_invocable") is False:
        return failure(
            "E4007",
            f"{module.name} is not user-invocable (invocation.user_invocable: false)",
            suggestion="Call it from another module with @call, or set invocation.user_invocable: true.",
            details={"field": "invocation.user_invocable"},
        )
    return None


def blocked_run(module: Module, blockers: list[Diagnostic]) -> dict[str, Any]:
    """The refusal of a module `cogn validate` finds unrunnable (contract_status.run_blockers): E4000, or E4007
    for a file the confined reader refused (a link out of the folder, a FIFO: a policy blocks it, SEC-1).
    Illegal manifest values are all named (RUN-2)."""
    first = blockers[0]
    manifest = [d for d in blockers if d.code.startswith("M")]
    output = next((u for u in unusable_output_refs(module) if u.diagnostic == first), None)
    suggestion = f"Run `cogn validate {module.name}` and fix the errors first."
    if manifest and manifest[0] is first:
        fields = "; ".join(d.message for d in manifest)
        why = f"module.yaml declares values it cannot honour: {fields} ({first.location})"
    elif output is not None:  # refused before the call: no answer could ever be validated (RUN-1)
        why = f"its output schema ({output.part}) cannot be used: {first.message} ({first.location})"
        suggestion = (
            f"Fix the $ref {output.ref!r} at {first.location}: until it resolves no answer can be validated, so "
            f"the model is not called. `cogn validate {module.name}` lists every problem."
        )
    else:
        why = f"{first.message} ({first.location})"
    return failure(
        "E4007" if first.code.startswith("F") else "E4000",
        f"module {module.name} cannot run: {why}",
        suggestion=suggestion,
        details={"diagnostics": [{"code": d.code, "message": d.message, "at": d.location} for d in blockers[:20]]},
    )


def run_refusal(module: Module) -> dict[str, Any] | None:
    """The error (code, message, suggestion) of any run of `module` refused before it starts, or None: what
    `cogn test` and the TUI's golden tests say once for the module instead of failing every case alike."""
    from cogtui.core.rules.contract_status import run_blockers

    blockers = run_blockers(module)
    return blocked_run(module, blockers)["error"] if blockers else None


def capability_notes(module: Module, capabilities: dict[str, Any], provider: str) -> list[str]:
    """Warnings for the preferred capabilities the provider's declaration lacks."""
    missing = missing_capabilities(module, capabilities)
    if not missing:
        return []
    return [f"runtime_requirements.preferred_capabilities: provider {provider} lacks {', '.join(missing)}"]


def apply_failure_contract(envelope: dict[str, Any], module: Module) -> list[str]:
    """`failure.partial_allowed: false` withholds partial_data from every failure; returns the warnings."""
    if envelope.get("ok") is True or module.failure.get("partial_allowed") is not False:
        return []
    if envelope.pop("partial_data", None) is None:
        return []
    return ["failure.partial_allowed is false: the partial data of this failure was withheld"]


def record_in_meta(
    envelope: dict[str, Any], warnings: list[str], model_calls: int, structured: dict[str, Any] | None = None
) -> None:
    """Runtime meta: warnings, extra model calls (ENV-15), the structured-output path taken (RUN-6)."""
    meta = envelope.setdefault("meta", {})
    if structured is not None:
        meta["structured_output"] = structured
    if warnings:
        meta["warnings"] = list(dict.fromkeys(warnings))  # once each, in order
    if model_calls > 1:
        meta["model_calls"] = model_calls
