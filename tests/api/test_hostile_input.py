"""Hostile input and faults answer a JSON error, never a plain-text 500: NUL and lone
surrogates, out-of-range timestamps and offsets, oversized chunked bodies, an unreachable
database, and any exception no handler knew."""

from __future__ import annotations

import base64
import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session, sessionmaker

from app.core import db as core_db
from app.core.middleware import MAX_BODY_BYTES, CatchAllMiddleware
from app.models import Event

NUL = "a\x00b"
SURROGATE = "a\ud800b"


def _event(**overrides: Any) -> dict[str, Any]:
    body = {"user_id": "alice", "session_id": "s1", "origin": "user",
            "text": "I prefer short answers.", "occurred_at": "2026-11-01T09:00:00Z"}
    body.update(overrides)
    return body


def _post_json(client: TestClient, path: str, body: Any, headers: dict[str, str]) -> Any:
    # json.dumps escapes a lone surrogate as \ud800, which JSON parsers read back as one.
    return client.post(path, content=json.dumps(body),
                       headers={**headers, "Content-Type": "application/json"})


def _assert_422(response: Any) -> None:
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "validation_error"


@pytest.fixture
def node_id(client: TestClient, tenant_a: Any) -> str:
    response = client.post("/v1/events?wait=true", json=_event(),
                           headers=tenant_a.headers())
    assert response.status_code == 200, response.text
    nodes = client.get("/v1/users/alice/nodes", headers=tenant_a.headers()).json()["nodes"]
    return str(nodes[0]["id"])


class TestUnstorableText:
    @pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "surrogate"])
    @pytest.mark.parametrize("field", ["text", "tool_name", "source_uri", "idempotency_key"])
    def test_event_fields(self, client: TestClient, tenant_a: Any, db: Session,
                          field: str, bad: str) -> None:
        before = db.scalar(select(func.count()).select_from(Event))
        overrides: dict[str, Any] = {field: bad}
        if field == "tool_name":
            overrides["origin"] = "tool_output"
        _assert_422(_post_json(client, "/v1/events", _event(**overrides), tenant_a.headers()))
        assert db.scalar(select(func.count()).select_from(Event)) == before

    @pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "surrogate"])
    @pytest.mark.parametrize(("path", "body"), [
        ("/v1/retrieve", {"user_id": "alice", "session_id": "s1", "query": "{bad}"}),
        ("/v1/select", {"user_id": "alice", "session_id": "s1", "prompt": "{bad}",
                        "candidates": ["fine"]}),
        ("/v1/select", {"user_id": "alice", "session_id": "s1", "prompt": "fine",
                        "candidates": ["{bad}"]}),
        ("/v1/audit", {"user_id": "alice", "session_id": "s1", "prompt": "{bad}",
                       "response": "r", "cited_node_ids": [str(uuid.uuid4())]}),
        ("/v1/audit", {"user_id": "alice", "session_id": "s1", "prompt": "p",
                       "response": "{bad}", "cited_node_ids": [str(uuid.uuid4())]}),
        ("/v1/check-call", {"user_id": "alice", "session_id": "s1",
                            "tool": {"name": "send_email", "args": {"to": "{bad}"}}}),
        ("/v1/check-call", {"user_id": "alice", "session_id": "s1",
                            "tool": {"name": "send_email", "args": {"{bad}": ["x"]}}}),
        ("/v1/check-call", {"user_id": "alice", "session_id": "s1",
                            "tool": {"name": "send\u0000email", "args": {}}}),
    ], ids=["retrieve-query", "select-prompt", "select-candidate", "audit-prompt",
            "audit-response", "checkcall-arg", "checkcall-key", "checkcall-tool"])
    def test_bodies(self, client: TestClient, tenant_a: Any, path: str,
                    body: dict[str, Any], bad: str) -> None:
        filled = json.loads(json.dumps(body).replace("{bad}", json.dumps(bad)[1:-1]))
        _assert_422(_post_json(client, path, filled, tenant_a.headers()))

    @pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "surrogate"])
    def test_patch_claim(self, client: TestClient, tenant_a: Any, node_id: str,
                         bad: str) -> None:
        response = client.patch(f"/v1/users/alice/nodes/{node_id}",
                                content=json.dumps({"claim": bad}),
                                headers={**tenant_a.headers(),
                                         "Content-Type": "application/json"})
        _assert_422(response)

    @pytest.mark.parametrize("path", [
        "/v1/users/a%00b/nodes",
        "/v1/users/a%00b/nodes/" + str(uuid.uuid4()),
        "/v1/users/a%ED%A0%80b/nodes",
        "/v1/users/alice/nodes?scope=a%00b",
        "/v1/clarifications?user_id=a%00b",
        "/v1/provenance/sessions/s%00?user_id=alice",
        "/v1/users/a%00b/events",
        "/v1/users/a%00b/export",
        "/v1/users?prefix=a%00b",
        "/v1/decisions?cursor=a%00b",
        "/v1/tool-checks?tool_name=a%00b",
    ])
    def test_paths_and_queries(self, client: TestClient, tenant_a: Any, path: str) -> None:
        _assert_422(client.get(path, headers=tenant_a.headers("admin")))


    @pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "surrogate"])
    @pytest.mark.parametrize(("path", "body"), [
        ("/v1/events:batch", {"events": [{**_event(), "idempotency_key": "{bad}"}]}),
        ("/v1/events:batch", {"events": [{**_event(), "text": "{bad}",
                                          "idempotency_key": "k1"}]}),
        ("/v1/webhooks", {"url": "https://hooks.example/{bad}",
                          "event_types": ["user.erased"]}),
        ("/v1/webhooks", {"url": "https://hooks.example/in", "event_types": ["user.erased"],
                          "description": "{bad}"}),
    ], ids=["batch-key", "batch-text", "webhook-url", "webhook-description"])
    def test_lifecycle_bodies(self, client: TestClient, tenant_a: Any, db: Session,
                              path: str, body: dict[str, Any], bad: str) -> None:
        before = db.scalar(select(func.count()).select_from(Event))
        filled = json.loads(json.dumps(body).replace("{bad}", json.dumps(bad)[1:-1]))
        _assert_422(_post_json(client, path, filled, tenant_a.headers("admin")))
        assert db.scalar(select(func.count()).select_from(Event)) == before


class TestCursors:
    @pytest.mark.parametrize("key", [
        ["0001-01-01T00:00:00+01:00", str(uuid.uuid4())],
        ["9999-12-31T23:59:59-01:00", str(uuid.uuid4())],
        [2**70, str(uuid.uuid4())],
        [-1, str(uuid.uuid4())],
    ], ids=["year-1", "year-9999", "beyond-bigint", "negative"])
    @pytest.mark.parametrize("path", ["/v1/decisions", "/v1/users/alice/events"])
    def test_out_of_range_cursor_is_invalid_input(self, client: TestClient, tenant_a: Any,
                                                  path: str, key: list[Any]) -> None:
        written = client.post("/v1/events", json=_event(), headers=tenant_a.headers())
        assert written.status_code == 202, written.text
        raw = json.dumps(key, separators=(",", ":")).encode()
        cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        response = client.get(path, params={"cursor": cursor},
                              headers=tenant_a.headers("auditor"))
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "invalid_input"


class TestTimestampBounds:
    @pytest.mark.parametrize("at", [
        "0001-01-01T00:00:00+01:00", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
        "9999-12-31T23:59:59-01:00", "0.5", "1700000000",
    ])
    def test_occurred_at(self, client: TestClient, tenant_a: Any, db: Session,
                         at: str) -> None:
        before = db.scalar(select(func.count()).select_from(Event))
        _assert_422(client.post("/v1/events", json=_event(occurred_at=at),
                                headers=tenant_a.headers()))
        assert db.scalar(select(func.count()).select_from(Event)) == before

    def test_the_epoch_is_accepted(self, client: TestClient, tenant_a: Any) -> None:
        response = client.post("/v1/events", json=_event(occurred_at="1970-01-01T00:00:00Z"),
                               headers=tenant_a.headers())
        assert response.status_code == 202, response.text

    @pytest.mark.parametrize("at", ["0.5", "0001-01-01T00:00:00+01:00", "2026-01-01T00:00:00"])
    def test_as_of(self, client: TestClient, tenant_a: Any, at: str) -> None:
        _assert_422(client.get("/v1/users/alice/nodes", params={"as_of": at},
                               headers=tenant_a.headers()))

    def test_retrieval_at(self, client: TestClient, tenant_a: Any) -> None:
        _assert_422(client.post("/v1/retrieve", json={
            "user_id": "alice", "session_id": "s1", "query": "q",
            "at": "0001-01-01T00:00:00+01:00"}, headers=tenant_a.headers()))


class TestOffsets:
    @pytest.mark.parametrize("offset", ["99999999999999999999", "-1", "1000001"])
    def test_out_of_range(self, client: TestClient, tenant_a: Any, offset: str) -> None:
        _assert_422(client.get(f"/v1/users/alice/nodes?offset={offset}",
                               headers=tenant_a.headers()))


class TestBodyLimit:
    def test_chunked_body_over_the_limit_is_413(self, client: TestClient,
                                                tenant_a: Any, db: Session) -> None:
        before = db.scalar(select(func.count()).select_from(Event))
        padding = "x" * (MAX_BODY_BYTES + 1)

        def chunks() -> Iterator[bytes]:
            body = json.dumps(_event(text="I prefer short answers.", domain=padding)).encode()
            for i in range(0, len(body), 8192):
                yield body[i:i + 8192]

        response = client.post("/v1/events", content=chunks(),
                               headers={**tenant_a.headers(),
                                        "Content-Type": "application/json"})
        assert response.status_code == 413, response.text
        assert response.json()["error"]["code"] == "payload_too_large"
        assert db.scalar(select(func.count()).select_from(Event)) == before

    def test_chunked_body_under_the_limit_is_read(self, client: TestClient,
                                                  tenant_a: Any) -> None:
        def chunks() -> Iterator[bytes]:
            yield json.dumps(_event()).encode()

        response = client.post("/v1/events", content=chunks(),
                               headers={**tenant_a.headers(),
                                        "Content-Type": "application/json"})
        assert response.status_code == 202, response.text


class TestMethodNotAllowed:
    def test_trace_names_the_allowed_methods(self, client: TestClient) -> None:
        response = client.request("TRACE", "/v1/events")
        assert response.status_code == 405
        assert response.json()["error"]["code"] == "method_not_allowed"
        assert "POST" in response.headers["allow"]


class TestDatabaseOutage:
    def test_every_request_is_503_and_the_outage_is_logged_once(
        self, client: TestClient, tenant_a: Any, caplog: pytest.LogCaptureFixture
    ) -> None:
        # A real connection attempt to a port nothing listens on.
        dead = create_engine("postgresql+psycopg://capture@127.0.0.1:1/capture",
                             connect_args={"connect_timeout": 1})
        live = core_db.get_session_factory()
        core_db.set_session_factory(sessionmaker(bind=dead, expire_on_commit=False))
        caplog.set_level(logging.INFO)
        try:
            answers = [
                response
                for _ in range(2)
                for response in (
                    client.post("/v1/events", json=_event(), headers=tenant_a.headers()),
                    client.get("/v1/users/alice/nodes", headers=tenant_a.headers()),
                    client.post("/v1/retrieve", json={"user_id": "alice", "session_id": "s1",
                                                      "query": "q"},
                                headers=tenant_a.headers()),
                )
            ]
        finally:
            core_db.set_session_factory(live)
            dead.dispose()
        for response in answers:
            assert response.status_code == 503, response.text
            assert response.json()["error"]["code"] == "unavailable"
            assert int(response.headers["retry-after"]) > 0
        warnings = [r for r in caplog.records if "database unavailable" in r.getMessage()]
        assert len(warnings) == 1
        assert all(r.exc_info is None for r in caplog.records if r.levelno >= logging.WARNING)
        back = client.post("/v1/events", json=_event(), headers=tenant_a.headers())
        assert back.status_code == 202
        assert any("database available again" in r.getMessage() for r in caplog.records)


class TestCatchAll:
    def test_an_unknown_exception_is_a_json_500(self, caplog: pytest.LogCaptureFixture) -> None:
        inner = FastAPI()

        @inner.get("/boom")
        def boom() -> None:
            raise RuntimeError(" ".join(["user's", "secret", "claim"]))

        inner.add_middleware(CatchAllMiddleware)
        with TestClient(inner, raise_server_exceptions=True) as test_client:
            response = test_client.get("/boom")
        assert response.status_code == 500
        assert response.json() == {"error": {"code": "internal_error",
                                             "message": "internal server error"}}
        assert "user's secret claim" not in caplog.text
        assert "RuntimeError" in caplog.text
