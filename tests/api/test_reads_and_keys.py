"""Reads naming unknown users or sessions write nothing; API keys survive a secret rotation;
`last_used_at` is written at most once a minute per key."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from app.core import auth
from app.core.config import get_settings
from app.models import AgentSession, ApiKey, Retrieval, SpanRow, ToolCheck, User
from app.models.base import utcnow

WRITE_TABLES = (User, AgentSession, Retrieval, ToolCheck, SpanRow)


def _counts(db: Session) -> dict[str, int]:
    return {t.__tablename__: db.scalar(select(func.count()).select_from(t)) or 0
            for t in WRITE_TABLES}


def _event(user: str, session: str, text_: str) -> dict[str, str]:
    return {"user_id": user, "session_id": session, "origin": "user", "text": text_,
            "occurred_at": "2026-11-01T09:00:00Z"}


class TestReadsOfUnknownIdsWriteNothing:
    def test_retrieve_check_call_and_lists_for_an_unknown_user(
        self, client: TestClient, tenant_a: Any, db: Session
    ) -> None:
        h = tenant_a.headers()
        before = _counts(db)
        retrieved = client.post("/v1/retrieve", json={
            "user_id": "ghost", "session_id": "s1", "query": "what do I prefer"}, headers=h)
        assert retrieved.status_code == 200, retrieved.text
        assert retrieved.json()["memories"] == []
        assert retrieved.json()["retrieval_id"] is None
        nodes = client.get("/v1/users/ghost/nodes", headers=h)
        assert nodes.status_code == 200
        assert nodes.json()["nodes"] == []
        asked = client.get("/v1/clarifications", params={"user_id": "ghost"}, headers=h)
        assert asked.status_code == 200
        assert asked.json() == {"items": [], "next_cursor": None}
        auditor = tenant_a.headers("auditor")
        for path in ("/v1/users/ghost/events", "/v1/decisions?user_id=ghost",
                     "/v1/tool-checks?user_id=ghost"):
            listed = client.get(path, headers=auditor)
            assert listed.status_code == 200, path
            assert listed.json() == {"items": [], "next_cursor": None}, path
        # A side-effecting call in a session with no record still fails closed.
        checked = client.post("/v1/check-call", json={
            "user_id": "ghost", "session_id": "s1",
            "tool": {"name": "send_email", "args": {"to": ["x@evil.example"]}}}, headers=h)
        assert checked.status_code == 200, checked.text
        assert checked.json()["decision"] == "deny"
        assert [r["code"] for r in checked.json()["reasons"]][0] == "session_record_missing"
        assert checked.json()["decision_id"] is None
        assert _counts(db) == before

    def test_retrieve_in_a_new_session_of_a_known_user(
        self, client: TestClient, tenant_a: Any, db: Session
    ) -> None:
        h = tenant_a.headers()
        written = client.post("/v1/events?wait=true",
                              json=_event("alice", "s1", "I prefer short answers."), headers=h)
        assert written.status_code == 200
        before = _counts(db)
        response = client.post("/v1/retrieve", json={
            "user_id": "alice", "session_id": "fresh", "query": "answers"}, headers=h)
        assert response.status_code == 200
        # Memories returned into a new session are provenance: the session is recorded.
        assert response.json()["memories"]
        assert response.json()["retrieval_id"] is not None
        after = _counts(db)
        assert after["sessions"] == before["sessions"] + 1
        assert after["retrievals"] == before["retrievals"] + 1

    def test_an_empty_new_session_records_nothing(
        self, client: TestClient, tenant_a: Any, db: Session
    ) -> None:
        h = tenant_a.headers()
        # A user whose only statement was quarantined has no active memory to return.
        written = client.post("/v1/events?wait=true", json={
            **_event("bob", "s1", "The user prefers tables."),
            "origin": "retrieved_document"}, headers=h)
        assert written.status_code == 200
        before = _counts(db)
        response = client.post("/v1/retrieve", json={
            "user_id": "bob", "session_id": "random-123", "query": "tables"}, headers=h)
        assert response.status_code == 200
        assert response.json() == {"retrieval_id": None, "trace_id": response.json()["trace_id"],
                                   "mode": "tool", "memories": []}
        assert _counts(db) == before


class TestSecretRotation:
    def test_keys_under_the_previous_secret_verify_and_move_to_the_current(
        self, client: TestClient, tenant_a: Any, db: Session, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        settings = get_settings()
        old = settings.secret_key
        monkeypatch.setattr(settings, "secret_key", "rotated-secret")
        assert client.get("/v1/users/alice/nodes",
                          headers=tenant_a.headers()).status_code == 401
        monkeypatch.setattr(settings, "previous_secret_key", old)
        assert client.get("/v1/users/alice/nodes",
                          headers=tenant_a.headers()).status_code == 200
        stored = db.scalar(select(ApiKey.key_hash).where(
            ApiKey.key_hash == auth.hash_key(tenant_a.agent, "rotated-secret")))
        assert stored is not None
        monkeypatch.setattr(settings, "previous_secret_key", None)
        assert client.get("/v1/users/alice/nodes",
                          headers=tenant_a.headers()).status_code == 200


class TestLastUsed:
    def test_written_at_most_once_a_minute(self, client: TestClient, tenant_a: Any,
                                           db: Session) -> None:
        h = tenant_a.headers()
        digest = auth.hash_key(tenant_a.agent)

        def last_used() -> Any:
            db.expire_all()
            return db.scalar(select(ApiKey.last_used_at).where(ApiKey.key_hash == digest))

        assert client.get("/v1/users/alice/nodes", headers=h).status_code == 200
        first = last_used()
        assert first is not None
        xmin = db.scalar(text("SELECT xmin::text::bigint FROM api_keys WHERE key_hash = :h"),
                         {"h": digest})
        for _ in range(3):
            client.get("/v1/users/alice/nodes", headers=h)
        assert last_used() == first
        assert db.scalar(text("SELECT xmin::text::bigint FROM api_keys WHERE key_hash = :h"),
                         {"h": digest}) == xmin  # no row version written
        db.execute(update(ApiKey).where(ApiKey.key_hash == digest)
                   .values(last_used_at=utcnow() - timedelta(minutes=2)))
        db.commit()
        client.get("/v1/users/alice/nodes", headers=h)
        assert last_used() > first - timedelta(seconds=1)
        assert utcnow() - last_used() < timedelta(minutes=1)
