"""Property tests: whatever bytes a module holds, loading and validating yield Diagnostics, never an exception;
whatever a document holds, the checker yields a CheckResult or UnusableDocument.

Nothing is caught here: an exception is a failure.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings
from modkit import GOOD_EXPECTED, MANIFEST_V22, SCHEMA_V22, clean_v1, clean_v22, make_module, mapping_in

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.module.loader import load_module
from cogtui.core.module.model import Module
from cogtui.core.rules.document_checker import (
    KINDS,
    CheckResult,
    UnjudgedInput,
    UnusableDocument,
    check_document,
    detect_kind,
    parse_document,
)
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.workspace import check_path

SETTINGS = property_settings(200, shared_fixtures=True)

# ---------------------------------------------------------------- strategies

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(
        [
            "exec",
            "decision",
            "exploration",
            "strict",
            "extensible",
            "deny",
            "allow",
            "fork",
            "main",
            "E5001",
            "E1001",
            "1.0.0",
            "#/$defs/x",
            "#/nope",
            "https://example.com/s.json",
            "../x.json",
            "./schema.json#/input",
            "tests/a.input.json -> tests/a.expected.json",
            "custom",
            "rationale",
        ]
    ),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.one_of(
                st.text(max_size=6),
                st.sampled_from(
                    [
                        "type",
                        "properties",
                        "required",
                        "$ref",
                        "items",
                        "oneOf",
                        "custom",
                        "reason",
                        "maxItems",
                        "extensions",
                        "insights",
                        "$defs",
                        "enum",
                        "confidence",
                        "risk",
                        "explain",
                    ]
                ),
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)
MANIFEST_KEYS = [
    "name",
    "version",
    "responsibility",
    "tier",
    "schema_strictness",
    "excludes",
    "policies",
    "tools",
    "overflow",
    "enums",
    "failure",
    "runtime_requirements",
    "io",
    "compat",
    "tests",
    "response",
    "modalities",
    "error_codes",
    "constraints",
    "invocation",
    "context",
    "unknown_field",
]
MANIFESTS = st.dictionaries(st.sampled_from(MANIFEST_KEYS), JSON_VALUES, max_size=10)
SCHEMAS = st.dictionaries(
    st.sampled_from(["input", "data", "output", "meta", "error", "$defs", "$schema", "$id"]), JSON_VALUES, max_size=6
)

CONTROL = [chr(c) for c in range(32)] + ["\x7f", "\u2028", "\ufeff", "\ud7ff", "\u0085"]
INSERTS = [
    "\t",
    "\n",
    "\r\n",
    ":",
    ": ",
    "- ",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    ",",
    "#",
    "&a ",
    "*a",
    "<<: *a\n",
    "!!python/object:os.system ",
    "!!python/object/apply:os.system ['true'] ",
    "!!binary ",
    "? ",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "9" * 5000,
    "1e99999",
    "-0",
    "NaN",
    "Infinity",
    "\\u0000",
    "\\ud800",
    "[" * 3000,
    '{"a":' * 1200,
    "- " * 3000,
    "é",
    "😀",
    "&r [*r]",
    "&m {k: *m}",
    "x" * 300,
]


@st.composite
def mangled(draw: st.DrawFn, base: str) -> str:
    """`base` with a few random deletions, duplications, swaps and insertions."""
    text = base
    for _ in range(draw(st.integers(min_value=0, max_value=6))):
        if not text:
            text = draw(st.text(max_size=5))
            continue
        i = draw(st.integers(min_value=0, max_value=len(text) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "control", "cut"]))
        if op == "delete":
            text = text[:i] + text[i + draw(st.integers(min_value=1, max_value=8)) :]
        elif op == "duplicate":
            j = min(len(text), i + draw(st.integers(min_value=1, max_value=30)))
            text = text[:j] + text[i:j] + text[j:]
        elif op == "swap":
            j = draw(st.integers(min_value=0, max_value=len(text) - 1))
            chars = list(text)
            chars[i], chars[j] = chars[j], chars[i]
            text = "".join(chars)
        elif op == "insert":
            text = text[:i] + draw(st.sampled_from(INSERTS)) + text[i:]
        elif op == "control":
            text = text[:i] + draw(st.sampled_from(CONTROL)) + text[i:]
        else:
            text = text[:i]
    return text


MANIFEST_TEXT = yaml.safe_dump(MANIFEST_V22, sort_keys=False) + "anchor: &a {x: 1}\nalias: *a\n"
SCHEMA_TEXT = json.dumps(SCHEMA_V22, indent=2)
MODULE_MD = str(clean_v1()["MODULE.md"])
EXPECTED_TEXT = json.dumps(GOOD_EXPECTED, indent=2)
ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1", "raw"])


def encode(text: str, encoding: str) -> bytes:
    if encoding == "raw":  # arbitrary bytes: surrogates and all
        return text.encode("utf-8", errors="surrogatepass")
    return text.encode(encoding, errors="replace")


def check_module_dir(root: Path) -> list[Diagnostic]:
    module = load_module(root)
    assert isinstance(module, Module)
    diags = validate_module(module)
    strict = validate_module(module, v22=True)
    for d in [*diags, *strict]:
        assert isinstance(d, Diagnostic)
        assert d.line is None or d.line >= 1
        assert d.column is None or d.column >= 1
        d.to_json()
    report = check_path(root)
    assert report.module is not None
    return diags


# ---------------------------------------------------------------- modules


@SETTINGS
@given(
    manifest=mangled(MANIFEST_TEXT), schema=mangled(SCHEMA_TEXT), expected=mangled(EXPECTED_TEXT), encoding=ENCODINGS
)
def test_mangled_v2_module(manifest: str, schema: str, expected: str, encoding: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[str, Any] = clean_v22()
        files["module.yaml"] = encode(manifest, encoding)
        files["schema.json"] = encode(schema, encoding)
        files["tests/case1.expected.json"] = encode(expected, encoding)
        check_module_dir(make_module(Path(tmp), files))


@SETTINGS
@given(module_md=mangled(MODULE_MD), schema=mangled(SCHEMA_TEXT), example=mangled(EXPECTED_TEXT))
def test_mangled_v1_module(module_md: str, schema: str, example: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[str, Any] = clean_v1()
        files["MODULE.md"] = encode(module_md, "raw")
        files["schema.json"] = schema
        files["examples/output.json"] = example
        check_module_dir(make_module(Path(tmp), files))


@SETTINGS
@given(manifest=MANIFESTS, schema=SCHEMAS, test_input=JSON_VALUES, expected=JSON_VALUES, prompt=st.text(max_size=50))
def test_structured_random_v2_module(
    manifest: dict[str, Any], schema: dict[str, Any], test_input: Any, expected: Any, prompt: str
) -> None:
    """Well-formed files with random content reach the deeper rules (schemas, contract, goldens)."""
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[str, Any] = {
            "module.yaml": yaml.safe_dump(manifest, sort_keys=False),
            "prompt.md": prompt,
            "schema.json": json.dumps(schema),
            "tests/a.input.json": json.dumps(test_input),
            "tests/a.expected.json": json.dumps(expected),
        }
        check_module_dir(make_module(Path(tmp), files))


@SETTINGS
@given(
    schema_part=JSON_VALUES,
    defs=JSON_VALUES,
    expected=JSON_VALUES,
    tier=st.sampled_from(["exec", "decision", "exploration"]),
)
def test_random_schema_parts_with_a_sane_manifest(schema_part: Any, defs: Any, expected: Any, tier: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[str, Any] = clean_v22()
        mapping_in(files, "module.yaml")["tier"] = tier
        schema = json.loads(SCHEMA_TEXT)
        schema["data"]["properties"]["extra"] = schema_part
        schema["$defs"]["extensions"] = defs
        files["schema.json"] = schema
        files["tests/case1.expected.json"] = {"ok": True, "meta": GOOD_EXPECTED["meta"], "data": expected}
        check_module_dir(make_module(Path(tmp), files))


@property_settings(50)
@given(text=st.text(max_size=200), name=st.sampled_from(["module.yaml", "MODULE.md", "module.md"]))
def test_random_text_as_any_manifest(text: str, name: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = make_module(Path(tmp), {name: encode(text, "raw")})
        check_module_dir(root)


# ---------------------------------------------------------------- the checker

ENVELOPE_TEXT = json.dumps(GOOD_EXPECTED)
STREAM_TEXT = "\n".join(
    json.dumps(c)
    for c in [
        {
            "ok": True,
            "streaming": True,
            "session_id": "s",
            "meta": {"confidence": None, "risk": "low", "explain": "go"},
        },
        {"chunk": {"seq": 1, "type": "delta", "field": "data.rationale", "delta": "a"}},
        {"chunk": {"seq": 2, "type": "snapshot", "field": "data.label", "data": "bug"}},
        {"progress": {"percent": 50}},
        {},
        {"final": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "done"}, "data": {"rationale": "a"}},
    ]
)
INPUT_TEXT = json.dumps(
    {
        "text": "x",
        "image": {
            "type": "base64",
            "media_type": "image/png",
            "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        },
        "doc": {"type": "url", "url": "https://example.com/a.pdf"},
    }
)


@pytest.fixture(scope="module")
def checks_module() -> Iterator[Module]:
    """The module the documents are checked against, made once for this file's tests in a folder of its own,
    which is removed after them: none is left behind in the temporary folder (there was one per process)."""
    tmp = Path(tempfile.mkdtemp(prefix="cogtui-props-"))
    try:
        files = clean_v22()
        mapping_in(files, "module.yaml")["modalities"] = {"input": ["text", "image"]}
        yield load_module(make_module(tmp, files))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert not tmp.exists(), f"{tmp} was left behind"


def judge(text: str, checks_module: Module) -> None:
    try:
        doc = parse_document(text)
    except UnusableDocument:
        return
    for kind in (None, *KINDS):
        for module in (None, checks_module):
            try:
                result = check_document(doc, kind, module)
            except UnjudgedInput:  # no verdict on an input without a module (ENV-18), and only there
                assert module is None and (kind == "input" or detect_kind(doc) == "input"), (kind, doc)
                continue
            assert isinstance(result, CheckResult)
            json.dumps(result.to_json())


@SETTINGS
@given(text=st.one_of(mangled(ENVELOPE_TEXT), mangled(STREAM_TEXT), mangled(INPUT_TEXT)))
def test_mangled_documents(checks_module: Module, text: str) -> None:
    judge(text, checks_module)


@SETTINGS
@given(value=JSON_VALUES)
def test_random_json_values(checks_module: Module, value: Any) -> None:
    judge(json.dumps(value), checks_module)
    for kind in KINDS:
        assert isinstance(check_document(value, kind, checks_module), CheckResult)


@SETTINGS
@given(
    meta=JSON_VALUES,
    data=JSON_VALUES,
    error=JSON_VALUES,
    ok=st.sampled_from([True, False, None, "true"]),
    chunks=st.lists(
        st.one_of(
            JSON_VALUES,
            st.builds(
                lambda s, t, f, d: {"chunk": {"seq": s, "type": t, "field": f, "delta": d, "data": d}},
                st.integers(-1, 4),
                st.sampled_from(["delta", "snapshot", "x"]),
                st.sampled_from(["data.rationale", "data", "data.a.b", None, 3]),
                JSON_VALUES,
            ),
        ),
        max_size=6,
    ),
)
def test_envelope_shaped_values(
    checks_module: Module, meta: Any, data: Any, error: Any, ok: Any, chunks: list[Any]
) -> None:
    env = {"ok": ok, "meta": meta, "data": data, "error": error, "partial_data": data}
    for doc in (env, {"final": True, "meta": meta, "data": data}, [env, *chunks, env], chunks):
        judge(json.dumps(doc), checks_module)
