"""What storing an event costs the database before its commit: the user and session in one
read, the arrival number and the event row; a savepoint only where an idempotency key can
conflict."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.orm import Session

from app import pipeline
from app.domain.vocabulary import Origin
from app.events import service
from app.events.schemas import EventCreate
from app.models import Event
from tests.round_trips import agent_principal, statements

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)



def _body(minute: int, key: str | None = None, session: str = "s1") -> EventCreate:
    return EventCreate(user_id="alice", session_id=session, origin=Origin.user,
                       text=f"I prefer short answers. ({minute})",
                       occurred_at=T0 + timedelta(minutes=minute), idempotency_key=key)


class TestStoring:
    def test_a_known_user_and_session_without_a_key(
        self, tenant_a: Any, db: Session, connection: Connection
    ) -> None:
        principal = agent_principal(db)
        service.create_event(db, principal, _body(0), uuid.uuid4().hex)
        db.flush()
        with statements(connection) as seen:
            accepted = service.create_event(db, principal, _body(1), uuid.uuid4().hex)
        assert len(seen) == 3, seen
        assert "FROM users JOIN sessions" in seen[0]
        assert seen[1].startswith("UPDATE users SET event_seq")
        assert seen[2].startswith("INSERT INTO events")
        assert accepted.event.seq == 2

    def test_a_key_takes_a_savepoint_and_answers_its_duplicate(
        self, tenant_a: Any, db: Session, connection: Connection
    ) -> None:
        principal = agent_principal(db)
        with statements(connection) as seen:
            first = service.create_event(db, principal, _body(0, key="k1"), uuid.uuid4().hex)
        assert any(s.startswith("SAVEPOINT") for s in seen)
        again = service.create_event(db, principal, _body(0, key="k1"), uuid.uuid4().hex)
        assert again.duplicate
        assert again.event.id == first.event.id

    def test_a_new_session_of_a_known_user(self, tenant_a: Any, db: Session) -> None:
        principal = agent_principal(db)
        first = service.create_event(db, principal, _body(0), uuid.uuid4().hex)
        other = service.create_event(db, principal, _body(1, session="s2"), uuid.uuid4().hex)
        assert other.event.user_id == first.event.user_id
        assert other.event.session_id != first.event.session_id
        assert other.event.seq == 2


class TestProcessing:
    def test_the_event_and_its_tenant_are_one_read(
        self, tenant_a: Any, db: Session, connection: Connection
    ) -> None:
        principal = agent_principal(db)
        accepted = service.create_event(db, principal, _body(0), uuid.uuid4().hex)
        db.flush()
        db.expunge_all()
        with statements(connection) as seen:
            pipeline.process_event(db, accepted.event.id)
        assert "FROM events LEFT OUTER JOIN tenants" in seen[0]
        assert not any("FROM tenants" in s for s in seen[1:])
        event = db.get(Event, accepted.event.id)
        assert event is not None
        assert event.status == "processed"
