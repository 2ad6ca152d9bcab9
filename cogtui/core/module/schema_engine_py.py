"""The pure-Python fallback behind `schema_engine`: `jsonschema` with `referencing`.

Used only when `jsonschema-rs` is not installed or `COGTUI_SCHEMA_ENGINE=jsonschema`.
Python's `re` cannot be bounded in time, so a pattern that could backtrack
catastrophically (regex_safety.py) is refused as unusable instead of run,
and a pattern `re` cannot compile is refused with its place in the schema.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from cogtui.core.module.regex_safety import backtracking_hazard
from cogtui.core.module.schema_types import (
    DRAFT4,
    DRAFT6,
    DRAFT7,
    DRAFT2019,
    DRAFT2020,
    DRAFT_URIS,
    CompiledSchema,
    Retrieve,
    SchemaError,
    SchemaUnusable,
    iter_patterns,
    shorten,
)


def _validator_class(draft: str) -> Any:
    import jsonschema

    return {
        DRAFT4: jsonschema.Draft4Validator,
        DRAFT6: jsonschema.Draft6Validator,
        DRAFT7: jsonschema.Draft7Validator,
        DRAFT2019: jsonschema.Draft201909Validator,
        DRAFT2020: jsonschema.Draft202012Validator,
    }[draft]


class _PythonSchema:
    def __init__(self, schema: Any, draft: str, retrieve: Retrieve | None) -> None:
        import referencing
        import referencing.exceptions
        import referencing.jsonschema

        self._refused: SchemaUnusable | None = None
        spec = referencing.jsonschema.specification_with(DRAFT_URIS[draft], default=referencing.jsonschema.DRAFT7)

        def fetch(uri: str) -> Any:
            if retrieve is None:
                raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]
            try:
                document = retrieve(uri)
            except Exception:  # noqa: BLE001 - any failure to supply a document is "does not resolve"
                raise referencing.exceptions.NoSuchResource(ref=uri) from None  # type: ignore[call-arg]
            try:
                _check_patterns(document)
            except SchemaUnusable as exc:  # referencing would report it as unresolvable: keep it for errors()
                self._refused = exc
                raise referencing.exceptions.NoSuchResource(ref=uri) from None  # type: ignore[call-arg]
            return spec.create_resource(document)

        _check_patterns(schema)
        registry: Any = referencing.Registry(retrieve=fetch)  # type: ignore[call-arg]
        self._validator = _validator_class(draft)(schema, registry=registry)
        self._unresolvable = referencing.exceptions.Unresolvable

    def errors(self, instance: Any) -> list[SchemaError]:
        try:
            return [_convert(e) for e in self._validator.iter_errors(instance)]
        except self._unresolvable as exc:
            if self._refused is not None:
                raise self._refused from None
            ref = str(getattr(exc, "ref", "?"))
            raise SchemaUnusable("ref", f"$ref {ref!r} does not resolve: {exc}", ref=ref) from None
        except RecursionError:
            raise SchemaUnusable("ref", "$ref '?' does not resolve: recursive $ref") from None

    def is_valid(self, instance: Any) -> bool:
        return not self.errors(instance)


def _check_patterns(schema: Any) -> None:
    for where, pattern in iter_patterns(schema):
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError) as exc:
            raise SchemaUnusable("regex", f"{pattern!r} is not a valid regular expression: {exc}", where) from None
        hazard = backtracking_hazard(pattern)
        if hazard:
            raise SchemaUnusable(
                "regex", f"{pattern!r} cannot be matched safely without jsonschema-rs: {hazard}", where
            )


def _convert(err: Any) -> SchemaError:
    missing = None
    keyword = str(err.validator)
    have = err.instance if isinstance(err.instance, dict) else {}
    if keyword == "required" and isinstance(err.validator_value, list):
        missing = next((str(k) for k in err.validator_value if k not in have), None)
    elif keyword in ("dependencies", "dependentRequired") and " is a dependency of " in err.message:
        # Like the Rust engine: a missing dependency is a `required` error naming the property.
        keyword = "required"
        deps = err.validator_value if isinstance(err.validator_value, dict) else {}
        names = [str(d) for k, v in deps.items() if k in have and isinstance(v, list) for d in v if d not in have]
        missing = names[0] if names else None
    branches: dict[int, list[SchemaError]] = {}
    if keyword in ("anyOf", "oneOf"):
        for sub in err.context or ():  # each sub-error's schema path starts with its branch's index
            branches.setdefault(int(sub.relative_schema_path[0]), []).append(_convert(sub))
    return SchemaError(
        tuple(err.absolute_path),
        tuple(err.relative_schema_path),
        keyword,
        shorten(err.message, err.instance),
        missing,
        err.validator_value,
        err.instance,
        branches=tuple(tuple(branches[i]) for i in sorted(branches)),
    )


def compile_python(schema: Any, draft: str, retrieve: Retrieve | None) -> CompiledSchema:
    return _PythonSchema(schema, draft, retrieve)


class _Metaschema:
    def __init__(self, draft: str) -> None:
        cls = _validator_class(draft)
        self._validator = cls(cls.META_SCHEMA)  # the official registry resolves the vocabularies

    def errors(self, instance: Any) -> list[SchemaError]:
        return [_convert(e) for e in self._validator.iter_errors(instance)]

    def is_valid(self, instance: Any) -> bool:
        return bool(self._validator.is_valid(instance))


@cache
def python_metaschema(draft: str) -> CompiledSchema:
    return _Metaschema(draft)
