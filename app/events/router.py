from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Query, Request, Response
from sqlalchemy.orm import Session

from app.core.auth import AgentPrincipal, Principal, ReaderPrincipal
from app.core.config import get_settings
from app.core.db import get_db, session_scope
from app.core.errors import Conflict, InvalidInput, NotFound, PayloadTooLarge, responses
from app.events import service
from app.events.schemas import EventAccepted, EventCreate, EventDetail
from app.models.enums import EventStatus

router = APIRouter(prefix="/v1/events", tags=["events"])


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


@router.get("/{event_id}", response_model=EventDetail, responses=responses(NotFound))
def get_event(
    event_id: uuid.UUID,
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> EventDetail:
    """The event with its hypotheses, decisions and the node changes it caused."""
    return service.event_detail(db, principal, event_id)
