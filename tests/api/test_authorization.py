"""Authenticated by default; tenants and users never see each other; roles separate duties."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

EVENT = {"user_id": "alice", "session_id": "s1", "origin": "user",
         "text": "I prefer short answers.", "occurred_at": "2026-11-01T09:00:00Z"}


def _write(client: TestClient, headers: dict[str, str], **over: Any) -> dict[str, Any]:
    response = client.post("/v1/events?wait=true", json={**EVENT, **over}, headers=headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _retrieve(client: TestClient, headers: dict[str, str], user: str) -> list[dict[str, Any]]:
    response = client.post("/v1/retrieve", headers=headers, json={
        "user_id": user, "session_id": "s1", "query": "answer length"})
    assert response.status_code == 200, response.text
    memories: list[dict[str, Any]] = response.json()["memories"]
    return memories


class TestAuthenticationRequired:
    def test_no_key_is_401(self, client: TestClient) -> None:
        response = client.post("/v1/events", json=EVENT)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthenticated"

    def test_unknown_key_is_401(self, client: TestClient) -> None:
        response = client.post("/v1/retrieve", headers={"Authorization": "Bearer cap_x_y"},
                               json={"user_id": "a", "session_id": "s", "query": "q"})
        assert response.status_code == 401

    def test_health_needs_no_key(self, client: TestClient) -> None:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json()["checks"]["database"] == "ok"
        assert "capture_http_requests_total" in client.get("/metrics").text


class TestTenantIsolation:
    def test_tenant_b_cannot_read_tenant_a(self, client: TestClient, tenant_a: Any,
                                          tenant_b: Any) -> None:
        written = _write(client, tenant_a.headers())
        assert _retrieve(client, tenant_b.headers(), "alice") == []
        assert client.get(f"/v1/events/{written['event_id']}",
                          headers=tenant_b.headers()).status_code == 404
        # "alice" of tenant B is another person: she has no memories.
        listed = client.get("/v1/users/alice/nodes", headers=tenant_b.headers())
        assert listed.status_code in (200, 404)
        assert listed.status_code == 404 or listed.json()["total"] == 0
        node_id = _retrieve(client, tenant_a.headers(), "alice")[0]["node_id"]
        for method in ("get", "delete"):
            response = client.request(method, f"/v1/users/alice/nodes/{node_id}",
                                      headers=tenant_b.headers())
            assert response.status_code == 404
        assert client.get(f"/v1/provenance/nodes/{node_id}",
                          headers=tenant_b.headers("auditor")).status_code == 404

    def test_tenant_b_writes_stay_in_tenant_b(self, client: TestClient, tenant_a: Any,
                                              tenant_b: Any) -> None:
        _write(client, tenant_b.headers(), text="I prefer detailed answers.")
        assert _retrieve(client, tenant_a.headers(), "alice") == []
        assert [m["value"] for m in _retrieve(client, tenant_b.headers(), "alice")] == [
            "detailed"]


class TestUserIsolation:
    def test_users_never_see_each_other(self, client: TestClient, tenant_a: Any) -> None:
        _write(client, tenant_a.headers(), user_id="alice")
        _write(client, tenant_a.headers(), user_id="bob", text="I prefer detailed answers.")
        assert [m["value"] for m in _retrieve(client, tenant_a.headers(), "alice")] == ["short"]
        assert [m["value"] for m in _retrieve(client, tenant_a.headers(), "bob")] == ["detailed"]
        alice_node = _retrieve(client, tenant_a.headers(), "alice")[0]["node_id"]
        assert client.get(f"/v1/users/bob/nodes/{alice_node}",
                          headers=tenant_a.headers()).status_code == 404


class TestRoles:
    def test_agent_cannot_call_auditor_endpoints(self, client: TestClient,
                                                 tenant_a: Any) -> None:
        written = _write(client, tenant_a.headers())
        node_id = _retrieve(client, tenant_a.headers(), "alice")[0]["node_id"]
        for path in (f"/v1/provenance/nodes/{node_id}",
                     "/v1/provenance/sessions/s1?user_id=alice",
                     f"/v1/provenance/traces/{written['trace_id']}"):
            response = client.get(path, headers=tenant_a.headers("agent"))
            assert response.status_code == 403, path
            assert response.json()["error"]["code"] == "forbidden"
            assert client.get(path, headers=tenant_a.headers("auditor")).status_code == 200

    def test_auditor_cannot_write(self, client: TestClient, tenant_a: Any) -> None:
        response = client.post("/v1/events", json=EVENT, headers=tenant_a.headers("auditor"))
        assert response.status_code == 403

    def test_admin_may_do_both(self, client: TestClient, tenant_a: Any) -> None:
        written = _write(client, tenant_a.headers("admin"))
        assert client.get(f"/v1/provenance/traces/{written['trace_id']}",
                          headers=tenant_a.headers("admin")).status_code == 200

    def test_revoked_key_is_refused(self, client: TestClient, tenant_a: Any, db: Any) -> None:
        from sqlalchemy import update

        from app.core.auth import hash_key
        from app.models import ApiKey
        from app.models.base import utcnow

        db.execute(update(ApiKey).where(ApiKey.key_hash == hash_key(tenant_a.agent))
                   .values(revoked_at=utcnow()))
        db.commit()
        assert client.post("/v1/events", json=EVENT,
                           headers=tenant_a.headers()).status_code == 401


class TestCurrentKey:
    def test_each_role_reads_its_own_key(self, client: TestClient, tenant_a: Any) -> None:
        for role in ("agent", "auditor", "admin"):
            response = client.get("/v1/keys/me", headers=tenant_a.headers(role))
            assert response.status_code == 200
            assert response.json()["role"] == role

    def test_an_unknown_key_is_refused(self, client: TestClient) -> None:
        response = client.get("/v1/keys/me", headers={"Authorization": "Bearer cap_x_nothing"})
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthenticated"
