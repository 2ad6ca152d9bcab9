"""`cogn mcp` through the MCP SDK's own client: stdio (both protocol eras) and streamable HTTP (issue 35 item 1).

The server is the real `cogn mcp` process; its provider is the OpenAI provider against the scripted model
on 127.0.0.1 (servekit.answers), so each run goes through the real SDK and its answer is the module's golden.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from servekit import Served, answers, golden, history, module_root, serve_env, wait_for

from cogtui.core.rules.chunk_rules import check_stream, chunk_kind

LEGACY, MODERN = "legacy", "auto"  # the handshake era (Claude Code, Cursor today), and 2026-07-28


def text_of(part: object) -> str:
    """The text of a tool result's, a resource's or a prompt message's part, which the test expects to be text."""
    assert isinstance(part, types.TextContent | types.TextResourceContents), part
    return part.text


@asynccontextmanager
async def mcp_client(
    tmp_path: Path, root: Path, env: dict[str, str], *args: str, mode: str = LEGACY, notes: list[str] | None = None
) -> AsyncIterator[Client]:
    """The SDK's client on `cogn mcp` over stdio; `notes` collects the notifications it receives (methods)."""

    async def on_message(message: Any) -> None:
        if notes is not None and isinstance(message, types.ServerNotification | types.ToolListChangedNotification):
            notes.append(getattr(getattr(message, "root", message), "method", ""))

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cogtui.cli", "--path", str(root), "mcp", *args], env=env, cwd=tmp_path
    )
    with (tmp_path / "mcp.log").open("a", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode, message_handler=on_message) as client:
            yield client


def log_of(tmp_path: Path) -> str:
    path = tmp_path / "mcp.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


async def test_a_real_client_lists_calls_and_streams_module_tools(tmp_path: Path, llm_server: Any) -> None:
    root = module_root(tmp_path, "code-reviewer", "incident-narrator")
    answers(llm_server)
    async with mcp_client(tmp_path, root, serve_env(tmp_path, llm_server)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert sorted(tools) == ["code-reviewer", "incident-narrator"]
        reviewer = tools["code-reviewer"]
        assert reviewer.description is not None and reviewer.description.startswith("Review a unified diff")
        assert "It does not do: rewriting the change" in reviewer.description  # the excludes
        schema = json.loads((root / "code-reviewer/schema.json").read_text(encoding="utf-8"))
        assert reviewer.input_schema["properties"] == schema["input"]["properties"]
        assert reviewer.output_schema is not None and "verdict" in reviewer.output_schema["properties"]

        case, expected = golden("code-reviewer")
        result = await client.call_tool("code-reviewer", case)
        assert not result.is_error
        assert result.structured_content == expected["data"]  # the SDK checked it against the outputSchema too
        meta = (result.meta or {})["cognitive/meta"]
        assert meta["confidence"] == expected["meta"]["confidence"] and meta["risk"] == expected["meta"]["risk"]
        assert json.loads(text_of(result.content[0]))["meta"]["explain"] == expected["meta"]["explain"]

        reports: list[tuple[float, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.append((progress, message))

        case, expected = golden("incident-narrator")
        streamed = await client.call_tool("incident-narrator", case, progress_callback=on_progress)
        assert not streamed.is_error and streamed.structured_content == expected["data"]
        assert len(reports) > 3 and [p for p, _ in reports] == list(range(1, len(reports) + 1))
        chunks = [json.loads(m or "") for _, m in reports]
        assert {chunk_kind(c) for c in chunks} <= {"delta", "snapshot", "progress"}
        assert (
            check_stream(
                [
                    {"ok": True, "streaming": True, "session_id": "s", "meta": {}},
                    *chunks,
                    {"final": True, "meta": expected["meta"], "data": expected["data"]},
                ]
            )
            == []
        )

        wrong = await client.call_tool("code-reviewer", {"diff": 5})
        assert wrong.is_error and text_of(wrong.content[0]).startswith("E1003")
        assert (wrong.meta or {})["cognitive/error"]["code"] == "E1003"
        unknown = await client.call_tool("no-such-module", {})
        assert unknown.is_error and text_of(unknown.content[0]).startswith("E4006")

        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        assert "cognitive://modules/code-reviewer/prompt" in uris and len(uris) == 6
        read = await client.read_resource("cognitive://modules/code-reviewer/schema")
        assert json.loads(text_of(read.contents[0])) == schema
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert prompts == {"code-reviewer", "incident-narrator"}
        got = await client.get_prompt("code-reviewer", {"input": json.dumps({"diff": "+x"})})
        text = text_of(got.messages[0].content)
        assert "Cognitive Module `code-reviewer`" in text and '"diff": "+x"' in text
    with history(tmp_path) as h:
        runs = h.runs()
    assert sorted((r.module, r.outcome) for r in runs) == [
        ("code-reviewer", "error"),
        ("code-reviewer", "ok"),
        ("incident-narrator", "ok"),
    ]
    assert {r.provider for r in runs} == {"openai"} and {r.model for r in runs} == {"scripted-1"}


def write_module(root: Path, name: str, broken: bool) -> None:
    """A module `name` (a copy of code-reviewer) whose schema.json is valid, or not JSON at all."""
    folder = root / name
    if not folder.exists():
        shutil.copytree(root / "code-reviewer", folder)
        manifest = (folder / "module.yaml").read_text(encoding="utf-8")
        (folder / "module.yaml").write_text(manifest.replace("name: code-reviewer", f"name: {name}"), encoding="utf-8")
    good = (root / "code-reviewer/schema.json").read_text(encoding="utf-8")
    (folder / "schema.json").write_text(good[:-40] if broken else good, encoding="utf-8")


@pytest.mark.parametrize("mode", [LEGACY, MODERN])
async def test_the_tool_list_follows_the_search_path_live(tmp_path: Path, mode: str) -> None:
    """A broken module is not offered (and is logged); fixed, it appears with a list_changed; broken again, it
    goes. Handshake-era clients hear it on their connection, 2026-07-28 ones on their subscriptions/listen."""
    root = module_root(tmp_path, "code-reviewer")
    notes: list[str] = []
    async with mcp_client(tmp_path, root, serve_env(tmp_path), mode=mode, notes=notes) as client:
        events: asyncio.Queue[object] = asyncio.Queue()

        async def listen() -> None:
            async with client.listen(tools_list_changed=True) as subscription:
                listening.set()
                async for event in subscription:
                    events.put_nowait(event)

        listening = asyncio.Event()
        listener = asyncio.create_task(listen()) if mode == MODERN else None
        if listener is not None:
            await asyncio.wait_for(listening.wait(), 30)

        async def list_changed() -> None:
            if listener is not None:
                await asyncio.wait_for(events.get(), 30)
            else:
                async with asyncio.timeout(30):
                    while "notifications/tools/list_changed" not in notes:
                        await asyncio.sleep(0.02)
                notes.clear()

        async def names() -> list[str]:
            return sorted(t.name for t in (await client.list_tools()).tools)

        assert await names() == ["code-reviewer"]
        write_module(root, "half-done", broken=True)
        await asyncio.to_thread(wait_for, lambda: "not offered: half-done" in log_of(tmp_path))
        assert "half-done/schema.json:" in log_of(tmp_path) and await names() == ["code-reviewer"]
        write_module(root, "half-done", broken=False)
        await list_changed()
        assert await names() == ["code-reviewer", "half-done"]
        write_module(root, "half-done", broken=True)
        await list_changed()
        assert await names() == ["code-reviewer"]
        shutil.rmtree(root / "half-done")
        write_module(root, "half-done", broken=False)
        await list_changed()
        assert await names() == ["code-reviewer", "half-done"]
        if listener is not None:
            listener.cancel()


async def test_the_target_is_the_servers_unless_it_allows_a_call_to_choose(tmp_path: Path, llm_server: Any) -> None:
    root = module_root(tmp_path, "code-reviewer")
    answers(llm_server)
    case = golden("code-reviewer")[0]
    other = {"cogtui/provider": "replay"}
    async with mcp_client(tmp_path, root, serve_env(tmp_path, llm_server)) as client:
        refused = await client.call_tool("code-reviewer", case, meta=other)  # type: ignore[arg-type]
        assert refused.is_error and text_of(refused.content[0]).startswith("E4007")
        assert "--allow-target-override" in text_of(refused.content[0])
    assert llm_server.request_count == 0
    async with mcp_client(tmp_path, root, serve_env(tmp_path, llm_server), "--allow-target-override") as client:
        chosen = await client.call_tool("code-reviewer", case, meta=other)  # type: ignore[arg-type]
        assert not chosen.is_error and (chosen.meta or {})["cognitive/meta"]["model"] == "replay"
        default = await client.call_tool("code-reviewer", case)
        assert not default.is_error and (default.meta or {})["cognitive/meta"]["model"] == "scripted-1"
    assert llm_server.request_count == 1


async def test_a_cancelled_call_ends_its_run_as_interrupted_in_the_history(tmp_path: Path, llm_server: Any) -> None:
    root = module_root(tmp_path, "code-reviewer")
    answers(llm_server, delay=0.2, chunk_size=4)  # a long answer: the call is cancelled while it streams
    async with mcp_client(tmp_path, root, serve_env(tmp_path, llm_server)) as client:
        call = asyncio.create_task(client.call_tool("code-reviewer", golden("code-reviewer")[0]))
        await asyncio.to_thread(wait_for, lambda: llm_server.request_count >= 1)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

        def recorded() -> list[Any]:
            with history(tmp_path) as h:
                return h.runs()

        (run,) = await asyncio.to_thread(wait_for, recorded)
    assert run.outcome == "interrupted" and run.error_code == "E2010"
    assert run.envelope["error"]["message"] == "the MCP client cancelled the call"


async def test_streamable_http_serves_the_same_tools(tmp_path: Path, llm_server: Any) -> None:
    root = module_root(tmp_path, "code-reviewer", "incident-narrator")
    answers(llm_server)
    with Served(tmp_path, root, "mcp", "--http", env=serve_env(tmp_path, llm_server)) as served:
        async with Client(served.url + "/mcp") as client:
            assert sorted(t.name for t in (await client.list_tools()).tools) == ["code-reviewer", "incident-narrator"]
            reports: list[float] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                reports.append(progress)

            case, expected = golden("incident-narrator")
            result = await client.call_tool("incident-narrator", case, progress_callback=on_progress)
            assert not result.is_error and result.structured_content == expected["data"] and reports
        assert served.stop() == 130  # Ctrl-C, as for every command
