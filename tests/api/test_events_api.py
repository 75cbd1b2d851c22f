"""Writing events: validation, limits, idempotency, the event view."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.models import Event

EVENT = {"user_id": "alice", "session_id": "s1", "origin": "user",
         "text": "I prefer short answers.", "occurred_at": "2026-11-01T09:00:00Z"}


def _count(db: Session) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(Event)) or 0


class TestValidation:
    @pytest.mark.parametrize(
        ("override", "status"),
        [
            ({"origin": "email"}, 422),
            ({"occurred_at": "2026-11-01T09:00:00"}, 422),  # no timezone
            ({"occurred_at": "2999-01-01T00:00:00Z"}, 422),  # future
            ({"text": ""}, 422),
            ({"text": "x" * (32 * 1024 + 1)}, 422),
            ({"user_id": "a b"}, 422),
            ({"user_id": "u" * 129}, 422),
            ({"domain": "Not A Domain"}, 422),
            ({"unexpected": 1}, 422),
        ],
    )
    def test_bad_input_is_4xx_and_writes_nothing(self, client: TestClient, tenant_a: Any,
                                                db: Session, override: dict[str, Any],
                                                status: int) -> None:
        response = client.post("/v1/events", json={**EVENT, **override},
                               headers=tenant_a.headers())
        assert response.status_code == status
        assert response.json()["error"]["code"] == "validation_error"
        assert "I prefer" not in response.text  # input is never echoed
        assert _count(db) == 0

    def test_oversized_body_is_413(self, client: TestClient, tenant_a: Any) -> None:
        response = client.post("/v1/events", content=b"{" + b" " * 300_000 + b"}",
                               headers={**tenant_a.headers(), "content-type": "application/json"})
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "payload_too_large"


class TestIdempotency:
    def test_retry_returns_first_result_and_writes_once(self, client: TestClient, tenant_a: Any,
                                                        db: Session) -> None:
        body = {**EVENT, "idempotency_key": "evt-1"}
        first = client.post("/v1/events?wait=true", json=body, headers=tenant_a.headers())
        second = client.post("/v1/events?wait=true", json=body, headers=tenant_a.headers())
        assert first.status_code == 200
        assert second.status_code == 200
        assert second.json()["event_id"] == first.json()["event_id"]
        assert second.json()["duplicate"] is True
        assert second.json()["decisions"] == first.json()["decisions"]
        assert _count(db) == 1

    def test_same_key_different_event_is_409(self, client: TestClient, tenant_a: Any) -> None:
        client.post("/v1/events", json={**EVENT, "idempotency_key": "k"},
                    headers=tenant_a.headers())
        response = client.post("/v1/events", json={**EVENT, "idempotency_key": "k",
                                                   "text": "something else"},
                               headers=tenant_a.headers())
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "conflict"

    def test_keys_are_per_tenant(self, client: TestClient, tenant_a: Any, tenant_b: Any,
                                 db: Session) -> None:
        body = {**EVENT, "idempotency_key": "shared"}
        a = client.post("/v1/events", json=body, headers=tenant_a.headers())
        b = client.post("/v1/events", json=body, headers=tenant_b.headers())
        assert a.json()["event_id"] != b.json()["event_id"]
        assert _count(db) == 2


class TestEventView:
    def test_shows_hypotheses_decision_and_node_changes(self, client: TestClient,
                                                        tenant_a: Any) -> None:
        written = client.post("/v1/events?wait=true", json=EVENT,
                              headers=tenant_a.headers()).json()
        view = client.get(f"/v1/events/{written['event_id']}", headers=tenant_a.headers())
        assert view.status_code == 200
        body = view.json()
        assert body["status"] == "processed"
        assert [h["value"] for h in body["hypotheses"]] == ["short"]
        # Each hypothesis names the extractor that read it, as each decision its policy.
        assert [h["extractor"] for h in body["hypotheses"]] == [get_settings().extractor]
        assert all(h["extractor_version"] for h in body["hypotheses"])
        assert [d["action"] for d in body["decisions"]] == ["add"]
        assert body["decisions"][0]["probabilities"]["add"] == 1.0
        assert [c["change"] for c in body["node_changes"]] == ["created"]

    def test_without_wait_is_202(self, client: TestClient, tenant_a: Any) -> None:
        response = client.post("/v1/events", json=EVENT, headers=tenant_a.headers())
        assert response.status_code == 202
        assert response.json()["event_id"]

    def test_abstention_writes_no_node(self, client: TestClient, tenant_a: Any) -> None:
        body = {**EVENT, "text": "Can you summarize the quarterly report for me?"}
        written = client.post("/v1/events?wait=true", json=body, headers=tenant_a.headers())
        assert written.json()["decisions"] == []
        nodes = client.get("/v1/users/alice/nodes", headers=tenant_a.headers()).json()
        assert nodes["total"] == 0

    def test_unknown_event_is_404(self, client: TestClient, tenant_a: Any) -> None:
        response = client.get("/v1/events/00000000-0000-0000-0000-000000000000",
                              headers=tenant_a.headers())
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
