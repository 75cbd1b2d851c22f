"""What one retrieval costs the database: the user and session with the search's settings,
the candidate search, and one write (the retrieval, its results, the retrieval counts and
the span together)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import Connection, func, select
from sqlalchemy.orm import Session

from app.core.auth import Principal
from app.models import AgentSession, Node, Retrieval, RetrievalResult, SpanRow
from app.retrieval import service
from app.retrieval.schemas import RetrieveRequest, RetrieveResponse
from tests.round_trips import agent_principal, statements

TEXTS = ["I prefer short answers.", "In standups, keep the tone casual.",
         "Please use metric units."]



def _ledger(client: TestClient, headers: dict[str, str]) -> None:
    for minute, text in enumerate(TEXTS):
        response = client.post("/v1/events?wait=true", headers=headers, json={
            "user_id": "alice", "session_id": "s1", "origin": "user", "text": text,
            "occurred_at": f"2026-11-01T09:0{minute}:00Z"})
        assert response.status_code == 200, response.text



def _retrieve(db: Session, principal: Principal, user: str = "alice",
              session: str = "s1") -> RetrieveResponse:
    body = RetrieveRequest(user_id=user, session_id=session, query="how long should answers be",
                           k=2, mode="tool")
    return service.retrieve(db, principal, body, uuid.uuid4().hex)


def _counts(db: Session) -> dict[uuid.UUID, int]:
    return dict(db.execute(select(Node.id, Node.retrieval_count)).tuples().all())


class TestThreeStatements:
    def test_a_retrieval_into_a_known_session(
        self, client: TestClient, tenant_a: Any, db: Session, connection: Connection
    ) -> None:
        _ledger(client, tenant_a.headers())
        principal = agent_principal(db)
        before = _counts(db)
        with statements(connection) as seen:
            found = _retrieve(db, principal)
        assert len(seen) == 3, seen
        assert "FROM users LEFT OUTER JOIN sessions" in seen[0]
        assert seen[0].count("set_config(") == 3
        assert seen[1].startswith("SELECT nodes.id")
        assert "ORDER BY" in seen[1]
        assert seen[2].startswith("WITH retrieval AS (INSERT INTO retrievals")
        for part in ("INSERT INTO retrieval_results", "UPDATE nodes", "INSERT INTO spans"):
            assert part in seen[2]
        returned = [m.node_id for m in found.memories]
        assert len(returned) == 2
        after = _counts(db)
        assert {n: after[n] - before[n] for n in after} == {
            n: int(n in returned) for n in after}
        retrieval = db.get(Retrieval, found.retrieval_id)
        assert retrieval is not None
        assert (retrieval.mode, retrieval.k, retrieval.trace_id) == ("tool", 2, found.trace_id)
        results = db.scalars(select(RetrievalResult).where(
            RetrievalResult.retrieval_id == retrieval.id).order_by(RetrievalResult.rank)).all()
        assert [(r.rank, r.node_id) for r in results] == list(enumerate(returned))
        for result, memory in zip(results, found.memories, strict=True):
            assert round(result.score, 6) == memory.score
            assert result.components == memory.components.model_dump()
        span = db.scalars(select(SpanRow).where(SpanRow.trace_id == found.trace_id)).one()
        assert span.name == "search_memory"
        assert span.session_id == retrieval.session_id
        assert span.attributes["capture.retrieval.id"] == str(retrieval.id)
        assert span.attributes["gen_ai.memory.record.id"] == [str(n) for n in returned]

    def test_the_search_runs_under_its_settings(
        self, client: TestClient, tenant_a: Any, db: Session
    ) -> None:
        _ledger(client, tenant_a.headers())
        _retrieve(db, agent_principal(db))
        names = ("hnsw.ef_search", "hnsw.iterative_scan", "plan_cache_mode")
        settings = db.execute(select(*(func.current_setting(name) for name in names))).one()
        assert tuple(settings) == ("100", "relaxed_order", "force_custom_plan")


class TestOtherTargets:
    def test_an_unknown_user_is_one_read(
        self, client: TestClient, tenant_a: Any, db: Session, connection: Connection
    ) -> None:
        _ledger(client, tenant_a.headers())
        principal = agent_principal(db)
        with statements(connection) as seen:
            found = _retrieve(db, principal, user="nobody")
        assert len(seen) == 1
        assert found.retrieval_id is None
        assert found.memories == []

    def test_a_new_session_is_created_and_recorded(
        self, client: TestClient, tenant_a: Any, db: Session, connection: Connection
    ) -> None:
        _ledger(client, tenant_a.headers())
        principal = agent_principal(db)
        found = _retrieve(db, principal, session="s2")
        session = db.scalars(select(AgentSession).where(AgentSession.external_id == "s2")).one()
        retrieval = db.get(Retrieval, found.retrieval_id)
        assert retrieval is not None
        assert retrieval.session_id == session.id
        with statements(connection) as seen:
            again = _retrieve(db, principal, session="s2")
        assert len(seen) == 3
        assert [m.node_id for m in again.memories] == [m.node_id for m in found.memories]
