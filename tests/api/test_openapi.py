"""openapi/openapi.json is generated from the app; a stale copy fails CI."""

from __future__ import annotations

import json
import re

from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.audit.schemas import AuditRequest
from app.checkcall.declaration import ToolDeclaration
from app.checkcall.schemas import CheckCallRequest
from app.clarifications.schemas import ClarificationAnswer
from app.core.config import REPO_ROOT
from app.events.schemas import EventBatch, EventCreate
from app.ledger.schemas import NodePatch
from app.main import create_app
from app.notifications.schemas import WebhookCreate
from app.openapi import render_openapi
from app.retrieval.schemas import RetrieveRequest
from app.selection.schemas import SelectRequest

REQUEST_MODELS: tuple[type[BaseModel], ...] = (
    AuditRequest,
    CheckCallRequest,
    ClarificationAnswer,
    EventBatch,
    EventCreate,
    NodePatch,
    RetrieveRequest,
    SelectRequest,
    ToolDeclaration,
    WebhookCreate,
)


class TestOpenApiSpec:
    def test_committed_spec_is_current(self) -> None:
        committed = (REPO_ROOT / "openapi" / "openapi.json").read_text()
        assert committed == render_openapi(create_app()), (
            "run `capture export-openapi` and commit the result")

    def test_errors_are_declared_with_the_shared_shape(self) -> None:
        spec = json.loads(render_openapi(create_app()))
        post_event = spec["paths"]["/v1/events"]["post"]["responses"]
        for status in ("401", "403", "409"):
            schema = post_event[status]["content"]["application/json"]["schema"]
            assert schema["$ref"].endswith("/ErrorResponse")
        assert "unauthenticated" in post_event["401"]["description"]

    def test_bearer_security_is_global_and_health_is_public(self) -> None:
        spec = json.loads(render_openapi(create_app()))
        scheme = spec["components"]["securitySchemes"]["bearerAuth"]
        assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
        assert spec["security"] == [{"bearerAuth": []}]
        for path in ("/healthz", "/readyz", "/metrics"):
            assert spec["paths"][path]["get"]["security"] == []
        assert "security" not in spec["paths"]["/v1/events"]["post"]

    def test_operation_ids_are_named_for_people(self) -> None:
        spec = json.loads(render_openapi(create_app()))
        ids = {
            (path, method): op["operationId"]
            for path, item in spec["paths"].items()
            for method, op in item.items()
        }
        assert len(set(ids.values())) == len(ids)
        assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", op_id) for op_id in ids.values())
        assert ids[("/v1/events", "post")] == "create_event"
        assert ids[("/v1/events/{event_id}", "get")] == "get_event"
        assert ids[("/v1/retrieve", "post")] == "retrieve"
        assert ids[("/v1/check-call", "post")] == "check_call"
        assert ids[("/v1/users/{user_id}/nodes", "get")] == "list_nodes"

    def test_every_request_body_has_an_example_the_service_accepts(self) -> None:
        spec = json.loads(render_openapi(create_app()))
        models = {model.__name__: model for model in REQUEST_MODELS}
        bodies = [
            op["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
            for item in spec["paths"].values()
            for op in item.values()
            if "requestBody" in op
        ]
        assert sorted(bodies) == sorted(models)
        for name in bodies:
            examples = spec["components"]["schemas"][name]["examples"]
            assert examples, name
            for example in examples:
                models[name].model_validate(example)

    def test_validation_errors_have_the_shared_shape(self) -> None:
        spec = json.loads(render_openapi(create_app()))
        response = spec["paths"]["/v1/retrieve"]["post"]["responses"]["422"]
        assert response["content"]["application/json"]["schema"]["$ref"].endswith(
            "/ErrorResponse"
        )
        assert "HTTPValidationError" not in spec["components"]["schemas"]

    def test_closed_vocabularies_in_responses_are_enums(self) -> None:
        schemas = json.loads(render_openapi(create_app()))["components"]["schemas"]

        def enum_of(model: str, field: str) -> list[str]:
            prop = schemas[model]["properties"][field]
            ref = next(
                (p["$ref"] for p in prop.get("anyOf", [prop]) if "$ref" in p), None
            )
            target = schemas[ref.rsplit("/", 1)[1]] if ref else prop
            return list(target["enum"])

        assert enum_of("EventAccepted", "status") == ["pending", "processed", "failed"]
        assert enum_of("CheckCallResponse", "decision") == ["allow", "ask", "deny"]
        assert enum_of("CheckCallResponse", "side_effect") == ["read", "write", "external_send"]
        assert "quarantined" in enum_of("NodeOut", "state")
        assert "tool_output" in enum_of("RetrievedMemory", "origin")
        assert "deferred" in enum_of("ClarificationOut", "status")
        assert "quarantine" in enum_of("DecisionOut", "action")

    def test_docs_let_a_user_authorize_with_a_key(self) -> None:
        with TestClient(create_app()) as client:
            docs = client.get("/docs")
            spec = client.get("/openapi.json").json()
        assert docs.status_code == 200
        assert '"persistAuthorization": true' in docs.text
        assert spec["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
