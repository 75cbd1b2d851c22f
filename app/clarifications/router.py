"""Clarifying questions: listed for the user, answered on the user channel."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy.orm import Session

from app.clarifications import service
from app.clarifications.schemas import ClarificationAnswer, ClarificationOut
from app.core.auth import AgentPrincipal, Principal
from app.core.db import get_db
from app.core.errors import Conflict, InvalidInput, NotFound, responses
from app.core.inputs import EXTERNAL_ID
from app.domain.vocabulary import ClarificationStatus

router = APIRouter(prefix="/v1/clarifications", tags=["clarifications"])


@router.get("", response_model=list[ClarificationOut], responses=responses(NotFound))
def list_clarifications(
    user_id: str = Query(pattern=EXTERNAL_ID),
    status: ClarificationStatus | None = ClarificationStatus.pending,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> list[ClarificationOut]:
    return service.list_for_user(db, principal, user_id, status)


@router.post(
    "/{clarification_id}/answer",
    response_model=ClarificationOut,
    responses=responses(NotFound, Conflict, InvalidInput),
)
def answer_clarification(
    clarification_id: uuid.UUID,
    body: ClarificationAnswer,
    request: Request,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> ClarificationOut:
    """The user's answer resolves the quarantined claim: promote, scope, or evict it."""
    answered = service.answer(db, principal.tenant_id, clarification_id, body,
                              request.state.trace_id)
    return service.rendered(db, answered)
