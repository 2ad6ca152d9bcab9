"""Pipeline step 1: the input against the module's input schema and `runtime_requirements.max_input_tokens`."""

from __future__ import annotations

from typing import Any

from cogtui.core.module.model import Module
from cogtui.core.module.schemas import RefError, schemas_for
from cogtui.core.rules.document_checker import input_violation
from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.prompt import estimate_tokens, input_text


def input_failure(module: Module, value: Any, args: str | None) -> dict[str, Any] | None:
    """The failure envelope for an input the module cannot take, or None."""
    if module.schemas.input is not None:
        try:
            errors = list(schemas_for(module).iter_errors("input", value))
        except RefError as exc:  # the schema is at fault, not the input (FMT-3)
            return failure(
                "E1006",
                f"the input schema of {module.name} cannot be used: {exc}",
                suggestion=f"Fix the input schema, not the input: `cogn validate {module.name}` locates the problem.",
            )
        if errors:
            violations = [input_violation(e) for e in errors]
            first = violations[0]
            return failure(
                first.code,
                f"invalid input: {first.message}",
                details={"violations": [v.to_json() for v in violations[:20]]},
            )
    limit = module.runtime_requirements.get("max_input_tokens")
    if isinstance(limit, int) and not isinstance(limit, bool):
        # The text the prompt carries: attached media count as their placeholder, not their base64 (RUN-17).
        tokens = estimate_tokens(input_text(value) + (args or ""))
        if tokens > limit:
            return failure(
                "E1005",
                f"the input is about {tokens} tokens, over max_input_tokens {limit}",
                details={"estimated_tokens": tokens, "max_input_tokens": limit},
            )
    return None
