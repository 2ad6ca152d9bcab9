"""Runtime input handling (SPEC-v2.2 §4 step 1, SPEC-v0.1 $ARGUMENTS): what reaches the model, and what never does.

Every run goes through a real provider client against tests/llmserver.py, so
"no model call" is the server's own record of zero requests, and "the prompt
contains X" is read from the HTTP body the SDK actually sent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from modkit import clean_v22, make_module, mapping_in
from rtkit import (
    assert_failure,
    assert_valid_success,
    collect,
    example,
    golden,
    input_block,
    model_answer,
    options,
    provider,
    set_keys,
    system_text,
    user_text,
)

from cogtui.core.module.loader import load_module
from cogtui.core.run.runner import run_module


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def reviewer_answer() -> str:
    return json.dumps(model_answer(golden("code-reviewer")[1]))


# ---------------------------------------------------------------- input validation before any call


@pytest.mark.parametrize(
    ("bad_input", "code", "field"),
    [
        ({"description": "no diff at all"}, "E1002", "diff"),
        ({"diff": 42}, "E1003", "diff"),
        ({"diff": "", "focus": ["security", "vibes"]}, "E1001", "focus"),
        ({"diff": "", "reviewer": "me"}, "E1001", "reviewer"),
    ],
)
@pytest.mark.parametrize("proto", ["anthropic", "openai"])
async def test_invalid_input_fails_before_any_model_call(
    llm_server: Any, proto: str, bad_input: dict[str, Any], code: str, field: str
) -> None:
    llm_server.enqueue(reviewer_answer())
    result = await run_module(example("code-reviewer"), bad_input, options(provider(proto, llm_server)))
    err = assert_failure(result.envelope, code)
    assert field in err["message"], err["message"]
    assert any(field in v["path"] or field in v["message"] for v in err["details"]["violations"])
    assert llm_server.requests == []  # rejected before the provider was called
    assert llm_server.pending == 1


async def test_input_over_max_input_tokens_is_e1005(llm_server: Any) -> None:
    module = example("code-reviewer")
    assert module.runtime_requirements["max_input_tokens"] == 16000
    huge = {"diff": "+ a line of a very long diff\n" * 3000}  # ~87 kB, ~22k tokens
    llm_server.enqueue(reviewer_answer())
    result = await run_module(module, huge, options(provider("openai", llm_server)))
    err = assert_failure(result.envelope, "E1005")
    assert err["details"]["max_input_tokens"] == 16000
    assert err["details"]["estimated_tokens"] > 16000
    assert llm_server.requests == []
    # The same module takes an input under the limit to the model.
    result = await run_module(module, {"diff": "+ small\n"}, options(provider("openai", llm_server)))
    assert result.ok and len(llm_server.requests) == 1


# ---------------------------------------------------------------- $ARGUMENTS


ARGS_PROMPT = """# Arguments
all=[$ARGUMENTS]
first=[$ARGUMENTS[0]] second=[$ARGUMENTS[1]] twelfth=[$ARGUMENTS[11]] past=[$ARGUMENTS[40]]
zero=[$0] one=[$1] ten=[$10] eleven=[$11]
untouched: US$ 3, $HOME, ${braced}, $ARGUMENTSX, $, $$
media: $MEDIA_INPUTS
"""


def args_module(tmp_path: Path) -> Any:
    files = clean_v22("argmod")
    files["prompt.md"] = ARGS_PROMPT
    mapping_in(files, "module.yaml")["responsibility"] = "Echo arguments"
    return load_module(make_module(tmp_path, files, "argmod"))


def good_answer() -> str:
    return json.dumps(
        {
            "ok": True,
            "meta": {"confidence": 0.9, "risk": "low", "explain": "bug"},
            "data": {"label": "bug", "rationale": "a crash"},
        }
    )


async def test_arguments_positional_and_indexed(tmp_path: Path, llm_server: Any) -> None:
    llm_server.enqueue(good_answer())
    args = "a b c d e f g h i j KAY 'with space'"
    result = await run_module(
        args_module(tmp_path), {"text": "t"}, options(provider("anthropic", llm_server), args=args)
    )
    assert result.ok
    text = user_text(llm_server.last_request)
    assert f"all=[{args}]" in text
    assert "first=[a] second=[b] twelfth=[with space] past=[]" in text
    # $1 is never a prefix of $10: each index is read whole, in one pass.
    assert "zero=[a] one=[b] ten=[KAY] eleven=[with space]" in text
    assert "untouched: US$ 3, $HOME, ${braced}, $ARGUMENTSX, $, $$" in text
    assert "media: (no media)" in text


async def test_substituted_text_is_never_substituted_again(tmp_path: Path, llm_server: Any) -> None:
    llm_server.enqueue(good_answer())
    args = "'$1' '$ARGUMENTS[0]' z"
    await run_module(args_module(tmp_path), {"text": "t"}, options(provider("openai", llm_server), args=args))
    text = user_text(llm_server.last_request)
    assert "first=[$1] second=[$ARGUMENTS[0]]" in text
    assert "zero=[$1] one=[$ARGUMENTS[0]] ten=[]" in text
    assert f"all=[{args}]" in text


async def test_no_args_leaves_empty_substitutions(tmp_path: Path, llm_server: Any) -> None:
    llm_server.enqueue(good_answer())
    await run_module(args_module(tmp_path), {"text": "t"}, options(provider("openai", llm_server)))
    text = user_text(llm_server.last_request)
    assert "all=[]" in text and "first=[] second=[]" in text and "one=[] ten=[]" in text
    assert "$ARGUMENTS[" not in text.split("untouched")[0]


# ---------------------------------------------------------------- what the prompt holds


@pytest.mark.parametrize("proto", ["anthropic", "openai"])
async def test_structured_input_always_reaches_the_model_as_json(llm_server: Any, proto: str) -> None:
    module = example("code-reviewer")
    inp = {
        "diff": "+print('héllo \"quoted\" {braces} 😀')\n",
        "description": "unicode and quotes",
        "focus": ["testing"],
    }
    assert "$ARGUMENTS" not in module.prompt  # nothing in the prompt pulls the input in: the runtime appends it
    llm_server.enqueue(reviewer_answer())
    await run_module(module, inp, options(provider(proto, llm_server)))
    text = user_text(llm_server.last_request)
    assert input_block(text) == inp
    assert json.dumps(inp, ensure_ascii=False, indent=2) in text
    assert "Code Reviewer" in text  # the prompt body comes first, then the input block
    assert text.index("# Code Reviewer") < text.rindex("## Input")


async def test_empty_input_is_still_a_json_block(tmp_path: Path, llm_server: Any) -> None:
    files = clean_v22("noinput")
    mapping_in(files, "schema.json").pop("input")
    module = load_module(make_module(tmp_path, files, "noinput"))
    llm_server.enqueue(good_answer())
    await run_module(module, {}, options(provider("openai", llm_server)))
    assert input_block(user_text(llm_server.last_request)) == {}


async def test_v22_system_prompt_holds_the_whole_contract(llm_server: Any) -> None:
    module = example("code-reviewer")
    llm_server.enqueue(reviewer_answer())
    result = await run_module(module, golden("code-reviewer")[0], options(provider("anthropic", llm_server)))
    assert_valid_success(result.envelope, module)
    system = system_text(llm_server.last_request)
    assert module.responsibility is not None and module.responsibility in system
    for item in module.excludes:
        assert item in system
    for name, value in module.policies.items():
        assert f"{name}: {value}" in system
    assert "envelope v2.2" in system.lower()
    for word in ('"ok"', '"meta"', '"confidence"', '"risk"', '"explain"', "rationale", "at most 280 characters"):
        assert word in system
    assert json.dumps(module.schemas.data, ensure_ascii=False, indent=2) in system
    assert "at most 5 observations" in system  # the module's overflow limit
    assert '"custom"' in system  # extensible enums are explained


@pytest.mark.parametrize(
    ("name", "answer_file"),
    [("commit-message-writer", "examples/output.json"), ("legacy-summarizer", "examples/output.json")],
)
async def test_v0_v1_system_prompt_has_constraints_but_no_envelope(
    llm_server: Any, name: str, answer_file: str
) -> None:
    module = example(name)
    root = Path(module.path)
    llm_server.enqueue((root / answer_file).read_text(encoding="utf-8"))
    inp = json.loads((root / "examples/input.json").read_text(encoding="utf-8"))
    result = await run_module(module, inp, options(provider("openai", llm_server), args="fixes the rounding bug"))
    assert result.ok, result.envelope
    system = system_text(llm_server.last_request)
    assert module.responsibility is not None and module.responsibility in system
    for item in module.excludes:
        assert item in system
    for key in module.constraints:
        assert f"- {key}: true" in system
    assert 'write "unknown"' in system  # no_inventing_data is spelled out
    assert "envelope v2.2" not in system.lower()
    assert json.dumps(module.schemas.data, ensure_ascii=False, indent=2) in system
    if name == "commit-message-writer":
        assert "Author's note: fixes the rounding bug" in user_text(llm_server.last_request)


async def test_only_explicit_context_reaches_the_model(llm_server: Any) -> None:
    """A second run's request holds nothing of the first run: not its input, not its answer."""
    module = example("code-reviewer")
    prov = provider("openai", llm_server)
    first_answer = model_answer(golden("code-reviewer")[1], summary="FIRST-ANSWER-MARKER summary")
    llm_server.enqueue(json.dumps(first_answer), reviewer_answer())
    one = await run_module(
        module, {"diff": "+FIRST-INPUT-MARKER\n", "description": "first"}, options(prov, args="FIRST-ARGS-MARKER")
    )
    two = await run_module(module, {"diff": "+second\n"}, options(prov))
    assert one.ok and two.ok
    first, second = llm_server.requests
    assert b"FIRST-INPUT-MARKER" in first.raw_body and b"FIRST-ARGS-MARKER" not in first.raw_body
    for marker in (b"FIRST-INPUT-MARKER", b"FIRST-ANSWER-MARKER", b"FIRST-ARGS-MARKER"):
        assert marker not in second.raw_body
    assert [m["role"] for m in second.body["messages"]] == ["system", "user"]
    assert input_block(user_text(second)) == {"diff": "+second\n"}


async def test_input_error_chunks_stream_and_end_with_an_error(llm_server: Any) -> None:
    chunks, result, _ = await collect(example("code-reviewer"), {}, options(provider("openai", llm_server)))
    assert chunks[0]["streaming"] is True and chunks[-1]["ok"] is False
    assert chunks[-1]["error"]["code"] == "E1002" and result.outcome == "error"
    assert llm_server.requests == []
