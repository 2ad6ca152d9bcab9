"""Structured output in a run: the path taken, the fallback when an endpoint refuses it, what is recorded.

The path is `json_schema` (OpenAI-compatible `response_format`), `output_config` (Anthropic),
`replay` (the replay provider answers from the module's own goldens) or `prompt` (the contract in
the prompt only). It is decided from the provider's capability declaration and the manifest's
`runtime_requirements.structured_output` (cogtui/core/rules/requirements.py, RUN-4). An endpoint that
answers 400/422 to a request carrying the schema is asked once more without it, unless the manifest
requires structured output (E4007). The run records `meta.structured_output`:
`{"path": ..., "dropped": [keywords the provider could not enforce]}` (RUN-5).
"""

from __future__ import annotations

from typing import Any

from cogtui.core.module.model import Module
from cogtui.core.module.response_schema import DIALECTS, ResponseSchema, drop_added_nulls
from cogtui.core.records import record
from cogtui.core.rules.requirements import Requirement, schema_for, structured_format, structured_requirement
from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.providers.base import ProviderError

PROMPT = "prompt"
REFUSED_STATUS = (400, 422)
# Words of a refusal that is about the response schema (vLLM, llama.cpp, Anthropic's "output_config: ...").
SCHEMA_WORDS = ("response_format", "json_schema", "output_config", "output_format", "structured", "schema")
MAX_LISTED = 8  # dropped keywords named in a warning (all of them are in meta.structured_output.dropped)


@record(frozen=False)
class StructuredPlan:
    """How a run asks for structured output: the path taken, the schema sent, or the failure."""

    module: Module
    provider: str
    requirement: Requirement
    warnings: list[str]  # the run's own list: what the plan has to say lands in meta.warnings
    path: str = PROMPT
    converted: ResponseSchema | None = None
    failure: dict[str, Any] | None = None  # E4007: required, and not available
    refused_path: str | None = None  # the path an endpoint refused, when it did

    @classmethod
    def decide(cls, module: Module, capabilities: dict[str, Any], provider: str, warnings: list[str]) -> StructuredPlan:
        plan = cls(module, provider, structured_requirement(module), warnings)
        if plan.requirement == "off":
            return plan
        fmt = structured_format(capabilities)
        if fmt == "replay":
            plan.path = fmt
            return plan
        converted = schema_for(module, fmt)
        if converted is None:
            plan.unavailable(f"provider {provider} has no structured output")
        elif converted.schema is None:
            plan.unavailable(f"the data schema cannot be sent as {fmt}: {converted.reason}")
        else:
            plan.path, plan.converted = converted.dialect, converted
            if converted.dropped and plan.requirement == "required":  # else in meta.structured_output only
                listed = ", ".join(converted.dropped[:MAX_LISTED])
                more = f" and {len(converted.dropped) - MAX_LISTED} more" if len(converted.dropped) > MAX_LISTED else ""
                plan.warnings.append(
                    f"structured output ({plan.path}): provider {provider} cannot enforce {listed}{more}; "
                    "the answer is checked against them afterwards"
                )
        return plan

    def unavailable(self, why: str) -> None:
        """No structured output this run: a failure when required, the prompt contract (and a note) otherwise."""
        if self.requirement == "required":
            self.failure = failure(
                "E4007",
                f"runtime_requirements.structured_output is true, but {why}",
                suggestion="Choose a provider that has structured output (cogn capabilities), or set "
                "runtime_requirements.structured_output to false or remove it to allow the prompt contract.",
                details={"field": "runtime_requirements.structured_output", "provider": self.provider},
            )
        else:
            self.warnings.append(f"structured output not used: {why}; the prompt contract holds the answer")
        self.path = PROMPT

    @property
    def schema(self) -> dict[str, Any] | None:
        return self.converted.schema if self.converted is not None and self.path in DIALECTS else None

    @property
    def schema_name(self) -> str:
        return self.converted.name if self.converted is not None else "envelope"

    def refused(self, exc: ProviderError, received: bool) -> bool:
        """An endpoint's 400/422 to a request that carried the schema, before any text: it may not take it.

        When structured output is only preferred any such answer is tried once more without the schema;
        when it is required, only one whose message is about the schema is a refusal (E4007): another
        400 keeps its own code (RUN-6).
        """
        if self.schema is None or received or exc.status not in REFUSED_STATUS:
            return False
        return self.requirement != "required" or any(w in exc.message.lower() for w in SCHEMA_WORDS)

    def fall_back(self, exc: ProviderError) -> dict[str, Any] | None:
        """After a refusal: None to ask again without the schema, or the E4007 failure when it is required."""
        self.refused_path = self.path
        self.unavailable(f"provider {self.provider} refused the response schema ({exc.status}: {exc.message[:200]})")
        return self.failure

    def clean(self, answer: Any) -> Any:
        """The answer as the prompt contract would have it: without the nulls strict json_schema added."""
        return drop_added_nulls(answer, self.module) if self.path == "json_schema" else answer

    def record(self) -> dict[str, Any] | None:
        """meta.structured_output; None for replay, whose answers are the module's own (no model, no schema)."""
        if self.path == "replay":
            return None
        dropped = self.converted.dropped_keywords if self.converted is not None and self.path in DIALECTS else []
        out: dict[str, Any] = {"path": self.path, "dropped": dropped}
        if self.refused_path:
            out["refused"] = self.refused_path
        return out
