"""The OpenAI-compatible provider's HTTP client (providers/http_client.py, RUN-16): calls of one provider reuse one
connection (what follows `[DONE]` is read, within bounds), a plain-http base URL gets a TLS context that trusts
nothing instead of the CA bundle, and httpx is imported without its command line."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import llmserver
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from evalkit import eval_module, responder
from llmserver import ScriptedLLMServer, Text
from rtkit import FAST_RETRY, provider, set_keys

from cogtui.core.eval.engine import EvalSettings, run_eval
from cogtui.core.eval.model import Target
from cogtui.core.module.loader import load_module
from cogtui.core.run.providers.base import Finish, Message, ModelRequest, TextDelta
from cogtui.core.run.providers.http_client import DRAIN_LIMIT_BYTES, tls_context_for
from cogtui.core.run.providers.shared_client import tls_context
from cogtui.core.run.runner import RunOptions

REQUEST = ModelRequest(system="s", messages=[Message("user", "hi")], timeout=10.0)


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


@pytest.mark.parametrize("jobs", [1, 3])
async def test_an_eval_reuses_its_connections(tmp_path: Path, llm_server: ScriptedLLMServer, jobs: int) -> None:
    module = load_module(eval_module(tmp_path, n=6))
    llm_server.respond_with(responder())
    prov = provider("openai", llm_server)
    settings = EvalSettings(jobs=jobs, options=lambda p: RunOptions(p, retry=FAST_RETRY, stream_timeout=10.0))
    outcome = await run_eval([module], [(Target(prov.name, prov.model), prov)], settings)
    await prov.aclose()
    assert outcome.report.failed == 0 and llm_server.request_count == 6
    assert 1 <= llm_server.connections_accepted <= jobs  # at most one connection per call in flight, not per call


def after_done(tail: list[Any]) -> Any:
    """A streamed answer "ok", `[DONE]`, then `tail` (bytes sent as chunks, floats as pauses) before the body ends."""

    def render(reply: Any, proto: Any, req: Any) -> list[Any]:
        head, *_ = llmserver.openai_text(Text("", chunk_size=50), req, None)
        delta = {"choices": [{"delta": {"content": "ok"}, "finish_reason": "stop"}]}
        return [head, b"data: " + json.dumps(delta).encode() + b"\n\n", b"data: [DONE]\n\n", *tail]

    return render


async def answers(prov: Any, n: int) -> list[list[Any]]:
    return [[ev async for ev in prov.stream(REQUEST)] for _ in range(n)]


@pytest.mark.parametrize(
    ("tail", "reused"),
    [
        ([], True),  # the usual end: the body closes right after [DONE]
        ([b": a comment\n\n", b"data: ignored\n\n"], True),  # anything after [DONE] is read and ignored
        ([b"x" * 1000 + b"\n"] * (DRAIN_LIMIT_BYTES // 1000 + 2), False),  # too much after it: given up
        ([0.5, b"data: late\n\n"], False),  # a body held open after it: given up, not waited for
    ],
    ids=["end", "ignored-lines", "too-much", "held-open"],
)
async def test_what_follows_done_never_changes_the_answer(
    llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch, tail: list[Any], reused: bool
) -> None:
    monkeypatch.setattr(llmserver, "plan_steps", after_done(tail))
    llm_server.enqueue("x", "x")
    prov = provider("openai", llm_server)
    got = await answers(prov, 2)
    await prov.aclose()
    for events in got:
        assert [e.text for e in events if isinstance(e, TextDelta)] == ["ok"]
        assert any(isinstance(e, Finish) and e.reason == "stop" for e in events)
    assert llm_server.connections_accepted == (1 if reused else 2)


def test_a_plain_http_base_url_gets_a_tls_context_that_trusts_nothing() -> None:
    ctx = tls_context_for("http://127.0.0.1:8080/v1")
    assert isinstance(ctx, ssl.SSLContext)
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname  # were TLS attempted, it would fail closed
    assert ctx.cert_store_stats()["x509_ca"] == 0 and ctx.get_ca_certs() == []
    assert tls_context_for("HTTP://localhost/v1") is not tls_context()


@pytest.mark.parametrize("url", ["https://api.openai.com/v1", "https://127.0.0.1:8443/v1"])
def test_an_https_base_url_verifies_against_the_ca_bundle(url: str) -> None:
    ctx = tls_context_for(url)
    assert ctx is tls_context()  # the process's shared context: httpx's default CA bundle, hostname checked
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname and ctx.cert_store_stats()["x509_ca"] > 0


def test_httpx_is_imported_without_its_command_line() -> None:
    code = (
        "import sys\n"
        "from cogtui.core.run.providers.http_client import import_httpx\n"
        "httpx = import_httpx()\n"
        "assert 'httpx._main' not in sys.modules and 'click' not in sys.modules, sorted(sys.modules)\n"
        "assert httpx.AsyncClient and httpx.Timeout(1.0)\n"
        "import httpx._main\n"  # the guard is gone: whoever wants httpx's command line still gets it
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
