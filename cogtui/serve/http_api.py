"""`cogn serve`: the modules of a search path over HTTP.

    GET  /health                 the server is up: its provider, how many modules it offers, runs so far
    GET  /modules                every module found: status (offered or refused), description, counts
    GET  /modules/{name}         one module: manifest, schemas, status, diagnostics
    POST /modules/{name}/run     run it: the body is its input (JSON), `?args=` fills $ARGUMENTS;
                                 Accept: application/json (the envelope), text/event-stream (SSE, SPEC-v2.5
                                 §3.2.4) or application/x-ndjson (the chunks as they come)
    GET  /openapi.json           the API, each module's run typed by its own schemas (openapi.py)

Request problems are envelopes with the spec's codes and an HTTP status: an unknown module 404 (E4006), a
refused one 409 (E4006, with its reasons), a body that is not JSON 400 (E1000), too large 413 (E1005), a
provider or model asked for without --allow-target-override 403 (E4007). A run that took place answers 200
with its envelope, ok or not (SERVE-7).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cogtui import __version__
from cogtui.core.files.json_extract import loads_finite
from cogtui.core.run.envelope_builder import failure
from cogtui.core.run.providers import UnknownProvider
from cogtui.core.serving.catalogue import Offer
from cogtui.core.serving.runs import RunService, TargetRefused
from cogtui.core.workspace import ModuleReport

from .guard import MAX_BODY, BodyTooLarge, read_capped
from .live import LiveCatalogue
from .openapi import openapi_document
from .responses import HEARTBEAT, WRITE_TIMEOUT, EnvelopeRun, StreamedRun, transport_for


def problem(status: int, code: str, message: str, suggestion: str | None = None, **details: Any) -> JSONResponse:
    return JSONResponse(failure(code, message, suggestion=suggestion, details=details or None), status_code=status)


def summary(name: str, live: LiveCatalogue) -> dict[str, Any]:
    """What GET /modules says of one module."""
    cat = live.catalogue
    report: ModuleReport = cat.reports[name]
    offer = cat.offers.get(name)
    module = report.module
    out: dict[str, Any] = {
        "name": name,
        "status": "offered" if offer is not None else "refused",
        "version": report.version,
        "format": report.format,
        "tier": report.tier,
        "response_mode": module.contract.response_mode.value if module is not None else None,
        "description": offer.description if offer is not None else (module.responsibility if module else None),
        "errors": report.errors,
        "warnings": report.warnings,
        "links": {"self": f"/modules/{name}"},
    }
    if offer is not None:
        out["links"]["run"] = f"/modules/{name}/run"
    return out


class ModuleApi:
    """The routes above over one live catalogue and one run service."""

    def __init__(
        self,
        live: LiveCatalogue,
        service: RunService,
        *,
        max_body: int = MAX_BODY,
        write_timeout: float = WRITE_TIMEOUT,
        heartbeat: float = HEARTBEAT,
    ) -> None:
        self.live = live
        self.service = service
        self.max_body = max_body
        self.write_timeout = write_timeout
        self.heartbeat = heartbeat

    def routes(self) -> list[Route]:
        return [
            Route("/health", self.health, methods=["GET"]),
            Route("/modules", self.modules, methods=["GET"]),
            Route("/modules/{name}", self.module, methods=["GET"]),
            Route("/modules/{name}/run", self.run, methods=["POST"]),
            Route("/openapi.json", self.openapi, methods=["GET"]),
        ]

    def app(self, **kwargs: Any) -> Starlette:
        return Starlette(routes=self.routes(), **kwargs)

    async def health(self, request: Request) -> Response:
        service, cat = self.service, self.live.catalogue
        return JSONResponse(
            {
                "ok": True,
                "version": __version__,
                "provider": service.default.name,
                "model": getattr(service.default, "model", None),
                "modules": {"offered": len(cat.offers), "refused": len(cat.refusals)},
                "runs": {"running": len(service.running), "started": service.started, "ended": service.ended},
            }
        )

    async def modules(self, request: Request) -> Response:
        return JSONResponse({"modules": [summary(name, self.live) for name in sorted(self.live.catalogue.reports)]})

    async def module(self, request: Request) -> Response:
        name = request.path_params["name"]
        cat = self.live.catalogue
        report = cat.reports.get(name)
        if report is None:
            return problem(404, "E4006", f"no module named {name!r} on this server's search path")
        out = summary(name, self.live)
        offer = cat.offers.get(name)
        module = report.module
        out["manifest"] = json.loads(json.dumps(module.manifest, default=str)) if module is not None else None
        out["input_schema"] = offer.input_schema if offer is not None else None
        out["data_schema"] = offer.data_schema if offer is not None else None
        out["diagnostics"] = [d.to_json() for d in report.diagnostics]
        refusal = cat.refusals.get(name)
        if refusal is not None:
            out["refused_because"] = list(refusal.reasons)
        return JSONResponse(out)

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(openapi_document(self.live.catalogue))

    def offer_for(self, name: str) -> Offer | JSONResponse:
        cat = self.live.catalogue
        offer = cat.offers.get(name)
        if offer is not None:
            return offer
        refusal = cat.refusals.get(name)
        if refusal is not None:
            return problem(
                409,
                "E4006",
                f"the module {name!r} does not validate, so this server does not run it",
                "Fix what `cogn validate` says about it; the server offers it as soon as it validates.",
                reasons=list(refusal.reasons),
            )
        return problem(404, "E4006", f"no module named {name!r} on this server's search path")

    async def run(self, request: Request) -> Response | StreamedRun | EnvelopeRun:
        offer = self.offer_for(request.path_params["name"])
        if not isinstance(offer, Offer):
            return offer
        try:
            body = await read_capped(request.receive, self.max_body)
        except BodyTooLarge as exc:
            return problem(413, "E1005", str(exc))
        try:
            input_value = loads_finite(body.decode("utf-8-sig")) if body.strip() else {}
        except (ValueError, RecursionError, UnicodeDecodeError) as exc:
            return problem(400, "E1000", f"the request body is not JSON: {exc}", "Send the module's input as JSON.")
        transport = transport_for(request.headers.get("accept", ""))
        query = request.query_params
        try:
            handle = self.service.start(
                offer.module,
                input_value,
                args=query.get("args"),
                stream=transport is not None,
                provider=query.get("provider"),
                model=query.get("model"),
            )
        except TargetRefused as exc:
            return problem(403, "E4007", str(exc))
        except UnknownProvider as exc:
            return problem(400, "E4007", str(exc))
        if transport is None:
            return EnvelopeRun(handle)
        return StreamedRun(handle, transport, self.write_timeout, self.heartbeat, on_stall=self.live.log)
