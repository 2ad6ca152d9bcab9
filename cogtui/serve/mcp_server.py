"""`cogn mcp`: each module of the search path as its own typed MCP tool, resource and prompt.

- **Tools**: one per offered module. Its name is the module's name, its description the module's
  responsibility and what it excludes, its `inputSchema` the module's input schema and its `outputSchema`
  the envelope's `data` schema (core/serving/catalogue.py). A call runs the module on the server's
  provider (never one the call names, unless --allow-target-override: then `_meta` may carry
  `cogtui/provider` and `cogtui/model`). The result's `structuredContent` is the envelope's `data`, its
  `_meta["cognitive/meta"]` the envelope's meta (confidence, risk, explain), and its text both, for
  clients that read text only. A failure is `isError: true`, its text the E-code, the message and the
  suggestion, its `_meta` the whole error and any partial data.
- **Progress**: a streaming module's call reports each chunk as it arrives (`notifications/progress`,
  when the client gave a progress token): progress counts the chunks, the message is the chunk as JSON.
- **Resources**: `cognitive://modules/{name}/manifest`, `/prompt` and `/schema`: the files as loaded.
- **Prompts**: one per module: its prompt as a run would send it, for a client's own model.
- **Live**: the list follows the search path (serve/live.py). When it changes, every client hears it:
  handshake-era clients (2025-11-25 and before: Claude Code, Cursor) by `notifications/*/list_changed` on
  their connection, 2026-07-28 clients on their `subscriptions/listen` streams.

Runs are bounded, recorded and cancelled by the core (core/serving/runs.py); a call the client cancels
ends its run as interrupted.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp_types as types
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError

from cogtui import __version__
from cogtui.core.files.json_extract import loads_finite
from cogtui.core.rules.chunk_rules import chunk_kind
from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.providers import UnknownProvider
from cogtui.core.serving.catalogue import CatalogueChange, Offer
from cogtui.core.serving.runs import RunService, TargetRefused

from .live import LiveCatalogue, Log

URI = "cognitive://modules/{name}/{part}"
PARTS = {"manifest": "the module's manifest", "prompt": "the module's prompt", "schema": "the module's schemas"}
META_KEY = "cognitive/meta"
TARGET_KEYS = ("cogtui/provider", "cogtui/model")
PROGRESS_KINDS = ("delta", "snapshot", "progress")
MAX_SESSIONS = 256  # handshake-era connections told of list changes (the oldest forgotten beyond)
NOTIFY_TIMEOUT = 5.0  # seconds a connection may take to accept a list_changed notification
CALL_CANCELLED = "the MCP client cancelled the call"
INSTRUCTIONS = (
    "Each tool is a Cognitive Module: a task with a typed input (the tool's input schema) and a verified "
    "answer (its output schema), with confidence, risk and an explanation in the result's _meta "
    '"cognitive/meta" and its text. A failure carries the spec\'s error code and a suggestion.'
)


class ModuleServer(Server[Any]):
    """The SDK's server, saying by default that its tools, prompts and resources change (the streamable HTTP
    transport asks for the initialization options without saying which)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        changes = NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)
        return super().create_initialization_options(
            notification_options or changes, experimental_capabilities, extensions
        )


def tool_result(envelope: dict[str, Any]) -> types.CallToolResult:
    """The envelope as a tool's result: data as structured content with meta alongside, or an error."""
    meta = envelope.get("meta") or {}
    if envelope.get("ok") is True:
        data = envelope.get("data")
        text = json.dumps({"meta": meta, "data": data}, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(text=text)],
            structured_content=data if isinstance(data, dict) else {"value": data},
            _meta={META_KEY: meta},
        )
    error = envelope.get("error") or {}
    lines = [f"{error.get('code', 'E4000')}: {error.get('message', 'the module failed')}"]
    if error.get("suggestion"):
        lines.append(f"Suggestion: {error['suggestion']}")
    partial = envelope.get("partial_data")
    if partial:
        lines.append("Partial data: " + json.dumps(partial, ensure_ascii=False))
    extra: dict[str, Any] = {"cognitive/error": error, META_KEY: meta}
    if partial:
        extra["cognitive/partial_data"] = partial
    return types.CallToolResult(content=[types.TextContent(text="\n".join(lines))], is_error=True, _meta=extra)


class ModuleTools:
    """The MCP server's handlers over one live catalogue and one run service."""

    def __init__(self, live: LiveCatalogue, service: RunService, log: Log) -> None:
        self.live = live
        self.service = service
        self.log = log
        self.bus = InMemorySubscriptionBus()
        self.sessions: list[ServerSession] = []  # handshake-era connections, told of list changes
        live.listeners.append(self.changed)

    @property
    def offers(self) -> dict[str, Offer]:
        return self.live.catalogue.offers

    def server(self) -> ModuleServer:
        server = ModuleServer(
            "cogtui",
            version=__version__,
            title="cogtui: Cognitive Modules",
            instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
            on_subscriptions_listen=ListenHandler(self.bus),
        )
        server.add_notification_handler("notifications/initialized", types.NotificationParams, self.initialized)
        return server

    # ------------------------------------------------------------ the list, live

    async def initialized(self, ctx: ServerRequestContext[Any], params: types.NotificationParams) -> None:
        """A handshake-era client is connected: it is told of list changes on its connection from now on."""
        self.sessions.append(ctx.session)
        del self.sessions[:-MAX_SESSIONS]

    async def changed(self, change: CatalogueChange) -> None:
        for event in (ToolsListChanged(), PromptsListChanged(), ResourcesListChanged()):
            await self.bus.publish(event)
        for session in list(self.sessions):
            try:
                async with asyncio.timeout(NOTIFY_TIMEOUT):
                    await session.send_tool_list_changed()
                    await session.send_prompt_list_changed()
                    await session.send_resource_list_changed()
            except Exception:  # noqa: BLE001 - a connection that is gone or stuck is forgotten, whatever it raised
                self.sessions.remove(session)

    # ------------------------------------------------------------ tools

    async def list_tools(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        tools = [
            types.Tool(
                name=o.name,
                title=o.name,
                description=o.description,
                input_schema=o.tool_input_schema,
                output_schema=o.data_schema,
            )
            for o in sorted(self.offers.values(), key=lambda o: o.name)
        ]
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        offer = self.offers.get(params.name)
        if offer is None:
            refusal = self.live.catalogue.refusals.get(params.name)
            why = "it does not validate: " + "; ".join(refusal.reasons[:3]) if refusal else "no such module"
            return tool_result(failure("E4006", f"the tool {params.name!r} is not offered: {why}"))
        raw_meta = (ctx.params or {}).get("_meta")
        target = raw_meta if isinstance(raw_meta, dict) else {}
        provider, model = (target.get(k) if isinstance(target.get(k), str) else None for k in TARGET_KEYS)
        try:
            handle = self.service.start(
                offer.module,
                offer.input_from_arguments(params.arguments),
                stream=offer.streaming,
                provider=provider,
                model=model,
            )
        except (TargetRefused, UnknownProvider) as exc:
            return tool_result(failure("E4007", str(exc)))
        sent = 0
        try:
            async for chunk in handle.chunks():
                if offer.streaming and chunk_kind(chunk) in PROGRESS_KINDS:
                    sent += 1
                    await ctx.session.report_progress(sent, None, json.dumps(chunk, ensure_ascii=False))
        except asyncio.CancelledError:
            await handle.outcome_or_cancel(CALL_CANCELLED)  # cancels the run (recorded), then goes on cancelling
            raise
        result = await handle.outcome_or_cancel(CALL_CANCELLED)
        if result is None:
            return tool_result(failure("E2010", "the run was cancelled before it started"))
        return tool_result(result.envelope)

    # ------------------------------------------------------------ resources

    async def list_resources(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListResourcesResult:
        resources = []
        for offer in sorted(self.offers.values(), key=lambda o: o.name):
            for part, what in PARTS.items():
                found = offer.file_text(part)
                if found is not None:
                    resources.append(
                        types.Resource(
                            uri=URI.format(name=offer.name, part=part),
                            name=f"{offer.name}/{part}",
                            description=f"{what} ({offer.name})",
                            mime_type=found[1],
                            size=len(found[0].encode("utf-8", "surrogatepass")),
                        )
                    )
        return types.ListResourcesResult(resources=resources)

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        prefix = "cognitive://modules/"
        name, _, part = uri.removeprefix(prefix).partition("/")
        offer = self.offers.get(name) if uri.startswith(prefix) else None
        found = offer.file_text(part) if offer is not None else None
        if found is None:
            raise MCPError(types.INVALID_PARAMS, f"no resource {uri} on this server")
        text, mime = found
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)])

    # ------------------------------------------------------------ prompts

    async def list_prompts(self, ctx: ServerRequestContext[Any], params: Any) -> types.ListPromptsResult:
        prompts = [
            types.Prompt(
                name=o.name,
                title=o.name,
                description=o.description,
                arguments=[
                    types.PromptArgument(name="input", description="the module's input, as JSON", required=False),
                    types.PromptArgument(name="args", description="text for $ARGUMENTS", required=False),
                ],
            )
            for o in sorted(self.offers.values(), key=lambda o: o.name)
        ]
        return types.ListPromptsResult(prompts=prompts)

    async def get_prompt(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        offer = self.offers.get(params.name)
        if offer is None:
            raise MCPError(types.INVALID_PARAMS, f"no prompt {params.name!r} on this server")
        arguments = params.arguments or {}
        try:
            input_value = loads_finite(arguments["input"]) if arguments.get("input") else {}
        except (ValueError, RecursionError) as exc:
            raise MCPError(types.INVALID_PARAMS, f"the input is not JSON: {exc}") from None
        system, user = offer.prompt(input_value, arguments.get("args"))
        return types.GetPromptResult(
            description=offer.description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=f"{system}\n\n{user}"))],
        )
