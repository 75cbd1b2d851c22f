"""The client's models and operations against openapi/openapi.json: a field added, removed,
retyped or made optional on one side and not the other fails here."""

from __future__ import annotations

import json
import typing
from typing import Any

import capture_client.models as client_models
import pytest
from capture_client import OPERATIONS, Operation
from pydantic import BaseModel, TypeAdapter

from app.core.config import REPO_ROOT

SPEC: dict[str, Any] = json.loads((REPO_ROOT / "openapi" / "openapi.json").read_text())
COMPONENTS: dict[str, Any] = SPEC["components"]["schemas"]
REF = "#/components/schemas/"

MIRRORED: list[type[BaseModel]] = [
    obj
    for name, obj in vars(client_models).items()
    if isinstance(obj, type)
    and issubclass(obj, BaseModel)
    and not name.startswith("_")
    and obj.__module__ == client_models.__name__
]
REQUESTS = {op.request for op in OPERATIONS.values() if op.request is not None} | {
    client_models.ToolCall,
    client_models.ArgBinding,
    client_models.ToolDeclaration,
    client_models.ToolAnnotations,
}


def _shape(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A schema reduced to what a client must agree on: types, formats, enum values,
    nullability and referenced models (not descriptions, titles or constraints)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        target = defs[name]
        if "enum" in target:
            return ("enum", tuple(sorted(target["enum"])))
        return ("model", name)
    if "anyOf" in schema:
        return ("anyOf", frozenset(_shape(s, defs) for s in schema["anyOf"]))
    if "enum" in schema:
        return ("enum", tuple(sorted(schema["enum"])))
    if "const" in schema:
        return ("enum", (schema["const"],))
    kind = schema.get("type")
    if kind == "array":
        return ("array", _shape(schema.get("items", {}), defs))
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra.get("$ref", "").endswith("/StorableJson"):
            extra = True  # any JSON value; its constraints (no NUL, depth) are not shape
        return ("object", _shape(extra, defs) if isinstance(extra, dict) else extra)
    if kind is None:
        return ("any",)
    return (kind, schema.get("format"))


def _component(model: type[BaseModel]) -> tuple[dict[str, Any], dict[str, Any]]:
    mode: typing.Literal["validation", "serialization"] = (
        "validation" if model in REQUESTS else "serialization"
    )
    schema = model.model_json_schema(mode=mode, ref_template=REF + "{model}")
    return schema, {**schema.get("$defs", {}), model.__name__: schema}


def test_every_mirrored_model_is_a_component() -> None:
    missing = [m.__name__ for m in MIRRORED if m.__name__ not in COMPONENTS]
    assert not missing


@pytest.mark.parametrize("model", MIRRORED, ids=lambda m: m.__name__)
def test_model_matches_the_spec(model: type[BaseModel]) -> None:
    ours, our_defs = _component(model)
    theirs = COMPONENTS[model.__name__]
    assert set(ours["properties"]) == set(theirs["properties"]), "field names differ"
    assert set(ours.get("required", [])) == set(theirs.get("required", [])), "required differs"
    for field, prop in theirs["properties"].items():
        assert _shape(ours["properties"][field], our_defs) == _shape(prop, COMPONENTS), field


def _expected_body(op: Operation) -> str | None:
    return op.request.__name__ if op.request is not None else None


def _response_schema(op: Operation) -> Any:
    origin = typing.get_origin(op.response)
    if origin is list:
        (item,) = typing.get_args(op.response)
        return {"type": "array", "items": {"$ref": REF + item.__name__}}
    return {"$ref": REF + op.response.__name__}


@pytest.mark.parametrize("op", list(OPERATIONS.values()), ids=lambda op: op.operation_id)
def test_operation_matches_the_spec(op: Operation) -> None:
    operation = SPEC["paths"][op.path][op.method.lower()]
    assert operation["operationId"] == op.operation_id
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = body.get("schema", {}).get("$ref")
    assert (ref.rsplit("/", 1)[1] if ref else None) == _expected_body(op)
    success = next(v for k, v in operation["responses"].items() if k.startswith("2"))
    schema = success["content"]["application/json"]["schema"]
    assert _shape(schema, COMPONENTS) == _shape(_response_schema(op), COMPONENTS)
    TypeAdapter(op.response)  # every response type is a pydantic-readable type


def test_the_agent_endpoints_are_covered() -> None:
    wanted = {
        "create_event", "get_event", "retrieve", "check_call", "list_nodes", "get_node",
        "correct_node", "erase_node", "list_clarifications", "answer_clarification",
        "select", "create_audit", "get_audit",
    }
    assert wanted <= set(OPERATIONS)
