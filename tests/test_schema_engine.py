"""The one schema interface (core/module/schema_engine.py): drafts from `$schema`, error paths, refs, regexes.

The same behaviour is asked of the Rust engine and of the pure-Python fallback
where both must agree; the fallback's own refusals are tested separately.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cogtui.core.module.schema_engine import (
    DRAFT7,
    DRAFT2020,
    DRAFT_URIS,
    CompiledSchema,
    SchemaUnusable,
    compile_schema,
    draft_of,
    engine_name,
    without_lone_surrogates,
)
from cogtui.core.module.schema_engine_py import compile_python

Compile = Callable[..., CompiledSchema]


def rust(schema: Any, draft: str = DRAFT7, retrieve: Any = None) -> CompiledSchema:
    return compile_schema(schema, draft=draft, retrieve=retrieve)


def python(schema: Any, draft: str = DRAFT7, retrieve: Any = None) -> CompiledSchema:
    return compile_python(schema, draft, retrieve)


ENGINES = pytest.mark.parametrize("compile_", [rust, python], ids=["jsonschema-rs", "jsonschema"])


@pytest.mark.parametrize(
    ("declared", "draft"),
    [
        (None, DRAFT7),
        ("https://cognitive-modules.dev/schema/v2.2.json", DRAFT7),
        ("http://json-schema.org/draft-07/schema#", DRAFT7),
        ("http://json-schema.org/draft-07/schema", DRAFT7),
        ("https://json-schema.org/draft/2020-12/schema", DRAFT2020),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
        (42, DRAFT7),
    ],
)
def test_the_draft_comes_from_dollar_schema_and_defaults_to_draft_07(declared: Any, draft: str) -> None:
    doc = {} if declared is None else {"$schema": declared}
    assert draft_of(doc) == draft


DRAFT7_TUPLE = {
    "type": "object",
    "properties": {
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False}
    },
    "dependencies": {"start": ["end"], "mode": {"required": ["level"]}},
}


@ENGINES
def test_draft_07_tuple_items_additional_items_and_dependencies(compile_: Compile) -> None:
    errors = compile_(DRAFT7_TUPLE, DRAFT7).errors({"pair": ["a", "b", 3], "start": 1, "mode": "x"})
    found = {(e.path, e.keyword) for e in errors}
    assert (("pair", 1), "type") in found
    assert (("pair",), "additionalItems") in found
    missing = sorted(str(e.missing) for e in errors if e.keyword == "required")
    assert missing == ["end", "level"]
    assert compile_(DRAFT7_TUPLE, DRAFT7).is_valid({"pair": ["a", 1], "start": 1, "end": 2})


@ENGINES
def test_2020_12_prefix_items_and_dependent_required(compile_: Compile) -> None:
    schema = {"prefixItems": [{"type": "string"}], "items": False, "dependentRequired": {"a": ["b"]}}
    v = compile_(schema, DRAFT2020)
    assert [e.path for e in v.errors(["x", 1])] in ([(1,)], [()])
    assert [e.missing for e in v.errors({"a": 1})] == ["b"]
    assert v.is_valid(["x"]) and v.is_valid({"a": 1, "b": 2})
    # Read as Draft-07, the same keywords mean nothing.
    loose = {"prefixItems": [{"type": "string"}], "dependentRequired": {"a": ["b"]}}
    assert compile_(loose, DRAFT7).is_valid([1, 1]) and compile_(loose, DRAFT7).is_valid({"a": 1})
    assert not compile_(loose, DRAFT2020).is_valid([1, 1])


@ENGINES
def test_errors_carry_instance_path_schema_path_and_a_short_message(compile_: Compile) -> None:
    schema = {"properties": {"items": {"items": {"type": "integer"}}}}
    [err] = compile_(schema).errors({"items": [1, "x" * 5000]})
    assert err.path == ("items", 1)
    assert err.schema_path[-1] == "type"
    assert err.keyword == "type" and len(err.message) < 300


def test_unexpected_property_names_are_quoted_as_json() -> None:
    closed = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    [err] = rust(closed).errors({"code": 1, "it's": 2})
    assert err.message == 'Additional properties are not allowed ("code", "it\'s" were unexpected)'
    [err] = rust(closed).errors({f"k{i}": i for i in range(8)})
    assert err.message.endswith('"k4" and 3 more were unexpected)')
    sealed = {"$schema": DRAFT_URIS[DRAFT2020], "properties": {"a": {}}, "unevaluatedProperties": False}
    [err] = rust(sealed, draft=DRAFT2020).errors({"b": 1})
    assert err.message == 'Unevaluated properties are not allowed ("b" was unexpected)'


@ENGINES
def test_refs_resolve_through_the_retriever_only(compile_: Compile) -> None:
    asked: list[str] = []
    docs = {"file:///m/schema.json": {"input": {"$ref": "#/$defs/n"}, "$defs": {"n": {"type": "integer"}}}}

    def retrieve(uri: str) -> Any:
        asked.append(uri)
        return docs[uri.split("#")[0]]

    v = compile_({"$ref": "file:///m/schema.json#/input"}, DRAFT7, retrieve)
    assert not v.is_valid("x") and v.is_valid(3)
    assert asked and all(u.startswith("file:///m/schema.json") for u in asked)


@ENGINES
def test_an_unresolvable_or_remote_ref_makes_the_schema_unusable(compile_: Compile) -> None:
    def retrieve(uri: str) -> Any:
        raise LookupError(uri)

    with pytest.raises(SchemaUnusable) as caught:
        compile_({"$ref": "https://example.invalid/x.json"}, DRAFT7, retrieve).errors(1)
    assert caught.value.kind == "ref" and "example.invalid" in caught.value.ref


@ENGINES
def test_an_invalid_pattern_is_unusable_and_names_its_place(compile_: Compile) -> None:
    with pytest.raises(SchemaUnusable) as caught:
        compile_({"properties": {"code": {"pattern": "([a-z]"}}}).errors({"code": "a"})
    assert caught.value.kind == "regex"
    assert caught.value.schema_path == ("properties", "code", "pattern")


@ENGINES
def test_lone_surrogates_in_instance_or_schema_are_judged_not_raised(compile_: Compile) -> None:
    """JSON text may hold "\\ud800" (a golden, a model's output); UTF-8 cannot. Both engines judge it (FMT-4)."""
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}, "required": ["name"]}
    checked = compile_(schema)
    assert checked.errors({"name": "a\ud800b"}) == [] and checked.is_valid({"name": "a\ud800b"})
    too_long = checked.errors({"name": "ab\udfffc", "\ud800": 1})
    assert [e.keyword for e in too_long] == ["maxLength"] and too_long[0].path == ("name",)
    assert not checked.is_valid({"name": "ab\udfffc"})
    assert compile_({"enum": ["\ud800"]}).errors("\ud800") == []
    assert [e.keyword for e in compile_({"enum": ["\ud800"]}).errors("a")] == ["enum"]


def test_without_lone_surrogates_keeps_lengths_and_leaves_clean_values_alone() -> None:
    assert without_lone_surrogates({"k\udc00": ["x\ud800y", 1, None]}) == {"k\ufffd": ["x\ufffdy", 1, None]}
    clean = {"a": ["b", {"c": "d \U0001f600"}]}
    assert without_lone_surrogates(clean) == clean


def test_nested_quantifiers_run_in_linear_time() -> None:
    v = rust({"pattern": "^(a+)+$"})
    [err] = v.errors("a" * 100_000 + "!")
    assert err.keyword == "pattern" and not err.runaway
    assert v.is_valid("a" * 100_000)


def test_a_backtracking_pattern_stops_at_its_budget_and_counts_as_not_matching() -> None:
    v = rust({"properties": {"t": {"pattern": "^(\\w+\\s?)*(?=x)$"}}, "patternProperties": {"^(\\w+\\s?)*(?=x)$": {}}})
    value = "word " * 300 + "!"
    errors = v.errors({"t": value})
    [err] = [e for e in errors if e.path == ("t",)]
    assert err.runaway and err.keyword == "pattern" and "backtracking steps" in err.message
    assert len(err.message) < 300


SAME_WORDS = [  # (schema, instance): both engines must say the same, values quoted as JSON (CODE-11)
    ({"required": ["a", "b"]}, {}),
    ({"type": "integer"}, "abc"),
    ({"type": ["object", "null", "integer"]}, [1]),
    ({"enum": [1, None, {"a": 1}]}, "q"),
    ({"enum": ["x"]}, {"k": True}),
    ({"const": {"a": [1]}}, 2),
    ({"minimum": 0.5}, 0.25),
    ({"exclusiveMaximum": 3}, 3),
    ({"minLength": 1}, ""),
    ({"maxLength": 2}, "abcd"),
    ({"minItems": 2}, [1]),
    ({"maxItems": 1}, [1, 2]),
    ({"uniqueItems": True}, [1, 1]),
    ({"minProperties": 2}, {"a": 1}),
    ({"maxProperties": 1}, {"a": 1, "b": None}),
    ({"pattern": "^z"}, "abc"),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, 3),
    ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 3),
    ({"oneOf": [{"type": "string"}, {"type": "null"}]}, 3),
    ({"not": {"type": "string"}}, "a"),
    ({"dependencies": {"a": ["b", "c"]}}, {"a": 1}),
    ({"propertyNames": {"maxLength": 2}}, {"abcd": 1}),
    ({"items": [{}], "additionalItems": False}, [1, 2, "x"]),
    ({"properties": {"a": {}}, "patternProperties": {"^x": {}}, "additionalProperties": False}, {"xb": 1, "it's": 2}),
    ({"type": "string"}, {"long": "x" * 400}),
]


@pytest.mark.parametrize(("schema", "instance"), SAME_WORDS, ids=[str(i) for i in range(len(SAME_WORDS))])
def test_the_fallback_says_what_the_rust_engine_says_with_values_as_json(schema: Any, instance: Any) -> None:
    """The pure-Python engine words its messages as the Rust engine does: `"abc" is not of type "integer"`,
    never jsonschema's Python reprs (`'abc'`, `None`, `['x', 'y']`); a long instance is cut the same way."""
    said = sorted(e.message for e in rust(schema).errors(instance))
    assert said and sorted(e.message for e in python(schema).errors(instance)) == said
    assert not any("'" in m and "'anyOf'" not in m and "'oneOf'" not in m and "it's" not in m for m in said)


def test_the_fallback_refuses_patterns_it_cannot_bound() -> None:
    with pytest.raises(SchemaUnusable) as caught:
        python({"properties": {"t": {"pattern": "(a+)+$"}}})
    assert caught.value.kind == "regex" and caught.value.schema_path == ("properties", "t", "pattern")
    assert python({"pattern": "^[a-z]+$"}).is_valid("abc")


def test_a_cognitive_modules_dollar_schema_is_read_as_the_chosen_draft() -> None:
    doc = {"$schema": "https://cognitive-modules.dev/schema/v2.2.json", "input": {"type": "integer"}}
    v = rust({"$ref": "file:///m/s.json#/input"}, DRAFT7, lambda uri: doc)
    assert v.is_valid(1) and not v.is_valid("1")
    assert DRAFT_URIS[DRAFT7].startswith("http://json-schema.org/draft-07")


def test_validate_imports_one_engine_only(tmp_path: Path) -> None:
    """The import budget (BENCHMARKS.md): `cogn validate` loads jsonschema-rs, not jsonschema and referencing."""
    import json
    import subprocess
    import sys

    from modkit import clean_v22, make_module

    mod = make_module(tmp_path, clean_v22())
    code = (
        "import contextlib, io, json, sys\n"
        "from cogtui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['validate', {str(mod)!r}])\n"
        "print(json.dumps([code, sorted(m.split('.')[0] for m in sys.modules)]))\n"
    )
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "COGNITIVE_MODULES_PATH": ""}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    code_, roots = json.loads(proc.stdout.splitlines()[-1])
    assert code_ == 0 and "jsonschema_rs" in roots
    assert "jsonschema" not in roots and "referencing" not in roots


ENGINE_IMPORT = """
import json, sys
{before}
from cogtui.core.module.schema_engine import compile_schema, import_rust_engine
rs = import_rust_engine()
loaded_during = "email.utils" in sys.modules
errors = [e.keyword for e in compile_schema({{"type": "object", "required": ["a"]}}).errors({{}})]
import email.utils
when = email.utils.parsedate_to_datetime("Sun, 8 Nov 2026 16:26:25 +0000")
print(json.dumps([loaded_during, errors, when.year, type(email.utils.formatdate).__name__]))
"""


def run_engine_import(before: str) -> list[Any]:
    import subprocess
    import sys

    code = ENGINE_IMPORT.format(before=before)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return list(json.loads(proc.stdout.splitlines()[-1]))


def test_the_rust_engine_loads_without_email_utils_and_leaves_the_real_one_importable() -> None:
    loaded_during, errors, year, formatdate = run_engine_import("")
    assert loaded_during is False  # the stand-in is gone and the real module was not imported
    assert errors == ["required"]
    assert (year, formatdate) == (2026, "function")  # a later import gets the real email.utils


def test_the_rust_engine_imports_plainly_when_email_utils_is_loaded_or_threads_run() -> None:
    loaded_during, errors, year, _ = run_engine_import("import email.utils")
    assert loaded_during is True and errors == ["required"] and year == 2026
    waiting = "import threading\nstop = threading.Event()\nthreading.Thread(target=stop.wait, daemon=True).start()"
    loaded_during, errors, year, _ = run_engine_import(waiting)
    assert loaded_during is True and errors == ["required"] and year == 2026


def test_the_engine_follows_the_environment_at_each_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """COGTUI_SCHEMA_ENGINE is read at each use, not once per process: the tests run `cogn` in their own process
    (tests/cli_inprocess.py), and a command asked to use the pure-Python engine once made every later one in
    that process use it too (a validate test then saw S001 instead of the Rust engine's S008, by test order)."""
    monkeypatch.setenv("COGTUI_SCHEMA_ENGINE", "jsonschema")
    assert engine_name() == "jsonschema"
    unsafe = {"type": "string", "pattern": "^(\\w+\\s?)*$"}  # nested quantifiers: only the Rust engine bounds them
    with pytest.raises(SchemaUnusable):
        compile_schema(unsafe)
    monkeypatch.delenv("COGTUI_SCHEMA_ENGINE")
    assert engine_name() == "jsonschema-rs"
    assert compile_schema(unsafe).errors("word word") == []
