from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Query, Request, Response
from sqlalchemy.orm import Session

from app.core.auth import AgentPrincipal, AuditorPrincipal, Principal, ReaderPrincipal
from app.core.config import get_settings
from app.core.db import get_db, session_scope
from app.core.errors import Conflict, InvalidInput, NotFound, PayloadTooLarge, responses
from app.core.inputs import EXTERNAL_ID, SafeStr, UserIdPath
from app.core.pagination import PageRequest, page_request
from app.domain.vocabulary import Origin
from app.events import service
from app.events.schemas import (
    BatchAccepted,
    EventAccepted,
    EventBatch,
    EventCreate,
    EventDetail,
    EventPage,
    UserPage,
)
from app.models.enums import EventStatus

router = APIRouter(prefix="/v1/events", tags=["events"])
users_router = APIRouter(prefix="/v1/users", tags=["users"])
batch_router = APIRouter(tags=["events"])


@router.post(
    "",
    status_code=202,
    response_model=EventAccepted,
    responses={
        200: {"model": EventAccepted,
              "description": "A retry of an idempotency key already used (`duplicate`), or "
                             "with `wait=true` the event processed within the wait."},
        **responses(InvalidInput, Conflict, PayloadTooLarge),
    },
    summary="Write an event the agent read",
    operation_id="create_event",
)
def post_event(
    body: EventCreate,
    request: Request,
    response: Response,
    wait: bool = Query(False, description="Wait (bounded) for the gate's decision."),
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> EventAccepted:
    """Store the event and enqueue extraction → gate → ledger. 202 with the event id;
    with `?wait=true`, 200 with the decisions once processed (202 if the wait runs out).
    A retry with the same `idempotency_key` returns the first event and writes nothing."""
    # The write is its own transaction, committed when this scope closes and before the
    # response: processing is enqueued after that commit, and a wait must see the event.
    with session_scope() as write:
        accepted = service.create_event(write, principal, body, request.state.trace_id)
    event = accepted.event
    if wait:
        event = service.wait_for_processing(event.id, get_settings().write_wait_timeout_s)
    done = event.status != EventStatus.pending.value
    if accepted.duplicate or (wait and done):
        response.status_code = 200
    return EventAccepted(
        event_id=event.id,
        status=event.status,
        duplicate=accepted.duplicate,
        trace_id=event.trace_id,
        decisions=service.decisions_for(db, event.id) if done else None,
    )


@batch_router.post(
    "/v1/events:batch",
    response_model=BatchAccepted,
    responses=responses(PayloadTooLarge),
    summary="Write up to 1,000 events at once",
    operation_id="create_events_batch",
)
def post_events_batch(
    body: EventBatch,
    request: Request,
    principal: Principal = AgentPrincipal,
) -> BatchAccepted:
    """Store the events in list order (one user's events keep it) and enqueue their
    processing. Each needs its own `idempotency_key` and gets its own result: `accepted`,
    `duplicate` (written by an earlier request, nothing written now) or `error`."""
    # The writes are one transaction, committed when this scope closes and before the
    # response; processing is enqueued after that commit.
    with session_scope() as write:
        return service.create_batch(write, principal, body, request.state.trace_id)


@router.get("/{event_id}", response_model=EventDetail, responses=responses(NotFound))
def get_event(
    event_id: uuid.UUID,
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> EventDetail:
    """The event with its hypotheses, decisions and the node changes it caused."""
    return service.event_detail(db, principal, event_id)


@users_router.get("", response_model=UserPage, responses=responses(InvalidInput),
                  operation_id="list_users")
def list_users(
    prefix: SafeStr | None = Query(
        None, max_length=128, description="User ids starting with this."),
    page: PageRequest = Depends(page_request),
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> UserPage:
    """The tenant's users, oldest first, with how many events each has."""
    return service.list_users(db, principal, page, prefix)


@users_router.get("/{user_id}/events", response_model=EventPage,
                  responses=responses(InvalidInput), operation_id="list_user_events")
def list_user_events(
    user_id: UserIdPath,
    status: EventStatus | None = None,
    origin: Origin | None = None,
    session_id: str | None = Query(None, pattern=EXTERNAL_ID),
    page: PageRequest = Depends(page_request),
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> EventPage:
    """One user's events in arrival order (the order they are processed in); empty for a
    user the tenant never wrote an event for."""
    return service.list_events(
        db, principal, user_id, page,
        status=status.value if status else None, origin=origin.value if origin else None,
        session_id=session_id,
    )
