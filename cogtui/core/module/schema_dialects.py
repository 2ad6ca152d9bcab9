"""JSON Schema made provider-compatible for structured output: two dialects, what each drops (RUN-5).

A schema is converted for one of two dialects:

- `json_schema` (OpenAI `response_format`, strict): every object closed
  (`additionalProperties: false`) with every property required; a property the
  author left optional becomes nullable, and the nulls the model writes for
  them are removed again before the answer is judged (response_schema.drop_added_nulls).
- `output_config` (Anthropic structured output): every object closed; `required`
  stays as the author wrote it.

Keywords the dialect cannot enforce are dropped from the sent schema and
listed (`ResponseSchema.dropped`); the answer is still validated against the
module's own schema afterwards, so nothing is lost but the guarantee.
Annotations (`$comment`, `examples`, `default`, ...) are dropped silently. A
schema that cannot be expressed at all (an open object, an array of anything,
a `$ref` outside the document, recursion on Anthropic) gives no schema and a
reason: the run falls back to the prompt contract, or fails when the
manifest requires structured output.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from cogtui.core.records import field, record

Dialect = Literal["json_schema", "output_config"]
DIALECTS: tuple[Dialect, ...] = ("json_schema", "output_config")

ANNOTATIONS = frozenset(
    {"$comment", "$schema", "$id", "$anchor", "examples", "default", "deprecated", "readOnly", "writeOnly"}
)
# What each dialect keeps, by the type it applies to (OpenAI's "supported schemas" list; the anthropic
# SDK's own transform for output_config). Everything else is dropped and listed.
_STRING_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_KEEP: dict[Dialect, frozenset[str]] = {
    "json_schema": frozenset(
        {"pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
        | {"minItems", "maxItems"}
    ),
    "output_config": frozenset({"format", "minItems"}),
}
_FORMATS: dict[Dialect, frozenset[str]] = {"json_schema": _STRING_FORMATS, "output_config": _STRING_FORMATS | {"uri"}}
_STRUCTURAL = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "oneOf"}
    | {"allOf", "$ref", "$defs", "definitions", "description", "title"}
)
MAX_DEPTH = 40  # nesting beyond this is not a schema a provider compiles


class Inexpressible(Exception):
    """The schema cannot be sent as a strict response format; the message says why and where."""


@record
class ResponseSchema:
    """A module's data schema in a provider's structured-output dialect, or why it cannot be."""

    dialect: Dialect
    schema: dict[str, Any] | None  # None when it cannot be expressed
    dropped: tuple[str, ...] = ()  # "keyword at path", in schema order
    reason: str = ""  # why it cannot be expressed
    name: str = "envelope"  # the response_format name (OpenAI wants one)

    @property
    def dropped_keywords(self) -> list[str]:
        return sorted({d.split(" at ", 1)[0] for d in self.dropped})


@record(frozen=False)
class SchemaConverter:
    """Converts a schema into a dialect, noting every keyword it drops."""

    dialect: Dialect
    defs: dict[str, Any]
    dropped: list[str] = field(default_factory=list)
    out_defs: dict[str, Any] = field(default_factory=dict)
    active: list[str] = field(default_factory=list)  # $defs being converted (recursion)

    def node(self, schema: Any, where: str, depth: int = 0) -> dict[str, Any]:
        if depth > MAX_DEPTH:
            raise Inexpressible(f"{where} nests deeper than {MAX_DEPTH} levels")
        if schema is True or schema == {}:
            raise Inexpressible(f"{where} allows any value")
        if not isinstance(schema, dict):
            raise Inexpressible(f"{where} is not a schema")
        if "$ref" in schema:  # alone: strict formats take no keyword beside a $ref
            out: dict[str, Any] = {"$ref": self.ref(schema["$ref"], where, depth)}
            self.drop_rest(schema, where, {"$ref"})
            return out
        out = {key: schema[key] for key in ("description", "title") if isinstance(schema.get(key), str)}
        for key in ("anyOf", "oneOf", "allOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                if key == "allOf" and self.dialect == "json_schema":
                    raise Inexpressible(f"{where} uses allOf, which strict json_schema does not take")
                target = "allOf" if key == "allOf" else "anyOf"
                out[target] = [self.node(b, f"{where}/{key}/{i}", depth + 1) for i, b in enumerate(branches)]
                self.drop_rest(schema, where, {key})
                return out
        if "const" in schema or "enum" in schema:
            values = [schema["const"]] if "const" in schema else schema.get("enum")
            if not isinstance(values, list) or not values or not all(_primitive(v) for v in values):
                raise Inexpressible(f"{where} has an enum or const that is not a list of plain values")
            out["const" if "const" in schema else "enum"] = copy.deepcopy(schema.get("const", values))
            if isinstance(schema.get("type"), (str, list)):
                out["type"] = copy.deepcopy(schema["type"])
            self.drop_rest(schema, where, {"const", "enum", "type"})
            return out
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or not all(isinstance(k, str) for k in kinds):
            raise Inexpressible(f"{where} has no type")
        out["type"] = copy.deepcopy(kind)
        used = {"type"}
        if "object" in kinds:
            used |= self.object(schema, out, where, depth)
        if "array" in kinds:
            used |= self.array(schema, out, where, depth)
        for key in _KEEP[self.dialect]:
            if key in schema and key not in used and self.keeps(key, schema[key]):
                out[key] = copy.deepcopy(schema[key])
                used.add(key)
        self.drop_rest(schema, where, used)
        return out

    def keeps(self, key: str, value: Any) -> bool:
        if key == "format":
            return value in _FORMATS[self.dialect]
        if key == "minItems" and self.dialect == "output_config":
            return value in (0, 1)
        return True

    def object(self, schema: dict[str, Any], out: dict[str, Any], where: str, depth: int) -> set[str]:
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        if not isinstance(props, dict) or not props:
            raise Inexpressible(f"{where} is an object without declared properties (any keys)")
        if isinstance(extra, dict) and extra:
            self.dropped.append(f"additionalProperties at {where}")
        required = [k for k in schema.get("required") or [] if isinstance(k, str) and k in props]
        converted: dict[str, Any] = {}
        for key, sub in props.items():
            node = self.node(sub, f"{where}/{key}", depth + 1)
            if self.dialect == "json_schema" and key not in required and not accepts_null(sub, self.defs):
                node = {"anyOf": [node, {"type": "null"}]}
            converted[key] = node
        out["properties"] = converted
        out["required"] = list(props) if self.dialect == "json_schema" else required
        out["additionalProperties"] = False
        return {"properties", "required", "additionalProperties"}

    def array(self, schema: dict[str, Any], out: dict[str, Any], where: str, depth: int) -> set[str]:
        items = schema.get("items")
        by_position = schema.get("prefixItems") if "prefixItems" in schema else items
        if isinstance(by_position, list):
            return self.tuple(schema, by_position, out, where, depth)
        if items is None:
            raise Inexpressible(f"{where} is an array of any values")
        out["items"] = self.node(items, f"{where}/items", depth + 1)
        return {"items"}

    def tuple(
        self, schema: dict[str, Any], positions: list[Any], out: dict[str, Any], where: str, depth: int
    ) -> set[str]:
        """A tuple is sent as an array of any of its positions' schemas, its length bounded when it is closed."""
        if not positions:
            raise Inexpressible(f"{where} is an empty tuple")
        rest = schema.get("items") if "prefixItems" in schema else schema.get("additionalItems")
        variants: list[dict[str, Any]] = []
        for i, sub in enumerate(positions):
            node = self.node(sub, f"{where}/{i}", depth + 1)
            if node not in variants:
                variants.append(node)
        out["items"] = variants[0] if len(variants) == 1 else {"anyOf": variants}
        self.dropped.append(f"items by position at {where}")
        used = {"items", "prefixItems", "additionalItems"}
        if rest is False and "maxItems" in _KEEP[self.dialect]:
            out["maxItems"] = min(len(positions), schema.get("maxItems", len(positions)))
            used.add("maxItems")
        return used

    def ref(self, ref: Any, where: str, depth: int) -> str:
        prefix = next((p for p in ("#/$defs/", "#/definitions/") if isinstance(ref, str) and ref.startswith(p)), None)
        name = ref[len(prefix) :] if prefix else ""
        if not prefix or "/" in name or name not in self.defs:
            raise Inexpressible(f"{where} refers to {ref!r}, not a definition in the module's $defs")
        if name in self.active:
            if self.dialect == "output_config":
                raise Inexpressible(f"{where} is recursive ($defs/{name}), which output_config does not take")
        elif name not in self.out_defs:
            self.active.append(name)
            self.out_defs[name] = {}  # claimed, so a recursive reference finds it
            self.out_defs[name] = self.node(self.defs[name], f"$defs/{name}", depth + 1)
            self.active.pop()
        return f"#/$defs/{name}"

    def drop_rest(self, schema: dict[str, Any], where: str, used: set[str]) -> None:
        for key in schema:
            if key in used or key in ANNOTATIONS or key in ("description", "title", "$defs", "definitions"):
                continue
            if key in _STRUCTURAL and key not in ("type", "enum", "const"):
                continue
            self.dropped.append(f"{key} at {where}")


def _primitive(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def accepts_null(schema: Any, defs: dict[str, Any], depth: int = 0) -> bool:
    """Whether `schema` lets null through (as far as its type, enum, const and branches tell)."""
    if depth > MAX_DEPTH or not isinstance(schema, dict):
        return schema is True
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return accepts_null(defs.get(ref.rsplit("/", 1)[-1]), defs, depth + 1)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return any(accepts_null(b, defs, depth + 1) for b in schema[key])
    if "const" in schema:
        return schema["const"] is None
    if isinstance(schema.get("enum"), list):
        return None in schema["enum"]
    kind = schema.get("type")
    return kind is None or kind == "null" or (isinstance(kind, list) and "null" in kind)
