"""Contract goldens: an expected file that states what the envelope must satisfy instead of spelling it out.

    {"$comment": "...", "$validate": {"ok": {"const": true}, "meta": {...}, "data": {...}}}

Each key of `$validate` holds a JSON Schema for that part of the envelope (ok,
meta, data, error, partial_data). `cogn test` judges an actual envelope by
those schemas; the replay provider answers with an instance generated to
satisfy them (run/schema_instance.contract_instance) (GOLD-1).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cogtui.core.rules.envelope_rules import dotted

if TYPE_CHECKING:
    from cogtui.core.module.model import Module

PARTS = ("ok", "meta", "data", "error", "partial_data")


def is_contract(expected: Any) -> bool:
    return isinstance(expected, dict) and isinstance(expected.get("$validate"), dict)


def contract_parts(expected: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in expected["$validate"].items() if k in PARTS}


def unknown_parts(expected: dict[str, Any]) -> list[str]:
    return [str(k) for k in expected["$validate"] if k not in PARTS]


class _Contract:
    """A `$validate` schema compiled with the module's draft."""

    def __init__(self, module: Module, schema: Any) -> None:
        from cogtui.core.module.schema_engine import compile_schema, draft_of

        self.compiled = compile_schema(schema, draft=draft_of(module.schemas.root))

    def iter_errors(self, instance: Any) -> list[Any]:
        return list(self.compiled.errors(instance))

    def is_valid(self, instance: Any) -> bool:
        return not self.compiled.errors(instance)


def validator(module: Module, schema: Any) -> _Contract:
    return _Contract(module, schema)


def schema_problems(module: Module, expected: dict[str, Any]) -> Iterator[tuple[str, tuple[str | int, ...], str]]:
    """(part, path inside the schema, message) for every `$validate` schema that is not valid JSON Schema."""
    from cogtui.core.module.schema_engine import draft_of, metaschema_errors

    draft = draft_of(module.schemas.root)
    for part, schema in contract_parts(expected).items():
        if not isinstance(schema, (dict, bool)):
            yield part, (), f"$validate.{part} must be a JSON Schema (an object or a boolean)"
            continue
        for err in metaschema_errors(schema, draft):
            yield part, tuple(err.path), f"{dotted(('$validate', part, *err.path))}: {err.message}"


def judge(module: Module, expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Why `actual` does not satisfy the contract (empty when it does)."""
    reasons: list[str] = []
    for part, schema in contract_parts(expected).items():
        if part not in actual and part != "ok":
            want_absent = schema is False
            if not want_absent:
                reasons.append(f"{part} is missing, the contract golden gives a schema for it")
            continue
        try:
            errors = list(validator(module, schema).iter_errors(actual.get(part)))
        except Exception as exc:  # noqa: BLE001 - a broken schema in a test file is a failed case, not a crash
            reasons.append(f"$validate.{part} cannot be used: {type(exc).__name__}")
            continue
        for err in errors[:10]:
            where = dotted((part, *err.path))
            reasons.append(f"{where} does not satisfy $validate.{part}: {short_message(err)}")
    return reasons


def short_message(err: Any) -> str:
    """A schema error without a dump of the instance: the keyword that failed, and a short excerpt."""
    from cogtui.core.module.schema_types import excerpt

    rule = err.keyword
    if rule == "required":
        return f"missing required {err.missing or 'property'}"
    if rule in ("type", "enum", "const", "minimum", "maximum", "maxLength", "minLength", "maxItems", "minItems"):
        return f"{rule} {excerpt(err.expected, 60)} (found {excerpt(err.instance, 40)})"
    return f"{rule} failed (found {excerpt(err.instance, 40)})"
