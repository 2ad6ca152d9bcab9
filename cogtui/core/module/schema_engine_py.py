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
    excerpt,
    iter_patterns,
    shorten,
    unexpected_properties,
)
from cogtui.core.module.schema_words import pattern_problem


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
        except (re.error, RecursionError, OverflowError):
            raise SchemaUnusable("regex", pattern_problem(pattern), where) from None
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
        # One error per missing property, its message `'name' is a required property`: the one it names.
        absent = [k for k in err.validator_value if k not in have]
        missing = next((str(k) for k in absent if err.message == f"{k!r} is a required property"), None)
        missing = missing if missing is not None or not absent else str(absent[0])
    elif keyword in ("dependencies", "dependentRequired") and " is a dependency of " in err.message:
        # Like the Rust engine: a missing dependency is a `required` error naming the property.
        keyword = "required"
        deps = err.validator_value if isinstance(err.validator_value, dict) else {}
        names = [str(d) for k, v in deps.items() if k in have and isinstance(v, list) for d in v if d not in have]
        named = [n for n in names if err.message.startswith(f"{n!r} is a dependency of ")]
        missing = next(iter(named or names), None)
    branches: dict[int, list[SchemaError]] = {}
    if keyword in ("anyOf", "oneOf"):
        for sub in err.context or ():  # each sub-error's schema path starts with its branch's index
            branches.setdefault(int(sub.relative_schema_path[0]), []).append(_convert(sub))
    return SchemaError(
        tuple(err.absolute_path),
        tuple(err.relative_schema_path),
        keyword,
        shorten(_message(keyword, err, missing), err.instance),
        missing,
        err.validator_value,
        err.instance,
        branches=tuple(tuple(branches[i]) for i in sorted(branches)),
    )


# The order the Rust engine names a list of types in, so both engines say "is not of types" alike.
_TYPE_ORDER = ("null", "boolean", "integer", "number", "string", "array", "object")
_COUNTED = {  # keyword: (comparison, noun): `[1] has less than 2 items`, `"ab" is shorter than 3 characters`
    "minLength": ("is shorter than", "character"),
    "maxLength": ("is longer than", "character"),
    "minItems": ("has less than", "item"),
    "maxItems": ("has more than", "item"),
    "minProperties": ("has less than", "property"),
    "maxProperties": ("has more than", "property"),
}


def _message(keyword: str, err: Any, missing: str | None) -> str:
    """jsonschema's message in the Rust engine's words, values quoted as JSON (CODE-11): `"abc" is not of type
    "integer"`, never `'abc' is not of type 'integer'`. Keywords not listed keep jsonschema's own message."""
    value, expected = _json(err.instance), err.validator_value
    if keyword == "required" and missing is not None:
        return f"{_json(missing)} is a required property"
    if keyword == "type":
        types = [expected] if isinstance(expected, str) else list(expected) if isinstance(expected, list) else []
        if len(types) == 1:
            return f"{value} is not of type {_json(types[0])}"
        ordered = sorted(types, key=lambda t: _TYPE_ORDER.index(t) if t in _TYPE_ORDER else len(_TYPE_ORDER))
        return f"{value} is not of types {', '.join(map(_json, ordered))}"
    if keyword == "enum" and isinstance(expected, list) and expected:
        options = [_json(option) for option in expected]
        listed = options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"
        return f"{value} is not one of {listed}"
    if keyword == "const":
        return f"{_json(expected)} was expected"
    if keyword in _COUNTED and isinstance(expected, int):
        comparison, noun = _COUNTED[keyword]
        plural = noun if expected == 1 else ("properties" if noun == "property" else f"{noun}s")
        return f"{value} {comparison} {expected} {plural}"
    if keyword == "pattern":
        return f"{value} does not match {_json(expected)}"
    if keyword in ("anyOf", "oneOf"):
        many = keyword == "oneOf" and "is valid under each of" in str(err.message)
        verdict = "is valid under more than one" if many else "is not valid under any"
        return f"{value} {verdict} of the schemas listed in the '{keyword}' keyword"
    if keyword == "not":
        return f"{_json(expected)} is not allowed for {value}"
    if keyword == "uniqueItems":
        return f"{value} has non-unique elements"
    unexpected = _unexpected(str(err.message)) if keyword.endswith(("Properties", "Items")) else None
    if unexpected is not None and keyword in ("additionalProperties", "unevaluatedProperties"):
        return unexpected_properties(keyword, map(str, unexpected))
    if unexpected and keyword == "additionalItems":
        listed = ", ".join(map(_json, unexpected))
        return f"Additional items are not allowed ({listed} {'was' if len(unexpected) == 1 else 'were'} unexpected)"
    return str(err.message)


def _unexpected(message: str) -> list[Any] | None:
    """The properties or items jsonschema lists as unexpected (`... ('a', "it's" were unexpected)`, or with
    patternProperties `'a', 'b' do not match any of the regexes: '^x'`; Python reprs), in its order; None when the
    message is of neither form. Which ones are unexpected is jsonschema's finding, only their quoting changes."""
    import ast

    found = _UNEXPECTED.search(message) or _UNMATCHED.match(message)
    if found is None:
        return None
    try:
        names = ast.literal_eval(f"[{found.group(1)}]")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return names if isinstance(names, list) else None


_UNEXPECTED = re.compile(r"\((.*) (?:was|were) unexpected\)$", re.DOTALL)
_UNMATCHED = re.compile(r"(.*) (?:does|do) not match any of the regexes: ", re.DOTALL)


def _json(value: Any) -> str:
    return excerpt(value, limit=10**9)  # whole: `shorten` cuts the message's leading copy of the instance


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
