"""Envelope and chunk messages quote model output as JSON, short and terminal-safe (CODE-11).

Users read JSON, so a value the model gave is quoted as `"abc"`, `{"k":1}`, `true`, `null`, never as
Python's repr (`'abc'`, `{'k': 1}`, `True`, `None`); a long one is cut with an ellipsis, and escape
sequences or bidi controls in it never reach a terminal raw. One helper does it (`schema_types.excerpt`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from modkit import clean_v22, make_module, mapping_in

from cogtui.core.files.terminal_text import holds_unsafe
from cogtui.core.module.loader import load_module
from cogtui.core.module.schema_types import excerpt
from cogtui.core.rules.chunk_rules import check_chunk
from cogtui.core.rules.declared_rules import check_risk_aggregation
from cogtui.core.rules.envelope_rules import check_envelope, check_tier
from cogtui.core.rules.envelope_shape import normalise_shape, shape_notes
from cogtui.core.rules.media_rules import check_output_media
from cogtui.core.run.normalize import repair
from cogtui.core.run.output_fixes import CONFIDENCE_TEXT, ENUM_HYPHENS
from cogtui.core.run.providers.base import malformed_stream_data

HOSTILE = "\x1b]2;pwned\x07\x9b\u202e"
PYTHON_REPR = re.compile(r"'[^']*'|\bTrue\b|\bFalse\b|\bNone\b")


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("abc", '"abc"'),
        ({"k": 1}, '{"k":1}'),
        ([True, None, 1.5], "[true,null,1.5]"),
        (True, "true"),
        (None, "null"),
        ("it's", '"it\'s"'),
        ("é", '"é"'),
    ],
)
def test_values_are_quoted_as_json(value: Any, quoted: str) -> None:
    assert excerpt(value) == quoted


def test_long_values_are_cut_with_an_ellipsis_and_a_string_keeps_its_quotes() -> None:
    cut = excerpt("x" * 500, 40)
    assert len(cut) <= 40 and cut.startswith('"xxx') and cut.endswith('…"')
    cut = excerpt({"k": "v" * 500}, 40)
    assert len(cut) <= 40 and cut.startswith('{"k":"vvv') and cut.endswith("…")
    cut = excerpt("\n" * 100, 20)  # escapes count: the quote stays within the limit
    assert len(cut) <= 20 and cut.endswith('…"')


def test_control_and_bidi_characters_are_json_escapes() -> None:
    quoted = excerpt(HOSTILE, 80)
    assert not holds_unsafe(quoted)
    assert json.loads(quoted) == HOSTILE  # still the same value, read as JSON


def envelope(**meta: Any) -> dict[str, Any]:
    return {"ok": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "x", **meta}, "data": {"rationale": "r"}}


def messages(violations: list[Any]) -> list[str]:
    return [v.message for v in violations]


def test_envelope_messages_quote_the_model_values_as_json() -> None:
    found = messages(check_envelope(envelope(risk="severe")))
    assert 'meta.risk "severe" is not one of none, low, medium, high' in found
    found = messages(check_envelope(envelope(risk=None)))
    assert "meta.risk null is not one of none, low, medium, high" in found
    found = messages(check_envelope(envelope(confidence="high")))
    assert "meta.confidence must be a number, not string" in found  # a type is named as JSON names it
    failure = {"ok": False, "meta": {"confidence": 0.0, "risk": "high", "explain": "x"}}
    found = messages(check_envelope({**failure, "error": {"code": True, "message": "m"}}))
    assert "error.code true is neither an E-code nor an UPPER_SNAKE legacy code" in found
    found = messages(check_envelope({**failure, "error": {"code": HOSTILE, "message": "m"}}))
    assert not any(holds_unsafe(m) for m in found)


def test_chunk_messages_quote_unexpected_fields_as_json() -> None:
    delta = {"seq": 1, "type": "delta", "field": "data.x", "delta": "a"}
    found = messages(check_chunk({"chunk": delta, "it's": 1}))
    assert found == ['unexpected field "it\'s" in a delta chunk']
    found = messages(check_chunk({"chunk": {**delta, "it's": 1}}))
    assert found == ['unexpected field "it\'s" in chunk']


def test_declared_tier_and_shape_messages(tmp_path: Path) -> None:
    risk = check_risk_aggregation({"risk": "low"}, {"changes": [{"risk": "high"}]}, ())
    assert messages(risk) == [
        'meta.risk "low" is below the highest data.changes[*].risk "high"; it must be their maximum'
    ]
    files = clean_v22()
    mapping_in(files, "module.yaml")["tier"] = "exec"
    module = load_module(make_module(tmp_path, files))
    tier = messages(check_tier({"confidence": 0.95, "risk": "high"}, module, ()))
    assert tier == ['risk "high" is too high for the exec tier (none or low)']
    odd = {**envelope(risk={"level": "medium"}), "extra": 1}
    notes = [m for _, m in shape_notes(odd)]
    assert 'top-level field "extra" is not part of the envelope; the runtime drops it' in notes
    assert 'meta.risk is the object form; it counts as "medium"' in notes
    _env, warnings = normalise_shape(odd)
    assert 'top-level field "extra" is not part of the envelope and was dropped' in warnings
    assert 'meta.risk was given as an object ({"level":"medium"}); normalised to "medium"' in warnings


def test_the_runtime_notes_quote_as_json() -> None:
    schema = {"type": "object", "properties": {"label": {"enum": ["bug", "request_changes"]}}}
    answer = envelope(confidence="85%")
    for label, fix in (
        ("Bug", 'enum value "Bug" normalised to "bug"'),
        ("request-changes", 'enum_hyphens: enum value "request-changes" read as "request_changes"'),
    ):
        answer["data"] = {"label": label, "rationale": "r"}
        applied: list[str] = []
        _env, notes = repair(answer, schema, None, frozenset({CONFIDENCE_TEXT, ENUM_HYPHENS}), applied)
        assert fix in notes + applied, notes + applied
    assert 'confidence_text: confidence "85%" read as 0.85' in applied


def test_provider_data_that_is_not_json_is_quoted_as_json() -> None:
    error = malformed_stream_data("not json" + HOSTILE, received=False, where="the stream")
    assert str(error).startswith('the stream sent data that is not a JSON object: "not json\\u001b]2;pwned')
    assert not holds_unsafe(str(error))


def test_generated_media_of_an_unknown_type_is_quoted_as_json() -> None:
    for declared, shown in (("text/x-evil", '"text/x-evil"'), (None, "null"), ("x" * 300, '"xxx')):
        [problem] = check_output_media({"img": {"type": "url", "media_type": declared, "url": "https://a/b"}}, ())
        assert problem.message.startswith(f"generated media of type {shown}"), problem.message
        assert len(problem.message) < 120


def test_no_python_repr_is_left_in_these_messages() -> None:
    """A sweep over every message above: no 'single-quoted' value, True, False or None is left."""
    found = messages(check_envelope(envelope(risk="severe", confidence="high")))
    found += messages(check_chunk({"final": True, "meta": {}, "data": {}, "weird": None, "zz": False}))
    assert found and not any(PYTHON_REPR.search(m) for m in found), found
