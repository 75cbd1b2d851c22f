from __future__ import annotations

import uuid
from typing import Literal

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy.orm import Session

from app.core.auth import AgentPrincipal, Principal, ReaderPrincipal
from app.core.db import get_db
from app.core.errors import InvalidInput, NotFound, responses
from app.core.inputs import Offset, SafeStr, Timestamp, UserIdPath
from app.ledger import user_service
from app.ledger.schemas import (
    ErasureReceipt,
    EventErasureReceipt,
    NodeOut,
    NodePage,
    NodePatch,
)

router = APIRouter(prefix="/v1/users/{user_id}/nodes", tags=["memories"])
events_router = APIRouter(prefix="/v1/users/{user_id}/events", tags=["memories"])


@router.get("", response_model=NodePage, responses=responses(NotFound))
def list_nodes(
    user_id: UserIdPath,
    state: Literal["active", "quarantined", "superseded", "evicted"] | None = None,
    layer: Literal["stable", "contextual", "transient"] | None = None,
    scope: SafeStr | None = Query(None, max_length=64),
    as_of: Timestamp | None = Query(None, description="Nodes held (active) at this time."),
    limit: int = Query(100, ge=1, le=500),
    offset: Offset = 0,
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> NodePage:
    """A user's memories in every state, filterable; `as_of` answers what was held at time T."""
    return user_service.list_nodes(
        db,
        principal,
        user_id,
        state=state,
        layer=layer,
        scope=scope,
        as_of=as_of,
        limit=limit,
        offset=offset,
    )


@router.get("/{node_id}", response_model=NodeOut, responses=responses(NotFound))
def get_node(
    user_id: UserIdPath,
    node_id: uuid.UUID,
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> NodeOut:
    return user_service.get_node(db, principal, user_id, node_id)


@router.patch("/{node_id}", response_model=NodeOut, responses=responses(NotFound, InvalidInput))
def correct_node(
    user_id: UserIdPath,
    node_id: uuid.UUID,
    patch: NodePatch,
    request: Request,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> NodeOut:
    """The user corrects a memory (text, scope, layer) or confirms/rejects a quarantined one."""
    return user_service.correct_node(db, principal, user_id, node_id, patch, request.state.trace_id)


@router.delete("/{node_id}", response_model=ErasureReceipt, responses=responses(NotFound))
def erase_node(
    user_id: UserIdPath,
    node_id: uuid.UUID,
    request: Request,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> ErasureReceipt:
    """Erase a memory: its text and embedding, and the text of events that fed only it, are
    removed everywhere; ids and hashes stay for the audit trail."""
    return user_service.erase_node(db, principal, user_id, node_id, request.state.trace_id)


@events_router.delete(
    "/{event_id}", response_model=EventErasureReceipt, responses=responses(NotFound)
)
def erase_event(
    user_id: UserIdPath,
    event_id: uuid.UUID,
    request: Request,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> EventErasureReceipt:
    """Erase an event the agent read — e.g. a message holding a contact detail, which no
    memory holds — with what was read from it and the memories only it fed; ids and hashes
    stay for the audit trail."""
    return user_service.erase_event(db, principal, user_id, event_id, request.state.trace_id)
