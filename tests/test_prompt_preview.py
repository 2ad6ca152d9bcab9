"""The prompt as sent (core/run/prompt_preview.py, `cogn prompt`) through the real SDKs against the scripted server:
the body the preview shows is the body a run sends, nothing is sent to a model, Anthropic's count is asked when its
key is set (an estimate otherwise, said to be one), media go by reference, a `@call:` is a placeholder, and a run
that would be refused says so."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document
from llmserver import Error, ScriptedLLMServer, Text
from rtkit import (
    ANTHROPIC_KEY,
    OPENAI_KEY,
    PROTOCOLS,
    cli_env,
    cogn,
    collect,
    example,
    golden,
    options,
    provider,
    set_keys,
)

from cogtui.core.run.prompt_preview import COUNTED, prompt_as_sent


def messages_call(srv: ScriptedLLMServer) -> Any:
    [call] = srv.calls()
    return call


@pytest.mark.parametrize("proto", PROTOCOLS)
async def test_the_preview_is_the_body_a_run_sends(llm_server: ScriptedLLMServer, proto: str, monkeypatch: Any) -> None:
    set_keys(monkeypatch)
    module = example("code-reviewer")
    input_value, expected = golden("code-reviewer")
    preview = await prompt_as_sent(module, input_value, options(provider(proto, llm_server)))
    assert llm_server.calls() == []  # nothing went to a model
    llm_server.enqueue(Text(json.dumps(expected)))
    await collect(module, input_value, options(provider(proto, llm_server)))
    sent = dict(messages_call(llm_server).body)
    assert sent.pop("stream") is True
    if proto == "openai":
        assert sent.pop("stream_options") == {"include_usage": True}
        assert preview.body.pop("stream_options") == {"include_usage": True}
        preview.body.pop("stream")
    assert preview.body == sent
    system = sent["system"][0]["text"] if proto == "anthropic" else sent["messages"][0]["content"]
    assert system == preview.system
    assert preview.response_schema is not None and preview.messages[0]["role"] == "user"


async def test_anthropic_counts_the_tokens_when_its_key_is_set(llm_server: ScriptedLLMServer, monkeypatch: Any) -> None:
    set_keys(monkeypatch)
    llm_server.token_count = lambda body: 4242 if body.get("output_config") and body.get("system") else 1
    module = example("code-reviewer")
    input_value, _ = golden("code-reviewer")
    preview = await prompt_as_sent(
        module, input_value, options(provider("anthropic", llm_server, model="claude-sonnet-5-5"))
    )
    assert preview.tokens == 4242 and preview.counted == COUNTED
    [count] = llm_server.requests
    assert count.path == "/v1/messages/count_tokens" and "max_tokens" not in count.body and llm_server.calls() == []
    assert preview.cost_usd == round(4242 * 3 / 1_000_000, 8)  # the price table: claude-sonnet-* input at $3/M
    assert preview.max_output_cost_usd == round(4096 * 15 / 1_000_000, 8)
    llm_server.token_count = lambda body: Error(500)
    failed = await prompt_as_sent(module, input_value, options(provider("anthropic", llm_server)))
    assert failed.counted.startswith("an estimate: Anthropic's count failed (E4001") and failed.tokens
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    keyless = await prompt_as_sent(module, input_value, options(provider("anthropic", llm_server)))
    assert "ANTHROPIC_API_KEY is not set" in keyless.counted and keyless.tokens == failed.tokens


async def test_media_go_by_reference_and_a_subagent_is_a_placeholder(
    llm_server: ScriptedLLMServer, monkeypatch: Any
) -> None:
    set_keys(monkeypatch)
    module = example("screenshot-auditor")
    input_value, _ = golden("screenshot-auditor")
    preview = await prompt_as_sent(module, input_value, options(provider("openai", llm_server)))
    [attachment] = preview.attachments
    assert attachment.source.endswith("login-form.png") and attachment.mime == "image/png" and attachment.size
    url = preview.body["messages"][1]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,<") and "bytes of base64 data" in url  # no image data in it
    assert "attachments not counted" in preview.counted
    from rtkit import MODULES, resolver_for

    notes = example("release-notes")
    notes_input, _ = golden("release-notes")
    opts = options(provider("openai", llm_server), resolver=resolver_for(MODULES))
    preview = await prompt_as_sent(notes, notes_input, opts)
    assert (
        "[result of @call:code-reviewer" in preview.messages[0]["text"]
        and "not run for the preview" in preview.messages[0]["text"]
    )
    assert llm_server.requests == []  # neither the subagent nor the module was called


def test_cogn_prompt_prints_the_request_or_why_a_run_is_refused(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    env = cli_env(tmp_path, OPENAI_BASE_URL=llm_server.openai_base_url, OPENAI_API_KEY=OPENAI_KEY)
    (tmp_path / "in.json").write_text(json.dumps(golden("code-reviewer")[0]))
    proc = cogn(tmp_path, "prompt", "code-reviewer", "--input", "in.json", "--provider", "openai", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "nothing is sent to a model" in proc.stdout and "── system ──" in proc.stdout and "── user ──" in proc.stdout
    assert "input tokens (an estimate" in proc.stdout and "of input" in proc.stdout and llm_server.requests == []
    as_json = cogn(tmp_path, "prompt", "code-reviewer", "--input", "in.json", "--json", env=env)
    [entry] = document(as_json.stdout, "prompt")["modules"]
    assert entry["provider"] == "replay" and entry["problem"] is None and entry["input_tokens"] > 0
    refused = cogn(tmp_path, "prompt", "code-reviewer", "--input", '{"diff": 42}', env=env)
    assert refused.returncode == 1 and "✗ the run would be refused: E1003 invalid input" in refused.stdout
    env_anthropic = cli_env(tmp_path, ANTHROPIC_BASE_URL=llm_server.base_url, ANTHROPIC_API_KEY=ANTHROPIC_KEY)
    counted = cogn(
        tmp_path, "prompt", "code-reviewer", "--input", "in.json", "--provider", "anthropic", env=env_anthropic
    )
    assert counted.returncode == 0 and "(counted by Anthropic" in counted.stdout
    assert [r.path for r in llm_server.requests] == ["/v1/messages/count_tokens"]
