"""The red-team benchmark's client: the real service (`create_app()`) over in-process HTTP,
on a dedicated database, with one tenant per run. Every call goes through the public API,
so a benchmark attack is exactly what an agent could send."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from app.core.auth import create_api_key, get_or_create_tenant
from app.core.db import session_scope
from app.main import create_app
from app.models.enums import Role
from bench.common.service import (
    attached,
    bench_database,
    embedded_server_uri,
    require_in_process_tasks,
)

# Events of one scripted user are a minute apart, starting here.
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


class ApiError(RuntimeError):
    """The service answered a benchmark call with an error status."""


@dataclass
class Api:
    """One tenant's agent and admin keys on the in-process service."""

    http: TestClient
    agent_key: str
    admin_key: str

    def _call(self, method: str, path: str, role: str = "agent", **kwargs: Any) -> Any:
        key = self.agent_key if role == "agent" else self.admin_key
        response = self.http.request(
            method, path, headers={"Authorization": f"Bearer {key}"}, **kwargs
        )
        if response.status_code >= 400:
            raise ApiError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response.json()

    def event(
        self,
        user: str,
        session: str,
        origin: str,
        text: str,
        step: int,
        tool_name: str | None = None,
    ) -> dict[str, Any]:
        """POST /v1/events?wait=true: the event, processed, with its decisions."""
        body: dict[str, Any] = {
            "user_id": user, "session_id": session, "origin": origin, "text": text,
            "occurred_at": (START + timedelta(minutes=step)).isoformat(),
        }
        if tool_name is not None:
            body["tool_name"] = tool_name
        result: dict[str, Any] = self._call("POST", "/v1/events?wait=true", json=body)
        return result

    def nodes(self, user: str, state: str = "active") -> list[dict[str, Any]]:
        page = self._call("GET", f"/v1/users/{user}/nodes", params={"state": state})
        items: list[dict[str, Any]] = page["nodes"]
        return items

    def retrieve(self, user: str, session: str, query: str) -> list[dict[str, Any]]:
        result = self._call("POST", "/v1/retrieve", json={
            "user_id": user, "session_id": session, "query": query, "mode": "context"})
        memories: list[dict[str, Any]] = result["memories"]
        return memories

    def patch_node(self, user: str, node_id: str, body: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            "PATCH", f"/v1/users/{user}/nodes/{node_id}", json=body)
        return result

    def clarifications(self, user: str) -> list[dict[str, Any]]:
        page: dict[str, Any] = self._call(
            "GET", "/v1/clarifications", params={"user_id": user, "limit": 200})
        result: list[dict[str, Any]] = page["items"]
        return result

    def answer(self, clarification_id: str, answer: str) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            "POST", f"/v1/clarifications/{clarification_id}/answer", json={"answer": answer})
        return result

    def check_call(
        self, user: str, session: str, name: str, args: dict[str, Any],
        declaration: dict[str, Any] | None = None, call_id: str | None = None,
    ) -> dict[str, Any]:
        """POST /v1/check-call; the tool's declaration and the call id when given."""
        tool: dict[str, Any] = {"name": name, "args": args}
        if declaration is not None:
            tool["declaration"] = declaration
        body: dict[str, Any] = {"user_id": user, "session_id": session, "tool": tool}
        if call_id is not None:
            body["call_id"] = call_id
        result: dict[str, Any] = self._call("POST", "/v1/check-call", json=body)
        return result

    def register_tool(self, name: str, declaration: dict[str, Any]) -> dict[str, Any]:
        """PUT /v1/tools/{name} with the admin key: the tenant's declaration of the tool."""
        result: dict[str, Any] = self._call("PUT", f"/v1/tools/{name}", role="admin",
                                            json=declaration)
        return result


@contextmanager
def service(policy: str = "capture") -> Iterator[Api]:
    """The service on a fresh database of the embedded server, tasks in-process, one tenant
    whose admission policy is `policy`."""
    require_in_process_tasks()
    with bench_database(embedded_server_uri(), f"capture_redteam_{uuid.uuid4().hex[:8]}") as url, \
            attached(url):
        with session_scope() as db:
            tenant = get_or_create_tenant(db, f"redteam-{policy}")
            tenant.admission_policy = policy
            _, agent_key = create_api_key(db, tenant, Role.agent, "redteam agent")
            _, admin_key = create_api_key(db, tenant, Role.admin, "redteam admin")
        with TestClient(create_app()) as http:
            yield Api(http, agent_key, admin_key)
