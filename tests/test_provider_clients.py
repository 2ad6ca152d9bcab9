"""One HTTP client per provider and event loop (providers/shared_client.py): an eval of many cases builds one
client (and TLS context) per target, not one per call; aclose() closes it; a new API key gets a new client."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from evalkit import eval_module, responder
from llmserver import ScriptedLLMServer, Text
from modkit import mapping_in
from rtkit import FAST_RETRY, provider, set_keys
from tlskit import make_cert

from cogtui.core.eval.engine import EvalSettings, run_eval
from cogtui.core.eval.model import Target
from cogtui.core.module.loader import load_module
from cogtui.core.run.providers.base import Message, ModelRequest, ProviderError
from cogtui.core.run.providers.shared_client import LoopClients, tls_context
from cogtui.core.run.runner import RunOptions


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


class Counted:
    """Wraps a provider's client factory: every client it made, in order."""

    def __init__(self, prov: Any) -> None:
        self.made: list[Any] = []
        self.inner = prov.clients.factory
        prov.clients.factory = self

    def __call__(self, key: Any) -> Any:
        client = self.inner(key)
        self.made.append(client)
        return client


def is_closed(client: Any) -> bool:
    closed = client.is_closed  # httpx: a property; the Anthropic SDK: a method
    return bool(closed() if callable(closed) else closed)


@pytest.mark.parametrize("proto", ["anthropic", "openai"])
async def test_an_eval_makes_one_client_per_target_and_aclose_closes_it(
    tmp_path: Path, llm_server: ScriptedLLMServer, proto: str
) -> None:
    module = load_module(eval_module(tmp_path, n=6))
    llm_server.respond_with(responder())
    prov = provider(proto, llm_server)
    counted = Counted(prov)
    settings = EvalSettings(jobs=3, options=lambda p: RunOptions(p, retry=FAST_RETRY, stream_timeout=10.0))
    outcome = await run_eval([module], [(Target(prov.name, prov.model), prov)], settings)
    assert outcome.report.failed == 0 and llm_server.request_count == 6  # one call per case, as before
    assert len(counted.made) == 1
    assert not is_closed(counted.made[0])
    await prov.aclose()
    assert is_closed(counted.made[0])


async def test_a_new_api_key_gets_a_new_client_and_is_the_one_sent(
    llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    prov = provider("anthropic", llm_server)
    counted = Counted(prov)
    request = ModelRequest(system="s", messages=[Message("user", "hi")], timeout=10.0)
    llm_server.enqueue("one", "two", "three")
    for key in ("sk-ant-first", "sk-ant-first", "sk-ant-second"):
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        _ = [event async for event in prov.stream(request)]
    await prov.aclose()
    sent = [r.headers.get("authorization") for r in llm_server.requests]
    assert sent == ["Bearer sk-ant-first", "Bearer sk-ant-first", "Bearer sk-ant-second"]
    assert len(counted.made) == 2


def test_each_event_loop_gets_its_own_client() -> None:
    made: list[object] = []

    def factory(key: Any) -> object:
        made.append(object())
        return made[-1]

    clients: LoopClients[object] = LoopClients(factory)

    async def twice() -> tuple[object, object]:
        return clients.get(), clients.get()

    first = asyncio.run(twice())
    second = asyncio.run(twice())
    assert first[0] is first[1] and second[0] is second[1]
    assert first[0] is not second[0] and len(made) == 2


def test_a_modules_prompt_and_response_schema_are_built_once_per_loaded_module(tmp_path: Path) -> None:
    from cogtui.core.module.response_schema import response_schema
    from cogtui.core.run.prompt import system_prompt

    folder = eval_module(tmp_path, n=1)
    module = load_module(folder)
    assert system_prompt(module) is system_prompt(module)
    assert response_schema(module, "json_schema") is response_schema(module, "json_schema")
    assert response_schema(module, "output_config") is not response_schema(module, "json_schema")
    reloaded = load_module(folder)  # a new instance (e.g. after an edit) builds its own
    assert system_prompt(reloaded) == system_prompt(module) and system_prompt(reloaded) is not system_prompt(module)


# ------------------------------------------------------------------ one TLS context per process


def test_one_tls_context_per_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    default = tls_context()
    assert tls_context() is default  # made once, shared by every client
    cert, _key = make_cert(tmp_path, "ca.example")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    own = tls_context()
    assert own is not default and tls_context() is own
    assert [c["subject"] for c in own.get_ca_certs()] == [((("commonName", "ca.example"),),)]
    # Without trust_env (media fetching) the environment's bundle is not used.
    assert tls_context(trust_env=False) is not own
    assert all(c["subject"] != ((("commonName", "ca.example"),),) for c in tls_context(trust_env=False).get_ca_certs())
    monkeypatch.delenv("SSL_CERT_FILE")
    assert tls_context() is default


@pytest.mark.parametrize("proto", ["anthropic", "openai"])
async def test_providers_verify_https_with_the_shared_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proto: str
) -> None:
    """The shared context still verifies: a self-signed server is refused, and trusted once SSL_CERT_FILE
    names its certificate (the context follows the setting within one process)."""
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    cert, key = make_cert(tmp_path, "llm.example", san="IP:127.0.0.1")
    request = ModelRequest(system="s", messages=[Message("user", "hi")], timeout=10.0)
    with ScriptedLLMServer(tls=(cert, key)) as server:
        assert server.base_url.startswith("https://127.0.0.1:")
        server.enqueue("trusted")
        refused = provider(proto, server)
        with pytest.raises(ProviderError) as info:
            _ = [event async for event in refused.stream(request)]
        assert info.value.code == "E4001" and "CERTIFICATE_VERIFY_FAILED" in str(info.value)
        await refused.aclose()
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        trusted = provider(proto, server)
        events = [event async for event in trusted.stream(request)]
        await trusted.aclose()
        assert "trusted" in "".join(getattr(e, "text", "") or "" for e in events)
        assert server.request_count == 1


def test_the_unhonoured_field_warnings_are_worked_out_once_per_loaded_module(tmp_path: Path) -> None:
    from modkit import clean_v22, make_module

    from cogtui.core.rules.manifest_fields import unhonoured, unhonoured_messages

    files = clean_v22()
    mapping_in(files, "module.yaml")["tools"] = {"allowed": ["search"]}
    module = load_module(make_module(tmp_path, files))
    first = unhonoured_messages(module)
    assert first == [message for message, _ in unhonoured(module)] and any("tools.allowed" in m for m in first)
    first.append("a caller's own warning")  # what a run adds to its copy never reaches the next run
    assert unhonoured_messages(module) == first[:-1]
    del mapping_in(files, "module.yaml")["tools"]
    edited = load_module(make_module(tmp_path, files))  # the module changed on disk: a new load, its own answer
    assert unhonoured_messages(edited) == [message for message, _ in unhonoured(edited)]
    assert not any("tools.allowed" in m for m in unhonoured_messages(edited))


@pytest.mark.parametrize("base_url", [None, "https://API.openai.com/v1/"], ids=["default", "written-out"])
async def test_openai_without_a_key_fails_at_once_against_its_own_api(
    base_url: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI's API answers 401 without a key: E4001 naming the variable, no connection tried (before: a DNS or
    connection failure, retried three times)."""
    from cogtui.core.run.providers.openai.provider import OpenAIProvider

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    prov = OpenAIProvider(base_url=base_url)
    clients = Counted(prov)
    request = ModelRequest(system="s", messages=[Message("user", "hi")], max_tokens=16, timeout=5.0)
    with pytest.raises(ProviderError) as info:
        async for _ in prov.stream(request):
            pass
    assert (info.value.code, str(info.value)) == ("E4001", "OPENAI_API_KEY is not set")
    assert "OPENAI_BASE_URL" in (info.value.suggestion or "")
    assert clients.made == []  # no client, so no connection


async def test_a_local_openai_compatible_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from cogtui.core.run.providers.openai.provider import OpenAIProvider

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ScriptedLLMServer() as server:
        server.respond_with(lambda _req: Text("hello"))
        prov = OpenAIProvider(base_url=server.openai_base_url)
        request = ModelRequest(system="s", messages=[Message("user", "hi")], max_tokens=16, timeout=5.0)
        try:
            events = [e async for e in prov.stream(request)]
        finally:
            await prov.aclose()
        assert events and "authorization" not in server.requests[0].headers
