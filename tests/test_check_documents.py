"""What `check_document` reads and refuses to judge (STREAM-9, ENV-17, ENV-18): SSE streams, conformance vectors,
inputs without a module."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cogtui.core.rules.conformance_vector import VectorExpectation, split_vector
from cogtui.core.rules.document_checker import (
    UnjudgedInput,
    UnusableDocument,
    check_document,
    check_input,
    detect_kind,
    parse_document,
)
from cogtui.core.rules.stream_text import StreamText, looks_like_sse, sse_frame

SESSION = "sess_1"
META_CHUNK = {"ok": True, "streaming": True, "session_id": SESSION, "meta": {"confidence": None, "explain": "go"}}
FINAL = {"final": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "done"}, "data": {"rationale": "ab"}}
PROGRESS = {"progress": {"percent": 50}}
ERROR_CHUNK = {"ok": False, "streaming": True, "session_id": SESSION, "error": {"code": "E2010", "message": "cut"}}


def delta(seq: int, text: str) -> dict[str, Any]:
    return {"chunk": {"seq": seq, "type": "delta", "field": "data.rationale", "delta": text}}


STREAM = [META_CHUNK, delta(1, "a"), PROGRESS, {}, delta(2, "b"), FINAL]
SSE = "".join(sse_frame(c) for c in STREAM)  # exactly what `cogn run --stream sse` writes
OK_ENVELOPE: dict[str, Any] = {
    "ok": True,
    "meta": {"confidence": 0.9, "risk": "low", "explain": "x"},
    "data": {"rationale": "r"},
}


# ---------------------------------------------------------------- SSE streams


def test_sse_from_cogn_run_is_a_valid_stream_detected_without_a_kind() -> None:
    assert looks_like_sse(SSE)
    doc = parse_document(SSE)
    assert isinstance(doc, StreamText) and doc.transport == "sse"
    assert list(doc) == STREAM  # the `: heartbeat` comment is the empty chunk (STREAM-3)
    assert doc.events == ["meta", "chunk", "progress", None, "chunk", "final"]
    assert detect_kind(doc) == "stream"
    for kind in (None, "stream"):
        result = check_document(doc, kind)
        assert (result.kind, result.valid) == ("stream", True), result.violations


def test_sse_line_endings_multiline_data_id_and_retry() -> None:
    text = 'retry: 1000\n\nid: 7\nevent: meta\ndata: {"ok": true, "streaming": true,\ndata: "session_id": "s", "meta": {}}\n\n'
    text += 'event: final\ndata: {"final": true, "meta": {"confidence": 0.5, "risk": "low", "explain": "e"},'
    text += ' "data": {"rationale": "r"}}'  # no closing blank line at the end of the text
    for eol in ("\n", "\r\n", "\r"):
        doc = parse_document(text.replace("\n", eol))
        assert [c.get("session_id") for c in doc] == ["s", None]
        assert doc.lines == [3, 8] and doc.events == ["meta", "final"]
        assert check_document(doc, "stream").violations == []


def test_sse_event_names_the_chunk_kind_with_its_line() -> None:
    frames = [("meta", META_CHUNK), ("chunk", delta(1, "ab")), ("chunk", FINAL)]
    doc = parse_document("".join(f"event: {e}\ndata: {json.dumps(c)}\n\n" for e, c in frames))
    result = check_document(doc)
    [v] = result.violations
    assert (v.rule, v.code, v.path) == ("stream.sse.event", "E3001", (2,))
    assert "final chunk" in v.message and "event: final" in v.message
    assert result.line_of(v) == 7 and result.to_json()["violations"][0]["line"] == 7
    error_frames = [("meta", META_CHUNK), ("final", ERROR_CHUNK)]
    doc = parse_document("".join(f"event: {e}\ndata: {json.dumps(c)}\n\n" for e, c in error_frames))
    assert [v.message for v in check_document(doc).violations] == [
        "a error chunk sent as `event: final` (expected `event: error`)"
    ]


def test_a_heartbeat_after_the_final_frame_is_a_chunk_after_the_terminal_one() -> None:
    result = check_document(parse_document(SSE + ": heartbeat\n\n"), "stream")
    [v] = result.violations
    assert v.rule == "stream.terminal.last" and result.line_of(v) == SSE.count("\n") + 1
    other_comment = parse_document(SSE + ": just a comment\n\n")  # only `: heartbeat` is a chunk
    assert list(other_comment) == STREAM


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('event: meta\ndata: {"ok": true,\n\n', "line 2, column 19: not JSON"),
        ('event: meta\ndata: {"ok": true,\ndata: "x"\ndata: bad}\n\n', "line 4, column 7: not JSON"),
        ("event: meta\n\nevent: final\ndata: {}\n\n", "line 1: the SSE event `meta` has no data"),
        ('event: meta\ndata: {}\n{"chunk": 1}\n\n', "line 3: not an SSE line"),
        ("event: meta\r\ndata: {}\r\n\r\ndata: [1,\r\n\r\n", "line 4, column 10: not JSON"),
        (": only a comment\n\n", "holds no event"),
        ("data: NaN\n\n", "line 1: not usable JSON"),
    ],
)
def test_malformed_sse_frames_are_located(text: str, where: str) -> None:
    with pytest.raises(UnusableDocument) as info:
        parse_document(text)
    assert where in str(info.value)


def test_ndjson_chunks_keep_their_lines() -> None:
    text = "\n".join(json.dumps(c) for c in [META_CHUNK, delta(1, "a")]) + "\n\n\n" + json.dumps(delta(1, "b")) + "\n"
    doc = parse_document(text)
    assert isinstance(doc, StreamText) and doc.transport == "ndjson" and doc.lines == [1, 2, 5]
    result = check_document(doc)
    assert {(v.rule, result.line_of(v)) for v in result.violations} == {
        ("stream.seq.order", 5),
        ("stream.terminal.missing", 5),
    }
    with pytest.raises(UnusableDocument, match="line 3, column 2: not JSON"):
        parse_document('{"a": 1}\n\n{oops\n')


def test_an_sse_stream_is_not_one_chunk() -> None:
    [v] = check_document(parse_document(SSE), "chunk").violations
    assert v.rule == "document.sse" and "--kind stream" in v.message
    assert check_document(STREAM, "stream").to_json().get("violations") == []  # a JSON array has no lines
    assert check_document(STREAM, "stream").lines is None


# ---------------------------------------------------------------- conformance vectors


def vector(envelope: Any, **test: Any) -> dict[str, Any]:
    return {"$test": {"name": "v", **test}, "envelope": envelope}


def test_a_vector_is_judged_as_its_envelope() -> None:
    bad = {**OK_ENVELOPE, "meta": {**OK_ENVELOPE["meta"], "confidence": 1.5}}
    doc = vector(bad, expects="reject", error_codes=["E3001"])
    assert detect_kind(doc) == "envelope"
    for kind in (None, "envelope"):
        result = check_document(doc, kind)
        assert (result.kind, result.valid, result.codes) == ("envelope", False, ["E3001"])
        assert result.vector is not None and result.vector.agrees is True
        assert result.to_json()["vector"] == {
            "name": "v",
            "expects": "reject",
            "error_codes": ["E3001"],
            "agrees": True,
        }
    judged = check_document(vector(OK_ENVELOPE, expects="accept")).vector
    assert judged is not None and judged.agrees is True
    # Another explicit kind reads the document as it is: a vector is no chunk.
    assert check_document(doc, "chunk").vector is None and not check_document(doc, "chunk").valid


@pytest.mark.parametrize(
    ("envelope", "test", "agrees", "reason"),
    [
        ({"ok": True}, {"expects": "accept"}, False, "expects its envelope to be accepted"),
        (OK_ENVELOPE, {"expects": "reject"}, False, "expects its envelope to be rejected"),
        ({"ok": True}, {"expects": "reject", "error_codes": ["E1001"]}, False, "expects E1001, not reported"),
        ({"ok": True}, {"expects": "reject", "error_codes": ["E3001"]}, True, ""),
        (OK_ENVELOPE, {"expects": "maybe"}, None, "neither accept nor reject"),
    ],
)
def test_the_verdict_is_compared_with_the_vector(envelope: Any, test: Any, agrees: bool | None, reason: str) -> None:
    outcome = check_document(vector(envelope, **test)).vector
    assert outcome is not None and outcome.agrees is agrees and reason in outcome.reason
    assert ("agrees" if agrees else "disagrees" if agrees is False else "nothing to compare") in outcome.summary()


def test_what_makes_a_vector() -> None:
    assert split_vector({"$test": {"expects": "accept", "error_codes": ["E3001", 5]}, "envelope": 1}) == (
        VectorExpectation(None, "accept", ("E3001",)),
        1,
    )
    not_vectors: list[object] = [{"$test": "x", "envelope": {}}, {"$test": {}}, {"envelope": {}}, [1], OK_ENVELOPE]
    for not_vector in not_vectors:
        assert split_vector(not_vector) is None


# ---------------------------------------------------------------- inputs without a module


@pytest.mark.parametrize("doc", [{"foo": 1}, {"meta": {"confidence": 1}}, {"text": "hello"}])
def test_an_input_without_a_module_gets_no_verdict(doc: Any) -> None:
    with pytest.raises(UnjudgedInput) as detected:
        check_document(doc)
    assert detected.value.detected and "not an envelope" in str(detected.value) and "--module" in str(detected.value)
    with pytest.raises(UnjudgedInput) as explicit:
        check_document(doc, "input")
    assert not explicit.value.detected and "--module" in str(explicit.value)


def test_media_rules_still_judge_an_input_without_a_module() -> None:
    bad = {"image": {"type": "url", "url": "ftp://example.com/a.png"}}
    for kind in (None, "input"):
        result = check_document(bad, kind)
        assert (result.kind, result.codes) == ("input", ["E1012"])
    assert check_input({"doc": {"type": "file", "path": "/data/report.pdf"}}, None) == []
