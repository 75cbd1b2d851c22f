"""Drive stages ③–④ directly with hand-built hypotheses (no extractor involved)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import pipeline
from app.core.auth import get_or_create_tenant
from app.core.embeddings import get_embedder
from app.core.spans import SpanRecorder
from app.domain.claims import Extraction, Hypothesis
from app.domain.vocabulary import Direction, Origin, Timescale
from app.events import repository as events_repository
from app.gate import service as gate_service
from app.gate.policies import get_policy
from app.models import Event, Node

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass
class LedgerDriver:
    db: Session
    policy_name: str
    user_external: str = "u1"
    clock: datetime = T0
    decisions: list[uuid.UUID] = field(default_factory=list)

    def say(self, subject: str, value: str, *, origin: Origin = Origin.user,
            direction: Direction = Direction.prefer, scope: str = "global",
            timescale: Timescale = Timescale.permanent, session: str = "s1",
            after: timedelta = timedelta(minutes=10),
            confidence: float = 0.9) -> list[tuple[uuid.UUID, str]]:
        """One event carrying one hypothesis; returns the node changes it caused."""
        self.clock += after
        tenant = get_or_create_tenant(self.db, "ledger-tests")
        user = events_repository.get_or_create_user(self.db, tenant.id, self.user_external)
        agent_session = events_repository.get_or_create_session(self.db, user, session)
        claim = f"{'Prefers' if direction == Direction.prefer else 'Avoids'} {value} {subject}"
        if scope != "global":
            claim += f" in {scope}"
        event = Event(tenant_id=tenant.id, user_id=user.id, session_id=agent_session.id,
                      seq=events_repository.next_seq(self.db, user.id), origin=origin.value,
                      text=claim, text_sha256="0" * 64, occurred_at=self.clock,
                      trace_id=uuid.uuid4().hex)
        self.db.add(event)
        self.db.flush()
        hypothesis = Hypothesis(claim=claim, subject=subject, value=value, direction=direction,
                                scope=scope, timescale=timescale, confidence=confidence,
                                provenance=origin)
        policy = get_policy(self.policy_name)
        state = gate_service.lock_state(self.db, tenant.id, user.id, policy)
        recorder = SpanRecorder(self.db, tenant_id=tenant.id, user_id=user.id)
        extraction = Extraction(hypotheses=(hypothesis,), extractor="test", extractor_version="1")
        vector = [float(x) for x in get_embedder().embed([claim])[0]]
        decision_id, changes = pipeline.apply_hypothesis(
            self.db, recorder, event, state, policy, extraction, hypothesis, vector)
        gate_service.record_event(state, event)
        self.decisions.append(decision_id)
        self.db.flush()
        return changes

    def nodes(self, state: str | None = None) -> list[Node]:
        query = select(Node).order_by(Node.recorded_at, Node.id)
        if state:
            query = query.where(Node.state == state)
        return list(self.db.scalars(query))

    def active(self) -> list[tuple[str, str | None, str]]:
        return [(n.subject, n.value, n.scope) for n in self.nodes("active")]


@pytest.fixture
def driver(db: Session) -> LedgerDriver:
    return LedgerDriver(db, "provenance_only")
