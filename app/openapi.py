"""The OpenAPI document: bearer security, operation ids named for people and the shared error
shape for every error response; rendered deterministically (CI compares it with
openapi/openapi.json)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, iter_route_contexts

from app.core.auth import authenticate
from app.core.inputs import STORABLE_JSON_SCHEMA

BEARER_SCHEME = "bearerAuth"
ERROR_SCHEMA_REF = "#/components/schemas/ErrorResponse"
SWAGGER_UI_PARAMETERS = {"persistAuthorization": True}


def operation_id(route: APIRoute) -> str:
    """A route's operation id is its function's name (`create_event`, `check_call`, ...);
    a route may name its own with `operation_id=`."""
    return route.name


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for dep in dependant.dependencies:
        if dep.call is not None:
            yield dep.call
        yield from _calls(dep)


def needs_key(route: APIRoute) -> bool:
    return any(call is authenticate for call in _calls(route.dependant))


def _validation_error_response() -> dict[str, Any]:
    return {
        "description": "validation_error",
        "content": {"application/json": {"schema": {"$ref": ERROR_SCHEMA_REF}}},
    }


def _referenced(schema: dict[str, Any], name: str) -> bool:
    """Whether anything but the component itself refers to components.schemas[name]."""
    rest = {**schema, "components": {**schema["components"]}}
    rest["components"]["schemas"] = {
        k: v for k, v in schema["components"]["schemas"].items() if k != name
    }
    return f'"#/components/schemas/{name}"' in json.dumps(rest)


def build_openapi(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    components = schema.setdefault("components", {})
    # The JSON values tool-call arguments may hold (a recursive schema no model declares).
    components.setdefault("schemas", {})["StorableJson"] = STORABLE_JSON_SCHEMA
    components["securitySchemes"] = {
        BEARER_SCHEME: {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "cap_<prefix>_<secret>",
            "description": "An API key: `Authorization: Bearer cap_…` (or `X-API-Key: cap_…`).",
        }
    }
    schema["security"] = [{BEARER_SCHEME: []}]
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        for method in route.methods or ():
            operation = schema["paths"][context.path_format][method.lower()]
            if not needs_key(route):
                operation["security"] = []
            responses = operation.get("responses", {})
            if "422" in responses:
                responses["422"] = _validation_error_response()
    schemas = components.get("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        if unused in schemas and not _referenced(schema, unused):
            del schemas[unused]
    app.openapi_schema = schema
    return schema


def install_openapi(app: FastAPI) -> None:
    def _openapi() -> dict[str, Any]:
        return build_openapi(app)

    app.openapi = _openapi  # type: ignore[method-assign]


def render_openapi(app: FastAPI) -> str:
    return json.dumps(app.openapi(), indent=2, sort_keys=True) + "\n"
