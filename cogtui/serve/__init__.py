"""The protocol adapters: modules served to agents (MCP, `cogn mcp`) and over HTTP (`cogn serve`).

Thin by design: what a server offers, how a run is bounded, recorded and cancelled are the core's
(cogtui/core/serving/); this package speaks the protocols. It imports the MCP SDK, starlette and uvicorn
(the `serve` extra, SERVE-1), so the CLI imports it only in the commands that serve.
"""
