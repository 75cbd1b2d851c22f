"""An agent driving the API: it writes what it reads, retrieves, and checks calls."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.checkcall.policy import (
    DEFAULT_POLICY_PATH,
    Allowlist,
    ToolPolicy,
    load_policy,
    override_policy,
)

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
ORG_DOMAIN = "northwind.example"


@dataclass
class Agent:
    client: TestClient
    headers: dict[str, str]
    user_id: str = "alice"
    session_id: str = "s1"
    clock: datetime = T0
    event_ids: list[str] = field(default_factory=list)

    def read(self, origin: str, text: str, **extra: Any) -> dict[str, Any]:
        """Write an event the agent read (processed in-process before returning)."""
        self.clock += timedelta(minutes=1)
        body = {
            "user_id": self.user_id,
            "session_id": self.session_id,
            "origin": origin,
            "text": text,
            "occurred_at": self.clock.isoformat(),
            **extra,
        }
        response = self.client.post("/v1/events?wait=true", json=body, headers=self.headers)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        self.event_ids.append(result["event_id"])
        return result

    def user(self, text: str) -> dict[str, Any]:
        return self.read("user", text)

    def retrieve(self, query: str = "what do I prefer", mode: str = "tool") -> dict[str, Any]:
        response = self.client.post(
            "/v1/retrieve",
            headers=self.headers,
            json={
                "user_id": self.user_id,
                "session_id": self.session_id,
                "query": query,
                "mode": mode,
            },
        )
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    def check(self, tool: str, expect_status: int = 200, **args: Any) -> dict[str, Any]:
        call_id = args.pop("call_id", None)
        bindings = args.pop("arg_bindings", None)
        body: dict[str, Any] = {
            "user_id": self.user_id,
            "session_id": self.session_id,
            "tool": {"name": tool, "args": args},
        }
        if call_id:
            body["call_id"] = call_id
        if bindings:
            body["arg_bindings"] = bindings
        response = self.client.post("/v1/check-call", json=body, headers=self.headers)
        assert response.status_code == expect_status, response.text
        result: dict[str, Any] = response.json()
        return result

    @staticmethod
    def codes(result: dict[str, Any]) -> list[str]:
        return [r["code"] for r in result["reasons"]]

    @staticmethod
    def kinds(result: dict[str, Any], arg: str) -> set[str]:
        """The source kinds found for an argument's values."""
        return {s["kind"] for v in result["arg_provenance"][arg] for s in v["sources"]}

    def in_session(self, session_id: str) -> Agent:
        return Agent(
            self.client, self.headers, self.user_id, session_id, self.clock + timedelta(days=1)
        )


@pytest.fixture
def org_policy() -> Iterator[ToolPolicy]:
    """The default policy with the organisation's domain allowlisted."""
    base = load_policy(DEFAULT_POLICY_PATH)
    policy = replace(
        base, allowlist=Allowlist(domains=frozenset({ORG_DOMAIN}), recipients=frozenset())
    )
    with override_policy(policy):
        yield policy


@pytest.fixture
def agent(client: TestClient, tenant_a: Any, org_policy: ToolPolicy) -> Agent:
    return Agent(client, tenant_a.headers("agent"))


@pytest.fixture
def agent_b(client: TestClient, tenant_b: Any, org_policy: ToolPolicy) -> Agent:
    """The same user and session names, in another tenant."""
    return Agent(client, tenant_b.headers("agent"))
