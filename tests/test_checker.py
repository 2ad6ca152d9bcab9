"""`check_document`: every rule id in the checker's sources has a trigger with its E-code.

TRIGGERS lists (rule, E-code, kind, document, module); a meta-test reads the
rule ids from envelope_rules.py, chunk_rules.py, document_checker.py and
stream_text.py and checks that each is triggered by some entry.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from modkit import MANIFEST_V22, SCHEMA_V22, clean_v22, make_module

import cogtui.core.rules.chunk_rules as chunk_mod
import cogtui.core.rules.document_checker as checker_mod
import cogtui.core.rules.envelope_rules as envelope_mod
import cogtui.core.rules.stream_text as stream_text_mod
from cogtui.core.module.loader import load_module
from cogtui.core.module.model import Module
from cogtui.core.rules import media_rules as media
from cogtui.core.rules.document_checker import (
    CheckResult,
    UnusableDocument,
    check_document,
    check_input,
    detect_kind,
    parse_document,
)
from cogtui.core.rules.violation import json_type

META = {"confidence": 0.95, "risk": "low", "explain": "fine"}
DATA = {"label": "bug", "rationale": "because"}
OK = {"ok": True, "meta": META, "data": DATA}
FAIL = {
    "ok": False,
    "meta": {"confidence": 0.0, "risk": "high", "explain": "no"},
    "error": {"code": "E2006", "message": "ambiguous"},
}
SESSION = "sess_1"
META_CHUNK = {
    "ok": True,
    "streaming": True,
    "session_id": SESSION,
    "meta": {"confidence": None, "risk": "low", "explain": "start"},
}
FINAL = {"final": True, "meta": META, "data": {"label": "bug", "rationale": "ab"}}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 56
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 60


def with_(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in changes.items():
        if value is DROP:
            out.pop(key, None)
        else:
            out[key] = value
    return out


DROP: Any = object()


def meta(**changes: Any) -> dict[str, Any]:
    return with_(META, **changes)


def env(**changes: Any) -> dict[str, Any]:
    return with_(OK, **changes)


def data(**changes: Any) -> dict[str, Any]:
    return with_(DATA, **changes)


def insights(n: int, mapping: bool = True) -> dict[str, Any]:
    items = [{"text": f"i{i}", **({"suggested_mapping": "data.x"} if mapping else {})} for i in range(n)]
    return data(extensions={"insights": items})


def delta(seq: int, text: str, fld: str = "data.rationale") -> dict[str, Any]:
    return {"chunk": {"seq": seq, "type": "delta", "field": fld, "delta": text}}


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def image(raw: bytes, mime: str | None) -> dict[str, Any]:
    ref: dict[str, Any] = {"type": "base64", "data": b64(raw)}
    if mime is not None:
        ref["media_type"] = mime
    return {"text": "look", "image": ref}


# ---------------------------------------------------------------- modules


def _schema(**changes: Any) -> dict[str, Any]:
    s = copy.deepcopy(SCHEMA_V22)
    s.update(changes)
    return s


def _build(tmp: Path, name: str, manifest: dict[str, Any], schema: dict[str, Any]) -> Module:
    files = clean_v22()
    man = copy.deepcopy(MANIFEST_V22)
    man.update(manifest)
    man["name"] = name
    files["module.yaml"] = man
    files["schema.json"] = schema
    return load_module(make_module(tmp, files, name))


@pytest.fixture(scope="session")
def modules(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Module]:
    tmp = tmp_path_factory.mktemp("checker-modules")
    exec_man = {
        "tier": "exec",
        "schema_strictness": "high",
        "overflow": {"enabled": False},
        "enums": {"strategy": "strict"},
    }
    tight = _schema()
    tight["meta"] = copy.deepcopy(tight["meta"])
    tight["meta"]["properties"]["explain"]["maxLength"] = 20
    tight["error"]["required"] = ["code", "message", "recoverable"]
    no_input = _schema()
    del no_input["input"]
    bad_ref = _schema()
    bad_ref["input"] = {"$ref": "#/$defs/missing-input"}
    bad_ref["data"] = {"$ref": "#/$defs/missing-data"}
    bad_ref["meta"] = {"$ref": "#/$defs/missing-meta"}
    bad_ref["error"] = {"$ref": "#/$defs/missing-error"}
    high_schema = _schema()
    high_schema["data"] = copy.deepcopy(high_schema["data"])
    high_schema["data"]["properties"]["note"] = {"type": "string"}  # optional in the schema
    image_schema = _schema(
        input={"type": "object", "properties": {"text": {"type": "string"}, "image": {"type": "object"}}}
    )
    return {
        "decision": _build(tmp, "decision", {}, _schema()),
        "exec": _build(tmp, "exec", exec_man, _schema()),
        "high": _build(tmp, "high", {"schema_strictness": "high"}, high_schema),
        "tight": _build(tmp, "tight", {}, tight),
        "no-input": _build(tmp, "no-input", {}, no_input),
        "bad-ref": _build(tmp, "bad-ref", {}, bad_ref),
        "image": _build(tmp, "image", {"modalities": {"input": ["text", "image"]}}, image_schema),
        "text-only": _build(tmp, "text-only", {"modalities": {"input": ["text"]}}, image_schema),
    }


# ---------------------------------------------------------------- the trigger table


@dataclass(frozen=True)
class Trigger:
    rule: str
    code: str
    kind: str | None
    doc: Any
    module: str | None = None
    limits: dict[str, int] = field(default_factory=dict)  # monkeypatched media.SIZE_LIMITS


T = Trigger
TRIGGERS: list[Trigger] = [
    # envelopes
    T("envelope.object", "E3001", "envelope", "just a string"),
    T("envelope.ok.required", "E3001", "envelope", env(ok=DROP)),
    T("envelope.ok.type", "E3001", "envelope", env(ok="yes")),
    T("envelope.version.type", "E3001", "envelope", env(version=2)),
    T("envelope.meta.required", "E3001", "envelope", env(meta=DROP)),
    T("meta.object", "E3001", "envelope", env(meta=[])),
    T("meta.confidence.required", "E3001", "envelope", env(meta=meta(confidence=DROP))),
    T("meta.confidence.type", "E3001", "envelope", env(meta=meta(confidence="high"))),
    T("meta.confidence.type", "E3001", "envelope", env(meta=meta(confidence=None))),  # null only in a meta chunk
    T("meta.confidence.type", "E3001", "envelope", env(meta=meta(confidence=True))),
    T("meta.confidence.range", "E3001", "envelope", env(meta=meta(confidence=1.5))),
    T("meta.confidence.range", "E3001", "envelope", env(meta=meta(confidence=-0.01))),
    T("meta.risk.required", "E3001", "envelope", env(meta=meta(risk=DROP))),
    T("meta.risk.enum", "E3001", "envelope", env(meta=meta(risk="severe"))),
    T("meta.risk.enum", "E3001", "envelope", env(meta=meta(risk={"level": "severe"}))),
    T("meta.explain.required", "E3001", "envelope", env(meta=meta(explain=DROP))),
    T("meta.explain.type", "E3001", "envelope", env(meta=meta(explain=5))),
    T("meta.explain.length", "E3001", "envelope", env(meta=meta(explain="é" * 281))),
    T("meta.trace_id.type", "E3001", "envelope", env(meta=meta(trace_id=5))),
    T("meta.latency_ms.type", "E3001", "envelope", env(meta=meta(latency_ms=-1))),
    T("success.error.forbidden", "E3001", "envelope", env(error={"code": "E1001", "message": "x"})),
    T("success.partial_data.forbidden", "E3001", "envelope", env(partial_data={})),
    T("success.data.required", "E3001", "envelope", env(data=DROP)),
    T("success.data.object", "E3001", "envelope", env(data="text")),
    T("data.rationale.required", "E3001", "envelope", env(data=data(rationale=DROP))),
    T("data.rationale.type", "E3001", "envelope", env(data=data(rationale=["a"]))),
    T("failure.data.forbidden", "E3001", "envelope", with_(FAIL, data={})),
    T("failure.partial_data.object", "E3001", "envelope", with_(FAIL, partial_data=[1])),
    T("failure.error.required", "E3001", "envelope", with_(FAIL, error=DROP)),
    T("failure.error.object", "E3001", "envelope", with_(FAIL, error="E1001")),
    T("error.code.required", "E3001", "envelope", with_(FAIL, error={"message": "m"})),
    T("error.code.format", "E3001", "envelope", with_(FAIL, error={"code": "e1001", "message": "m"})),
    T("error.message.required", "E3001", "envelope", with_(FAIL, error={"code": "E1001"})),
    T("error.message.type", "E3001", "envelope", with_(FAIL, error={"code": "E1001", "message": 5})),
    T(
        "error.recoverable.type",
        "E3001",
        "envelope",
        with_(FAIL, error={"code": "E1001", "message": "m", "recoverable": "yes"}),
    ),
    T("insights.array", "E3001", "envelope", env(data=data(extensions={"insights": {}}))),
    T("insight.object", "E3001", "envelope", env(data=data(extensions={"insights": ["text"]}))),
    T("insight.text", "E3001", "envelope", env(data=data(extensions={"insights": [{"text": ""}]}))),
    T("overflow.max_items", "E3004", "envelope", env(data=insights(21))),  # without a module: at most 20
    T("overflow.max_items", "E3004", "envelope", env(data=insights(6)), "decision"),
    T("overflow.disabled", "E3004", "envelope", env(data=insights(1)), "exec"),
    T("insight.suggested_mapping", "E3004", "envelope", env(data=insights(1, mapping=False)), "decision"),
    T("enums.strict", "E3005", "envelope", env(data=data(label={"custom": "regression", "reason": "new"})), "exec"),
    T("tier.exec.confidence", "E2001", "envelope", env(meta=meta(confidence=0.89)), "exec"),
    T("tier.exec.risk", "E2001", "envelope", env(meta=meta(risk="medium")), "exec"),
    T("strictness.high.required", "E3001", "envelope", env(), "high"),  # high: `note` is required too (FMT-10)
    T("meta.risk.aggregate", "E3001", "envelope", env(data=data(changes=[{"risk": "high"}]))),  # ENV-5
    T("schema.data", "E3001", "envelope", env(data=data(label=5)), "decision"),
    T("schema.meta", "E3001", "envelope", env(meta=meta(explain="x" * 21)), "tight"),
    T("schema.error", "E3001", "envelope", FAIL, "tight"),
    # `cogn check` gives no verdict against such a module (ENV-19); the envelope rules still say it when called
    # directly (a run's answer is judged by them; the run is refused before the call, RUN-1)
    T("schema.data.ref", "E3001", "envelope-rules", OK, "bad-ref"),
    T("schema.meta.ref", "E3001", "envelope-rules", OK, "bad-ref"),
    T("schema.error.ref", "E3001", "envelope-rules", FAIL, "bad-ref"),
    # single chunks
    T("chunk.kind", "E3001", "chunk", {"foo": 1}),
    T("chunk.meta.unknown", "E3001", "chunk", with_(META_CHUNK, extra=1)),
    T("chunk.meta.ok", "E3001", "chunk", with_(META_CHUNK, ok=DROP)),
    T("chunk.meta.session_id", "E3001", "chunk", with_(META_CHUNK, session_id="")),
    T("chunk.meta.meta", "E3001", "chunk", with_(META_CHUNK, meta=DROP)),
    T("meta.risk.enum", "E3001", "chunk", with_(META_CHUNK, meta={"risk": "huge"})),
    T("chunk.delta.unknown", "E3001", "chunk", {**delta(1, "a"), "extra": 1}),
    T("chunk.object", "E3001", "chunk", {"chunk": "text"}),
    T("chunk.seq", "E3001", "chunk", delta(0, "a")),
    T("chunk.seq", "E3001", "chunk", {"chunk": {"seq": True, "type": "delta", "field": "data.x", "delta": "a"}}),
    T("chunk.type", "E3001", "chunk", {"chunk": {"seq": 1, "type": "blob", "field": "data.x", "delta": "a"}}),
    T("chunk.delta.field", "E3001", "chunk", {"chunk": {"seq": 1, "type": "delta", "delta": "a"}}),
    T("chunk.delta.delta", "E3001", "chunk", {"chunk": {"seq": 1, "type": "delta", "field": "data.x", "delta": 5}}),
    T("chunk.snapshot.data", "E3001", "chunk", {"chunk": {"seq": 1, "type": "snapshot", "field": "data.x"}}),
    T("chunk.snapshot.field", "E3001", "chunk", {"chunk": {"seq": 1, "type": "snapshot", "field": 5, "data": 1}}),
    T(
        "chunk.unknown",
        "E3001",
        "chunk",
        {"chunk": {"seq": 1, "type": "delta", "field": "data.x", "delta": "a", "z": 1}},
    ),
    T("chunk.progress.unknown", "E3001", "chunk", {"progress": {"percent": 5}, "extra": 1}),
    T("chunk.progress.object", "E3001", "chunk", {"progress": 45}),
    T("chunk.progress.percent", "E3001", "chunk", {"progress": {"percent": 101}}),
    T("chunk.progress.stage", "E3001", "chunk", {"progress": {"percent": 5, "stage": 3}}),
    T("chunk.final.unknown", "E3001", "chunk", with_(FINAL, extra=1)),
    T("meta.confidence.type", "E3001", "chunk", with_(FINAL, meta=meta(confidence=None))),  # STREAM-6
    T("usage.object", "E3001", "chunk", with_(FINAL, usage=5)),
    T("usage.tokens", "E3001", "chunk", with_(FINAL, usage={"input_tokens": -1, "output_tokens": 2})),
    T(
        "chunk.error.unknown",
        "E3001",
        "chunk",
        {"ok": False, "streaming": True, "session_id": SESSION, "error": {"code": "E2010", "message": "m"}, "x": 1},
    ),
    T(
        "chunk.error.session_id",
        "E3001",
        "chunk",
        {"ok": False, "streaming": True, "error": {"code": "E2010", "message": "m"}},
    ),
    T("chunk.error.error", "E3001", "chunk", {"ok": False, "streaming": True, "session_id": SESSION}),
    T(
        "chunk.error.code",
        "E3001",
        "chunk",
        {"ok": False, "session_id": SESSION, "error": {"code": 2010, "message": "m"}},
    ),
    T(
        "chunk.error.partial_data",
        "E3001",
        "chunk",
        {"ok": False, "session_id": SESSION, "error": {"code": "E2010", "message": "m"}, "partial_data": "x"},
    ),
    T(
        "meta.confidence.type",
        "E3001",
        "chunk",
        {
            "ok": False,
            "session_id": SESSION,
            "error": {"code": "E2010", "message": "m"},
            "meta": {"confidence": None, "risk": "high", "explain": "x"},
        },
    ),
    # streams
    T("stream.empty", "E2010", "stream", []),
    T("stream.array", "E3001", "stream", {"not": "a list"}),
    T("stream.meta.first", "E3001", "stream", [delta(1, "ab"), FINAL]),
    T("stream.meta.once", "E3001", "stream", [META_CHUNK, META_CHUNK, FINAL]),
    T("stream.seq.order", "E3001", "stream", [META_CHUNK, delta(2, "a"), delta(1, "b"), FINAL]),
    T("stream.seq.order", "E3001", "stream", [META_CHUNK, delta(2, "ab"), FINAL]),
    T("stream.terminal.missing", "E2010", "stream", [META_CHUNK, delta(1, "ab")]),
    T("stream.terminal.last", "E3001", "stream", [META_CHUNK, FINAL, delta(1, "x")]),
    T(
        "stream.session_id",
        "E3001",
        "stream",
        [
            META_CHUNK,
            {"ok": False, "streaming": True, "session_id": "other", "error": {"code": "E2010", "message": "m"}},
        ],
    ),
    T("stream.delta.mismatch", "E3001", "stream", [META_CHUNK, delta(1, "a"), delta(2, "bc"), FINAL]),
    T("document.ndjson", "E3001", "envelope", checker_mod.parse_document(json.dumps(OK) + "\n" + json.dumps(OK))),
    T("document.sse", "E3001", "chunk", checker_mod.parse_document(f"event: meta\ndata: {json.dumps(META_CHUNK)}\n")),
    T(
        "stream.sse.event",
        "E3001",
        None,
        checker_mod.parse_document(
            "".join(f"event: {e}\ndata: {json.dumps(c)}\n\n" for e, c in [("meta", META_CHUNK), ("chunk", FINAL)])
        ),
    ),
    # inputs
    T("input.schema.missing", "E1001", "input", {"text": "x"}, "no-input"),
    T("input.required", "E1002", "input", {}, "decision"),
    T("input.type", "E1003", "input", {"text": 5}, "decision"),
    T("input.additionalProperties", "E1001", "input", {"text": "x", "extra": 1}, "decision"),
    T("input.schema.ref", "E1006", "input", {"text": "x"}, "bad-ref"),
    T("media.E1012", "E1012", "input", {"image": {"type": "url", "url": "ftp://example.com/a.png"}}),
    T("media.E1012", "E1012", "input", {"image": {"type": "url", "url": "file:///etc/passwd"}}),
    T("media.E1002", "E1002", "input", image(PNG, None)),
    T("media.E1002", "E1002", "input", {"image": {"type": "url", "url": ""}}),
    T(
        "media.E1013",
        "E1013",
        "input",
        {"image": {"type": "base64", "media_type": "image/png", "data": "not base64!!"}},
    ),
    T("media.E1010", "E1010", "input", image(PNG, "image/jpeg")),  # magic bytes disagree
    T("media.E1010", "E1010", "input", image(PNG, "image/bmp")),  # not in the allow-list
    T("media.E1010", "E1010", "input", {"doc": {"type": "file", "path": "/tmp/notes.xyz"}}),
    T("media.E1010", "E1010", "input", image(PNG, "image/png"), "text-only"),  # modalities.input has no image
    T("media.E1011", "E1011", "input", image(PNG, "image/png"), limits={"image": 32}),
    T("media.E1003", "E1003", "input", {"image": {"type": "base64", "media_type": 5, "data": b64(PNG)}}),
    T("media.E1013", "E1013", "input", {"image": {"type": "base64", "media_type": "image/png", "data": ""}}),  # RUN-19
    # generated media in data (SPEC-v2.5 §4.1.2, ENV-16)
    T("media.output.E1010", "E1010", "envelope", env(data=data(img={"type": "url", "media_type": "image/gif"}))),
    T("media.output.E1013", "E1013", "envelope", env(data=data(img={"type": "base64", "media_type": "image/png"}))),
]


def _run(trigger: Trigger, modules: dict[str, Module], monkeypatch: pytest.MonkeyPatch) -> CheckResult:
    for category, limit in trigger.limits.items():
        monkeypatch.setitem(media.SIZE_LIMITS, category, limit)
    module = modules[trigger.module] if trigger.module else None
    if trigger.kind == "envelope-rules":
        return CheckResult("envelope", envelope_mod.check_envelope(trigger.doc, module))
    return check_document(trigger.doc, trigger.kind, module)


@pytest.mark.parametrize("trigger", TRIGGERS, ids=lambda t: f"{t.rule}-{t.module or 'none'}")
def test_trigger(trigger: Trigger, modules: dict[str, Module], monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(trigger, modules, monkeypatch)
    assert not result.valid
    hits = [v for v in result.violations if v.rule == trigger.rule]
    assert hits, f"{trigger.rule} not reported; got {[(v.rule, v.code) for v in result.violations]}"
    assert all(v.code == trigger.code for v in hits)
    assert trigger.code in result.codes


_VIOLATION = re.compile(r'Violation\(\s*(?:"(E\d{4})"|[\w.]+)\s*,\s*f?"([^"]+)"')
_RULE_VAR = re.compile(r"\brule\s*=\s*(.+)")


def source_rules() -> list[tuple[str, str | None]]:
    """(rule template, E-code or None when computed) for every Violation built in the checker's sources."""
    out: list[tuple[str, str | None]] = []
    for mod in (envelope_mod, chunk_mod, checker_mod, stream_text_mod):
        text = Path(mod.__file__ or "").read_text(encoding="utf-8")
        out.extend((rule, code or None) for code, rule in _VIOLATION.findall(text))
        for line in _RULE_VAR.findall(text):
            out.extend((rule, "E3001") for rule in re.findall(r'"([a-z_]+(?:\.[a-z_]+)+)"', line))
    return out


def _template(rule: str) -> re.Pattern[str]:
    parts = re.split(r"\{[^}]*\}", rule)
    return re.compile("[A-Za-z0-9_]+".join(re.escape(p) for p in parts) + "$")


def test_every_rule_in_the_sources_is_triggered() -> None:
    rules = source_rules()
    assert len(rules) > 60  # the regex really reads the sources
    assert ("error.message.required", "E3001") in rules and ("media.{p.code}", None) in rules
    missing = []
    for rule, code in rules:
        pattern = _template(rule)
        if not any(pattern.match(t.rule) and (code is None or code == t.code) for t in TRIGGERS):
            missing.append((rule, code))
    assert missing == []


def test_media_rules_cover_every_media_code() -> None:
    text = Path(media.__file__).read_text(encoding="utf-8")
    codes = set(re.findall(r'MediaProblem\(\s*"(E\d{4})"', text))
    assert codes == {t.code for t in TRIGGERS if t.rule.startswith("media.")}


# ---------------------------------------------------------------- what must be accepted


VALID_STREAM = [
    META_CHUNK,
    delta(1, "a"),
    {"progress": {"percent": 50, "stage": "thinking", "message": "half way"}},
    {},
    delta(2, "b"),
    {"chunk": {"seq": 3, "type": "snapshot", "field": "data.label", "data": "bug"}},
    with_(FINAL, usage={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}, session_id=SESSION),
]


@pytest.mark.parametrize(
    ("doc", "kind", "module"),
    [
        (OK, "envelope", None),
        (OK, None, "decision"),
        (FAIL, "envelope", "decision"),
        (with_(FAIL, partial_data={"rationale": "so far"}), None, None),
        (with_(FAIL, error={"code": "SCHEMA_VALIDATION_FAILED", "message": "legacy code"}), None, None),
        (with_(FAIL, error={"code": "E5001", "message": "module code"}), None, None),
        (env(meta=meta(explain="é" * 280)), None, None),
        (env(meta=meta(confidence=0), version="2.2", module="m", trace_id="t", latency_ms=3), None, None),
        (env(meta=meta(confidence=1, risk="none", trace_id="t", model="m", latency_ms=0.5)), None, None),
        (env(data=insights(20)), None, None),
        (env(data=insights(5)), None, "decision"),
        (env(data=data(label={"custom": "regression", "reason": "new"})), None, "decision"),
        (env(meta=meta(confidence=0.9, risk="none")), None, "exec"),
        (env(meta=meta(confidence=0.9, risk="low")), None, "exec"),
        (META_CHUNK, "chunk", None),
        (with_(META_CHUNK, meta={"confidence": None}), "chunk", None),  # meta chunk may omit risk and explain
        ({}, "chunk", None),
        (VALID_STREAM, "stream", None),
        (VALID_STREAM, None, "decision"),
        (
            [
                META_CHUNK,
                {
                    "ok": False,
                    "streaming": True,
                    "session_id": SESSION,
                    "error": {"code": "E2011", "message": "timeout"},
                    "partial_data": {"rationale": "a"},
                },
            ],
            None,
            None,
        ),
        ({"text": "hello"}, "input", "decision"),
        (image(PNG, "image/png"), "input", "image"),
        (image(JPEG, "image/jpg"), "input", "image"),  # alias of image/jpeg
        ({"text": "x", "image": {"type": "url", "url": "https://example.com/a.png"}}, "input", "image"),
    ],
)
def test_valid_documents(doc: Any, kind: str | None, module: str | None, modules: dict[str, Module]) -> None:
    result = check_document(doc, kind, modules[module] if module else None)
    assert result.valid, [(v.rule, v.code, v.message) for v in result.violations]


# ---------------------------------------------------------------- streams


def test_stream_json_array_and_ndjson() -> None:
    as_array = json.dumps(VALID_STREAM)
    as_ndjson = "\n".join(json.dumps(c) for c in VALID_STREAM) + "\n"
    for text in (as_array, as_ndjson):
        doc = parse_document(text)
        assert detect_kind(doc) == "stream"
        assert check_document(doc).valid
    bad = "\n".join(json.dumps(c) for c in [META_CHUNK, delta(1, "a"), delta(1, "b"), FINAL])
    result = check_document(parse_document(bad))
    assert result.kind == "stream" and "stream.seq.order" in {v.rule for v in result.violations}


def test_seq_counts_only_delta_and_snapshot_chunks() -> None:
    stream = [META_CHUNK, {"progress": {"percent": 1}}, {}, delta(1, "a"), {}, delta(2, "b"), FINAL]
    assert check_document(stream, "stream").valid


def test_nothing_after_the_terminal_chunk() -> None:
    err = {"ok": False, "streaming": True, "session_id": SESSION, "error": {"code": "E2010", "message": "m"}}
    for tail in ({}, FINAL, {"progress": {"percent": 1}}):
        result = check_document([META_CHUNK, err, tail], "stream")
        assert "stream.terminal.last" in {v.rule for v in result.violations}, tail


def test_deltas_join_to_the_final_field() -> None:
    stream = [
        META_CHUNK,
        delta(1, "a"),
        delta(2, "bu", "data.label"),
        delta(3, "b"),
        delta(4, "g", "data.label"),
        FINAL,
    ]
    assert check_document(stream, "stream").valid
    wrong = [META_CHUNK, delta(1, "ab"), delta(2, "b", "data.label"), FINAL]
    [v] = [v for v in check_document(wrong, "stream").violations if v.rule == "stream.delta.mismatch"]
    assert v.path == (2, "chunk", "field") and "data.label" in v.message


def test_snapshot_replaces_a_field() -> None:
    snap = {"chunk": {"seq": 2, "type": "snapshot", "field": "data.rationale", "data": "ab"}}
    # The deltas before the snapshot ("zz") no longer need to match the final value.
    assert check_document([META_CHUNK, delta(1, "zz"), snap, FINAL], "stream").valid
    whole = {"chunk": {"seq": 2, "type": "snapshot", "data": {"label": "bug", "rationale": "ab"}}}
    # Without a field the snapshot replaces all of data, so earlier deltas are superseded too.
    assert check_document([META_CHUNK, delta(1, "zz"), whole, FINAL], "stream").valid
    parent = {"chunk": {"seq": 2, "type": "snapshot", "field": "data", "data": {"label": "bug", "rationale": "ab"}}}
    assert check_document([META_CHUNK, delta(1, "zz"), parent, FINAL], "stream").valid
    # Deltas after a text snapshot extend it.
    text_snap = {"chunk": {"seq": 1, "type": "snapshot", "field": "data.rationale", "data": "a"}}
    assert check_document([META_CHUNK, text_snap, delta(2, "b"), FINAL], "stream").valid
    bad = check_document([META_CHUNK, text_snap, delta(2, "x"), FINAL], "stream")
    assert [v.rule for v in bad.violations] == ["stream.delta.mismatch"]
    # A snapshot of another field does not excuse wrong deltas.
    other = {"chunk": {"seq": 2, "type": "snapshot", "field": "data.label", "data": "bug"}}
    assert not check_document([META_CHUNK, delta(1, "zz"), other, FINAL], "stream").valid


def test_heartbeat_is_the_empty_chunk() -> None:
    assert detect_kind({}) == "chunk"
    assert check_document({}, "chunk").valid
    assert check_document([META_CHUNK, {}, {}, FINAL], "stream").valid


def test_confidence_null_only_in_meta_chunk() -> None:
    assert check_document(META_CHUNK, "chunk").valid
    assert not check_document(with_(FINAL, meta=meta(confidence=None)), "chunk").valid
    assert not check_document(env(meta=meta(confidence=None)), "envelope").valid
    stream = [META_CHUNK, delta(1, "ab"), with_(FINAL, meta=meta(confidence=None))]
    assert "meta.confidence.type" in {v.rule for v in check_document(stream, "stream").violations}


def test_stream_violation_paths_index_chunks() -> None:
    result = check_document(
        [
            META_CHUNK,
            delta(1, "a"),
            {"chunk": {"seq": 2, "type": "delta", "field": "data.rationale", "delta": 5}},
            FINAL,
        ],
        "stream",
    )
    [v] = [v for v in result.violations if v.rule == "chunk.delta.delta"]
    assert v.path == (2, "chunk", "delta")


# ---------------------------------------------------------------- inputs


def test_input_violations_name_the_field(modules: dict[str, Module]) -> None:
    m = modules["decision"]
    [missing] = check_document({}, "input", m).violations
    assert (missing.code, missing.path) == ("E1002", ("text",)) and "text" in missing.message
    [typed] = check_document({"text": 5}, "input", m).violations
    assert (typed.code, typed.path) == ("E1003", ("text",)) and typed.message == "text: expected string, got integer"
    [extra] = check_document({"text": "x", "extra": 1}, "input", m).violations
    assert extra.code == "E1001" and "extra" in extra.message


def test_a_meta_field_the_spec_rules_reject_is_said_once_not_again_by_the_meta_schema(
    modules: dict[str, Module],
) -> None:
    found = check_document(env(meta=meta(confidence=2)), "envelope", modules["decision"]).violations
    assert [v.rule for v in found if v.path == ("meta", "confidence")] == ["meta.confidence.range"]


def test_types_are_named_as_json_names_them() -> None:
    names = [json_type(v) for v in (None, True, 3, 2.5, "s", [1], {"k": 1})]
    assert names == ["null", "boolean", "integer", "number", "string", "array", "object"]
    [v] = [x for x in check_document(env(meta=meta(confidence=None)), "envelope").violations if "confidence" in x.rule]
    assert v.message == "meta.confidence must be a number, not null"


def test_nested_missing_field_path(tmp_path: Path) -> None:
    s = copy.deepcopy(SCHEMA_V22)
    s["input"] = {
        "type": "object",
        "required": ["opts"],
        "properties": {"opts": {"type": "object", "required": ["depth"]}},
    }
    files = clean_v22()
    files["schema.json"] = s
    files["tests/case1.input.json"] = {"opts": {"depth": 1}}
    m = load_module(make_module(tmp_path, files))
    [v] = check_document({"opts": {}}, "input", m).violations
    assert (v.code, v.path) == ("E1002", ("opts", "depth")) and "opts.depth" in v.message


def test_media_size_limit_is_the_category_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(media.SIZE_LIMITS, "image", len(PNG))
    assert check_input(image(PNG, "image/png"), None) == []  # exactly at the limit
    monkeypatch.setitem(media.SIZE_LIMITS, "image", len(PNG) - 1)
    assert check_document(image(PNG, "image/png"), "input").codes == ["E1011"]


def test_media_found_anywhere_in_the_input() -> None:
    doc = {"pages": [{"scan": {"type": "base64", "media_type": "image/jpeg", "data": b64(PNG)}}]}
    [v] = check_document(doc, "input").violations
    assert v.code == "E1010" and v.path == ("pages", 0, "scan", "data")


def test_modalities_accepting_the_category(modules: dict[str, Module]) -> None:
    assert check_document(image(PNG, "image/png"), "input", modules["image"]).valid
    result = check_document(image(PNG, "image/png"), "input", modules["text-only"])
    assert result.codes == ["E1010"] and "image" in result.violations[0].message


# ---------------------------------------------------------------- documents


@pytest.mark.parametrize("text", ["", "   \n", "not json", "{'a': 1}", '{"a": 1}\nnot json\n', "[1, 2"])
def test_unusable_documents(text: str) -> None:
    with pytest.raises(UnusableDocument):
        parse_document(text)


def test_parse_document_values() -> None:
    assert parse_document(' {"ok": true} \n') == {"ok": True}
    assert parse_document("[1, 2]") == [1, 2]
    nd = parse_document('{"a": 1}\n\n{"b": 2}\n')
    assert nd == [{"a": 1}, {"b": 2}] and detect_kind(nd) == "stream"


def test_detect_kind() -> None:
    assert detect_kind(OK) == "envelope"
    assert detect_kind(FAIL) == "envelope"
    assert detect_kind(META_CHUNK) == "chunk"
    assert detect_kind(FINAL) == "chunk"
    assert detect_kind(delta(1, "a")) == "chunk"
    assert detect_kind([OK]) == "stream"
    assert detect_kind({"text": "x"}) == "input"
    assert detect_kind(42) == "envelope"


def test_result_json_shape() -> None:
    result = check_document(env(meta=meta(confidence=1.5), extra=1))
    out = result.to_json()
    assert set(out) == {"kind", "valid", "codes", "violations", "warnings"}
    assert out["kind"] == "envelope" and out["valid"] is False and out["codes"] == ["E3001"]
    assert [v["path"] for v in out["violations"]] == ["meta.confidence"]
    # An extra top-level field is a warning, not a violation (ENV-4).
    assert [(w["rule"], w["path"]) for w in out["warnings"]] == [("envelope.shape", "extra")]
    json.dumps(out)
