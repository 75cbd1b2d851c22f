"""Authorization as a matrix over the app's own routes: every route × role (agent, auditor,
admin) × own or other tenant, and every route with missing, malformed and revoked keys.

The routes are read from the running app at test time. A route without an entry in ROUTES
fails `test_every_route_has_an_expectation`, so a new endpoint cannot skip the matrix."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.core.auth import create_api_key, get_or_create_tenant, hash_key
from app.models import ApiKey, Clarification, Decision, Event
from app.models.base import utcnow
from app.models.enums import Role
from tests.conftest import TenantKeys

ADMIN = frozenset({"admin"})
AGENT = frozenset({"agent", "admin"})
AUDITOR = frozenset({"auditor", "admin"})
READER = frozenset({"agent", "auditor", "admin"})
ROLES = ("agent", "auditor", "admin")
STATEMENT = "I prefer short answers, please keep replies brief."


@dataclass
class World:
    """Tenant A's rows that the routes address, written through the API with A's admin key;
    `fresh_*` make a new one for a call that consumes it (an erasure, an answer)."""

    client: TestClient
    db: Session
    admin: dict[str, str]
    event_id: str = ""
    node_id: str = ""
    trace_id: str = ""
    audit_id: str = ""
    webhook_id: str = ""
    erasure_id: str = ""
    _tools: int = 0
    secrets: set[str] = field(default_factory=set)
    _users: int = 0

    def write(self, user: str, text: str = STATEMENT) -> dict[str, Any]:
        response = self.client.post("/v1/events?wait=true", headers=self.admin, json={
            "user_id": user, "session_id": "s1", "origin": "user", "text": text,
            "occurred_at": "2026-11-01T09:00:00Z"})
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def seed(self) -> World:
        written = self.write("alice")
        self.event_id, self.trace_id = written["event_id"], written["trace_id"]
        nodes = self.client.get("/v1/users/alice/nodes", headers=self.admin).json()["nodes"]
        self.node_id = nodes[0]["id"]
        audit = self.client.post("/v1/audit", headers=self.admin, json={
            "user_id": "alice", "session_id": "s1", "prompt": "How long should answers be?",
            "response": "Short.", "cited_node_ids": [self.node_id],
            "candidates": ["Short.", "A long answer."]})
        assert audit.status_code == 202, audit.text
        self.audit_id = audit.json()["audit_id"]
        self.webhook_id = self.fresh_webhook()
        self.fresh_tool(_TOOL["name"])
        self.write("gone")
        erased = self.client.delete("/v1/users/gone", headers=self.admin)
        assert erased.status_code == 202, erased.text
        self.erasure_id = erased.json()["id"]
        # What another tenant must never see in a response.
        self.secrets = {self.event_id, self.node_id, self.trace_id, self.audit_id,
                        self.webhook_id, self.erasure_id, erased.json()["user_ref_sha256"],
                        nodes[0]["claim"], "keep replies brief", _TOOL["description"]}
        return self

    def fresh_tool(self, name: str | None = None) -> str:
        """A tool declared for tenant A: its name."""
        if name is None:
            self._tools += 1
            name = f"fresh_tool_{self._tools}"
        response = self.client.put(f"/v1/tools/{name}", headers=self.admin,
                                   json={**_TOOL, "name": name})
        assert response.status_code == 200, response.text
        return name

    def fresh_webhook(self) -> str:
        response = self.client.post("/v1/webhooks", headers=self.admin, json=_WEBHOOK)
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    def fresh_user(self) -> str:
        """A new user with one event."""
        return self.fresh_event()[0]

    def fresh_node(self) -> tuple[str, str]:
        """A new user with one memory: (user, node id)."""
        self._users += 1
        user = f"fresh{self._users}"
        self.write(user)
        nodes = self.client.get(f"/v1/users/{user}/nodes", headers=self.admin).json()["nodes"]
        return user, nodes[0]["id"]

    def fresh_event(self) -> tuple[str, str]:
        self._users += 1
        user = f"fresh{self._users}"
        return user, self.write(user, "Thanks, that helps.")["event_id"]

    def fresh_question(self) -> str:
        """A pending question about the seeded memory."""
        event = self.db.get(Event, uuid.UUID(self.event_id))
        assert event is not None
        decision = self.db.scalars(select(Decision).where(Decision.event_id == event.id)).first()
        assert decision is not None
        question = Clarification(
            tenant_id=event.tenant_id, user_id=event.user_id, event_id=event.id,
            decision_id=decision.id, node_id=uuid.UUID(self.node_id), status="pending",
            source="user", asked_event_id=event.id)
        self.db.add(question)
        self.db.commit()
        return str(question.id)


Call = tuple[str, dict[str, Any] | None]  # path with query, JSON body


@dataclass(frozen=True)
class Expect:
    """Who may call a route and how to call it: `call(world, consume)` gives the request
    (`consume`: the call may use up what it names, so name a fresh one)."""

    roles: frozenset[str]
    call: Callable[[World, bool], Call]
    ok: int = 200
    public: bool = False
    # What an allowed role of another tenant gets, when it is not the rule of
    # `test_no_role_of_another_tenant_reaches_a_row` (404 for an id, `ok` for a name).
    other_tenant: int | None = None


def _fixed(path: Callable[[World], str], body: Callable[[World], dict[str, Any]] | None = None
           ) -> Callable[[World, bool], Call]:
    return lambda w, _consume: (path(w), body(w) if body else None)


def _erase_node(w: World, consume: bool) -> Call:
    user, node = w.fresh_node() if consume else ("alice", w.node_id)
    return f"/v1/users/{user}/nodes/{node}", None


def _erase_event(w: World, consume: bool) -> Call:
    user, event = w.fresh_event() if consume else ("alice", w.event_id)
    return f"/v1/users/{user}/events/{event}", None


def _erase_user(w: World, consume: bool) -> Call:
    return f"/v1/users/{w.fresh_user() if consume else 'alice'}", None


def _remove_webhook(w: World, consume: bool) -> Call:
    return f"/v1/webhooks/{w.fresh_webhook() if consume else w.webhook_id}", None


def _declare_tool(w: World, _consume: bool) -> Call:
    return f"/v1/tools/{_TOOL['name']}", _TOOL


def _remove_tool(w: World, consume: bool) -> Call:
    return f"/v1/tools/{w.fresh_tool() if consume else _TOOL['name']}", None


def _answer(w: World, consume: bool) -> Call:
    question = w.fresh_question() if consume else str(uuid.uuid4())
    return f"/v1/clarifications/{question}/answer", {"answer": "confirm"}


_EVENT = {"user_id": "alice", "session_id": "s1", "origin": "user",
          "text": "Thanks, that helps.", "occurred_at": "2026-11-01T09:00:00Z"}
_BATCH = {"events": [{**_EVENT, "idempotency_key": "matrix-batch-1"}]}
# Subscribed to a notification the matrix never causes (no delivery is attempted).
_WEBHOOK = {"url": "http://127.0.0.1:9/capture", "event_types": ["event.failed"]}
_TOOL = {"name": "matrix_weather", "description": "Looks up the Quince Lane weather station.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}

ROUTES: dict[tuple[str, str], Expect] = {
    ("GET", "/healthz"): Expect(frozenset(), _fixed(lambda w: "/healthz"), public=True),
    ("GET", "/readyz"): Expect(frozenset(), _fixed(lambda w: "/readyz"), public=True),
    ("GET", "/metrics"): Expect(frozenset(), _fixed(lambda w: "/metrics"), public=True),
    ("GET", "/v1/keys/me"): Expect(READER, _fixed(lambda w: "/v1/keys/me")),
    ("POST", "/v1/events"): Expect(AGENT, _fixed(lambda w: "/v1/events", lambda w: _EVENT),
                                   ok=202),
    ("GET", "/v1/events/{event_id}"): Expect(READER, _fixed(lambda w: f"/v1/events/{w.event_id}")),
    ("POST", "/v1/retrieve"): Expect(AGENT, _fixed(lambda w: "/v1/retrieve", lambda w: {
        "user_id": "alice", "session_id": "s1", "query": "answer length"})),
    ("POST", "/v1/check-call"): Expect(AGENT, _fixed(lambda w: "/v1/check-call", lambda w: {
        "user_id": "alice", "session_id": "s1",
        "tool": {"name": "send_email", "args": {"recipients": ["x@example.com"]}}})),
    ("POST", "/v1/select"): Expect(AGENT, _fixed(lambda w: "/v1/select", lambda w: {
        "user_id": "alice", "session_id": "s1", "prompt": "Summarize.",
        "candidates": ["Short.", "Long."]})),
    ("POST", "/v1/audit"): Expect(AGENT, _fixed(lambda w: "/v1/audit", lambda w: {
        "user_id": "alice", "session_id": "s1", "prompt": "Summarize.", "response": "Short.",
        "cited_node_ids": [w.node_id], "candidates": ["Short.", "Long."]}), ok=202,
        other_tenant=400),  # the cited ids are not memories of the caller's user
    ("GET", "/v1/audit/{audit_id}"): Expect(READER, _fixed(lambda w: f"/v1/audit/{w.audit_id}")),
    ("POST", "/v1/events:batch"): Expect(AGENT, _fixed(lambda w: "/v1/events:batch",
                                                       lambda w: _BATCH)),
    ("GET", "/v1/users"): Expect(AUDITOR, _fixed(lambda w: "/v1/users")),
    ("GET", "/v1/users/{user_id}/events"): Expect(AUDITOR, _fixed(
        lambda w: "/v1/users/alice/events")),
    ("GET", "/v1/users/{user_id}/export"): Expect(READER, _fixed(
        lambda w: "/v1/users/alice/export"), other_tenant=404),  # no such user to export
    ("DELETE", "/v1/users/{user_id}"): Expect(AGENT, _erase_user, ok=202,
                                              other_tenant=404),  # no such user to erase
    ("GET", "/v1/erasures"): Expect(AUDITOR, _fixed(lambda w: "/v1/erasures")),
    ("GET", "/v1/erasures/{erasure_id}"): Expect(READER, _fixed(
        lambda w: f"/v1/erasures/{w.erasure_id}")),
    ("GET", "/v1/decisions"): Expect(AUDITOR, _fixed(lambda w: "/v1/decisions")),
    ("GET", "/v1/tool-checks"): Expect(AUDITOR, _fixed(lambda w: "/v1/tool-checks")),
    ("POST", "/v1/webhooks"): Expect(ADMIN, _fixed(lambda w: "/v1/webhooks",
                                                   lambda w: _WEBHOOK), ok=201),
    ("GET", "/v1/webhooks"): Expect(ADMIN, _fixed(lambda w: "/v1/webhooks")),
    ("DELETE", "/v1/webhooks/{webhook_id}"): Expect(ADMIN, _remove_webhook, ok=204),
    ("GET", "/v1/webhooks/{webhook_id}/deliveries"): Expect(AUDITOR, _fixed(
        lambda w: f"/v1/webhooks/{w.webhook_id}/deliveries")),
    ("PUT", "/v1/tools/{name}"): Expect(ADMIN, _declare_tool),
    ("GET", "/v1/tools"): Expect(READER, _fixed(lambda w: "/v1/tools")),
    ("DELETE", "/v1/tools/{name}"): Expect(ADMIN, _remove_tool, ok=204,
                                           other_tenant=404),  # no such tool declared
    ("GET", "/v1/clarifications"): Expect(READER, _fixed(
        lambda w: "/v1/clarifications?user_id=alice&status=answered")),
    ("POST", "/v1/clarifications/{clarification_id}/answer"): Expect(AGENT, _answer),
    ("GET", "/v1/users/{user_id}/nodes"): Expect(READER, _fixed(
        lambda w: "/v1/users/alice/nodes")),
    ("GET", "/v1/users/{user_id}/nodes/{node_id}"): Expect(READER, _fixed(
        lambda w: f"/v1/users/alice/nodes/{w.node_id}")),
    ("PATCH", "/v1/users/{user_id}/nodes/{node_id}"): Expect(AGENT, _fixed(
        lambda w: f"/v1/users/alice/nodes/{w.node_id}", lambda w: {"scope": "work"})),
    ("DELETE", "/v1/users/{user_id}/nodes/{node_id}"): Expect(AGENT, _erase_node),
    ("DELETE", "/v1/users/{user_id}/events/{event_id}"): Expect(AGENT, _erase_event),
    ("GET", "/v1/provenance/nodes/{node_id}"): Expect(AUDITOR, _fixed(
        lambda w: f"/v1/provenance/nodes/{w.node_id}")),
    ("GET", "/v1/provenance/sessions/{session_id}"): Expect(AUDITOR, _fixed(
        lambda w: "/v1/provenance/sessions/s1?user_id=alice"), other_tenant=404),
    ("GET", "/v1/provenance/traces/{trace_id}"): Expect(AUDITOR, _fixed(
        lambda w: f"/v1/provenance/traces/{w.trace_id}")),
}

# Credentials that name no valid key: each must be a 401 `unauthenticated` on every
# authenticated route. "revoked" is filled in with a real, revoked admin key.
BAD_CREDENTIALS: dict[str, dict[str, str]] = {
    "missing": {},
    "empty bearer": {"Authorization": "Bearer "},
    "other scheme": {"Authorization": "Basic dXNlcjpwYXNz"},
    "not a capture key": {"Authorization": "Bearer sk-0123456789abcdef"},
    "unknown key": {"Authorization": f"Bearer cap_deadbeef_{'x' * 43}"},
    "truncated key": {"Authorization": "Bearer cap_"},
    "oversized key": {"Authorization": f"Bearer cap_{'a' * 300}"},
    "junk X-API-Key": {"X-API-Key": "cap_nothing_here"},
}


def app_routes(client: TestClient) -> set[tuple[str, str]]:
    """Every (method, path) the app serves, from its OpenAPI document (the routes
    `include_in_schema=False` hides are listed from the router too)."""
    from fastapi.routing import APIRoute

    served = {(method.upper(), path)
              for path, ops in client.app.openapi()["paths"].items()  # type: ignore[attr-defined]
              for method in ops}
    for route in client.app.routes:  # type: ignore[attr-defined]
        if isinstance(route, APIRoute):
            served |= {(m, route.path) for m in route.methods or () if m != "HEAD"}
    return served


def _names_a_row(template: str) -> bool:
    """The path names a row by id (not a user, session or tool, which are names per
    tenant)."""
    return any(p not in ("user_id", "session_id", "name")
               for p in re.findall(r"{(\w+)}", template))


def _send(client: TestClient, method: str, call: Call, headers: dict[str, str]) -> Any:
    path, body = call
    return client.request(method, path, headers=headers, json=body)


@pytest.fixture
def world(client: TestClient, db: Session, tenant_a: TenantKeys) -> World:
    return World(client, db, tenant_a.headers("admin")).seed()


class TestEveryRouteHasAnExpectation:
    def test_every_route_has_an_expectation(self, client: TestClient) -> None:
        served = app_routes(client)
        assert served - set(ROUTES) == set(), "routes without an authorization expectation"
        assert set(ROUTES) - served == set(), "expectations for routes the app does not serve"


class TestBadCredentials:
    def test_every_authenticated_route_refuses_them(
        self, client: TestClient, world: World, db: Session, tenant_a: TenantKeys
    ) -> None:
        revoked = create_api_key(db, get_or_create_tenant(db, "tenant-a"), Role.admin,
                                 "revoked")[1]
        db.execute(update(ApiKey).where(ApiKey.key_hash == hash_key(revoked))
                   .values(revoked_at=utcnow()))
        db.commit()
        credentials = {**BAD_CREDENTIALS, "revoked": {"Authorization": f"Bearer {revoked}"}}
        failures = []
        for (method, _), expect in sorted(ROUTES.items()):
            call = expect.call(world, False)
            for name, headers in credentials.items():
                response = _send(client, method, call, headers)
                if expect.public:
                    if response.status_code not in (200, 503):
                        failures.append(f"{method} {call[0]} [{name}]: {response.status_code}")
                    continue
                code = response.json().get("error", {}).get("code") if response.headers.get(
                    "content-type", "").startswith("application/json") else None
                if (response.status_code, code) != (401, "unauthenticated"):
                    failures.append(f"{method} {call[0]} [{name}]: {response.status_code} {code}")
        assert failures == [], "\n".join(failures)


class TestRolesInTheirOwnTenant:
    def test_allowed_roles_succeed_and_others_are_forbidden(
        self, client: TestClient, world: World, tenant_a: TenantKeys
    ) -> None:
        failures = []
        for (method, _), expect in sorted(ROUTES.items()):
            if expect.public:
                continue
            for role in ROLES:
                allowed = role in expect.roles
                call = expect.call(world, allowed)
                response = _send(client, method, call, tenant_a.headers(role))
                want = expect.ok if allowed else 403
                if response.status_code != want:
                    failures.append(f"{method} {call[0]} as {role}: {response.status_code} "
                                    f"(want {want}) {response.text[:200]}")
                elif not allowed and response.json()["error"]["code"] != "forbidden":
                    failures.append(f"{method} {call[0]} as {role}: not `forbidden`")
        assert failures == [], "\n".join(failures)


class TestAnotherTenant:
    def test_no_role_of_another_tenant_reaches_a_row(
        self, client: TestClient, world: World, tenant_b: TenantKeys
    ) -> None:
        """Tenant B's keys, whatever their role, address tenant A's ids and users: an id is
        404 (as if it did not exist), a user name is another person with nothing stored, and
        no response carries anything of tenant A's."""
        failures = []
        for (method, template), expect in sorted(ROUTES.items()):
            if expect.public:
                continue
            for role in ROLES:
                call = expect.call(world, False)
                response = _send(client, method, call, tenant_b.headers(role))
                leaked = [s for s in world.secrets
                          if s in response.text and s not in json.dumps(call[1] or {})]
                if role not in expect.roles:
                    want: tuple[int, ...] = (403,)
                elif expect.other_tenant is not None:
                    want = (expect.other_tenant,)
                elif _names_a_row(template):
                    want = (404,)
                else:  # a user or session name: B's own, empty namesake
                    want = (expect.ok,)
                if response.status_code not in want or leaked:
                    failures.append(f"{method} {call[0]} as {role} of B: "
                                    f"{response.status_code} (want {want}) leaked={leaked}")
        assert failures == [], "\n".join(failures)
