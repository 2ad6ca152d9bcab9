"""Review fixes on the model-output path (docs/spec-decisions.md ENV-7, RUN-17, ENV-11, RUN-10, ENV-8, CODE-3).

- The field streamer never raises, whatever text arrives, however it is cut.
- The prompt text shows media as placeholders, never their base64 data.
- The runner and `cogn check` judge insights with the same rules.
- NaN, Infinity and overflowing numbers are not JSON: E1000, or the corrective retry when it is on (ENV-10).
- A bare v2.1 payload with a business field called `data` is wrapped whole.
"""

from __future__ import annotations

import base64
import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from modkit import clean_v1, make_module, mapping_in
from rtkit import (
    assert_failure,
    assert_valid_success,
    collect,
    copy_module,
    example,
    golden,
    model_answer,
    options,
    provider,
    set_keys,
    user_text,
)

from cogtui.core.files.json_extract import NonFiniteNumber, extract_json, loads_finite
from cogtui.core.module.loader import load_module
from cogtui.core.rules.document_checker import check_document
from cogtui.core.run.field_stream import FieldStreamer
from cogtui.core.run.normalize import to_envelope, wrap_v21
from cogtui.core.run.postprocess import postprocess
from cogtui.core.run.prompt import input_text, media_placeholder, prompt_input, user_prompt
from cogtui.core.run.runner import CORRECTIVE, RunResult, run_module


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


async def run_answers(srv: Any, module: Any, input_value: Any, *answers: Any) -> RunResult:
    srv.enqueue(*(a if isinstance(a, str) else json.dumps(a, ensure_ascii=False) for a in answers))
    return await run_module(module, input_value, options(provider("openai", srv)))


REVIEW_IN, REVIEW_OUT = golden("code-reviewer")
GOOD = json.dumps(model_answer(REVIEW_OUT), ensure_ascii=False)


# ---------------------------------------------------------------- 1. the field streamer never raises


def test_prose_object_with_a_windows_path_key_does_not_raise() -> None:
    streamer = FieldStreamer()
    events = streamer.feed('I looked at {"C:\\Users\\me": 1} first. ' + GOOD)
    assert not streamer.broken
    assert events == [("value", "data.C:\\Users\\me", 1)]  # the raw key, as `_flush` passes invalid escapes through


async def test_prose_object_with_a_windows_path_key_still_runs(llm_server: Any) -> None:
    result = await run_answers(
        llm_server,
        example("code-reviewer"),
        REVIEW_IN,
        'I looked at {"C:\\Users\\me": 1} first. Here is the answer:\n' + GOOD,
    )
    assert_valid_success(result.envelope, example("code-reviewer"))
    assert result.attempts == 1


def test_deeply_nested_value_and_non_finite_numbers_give_no_event() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    streamer = FieldStreamer()
    events = streamer.feed('{"data": {"deep": ' + deep + ', "n": NaN, "m": [1e999], "k": 2}}')
    assert events == [("value", "data.k", 2)] and not streamer.broken


def test_an_internal_error_stops_the_streamer_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    streamer = FieldStreamer()
    assert streamer.feed('{"data": {"rationale": "ab') == [("delta", "data.rationale", "ab")]

    def boom(*_: Any) -> int:
        raise IndexError("a parser bug")

    monkeypatch.setattr(FieldStreamer, "_string", boom)
    assert streamer.feed('cd"}}') == [] and streamer.broken and streamer.done
    assert streamer.feed("more") == []


JSONISH = '{}[]":,\\/ \n\tu0123456789abcdefABCDEF.+-eENaInfinityrulsn\ud7ff\u00e9\U0001f600'
texts = st.one_of(
    st.text(st.sampled_from(JSONISH), max_size=300),
    st.text(max_size=200),
    st.lists(
        st.sampled_from(
            [
                '{"data": {',
                '{"meta": {"explain": "',
                '"rationale": "',
                "\\u",
                "\\ud83d",
                "\\",
                '"',
                "{",
                "}",
                "[",
                "]",
                ",",
                ":",
                "NaN",
                "1e999",
                '{"C:\\Users": ',
                '"k\\x": 1',
                "-Infinity",
                '"ok": true,',
                GOOD[:40],
            ]
        ),
        max_size=40,
    ).map("".join),
)


def _check_events(events: list[Any]) -> None:
    for ev in events:
        kind, fld, payload = ev
        assert kind in ("delta", "value") and isinstance(fld, str) and fld.startswith(("meta.", "data."))
        if kind == "delta":
            assert isinstance(payload, str) and payload
        json.dumps(payload, allow_nan=False)  # every event can go out as a chunk


@property_settings(400)
@given(st.data(), texts)
def test_any_text_cut_anywhere_never_raises(data: st.DataObject, text: str) -> None:
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=30))))
    streamer = FieldStreamer()
    for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
        _check_events(streamer.feed(text[a:b]))
    assert not streamer.broken


@property_settings(100)
@given(texts)
def test_any_text_one_character_at_a_time_never_raises(text: str) -> None:
    streamer = FieldStreamer()
    for ch in text:
        _check_events(streamer.feed(ch))
    assert not streamer.broken


# ---------------------------------------------------------------- 2. media in the prompt text (RUN-17)

PNG = (example("screenshot-auditor").path / "assets/login-form.png").read_bytes()
PNG_B64 = base64.b64encode(PNG).decode("ascii")


def test_prompt_shows_media_as_numbered_placeholders() -> None:
    inp: dict[str, Any] = {
        "shots": [
            {"type": "base64", "media_type": "image/png", "data": PNG_B64},
            {"type": "url", "url": "https://example.com/a/b.JPG?sig=1"},
        ],
        "doc": {"type": "file", "path": "assets/spec.pdf"},
        "question": "Why?",
    }
    shown = prompt_input(inp)
    assert shown == {
        "shots": [
            "[media 1: image/png, attached]",
            "[media 2: image/jpeg, attached, from https://example.com/a/b.JPG?sig=1]",
        ],
        "doc": "[media 3: application/pdf, attached, from assets/spec.pdf]",
        "question": "Why?",
    }
    assert inp["shots"][0]["data"] == PNG_B64  # the input itself is untouched
    text = user_prompt(example("screenshot-auditor"), "Look at $MEDIA_INPUTS", inp, "[1] image ...")
    assert PNG_B64 not in text and "[media 1: image/png, attached]" in text
    assert PNG_B64 not in input_text(inp)


def test_prompt_input_without_media_is_the_input() -> None:
    inp = {"text": "no media", "n": [1, {"type": "other"}]}
    assert prompt_input(inp) is inp
    assert json.loads(input_text(inp)) == inp
    assert (
        prompt_input({"type": "base64", "media_type": "image/png", "data": "AAAA"}) == "[media 1: image/png, attached]"
    )
    assert media_placeholder(2, {"type": "url", "url": "https://h/" + "x" * 500}).endswith("x...]")
    assert (
        media_placeholder(1, {"type": "url", "url": "https://h/blob"})
        == "[media 1: type unknown, attached, from https://h/blob]"
    )


@pytest.mark.parametrize("proto", ["anthropic", "openai"])
async def test_base64_media_is_sent_once_as_an_attachment(llm_server: Any, proto: str) -> None:
    module = example("screenshot-auditor")
    inp, expected = golden("screenshot-auditor")
    inp = {**inp, "screenshot": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
    llm_server.enqueue(json.dumps(model_answer(expected)))
    result = await run_module(module, inp, options(provider(proto, llm_server)))
    assert_valid_success(result.envelope, module)
    req = llm_server.last_request
    text = user_text(req)
    assert PNG_B64 not in text and "[media 1: image/png, attached]" in text
    assert json.dumps(req.body).count(PNG_B64) == 1  # the attachment, and only it


async def test_max_input_tokens_does_not_count_attached_media(llm_server: Any) -> None:
    module = example("screenshot-auditor")
    assert module.runtime_requirements["max_input_tokens"] == 8000
    big = base64.b64encode(PNG + b"\0" * 200_000).decode("ascii")  # ~67k tokens as text, a 200 KB image
    inp, expected = golden("screenshot-auditor")
    inp = {**inp, "screenshot": {"type": "base64", "media_type": "image/png", "data": big}}
    result = await run_answers(llm_server, module, inp, model_answer(expected))
    assert result.ok, result.envelope.get("error")


# ---------------------------------------------------------------- 3. the runner and the checker agree (ENV-7, ENV-8)


def _insights(n: int) -> list[dict[str, Any]]:
    return [{"text": f"insight {i}", "suggested_mapping": f"field_{i}"} for i in range(n)]


AGREEMENT = [  # (case, module, extensions.insights, the code both must give, or None for valid)
    ("empty-string mapping", "code-reviewer", [{"text": "t", "suggested_mapping": ""}], "E3004"),
    ("blank mapping", "code-reviewer", [{"text": "t", "suggested_mapping": "  "}], "E3004"),
    ("non-string mapping", "code-reviewer", [{"text": "t", "suggested_mapping": 7}], "E3004"),
    ("null mapping", "code-reviewer", [{"text": "t", "suggested_mapping": None}], "E3004"),
    ("missing mapping when required", "code-reviewer", [{"text": "t"}], "E3004"),
    ("too many insights (decision)", "code-reviewer", _insights(6), "E3004"),
    ("exactly max_items", "code-reviewer", _insights(5), None),
    ("overflow disabled (exec)", "json-patch-generator", _insights(1), "E3004"),
    ("empty insight text", "code-reviewer", [{"text": "", "suggested_mapping": "x"}], "E3001"),
    ("insights not an array", "code-reviewer", {"text": "t", "suggested_mapping": "x"}, "E3001"),
    ("missing mapping when not required", "optional-mapping", [{"text": "t"}], None),
    ("empty mapping when not required", "optional-mapping", [{"text": "t", "suggested_mapping": ""}], None),
]
PRIORITY = ("E3004", "E3005", "E3001", "E2001")  # the runner's routing order


def optional_mapping_module(tmp_path: Path) -> Any:
    root = copy_module(tmp_path, "code-reviewer", "optional-mapping")
    manifest = root / "module.yaml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8")
        .replace("name: code-reviewer", "name: optional-mapping")
        .replace("require_suggested_mapping: true", "require_suggested_mapping: false"),
        encoding="utf-8",
    )
    schema = json.loads((root / "schema.json").read_text(encoding="utf-8"))
    schema["$defs"]["extensions"]["properties"]["insights"]["items"]["required"] = ["text"]
    (root / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    module = load_module(root)
    assert module.contract.overflow_require_suggested_mapping.value is False
    return module


@pytest.mark.parametrize(("case", "name", "items", "code"), AGREEMENT, ids=[c[0] for c in AGREEMENT])
async def test_runner_and_checker_agree(
    tmp_path: Path, llm_server: Any, case: str, name: str, items: Any, code: str | None
) -> None:
    module = optional_mapping_module(tmp_path) if name == "optional-mapping" else example(name)
    inp, expected = golden("code-reviewer" if name == "optional-mapping" else name)
    answer = model_answer(expected)
    answer["data"].setdefault("extensions", {})["insights"] = copy.deepcopy(items)
    verdict = check_document(answer, "envelope", module)
    result = await run_answers(llm_server, module, inp, answer)
    if code is None:
        assert verdict.valid, [v.message for v in verdict.violations]
        assert_valid_success(result.envelope, module)
        return
    checker_code = next(c for c in PRIORITY if c in verdict.codes)
    assert checker_code == code, verdict.codes
    assert_failure(result.envelope, code)


async def test_exploration_trims_where_the_checker_would_reject(llm_server: Any) -> None:
    """The one intended difference (ENV-7): exploration fixes the answer first, and the fixed answer passes."""
    module = example("product-ideas")
    inp, expected = golden("product-ideas")
    answer = model_answer(expected)
    answer["data"].setdefault("extensions", {})["insights"] = _insights(25)
    assert "E3004" in check_document(answer, "envelope", module).codes
    result = await run_answers(llm_server, module, inp, answer)
    assert_valid_success(result.envelope, module)
    assert result.envelope["data"]["extensions"]["insights"] == _insights(20)


def test_check_envelope_runs_once_without_repairs(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtui.core.rules.envelope_rules import Violation, check_envelope
    from cogtui.core.run import postprocess as pp

    calls: list[int] = []

    def counted(env: Any, module: Any) -> list[Violation]:
        calls.append(1)
        return check_envelope(env, module)

    monkeypatch.setattr(pp, "check_envelope", counted)
    module = example("code-reviewer")
    assert pp.postprocess(model_answer(REVIEW_OUT), module).envelope["ok"] is True
    assert len(calls) == 1
    calls.clear()
    answer = model_answer(REVIEW_OUT)
    del answer["meta"]["explain"]  # repaired (a missing meta field), then judged again
    out = pp.postprocess(answer, module)
    assert out.envelope["ok"] is True and out.repairs and len(calls) == 2


# ---------------------------------------------------------------- 4. NaN and Infinity are not JSON (RUN-10)


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])
def test_non_finite_numbers_are_no_answer(bad: str) -> None:
    body = (
        '{"ok": true, "meta": {"confidence": ' + bad + ', "risk": "low", "explain": "x"}, "data": {"rationale": "r"}}'
    )
    for text in (body, f"```json\n{body}\n```", f"Here: {body} done", f'An aside {{"a": 1}} then {body}'):
        assert extract_json(text) is None, text
    with pytest.raises(NonFiniteNumber):
        loads_finite(body)
    assert extract_json(body.replace(bad, "0.5")) is not None
    assert extract_json('{"big": 1e308, "small": -1e-400}') == {"big": 1e308, "small": -0.0}


async def test_non_finite_answer_goes_to_the_corrective_retry(llm_server: Any) -> None:
    bad = GOOD.replace('"confidence": ', '"confidence": NaN, "was": ', 1)
    assert json.loads(bad)  # Python's json would have taken it
    opts = _opts(llm_server, bad, GOOD, fixes=frozenset({"corrective_retry"}))
    chunks, result, _ = await collect(example("code-reviewer"), REVIEW_IN, opts)
    assert_valid_success(result.envelope, example("code-reviewer"))
    assert result.attempts == 2 and user_text(llm_server.last_request, 1) == CORRECTIVE
    for chunk in chunks:
        json.dumps(chunk, allow_nan=False)


async def test_non_finite_twice_is_a_parse_error(llm_server: Any) -> None:
    bad = GOOD.replace('"confidence": ', '"confidence": Infinity, "was": ', 1)
    chunks, result, _ = await collect(example("code-reviewer"), REVIEW_IN, _opts(llm_server, bad, bad))
    assert_failure(result.envelope, "E1000")
    json.dumps(result.envelope, allow_nan=False)
    for chunk in chunks:
        json.dumps(chunk, allow_nan=False)


def _opts(srv: Any, *replies: str, **kw: Any) -> Any:
    srv.enqueue(*replies)
    return options(provider("anthropic", srv), **kw)


# ---------------------------------------------------------------- 5. a business field called `data` (ENV-11)


def test_business_field_named_data_keeps_the_rest() -> None:
    payload = {"data": {"rows": 3}, "rationale": "because", "confidence": 0.8}
    env = wrap_v21(payload)
    assert env["data"] == payload and env["meta"]["confidence"] == 0.8 and env["meta"]["explain"] == "because"


def test_pure_wrapper_is_unwrapped_unless_the_schema_declares_data() -> None:
    inner = {"summary": "s", "rationale": "r", "confidence": 0.7}
    assert wrap_v21({"data": inner})["data"] == inner
    assert wrap_v21({"data": inner, "version": "2.1", "ok": "yes"})["data"] == inner
    declares = {"type": "object", "properties": {"data": {"$ref": "#/$defs/d"}}}
    assert wrap_v21({"data": inner}, declares)["data"] == {"data": inner}
    via_ref = {"$ref": "#/$defs/out"}
    root = {"$defs": {"out": {"allOf": [{"properties": {"data": {"type": "object"}}}]}}}
    assert wrap_v21({"data": inner}, via_ref, root)["data"] == {"data": inner}
    assert to_envelope({"data": inner}, True, {"properties": {"other": {}}})[0]["data"] == inner


def _v1_with_data_field(tmp_path: Path) -> Any:
    files = clean_v1("datafield")
    out = mapping_in(files, "schema.json")["output"]
    out["properties"]["data"] = {"type": "object"}
    out["required"] = ["summary", "data", "rationale", "confidence"]
    return load_module(make_module(tmp_path, files, "datafield"))


def test_v1_answer_with_a_data_field_validates_whole(tmp_path: Path) -> None:
    module = _v1_with_data_field(tmp_path)
    answer = {"summary": "Short", "data": {"rows": 3}, "rationale": "Because", "confidence": 0.8}
    out = postprocess(answer, module)
    assert out.envelope["ok"] is True, out.envelope
    assert out.envelope["data"] == answer and out.wrapped
    # Even `{data: ...}` alone is that module's field, not a wrapper: nothing is thrown away.
    alone = postprocess({"data": {"rows": 3}}, module).envelope
    assert alone["ok"] is False and alone["partial_data"] == {"data": {"rows": 3}}


def test_v1_wrapper_without_a_data_field_is_unwrapped(tmp_path: Path) -> None:
    module = load_module(make_module(tmp_path, clean_v1("plain"), "plain"))
    inner = {"summary": "Short", "rationale": "Because", "confidence": 0.8}
    out = postprocess({"data": inner}, module)
    assert out.envelope["ok"] is True and out.envelope["data"] == inner
