"""`--args` as an input property (module-format-v1): an input schema may declare a property named `$ARGUMENTS`.

SPEC-v0.1 substitutes `--args` into the prompt's `$ARGUMENTS` placeholders
(run/prompt.py); module-format-v1 also lets the input schema declare
`"$ARGUMENTS": {"type": "string"}`, which is filled from `--args` when the
input does not already give it (CLI-1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogtui.core.files.json_pointer import deref

if TYPE_CHECKING:
    from cogtui.core.module.model import Module

ARGUMENTS = "$ARGUMENTS"


def declares_arguments(module: Module) -> bool:
    schema = deref(module.schemas.input, module.schemas.root) if module.schemas.input is not None else None
    props = schema.get("properties") if isinstance(schema, dict) else None
    return isinstance(props, dict) and ARGUMENTS in props


def fill_arguments(module: Module, input_value: Any, args: str | None) -> Any:
    """The input with `$ARGUMENTS` set from `args`, when the schema declares it and the input does not give it."""
    if args is None or not declares_arguments(module):
        return input_value
    if input_value is None:
        input_value = {}
    if not isinstance(input_value, dict) or ARGUMENTS in input_value:
        return input_value
    return {**input_value, ARGUMENTS: args}
