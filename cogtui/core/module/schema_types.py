"""The JSON Schema interface's shared vocabulary: drafts, `SchemaError`, `SchemaUnusable`, `CompiledSchema`.

Both engines behind `schema_engine` (jsonschema-rs, and the pure-Python
fallback in `schema_engine_py`) build on these, and callers import them
through `schema_engine`; having them here lets the engine import its fallback
plainly, with no cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from cogtui.core.files.terminal_text import terminal_json
from cogtui.core.records import record

PathT = tuple[str | int, ...]

DRAFT4, DRAFT6, DRAFT7, DRAFT2019, DRAFT2020 = "draft-04", "draft-06", "draft-07", "2019-09", "2020-12"
DEFAULT_DRAFT = DRAFT7
DRAFT_URIS: dict[str, str] = {
    DRAFT4: "http://json-schema.org/draft-04/schema#",
    DRAFT6: "http://json-schema.org/draft-06/schema#",
    DRAFT7: "http://json-schema.org/draft-07/schema#",
    DRAFT2019: "https://json-schema.org/draft/2019-09/schema",
    DRAFT2020: "https://json-schema.org/draft/2020-12/schema",
}
_BY_URI = {uri.rstrip("#").replace("https://", "http://"): name for name, uri in DRAFT_URIS.items()}

# Steps a backtracking pattern may take on one value before it counts as not matching.
BACKTRACK_LIMIT = 100_000
MESSAGE_LIMIT = 200


def draft_of(root: Any) -> str:
    """The draft a schema document declares in `$schema`; Draft-07 when it names none."""
    uri = root.get("$schema") if isinstance(root, dict) else None
    if isinstance(uri, str):
        return _BY_URI.get(uri.strip().rstrip("#").replace("https://", "http://"), DEFAULT_DRAFT)
    return DEFAULT_DRAFT


def draft_label(draft: str) -> str:
    return "Draft " + draft.removeprefix("draft-")


def with_known_draft(document: Any, draft: str) -> Any:
    """The document with a `$schema` that is not a JSON Schema draft (a Cognitive Modules URL) set to `draft`."""
    if isinstance(document, dict) and "$schema" in document:
        uri = document["$schema"]
        if not isinstance(uri, str) or uri.strip().rstrip("#").replace("https://", "http://") not in _BY_URI:
            return {**document, "$schema": DRAFT_URIS[draft]}
    return document


@record
class SchemaError:
    """One reason an instance does not satisfy a schema."""

    path: PathT  # where in the instance
    schema_path: PathT  # the keyword's place in the schema
    keyword: str  # "required", "type", "pattern", ...
    message: str  # short: long values are cut to an excerpt
    missing: str | None = None  # `required`: the property that is missing
    expected: Any = None  # the keyword's value (`type`: the expected types)
    instance: Any = None  # the value that failed
    runaway: bool = False  # a pattern stopped at its backtracking budget
    # oneOf/anyOf: why each branch failed, in branch order (the strict-enum rule reads it, ENV-9)
    branches: tuple[tuple[SchemaError, ...], ...] = ()


class SchemaUnusable(Exception):
    """The schema itself cannot be used: an unresolvable `$ref`, an invalid or unsafe pattern."""

    def __init__(self, kind: str, detail: str, schema_path: PathT = (), ref: str = "?") -> None:
        super().__init__(detail)
        self.kind = kind  # "ref" | "regex" | "schema" (not a valid JSON Schema)
        self.detail = detail
        self.schema_path = schema_path
        self.ref = ref


class CompiledSchema(Protocol):
    def errors(self, instance: Any) -> list[SchemaError]: ...
    def is_valid(self, instance: Any) -> bool: ...


Retrieve = Callable[[str], Any]


def excerpt(value: Any, limit: int = 60) -> str:
    """A value as compact JSON, cut to `limit` characters with an ellipsis: messages never dump a whole document.
    A value JSON has no form for (a YAML date) is written as text; one too deep to write, as its type's name.

    The one way a message quotes a value, model output above all (CODE-11): `"abc"`, `{"k":1}`, `true`, `null`,
    never Python's repr. A long string is cut inside its quotes (`"abc…"`). Characters a terminal would act on
    are `\\uXXXX` escapes (terminal_json: C0 controls as JSON writes them, C1, bidi, lone surrogates), so the
    quote is safe on a terminal and in JSON output and still reads as the same value."""
    text = _compact_json(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        keep = limit - 3
        while keep > 0:  # escapes make a quote longer than its text: shorten until it fits
            cut = _compact_json(value[:keep] + "…")
            if len(cut) <= limit:
                return cut
            keep -= max(len(cut) - limit, 1)
        return '"…"'
    return text[: max(limit - 1, 0)] + "…"


def _compact_json(value: Any) -> str:
    try:
        return terminal_json(value, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__


def unexpected_properties(keyword: str, names: Iterable[Any]) -> str:
    """The message for properties that `additionalProperties` or `unevaluatedProperties` refuse, each name quoted
    as JSON: the engine quotes them Python-style ('it's' included), which a JSON author misreads."""
    shown = [excerpt(str(name)) for name in names]
    listed = ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")
    what = "Unevaluated" if keyword == "unevaluatedProperties" else "Additional"
    return f"{what} properties are not allowed ({listed} {'was' if len(shown) == 1 else 'were'} unexpected)"


def shorten(message: str, instance: Any) -> str:
    """The engine's message with its leading copy of the instance replaced by an excerpt."""
    if len(message) <= MESSAGE_LIMIT:
        return message
    full = excerpt(instance, limit=10**9)
    if message.startswith(full):
        return excerpt(instance) + message[len(full) :][:MESSAGE_LIMIT]
    return message[: MESSAGE_LIMIT - 1] + "…"


def iter_patterns(schema: Any, at: PathT = ()) -> Iterable[tuple[PathT, str]]:
    """Every `pattern` and `patternProperties` key in a schema document, with its path."""
    if isinstance(schema, dict):  # only containers are walked into: a call per leaf was most of the walk's time
        for key, value in schema.items():
            if key == "pattern" and isinstance(value, str):
                yield (*at, key), value
            elif key == "patternProperties" and isinstance(value, dict):
                for name, sub in value.items():
                    yield (*at, key, name), name
                    if isinstance(sub, (dict, list)):
                        yield from iter_patterns(sub, (*at, key, name))
            elif key not in ("const", "enum", "examples", "default") and isinstance(value, (dict, list)):
                yield from iter_patterns(value, (*at, key))
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            if isinstance(value, (dict, list)):
                yield from iter_patterns(value, (*at, i))
