"""The OpenAPI 3.1 document of `cogn serve`, made from the same catalogue the routes answer from.

Each offered module gets its own run path, `/modules/{its name}/run`, whose request body is the module's
input schema and whose 200 answer is the envelope with the module's own data schema (OpenAPI 3.1 schemas are
JSON Schema 2020-12, so a module's schema goes in as it is, its refs moved under its component:
core/serving/schema_parts.py). The generic paths (`/modules/{name}`, `/health`) are described once.
"""

from __future__ import annotations

from typing import Any

from cogtui import __version__
from cogtui.core.serving.catalogue import Catalogue, Offer
from cogtui.core.serving.schema_parts import rebased

COMPONENTS = "#/components/schemas/"

_META = {
    "type": "object",
    "required": ["confidence", "risk", "explain"],
    "properties": {
        "confidence": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "risk": {"type": "string", "enum": ["none", "low", "medium", "high"]},
        "explain": {"type": "string"},
    },
}
_ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "string", "description": "the spec's error code (E1000-E4999)"},
        "message": {"type": "string"},
        "recoverable": {"type": "boolean"},
        "suggestion": {"type": "string"},
        "details": {"type": "object"},
    },
}
_FAILURE = {
    "type": "object",
    "required": ["ok", "error"],
    "properties": {
        "ok": {"const": False},
        "meta": {"$ref": COMPONENTS + "Meta"},
        "error": {"$ref": COMPONENTS + "Error"},
        "partial_data": {"type": ["object", "null"]},
    },
}
_STREAMS = {
    "text/event-stream": {
        "schema": {"type": "string"},
        "description": "SSE as SPEC-v2.5 §3.2.4: `event: meta`, then `event: chunk` (and `progress`), then "
        "`event: final` or `event: error`; `: heartbeat` comments while waiting",
    },
    "application/x-ndjson": {"schema": {"type": "string"}, "description": "the same chunks, one JSON object a line"},
}


def _component(name: str) -> str:
    return name.replace("/", "_")


def _run_path(offer: Offer, schemas: dict[str, Any]) -> dict[str, Any]:
    base = _component(offer.name)
    body: dict[str, Any] = {"description": "any JSON (the module declares no input schema)"}
    if offer.input_schema is not None:
        schemas[f"{base}.input"] = rebased(offer.input_schema, COMPONENTS + f"{base}.input")
        body = {"$ref": COMPONENTS + f"{base}.input"}
    success: dict[str, Any] = {
        "type": "object",
        "required": ["ok", "meta", "data"],
        "properties": {"ok": {"const": True}, "meta": {"$ref": COMPONENTS + "Meta"}, "data": {"type": "object"}},
    }
    if offer.data_schema is not None:
        schemas[f"{base}.data"] = rebased(offer.data_schema, COMPONENTS + f"{base}.data")
        success["properties"]["data"] = {"$ref": COMPONENTS + f"{base}.data"}
    return {
        "post": {
            "operationId": f"run_{base}",
            "summary": f"run {offer.name}",
            "description": offer.description,
            "parameters": [
                {
                    "name": "args",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string"},
                    "description": "text for $ARGUMENTS in the prompt",
                }
            ],
            "requestBody": {"required": False, "content": {"application/json": {"schema": body}}},
            "responses": {
                "200": {
                    "description": "the run's envelope (ok or not), or its chunks as they come",
                    "content": {
                        "application/json": {"schema": {"oneOf": [success, {"$ref": COMPONENTS + "Failure"}]}},
                        **_STREAMS,
                    },
                },
                **_problems("400", "401", "403", "409", "413"),
            },
        }
    }


def _problems(*statuses: str) -> dict[str, Any]:
    words = {
        "400": "the body is not JSON (E1000), or an unknown provider was asked for",
        "401": "the server's token is missing or wrong (E4007)",
        "403": "another site's page, or a provider/model the server does not let a call choose (E4007)",
        "404": "no such module (E4006)",
        "409": "the module does not validate, so it is not offered (E4006)",
        "413": "the body is over the server's limit (E1005)",
    }
    failure = {"application/json": {"schema": {"$ref": COMPONENTS + "Failure"}}}
    return {s: {"description": words[s], "content": failure} for s in statuses}


def openapi_document(catalogue: Catalogue) -> dict[str, Any]:
    schemas: dict[str, Any] = {"Meta": _META, "Error": _ERROR, "Failure": _FAILURE}
    paths: dict[str, Any] = {
        "/health": {"get": {"summary": "the server is up", "responses": {"200": {"description": "its state"}}}},
        "/modules": {"get": {"summary": "every module found", "responses": {"200": {"description": "the list"}}}},
        "/modules/{name}": {
            "get": {
                "summary": "one module: manifest, schemas, status, diagnostics",
                "parameters": [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "the module"}, **_problems("404")},
            }
        },
    }
    for name in sorted(catalogue.offers):
        paths[f"/modules/{name}/run"] = _run_path(catalogue.offers[name], schemas)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "cogtui: Cognitive Modules over HTTP",
            "version": __version__,
            "description": "Generated from the modules this server offers; it changes as they do.",
        },
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }
