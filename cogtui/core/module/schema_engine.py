"""The one JSON Schema interface every caller uses: compile a schema for its draft, list errors.

`compile_schema(schema, draft=..., retrieve=...)` returns a `CompiledSchema`
whose `errors(instance)` are plain `SchemaError`s (instance path, schema path,
keyword, a short message). A schema that cannot be used at all (a `$ref` that
does not resolve, a `pattern` that is not a regular expression) raises
`SchemaUnusable` naming where in the schema the problem sits.

The engine is `jsonschema-rs` (Rust): it imports in a few milliseconds,
validates many times faster than `jsonschema`, supports Draft 4, 6, 7,
2019-09 and 2020-12, and its regex engine matches plain patterns in linear
time and stops backtracking patterns (back-references, look-around) after a
step budget. A pattern that exceeds the budget on a value is treated as not
matching, with a message that says so (docs/spec-decisions.md FMT-2). When the
Rust engine is not installed (or `COGTUI_SCHEMA_ENGINE=jsonschema`), the
pure-Python `jsonschema` takes over through the same interface
(`schema_engine_py.py`); it refuses patterns it cannot run safely. The
types both engines share live in `schema_types.py` and are re-exported here.

The draft comes from the document's `$schema`; without one (or with a
Cognitive Modules URL there) it is Draft-07, the spec's normative reference
(SPEC-v2.5 §13; FMT-1).
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from types import ModuleType
from typing import Any

from cogtui.core.module.schema_types import (
    BACKTRACK_LIMIT,
    DEFAULT_DRAFT,
    DRAFT4,
    DRAFT6,
    DRAFT7,
    DRAFT2019,
    DRAFT2020,
    DRAFT_URIS,
    MESSAGE_LIMIT,
    CompiledSchema,
    PathT,
    Retrieve,
    SchemaError,
    SchemaUnusable,
    draft_label,
    draft_of,
    excerpt,
    iter_patterns,
    shorten,
    unexpected_properties,
    with_known_draft,
)

__all__ = [
    "BACKTRACK_LIMIT",
    "DEFAULT_DRAFT",
    "DRAFT4",
    "DRAFT6",
    "DRAFT7",
    "DRAFT2019",
    "DRAFT2020",
    "DRAFT_URIS",
    "MESSAGE_LIMIT",
    "CompiledSchema",
    "PathT",
    "Retrieve",
    "SchemaError",
    "SchemaUnusable",
    "compile_schema",
    "draft_label",
    "draft_of",
    "engine_name",
    "excerpt",
    "iter_patterns",
    "metaschema_errors",
    "shorten",
    "with_known_draft",
]


def engine_name() -> str:
    return "jsonschema" if _use_python_engine() else "jsonschema-rs"


def _use_python_engine() -> bool:
    """COGTUI_SCHEMA_ENGINE=jsonschema, read at each use (a command run in a process that ran others, as the
    tests run `cogn`, sees its own environment), or jsonschema-rs missing."""
    if os.environ.get("COGTUI_SCHEMA_ENGINE", "").strip().lower() == "jsonschema":
        return True
    return not _rust_engine_importable()


@cache
def _rust_engine_importable() -> bool:
    try:
        import_rust_engine()
    except ImportError:  # no wheel for this platform: the pure-Python engine takes over
        return False
    return True


def import_rust_engine() -> ModuleType:
    """`import jsonschema_rs`, without importing the standard library's `email.utils`.

    When it loads, the extension builds a `__build__` dictionary whose build date it parses with
    `email.utils.parsedate_to_datetime`: importing `email.utils` (socket, datetime, calendar, base64 ...)
    is a start-up cost of every validate, for a value cogtui never reads. While the extension loads,
    `email.utils` is a stand-in whose `parsedate_to_datetime` returns the text as it is; the stand-in is gone
    when this returns, so a later `import email.utils` gets the real module. Only in a process with one thread
    (no other thread can see the stand-in), when `email.utils` is not loaded yet; if the stand-in is not enough
    for the installed version, the plain import runs."""
    threading = sys.modules.get("threading")  # not imported: no thread was started through it
    if "email.utils" in sys.modules or "jsonschema_rs" in sys.modules or (threading and threading.active_count() > 1):
        import jsonschema_rs

        return jsonschema_rs
    stand_in = ModuleType("email.utils", "a stand-in while jsonschema_rs loads (schema_engine.py)")
    stand_in.parsedate_to_datetime = str  # type: ignore[attr-defined]
    sys.modules["email.utils"] = stand_in
    try:
        import jsonschema_rs
    except ImportError:
        raise
    except Exception:  # noqa: BLE001 - the stand-in lacked something this version uses: import it plainly
        for name in [n for n in sys.modules if n == "jsonschema_rs" or n.startswith("jsonschema_rs.")]:
            del sys.modules[name]
        del sys.modules["email.utils"]
        import jsonschema_rs
    finally:
        if sys.modules.get("email.utils") is stand_in:
            del sys.modules["email.utils"]
    return jsonschema_rs


def compile_schema(schema: Any, *, draft: str = DEFAULT_DRAFT, retrieve: Retrieve | None = None) -> CompiledSchema:
    """A validator for `schema` under `draft`. `retrieve(uri)` supplies referenced documents (or raises)."""
    if _use_python_engine():
        return _python_engine().compile_python(schema, draft, retrieve)  # type: ignore[no-any-return]
    return _RustSchema(schema, draft, retrieve)


def metaschema_errors(schema: Any, draft: str) -> list[SchemaError]:
    """How `schema` breaks its draft's metaschema (paths inside `schema`), each message a sentence about what the
    author wrote at that path (schema_words.py), the same from both engines."""
    from cogtui.core.module.schema_words import in_authors_words

    if _use_python_engine():
        errors: list[SchemaError] = _python_engine().python_metaschema(draft).errors(schema)
    else:
        errors = _rust_metaschema(draft).errors(schema)
    return in_authors_words(errors, draft) if errors else errors


@cache
def _rust_metaschema(draft: str) -> CompiledSchema:
    uri = DRAFT_URIS[draft]
    return _RustSchema({"$schema": uri, "$ref": uri}, draft, None)


class _RustSchema:
    def __init__(self, schema: Any, draft: str, retrieve: Retrieve | None) -> None:
        import jsonschema_rs as rs

        cls = {
            DRAFT4: rs.Draft4Validator,
            DRAFT6: rs.Draft6Validator,
            DRAFT7: rs.Draft7Validator,
            DRAFT2019: rs.Draft201909Validator,
            DRAFT2020: rs.Draft202012Validator,
        }[draft]

        def fetch(uri: str) -> Any:
            if retrieve is None:
                raise LookupError(f"{uri} is not available (remote references are never fetched)")
            return with_known_draft(retrieve(uri), draft)

        schema = with_known_draft(schema, draft)

        def build(document: Any) -> Any:
            return cls(
                document,
                validate_formats=False,
                retriever=fetch,
                pattern_options=rs.FancyRegexOptions(backtrack_limit=BACKTRACK_LIMIT),
            )

        try:
            try:
                self._validator = build(schema)
            except ValueError:
                usable = without_lone_surrogates(schema)  # lone surrogates in the schema: judged as U+FFFD (FMT-4)
                if usable == schema:
                    raise
                self._validator = build(usable)
        except rs.ValidationError as exc:
            raise _unusable(exc, draft) from None
        except (ValueError, TypeError) as exc:  # a schema value Rust cannot take (e.g. a huge integer)
            raise SchemaUnusable("schema", f"the schema cannot be compiled: {exc}") from None

    def errors(self, instance: Any) -> list[SchemaError]:
        try:
            return [_convert(e) for e in self._validator.iter_errors(instance)]
        except UnicodeEncodeError:  # a lone surrogate (JSON allows "\ud800"; Rust strings do not): as U+FFFD (FMT-4)
            return [_convert(e) for e in self._validator.iter_errors(without_lone_surrogates(instance))]

    def is_valid(self, instance: Any) -> bool:
        try:
            return bool(self._validator.is_valid(instance))
        except UnicodeEncodeError:
            return bool(self._validator.is_valid(without_lone_surrogates(instance)))


def without_lone_surrogates(value: Any) -> Any:
    """`value` with each lone surrogate in its strings and keys replaced by U+FFFD (one code point for one,
    so lengths and positions hold). JSON text may hold them; UTF-8, and so the Rust engine, cannot."""
    if isinstance(value, str):
        return _surrogate().sub("\ufffd", value)
    if isinstance(value, dict):
        return {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    return value


@cache
def _surrogate() -> re.Pattern[str]:
    return re.compile("[\ud800-\udfff]")  # in a Python str every surrogate is a lone one (compiled when needed)


def _unusable(exc: Any, draft: str) -> SchemaUnusable:
    where = tuple(exc.instance_path)
    message = str(exc.message)
    if message.endswith('is not a "regex"'):
        from cogtui.core.module.schema_words import pattern_problem

        return SchemaUnusable("regex", pattern_problem(str(exc.instance)), where)
    if type(exc.kind).__name__ != "Referencing":  # the schema breaks its draft's metaschema: not a $ref problem
        from cogtui.core.module.schema_words import describe, place

        sentence = describe(_convert(exc), draft)
        return SchemaUnusable("schema", f"the schema is not a valid JSON Schema at {place(where)}: {sentence}", where)
    ref = "?"
    if "Resource '" in message:
        ref = message.split("Resource '", 1)[1].split("'", 1)[0]
    elif "Pointer '" in message:
        ref = "#" + message.split("Pointer '", 1)[1].split("'", 1)[0]
    return SchemaUnusable("ref", f"$ref {ref!r} does not resolve: {message.splitlines()[0]}", where, ref)


def _convert(err: Any) -> SchemaError:
    kind = err.kind
    keyword = str(kind.name)
    path = tuple(err.instance_path)
    schema_path = tuple(err.schema_path)
    instance = err.instance
    kind_name = type(kind).__name__
    if kind_name in ("BacktrackLimitExceeded", "RegexEngineFailure"):
        pattern = schema_path[-1] if keyword == "patternProperties" else _pattern_at(err)
        return SchemaError(
            path,
            schema_path,
            "pattern",
            f"{excerpt(instance)} could not be matched against {excerpt(pattern)} within "
            f"{BACKTRACK_LIMIT:,} backtracking steps; treated as not matching",
            instance=instance,
            runaway=True,
        )
    missing = str(kind.property) if kind_name == "Required" else None
    expected: Any = None
    if kind_name == "Type":
        expected = list(kind.types)
    elif kind_name == "Enum":
        expected = list(kind.options)
    elif hasattr(kind, "limit"):
        expected = kind.limit
    context = getattr(kind, "context", None) if kind_name in ("AnyOf", "OneOfNotValid") else None
    branches = tuple(tuple(_convert(e) for e in branch) for branch in context or ())
    if kind_name in ("AdditionalProperties", "UnevaluatedProperties"):
        message = unexpected_properties(keyword, kind.unexpected)
    else:
        message = shorten(str(err.message), instance)
    return SchemaError(path, schema_path, keyword, message, missing, expected, instance, branches=branches)


def _pattern_at(err: Any) -> str:
    message = str(err.message)
    return message.rsplit(" does not match ", 1)[-1].strip('"') if " does not match " in message else "?"


def _python_engine() -> Any:
    """The fallback engine, imported only when it is used (it is rarely needed)."""
    from cogtui.core.module import schema_engine_py

    return schema_engine_py
