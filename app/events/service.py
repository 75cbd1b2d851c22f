"""Accept events: store once, record the write, enqueue processing after commit."""

from __future__ import annotations

import hashlib
import time
import uuid
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import pipeline
from app.core import spans
from app.core.auth import Principal
from app.core.config import get_settings
from app.core.db import after_commit, session_scope
from app.core.errors import AppError, Conflict, InvalidInput, NotFound, PayloadTooLarge
from app.core.metrics import EVENTS_WRITTEN
from app.core.pagination import PageRequest, cut, decode_cursor
from app.events import repository
from app.events.schemas import (
    BatchAccepted,
    BatchItemResult,
    DecisionOut,
    EventBatch,
    EventCreate,
    EventDetail,
    EventPage,
    EventSummary,
    HypothesisOut,
    NodeChangeOut,
    UserOut,
    UserPage,
)
from app.models import AgentSession, Event, User
from app.models.enums import EventStatus


@dataclass(slots=True)
class Accepted:
    event: Event
    duplicate: bool


def _fingerprint(body: EventCreate) -> str:
    return hashlib.sha256(body.text.encode()).hexdigest()


def create_event(db: Session, principal: Principal, body: EventCreate, trace_id: str) -> Accepted:
    if body.in_the_future():
        raise InvalidInput("occurred_at is more than a day in the future")
    text_hash = _fingerprint(body)
    if body.idempotency_key:
        existing = repository.by_idempotency_key(db, principal.tenant_id, body.idempotency_key)
        if existing is not None:
            return Accepted(_same_or_conflict(db, existing, body, text_hash), duplicate=True)
    user, session = repository.get_or_create_user_and_session(
        db, principal.tenant_id, body.user_id, body.session_id
    )
    recorder = spans.SpanRecorder(
        db, tenant_id=principal.tenant_id, trace_id=trace_id, user_id=user.id, session_id=session.id
    )
    try:
        # A savepoint only where an idempotency key can conflict (the IntegrityError below).
        nested = db.begin_nested() if body.idempotency_key else nullcontext()
        with nested, recorder.span(spans.CREATE_MEMORY, kind="server") as attrs:
            event = Event(
                id=uuid.uuid4(),
                tenant_id=principal.tenant_id,
                user_id=user.id,
                session_id=session.id,
                seq=repository.next_seq(db, user.id),
                origin=body.origin.value,
                text=body.text,
                text_sha256=text_hash,
                occurred_at=body.occurred_at,
                domain=body.domain,
                source_uri=body.source_uri,
                tool_name=body.tool_name,
                idempotency_key=body.idempotency_key,
                trace_id=recorder.trace_id,
            )
            db.add(event)
            db.flush()
            session.last_event_at = max(session.last_event_at or body.occurred_at, body.occurred_at)
            attrs.update(
                {
                    "capture.event.id": event.id,
                    "capture.event.origin": event.origin,
                    "gen_ai.conversation.id": body.session_id,
                    "capture.event.bytes": len(body.text.encode()),
                }
            )
    except IntegrityError:
        if not body.idempotency_key:
            raise
        # A concurrent request with the same idempotency key won the race.
        existing = repository.by_idempotency_key(db, principal.tenant_id, body.idempotency_key)
        if existing is None:
            raise
        return Accepted(_same_or_conflict(db, existing, body, text_hash), duplicate=True)
    EVENTS_WRITTEN.labels(origin=event.origin).inc()
    event_id = event.id
    after_commit(db, lambda: pipeline.enqueue_process_event(event_id))
    return Accepted(event, duplicate=False)


def _same_or_conflict(db: Session, existing: Event, body: EventCreate, text_hash: str) -> Event:
    user = db.get(User, existing.user_id)
    session = db.get(AgentSession, existing.session_id)
    same = (
        user is not None
        and user.external_id == body.user_id
        and session is not None
        and session.external_id == body.session_id
        and existing.origin == body.origin.value
        and existing.text_sha256 == text_hash
    )
    if not same:
        raise Conflict("idempotency key already used for a different event")
    return existing


def wait_for_processing(event_id: uuid.UUID, timeout_s: float) -> Event:
    """Poll, each time in a fresh session scope (so the worker's commit is visible), until
    the event leaves `pending` or the wait runs out."""
    deadline = time.monotonic() + timeout_s
    delay = 0.01
    while True:
        with session_scope() as db:
            event = repository.event_by_id(db, event_id)
        if event is None:
            raise NotFound("event not found")
        if event.status != EventStatus.pending.value or time.monotonic() >= deadline:
            return event
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def decisions_for(db: Session, event_id: uuid.UUID) -> list[DecisionOut]:
    return [DecisionOut.of(d) for d in repository.decisions_of(db, event_id)]


def event_detail(db: Session, principal: Principal, event_id: uuid.UUID) -> EventDetail:
    event = repository.get_event(db, principal.tenant_id, event_id)
    if event is None:
        raise NotFound("event not found")
    user = db.get(User, event.user_id)
    session = db.get(AgentSession, event.session_id)
    if user is None or session is None:
        raise NotFound("event not found")
    return EventDetail(
        id=event.id,
        user_id=user.external_id,
        session_id=session.external_id,
        origin=event.origin,
        text=event.text,
        text_sha256=event.text_sha256,
        occurred_at=event.occurred_at,
        received_at=event.received_at,
        domain=event.domain,
        source_uri=event.source_uri,
        tool_name=event.tool_name,
        status=event.status,
        error_code=event.error_code,
        erased=event.erased_at is not None,
        trace_id=event.trace_id,
        hypotheses=[HypothesisOut.of(h) for h in repository.hypotheses_of(db, event.id)],
        decisions=decisions_for(db, event.id),
        node_changes=[
            NodeChangeOut(
                node_id=v.node_id,
                version=v.version,
                change=v.change,
                state=v.state,
                decision_id=v.decision_id,
            )
            for v in repository.node_versions_of(db, event.id)
        ],
    )


def list_users(
    db: Session, principal: Principal, page: PageRequest, prefix: str | None
) -> UserPage:
    rows = repository.list_users(
        db, principal.tenant_id, decode_cursor(page.cursor, datetime), page.limit, prefix
    )
    sliced = cut(rows, page.limit, lambda row: (row[0].created_at, row[0].id))
    return UserPage(
        items=[
            UserOut(user_id=u.external_id, created_at=u.created_at, events=count,
                    last_event_at=last)
            for u, count, last in sliced.rows
        ],
        next_cursor=sliced.next_cursor,
    )


def list_events(
    db: Session,
    principal: Principal,
    external_user_id: str,
    page: PageRequest,
    *,
    status: str | None,
    origin: str | None,
    session_id: str | None,
) -> EventPage:
    """One user's events in arrival order; `status`, `origin` and the session narrow them."""
    user = repository.find_user(db, principal.tenant_id, external_user_id)
    if user is None:  # a read never creates the user it names
        return EventPage(items=[], next_cursor=None)
    session_key = None
    if session_id is not None:
        session = repository.find_session(db, user, session_id)
        if session is None:
            return EventPage(items=[], next_cursor=None)
        session_key = session.id
    key = decode_cursor(page.cursor, int)
    after_seq = None if key is None or isinstance(key.sort, datetime) else key.sort
    rows = repository.list_events(
        db, user, after_seq, page.limit,
        status=status, origin=origin, session_id=session_key,
    )
    sliced = cut(rows, page.limit, lambda row: (row[0].seq, row[0].id))
    return EventPage(items=[EventSummary.of(e, s) for e, s in sliced.rows],
                     next_cursor=sliced.next_cursor)


def create_batch(
    db: Session, principal: Principal, batch: EventBatch, trace_id: str
) -> BatchAccepted:
    """Write the events in list order (so each user's events keep it), each in its own
    savepoint: one that conflicts with an earlier use of its idempotency key is reported
    and the rest are written."""
    total = sum(len(e.text.encode()) for e in batch.events)
    settings = get_settings()
    if len(batch.events) > settings.max_batch_events:
        raise PayloadTooLarge(f"a batch holds at most {settings.max_batch_events} events")
    if total > settings.max_batch_text_bytes:
        raise PayloadTooLarge(f"a batch holds at most {settings.max_batch_text_bytes} bytes")
    results: list[BatchItemResult] = []
    for index, body in enumerate(batch.events):
        try:
            with db.begin_nested():
                accepted = create_event(db, principal, body, trace_id)
        except AppError as error:
            results.append(BatchItemResult(
                index=index, idempotency_key=body.idempotency_key, status="error",
                error={"code": error.code, "message": error.message}))
            continue
        results.append(BatchItemResult(
            index=index, idempotency_key=body.idempotency_key, event_id=accepted.event.id,
            status="duplicate" if accepted.duplicate else "accepted"))
    return BatchAccepted(
        results=results,
        accepted=sum(r.status == "accepted" for r in results),
        duplicates=sum(r.status == "duplicate" for r in results),
        errors=sum(r.status == "error" for r in results),
    )
