"""How a schema breaks its draft's metaschema, said as what the author wrote wrong (CODE-8).

The metaschema's own errors describe the metaschema: `"strng" is not valid
under any of the schemas listed in the 'anyOf' keyword`. Here each error is
read from the author's side. The path inside the author's schema says which
keyword's value is wrong (`properties.name.type`, `required`, `items[0]`),
and a sentence says what that keyword takes and what was written instead:
`"strng" is not a JSON Schema type; did you mean "string"? …`, `must be a
list of property names, not "id" (write ["id"])`, `must be a schema …, not
"string"; did you mean {"type": "string"}?`.

The sentence is made from the error's path, the failing value and the
keyword the metaschema checked (type, minimum, minItems, uniqueItems, enum,
anyOf, required), which both engines report alike, so the Rust engine and
the pure-Python fallback say the same thing.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.module.schema_types import DRAFT4, DRAFT2020, PathT, SchemaError, excerpt

TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
_TYPE_ALIASES = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "dict": "object",
    "map": "object",
    "none": "null",
    "nil": "null",
}
_TYPE_WORDS = {
    "array": "a list",
    "boolean": "true or false",
    "integer": "a whole number",
    "null": "null",
    "number": "a number",
    "object": "an object",
    "string": "a string",
}

# What a keyword's value is: a schema, a map of names to schemas, a list of schemas, or a plain value.
_SCHEMA = frozenset(
    [
        *("additionalProperties", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames"),
        *("unevaluatedProperties", "unevaluatedItems", "contentSchema"),
    ]
)
_SCHEMA_MAP = frozenset(["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"])
_SCHEMA_LIST = frozenset(["allOf", "anyOf", "oneOf", "prefixItems"])
_COUNTS = frozenset(
    ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"]
)
_NUMBERS = frozenset(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"])
_STRINGS = frozenset(
    [
        *("pattern", "format", "title", "description", "$comment", "$id", "$schema", "$anchor", "$dynamicAnchor"),
        *("$ref", "$dynamicRef", "$recursiveRef", "contentMediaType", "contentEncoding", "id"),
    ]
)
_BOOLEANS = frozenset(["uniqueItems", "readOnly", "writeOnly", "deprecated", "$recursiveAnchor"])


def in_authors_words(errors: list[SchemaError], draft: str) -> list[SchemaError]:
    """The metaschema's errors with the author's sentence as their message, one per place and sentence (the
    2020-12 metaschema reports a wrong value once per vocabulary that checks it)."""
    out: list[SchemaError] = []
    seen: set[tuple[PathT, str]] = set()
    for err in errors:
        sentence = describe(err, draft)
        if (err.path, sentence) in seen:
            continue
        seen.add((err.path, sentence))
        out.append(
            SchemaError(
                err.path,
                err.schema_path,
                err.keyword,
                sentence,
                err.missing,
                err.expected,
                err.instance,
                err.runaway,
                err.branches,
            )
        )
    return out


def describe(err: SchemaError, draft: str) -> str:
    """One metaschema error as a sentence about the value at its path (the caller names the path)."""
    keyword, role, depth = _role(err.path)
    value = err.instance
    if err.keyword == "required" and err.missing is not None:
        return _missing_companion(err.missing, value)
    if role == "schema":
        return _not_a_schema(value, draft)
    if role == "schema-map":
        return f"must be an object that maps each name to its schema, not {_shown(value)}"
    if role == "schema-list":
        if err.keyword == "minItems":
            return "must list at least one schema"
        return f"must be a list of schemas, not {_shown(value)}"
    if role == "items":
        inner = _deeper(err)
        if inner is not None:  # a list of schemas with one that is wrong: say what is wrong in it
            return f"{place(inner.path[len(err.path) :])}: {describe(inner, draft)}"
        if draft == DRAFT2020 and isinstance(value, list):
            return f"{_not_a_schema(value, draft)}; a list of schemas is written prefixItems in 2020-12"
        return _not_a_schema(value, draft, " or a list of schemas" if draft != DRAFT2020 else "")
    if keyword in ("dependencies", "dependentRequired"):
        return _dependency(keyword, err, value, depth)
    if keyword == "type":
        return _type_value(value, depth > 0)
    if keyword == "required":
        return _name_list(err, value, depth > 0)
    if keyword == "enum":
        return _enum(err, value)
    if keyword in _COUNTS:
        return _count(err, value)
    if keyword in _NUMBERS:
        return _number(keyword, err, value, draft)
    if keyword in _STRINGS:
        return f"must be a string, not {_shown(value)}"
    if keyword in _BOOLEANS:
        return _boolean(value)
    if keyword == "examples":
        return f"must be a list of example values, not {_shown(value)}"
    return _generic(err, value)


def _role(path: PathT) -> tuple[str, str, int]:
    """(the keyword whose value the path is in, what the value at the path must be, how deep in that keyword's
    value the path goes): `("properties", "a")` is a schema of properties, `("required", 0)` an item of required
    (depth 1), `("items",)` items itself (a schema or, before 2020-12, a list of schemas)."""
    role, keyword, depth = "schema", "", 0
    for part in path:
        if role == "schema":
            keyword, depth = str(part), 0
            if keyword in _SCHEMA:
                role = "schema"
            elif keyword in _SCHEMA_MAP:
                role = "schema-map"
            elif keyword in _SCHEMA_LIST:
                role = "schema-list"
            else:
                role = "items" if keyword == "items" else "value"
        elif role in ("schema-map", "schema-list") or (role == "items" and isinstance(part, int)):
            role = "schema"
        else:
            depth += 1
    return keyword, role, depth


def _deeper(err: SchemaError) -> SchemaError | None:
    """The error found deepest inside an anyOf's branches, when it is below the anyOf's own place."""
    best: SchemaError | None = None
    for branch in err.branches:
        for inner in branch:
            found = _deeper(inner) or inner
            if len(found.path) > len(err.path) and (best is None or len(found.path) > len(best.path)):
                best = found
    return best


def place(path: PathT) -> str:
    """A path in a schema as messages write it: `properties.tags[0]`, `[0].type` below a keyword, `the root`."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".") or "the root"


def _not_a_schema(value: Any, draft: str, either: str = "") -> str:
    what = 'an object such as {"type": "string"}' + (", or true or false" if draft != DRAFT4 else "")
    sentence = f"must be a schema ({what}){either}, not {_shown(value)}"
    if isinstance(value, str) and _nearest_type(value):
        sentence += f'; did you mean {{"type": "{_nearest_type(value)}"}}?'
    return sentence


def _type_value(value: Any, inside: bool) -> str:
    names = ", ".join(TYPES[:-1]) + f" and {TYPES[-1]}"
    if isinstance(value, str):
        nearest = _nearest_type(value)
        guess = f'; did you mean "{nearest}"?' if nearest else ""
        return f"{_shown(value)} is not a JSON Schema type{guess} (the types are {names})"
    if isinstance(value, list) and not inside:
        if not value:
            return f"must name at least one type (the types are {names})"
        unknown = [v for v in value if not (isinstance(v, str) and v in TYPES)]
        if unknown:
            return "; ".join(_type_value(v, True) for v in unknown[:3])
        twice = _repeated(value)
        if twice is not None:
            return f"lists {_shown(twice)} more than once"
    return f'must be a type name such as "string", or a list of them, not {_shown(value)} (the types are {names})'


def _nearest_type(name: str) -> str | None:
    lowered = name.strip().lower()
    if lowered in TYPES:
        return lowered
    if lowered in _TYPE_ALIASES:
        return _TYPE_ALIASES[lowered]
    import difflib  # only when a schema names an unknown type

    close = difflib.get_close_matches(lowered, TYPES, n=1, cutoff=0.6)
    return close[0] if close else None


def _name_list(err: SchemaError, value: Any, inside: bool) -> str:
    if inside:
        return f"must be a property name (a string), not {_shown(value)}"
    if err.keyword == "uniqueItems":
        return f"lists {_shown(_repeated(value))} more than once"
    if err.keyword == "minItems":
        return "must list at least one property name (or be left out)"
    if isinstance(value, str):
        return f"must be a list of property names, not the single name {_shown(value)} (write [{_shown(value)}])"
    return f"must be a list of property names, not {_shown(value)}"


def _enum(err: SchemaError, value: Any) -> str:
    if err.keyword == "uniqueItems":
        return f"lists {_shown(_repeated(value))} more than once"
    if err.keyword == "minItems":
        return "must list at least one allowed value"
    return f"must be a list of the allowed values, not {_shown(value)} (write [{_shown(value)}])"


def _count(err: SchemaError, value: Any) -> str:
    if err.keyword == "minimum":
        return f"must be 0 or more, not {_shown(value)}"
    return f"must be a whole number, 0 or more, not {_shown(value)}{_unquote(value, int)}"


def _number(keyword: str, err: SchemaError, value: Any, draft: str) -> str:
    if draft == DRAFT4 and keyword in ("exclusiveMinimum", "exclusiveMaximum"):
        bound = "minimum" if keyword == "exclusiveMinimum" else "maximum"
        return (
            f"must be true or false in Draft 04 (whether {bound} itself is excluded), not {_shown(value)}; "
            "a number here needs Draft 06 or later"
        )
    if err.keyword in ("exclusiveMinimum", "minimum") and keyword == "multipleOf":
        return f"must be a number greater than 0, not {_shown(value)}"
    if isinstance(value, bool) and keyword in ("exclusiveMinimum", "exclusiveMaximum"):
        return f"must be a number (the excluded bound itself), not {_shown(value)}; true or false is Draft 04's form"
    return f"must be a number, not {_shown(value)}{_unquote(value, float)}"


def _boolean(value: Any) -> str:
    hint = " (without quotes)" if isinstance(value, str) and value.strip().lower() in ("true", "false") else ""
    return f"must be true or false{hint}, not {_shown(value)}"


def _dependency(keyword: str, err: SchemaError, value: Any, depth: int) -> str:
    """dependencies (a schema or a list of names per property) and dependentRequired (a list of names)."""
    if depth == 0:
        what = "a schema or a list of property names" if keyword == "dependencies" else "a list of property names"
        return f"must be an object that maps each property name to {what}, not {_shown(value)}"
    if depth >= 2:
        return f"must be a property name (a string), not {_shown(value)}"
    if err.keyword == "uniqueItems":
        return f"lists {_shown(_repeated(value))} more than once"
    if keyword == "dependencies":
        return f"must be a schema or a list of property names, not {_shown(value)}"
    return f"must be a list of property names, not {_shown(value)}"


def _missing_companion(missing: str, value: Any) -> str:
    uses = {"minimum": "exclusiveMinimum", "maximum": "exclusiveMaximum"}.get(missing)
    if uses and isinstance(value, dict) and uses in value:
        return f"{uses} needs {missing} beside it in Draft 04"
    return f"needs {missing} beside the keywords it has"


def _generic(err: SchemaError, value: Any) -> str:
    """A keyword this module has no sentence for: what the metaschema checked, in words."""
    expected = err.expected
    if err.keyword == "type":
        kinds = [expected] if isinstance(expected, str) else list(expected or ())
        return f"must be {' or '.join(_TYPE_WORDS.get(str(k), str(k)) for k in kinds)}, not {_shown(value)}"
    if err.keyword == "minimum":
        return f"must be {expected} or more, not {_shown(value)}"
    if err.keyword == "exclusiveMinimum":
        return f"must be more than {expected}, not {_shown(value)}"
    if err.keyword == "minItems":
        return "must not be empty"
    if err.keyword == "uniqueItems":
        return f"lists {_shown(_repeated(value))} more than once"
    if err.keyword == "enum" and isinstance(expected, list):
        return f"must be one of {', '.join(map(_shown, expected))}, not {_shown(value)}"
    return err.message


def _repeated(values: Any) -> Any:
    seen: list[Any] = []
    for value in values if isinstance(values, list) else ():
        if value in seen:
            return value
        seen.append(value)
    return None


def _unquote(value: Any, kind: type) -> str:
    """` (write 3, without quotes)` for a number written as a string."""
    if not isinstance(value, str):
        return ""
    try:
        kind(value.strip())
    except ValueError:
        return ""
    return f" (write {value.strip()}, without quotes)" if value.strip() else ""


def _shown(value: Any) -> str:
    return excerpt(value)


def pattern_problem(pattern: str) -> str:
    """Why `pattern`, which the engine could not compile, is not a regular expression: the reason Python's `re`
    gives, in words, when it is one that ECMA-262 shares (an unclosed group or class, a stray `)`, a repetition of
    nothing, a range that runs backwards); otherwise no reason. Both engines refuse a pattern in these words."""
    import re

    reason = ""
    try:
        re.compile(pattern)
    except re.error as exc:
        at = (exc.pos or 0) + 1
        char = pattern[at - 1] if 0 < at <= len(pattern) else ""
        for start, words in _REGEX_REASONS:
            if exc.msg.startswith(start):
                reason = ": " + words.format(at=at, char=char, rest=exc.msg[len(start) :].strip())
                break
    except (RecursionError, OverflowError, ValueError):
        pass
    return f"{excerpt(pattern)} is not a valid regular expression{reason}"


_REGEX_REASONS = (
    ("missing ), unterminated subpattern", "the ( at character {at} is never closed"),
    ("unterminated character set", "the [ at character {at} is never closed"),
    ("unbalanced parenthesis", "the ) at character {at} closes nothing"),
    ("nothing to repeat", "the {char} at character {at} has nothing before it to repeat"),
    ("multiple repeat", "two repetitions in a row at character {at}"),
    ("bad escape (end of pattern)", "it ends with a lone backslash"),
    ("min repeat greater than max repeat", "the repetition at character {at} has its minimum above its maximum"),
    ("bad character range", "the range {rest} at character {at} runs backwards"),
)
