"""Clarifying questions: listed for the user (or, for auditors, across users), answered on
the user channel."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy.orm import Session

from app.clarifications import service
from app.clarifications.schemas import ClarificationAnswer, ClarificationOut, ClarificationPage
from app.core.auth import AgentPrincipal, Principal, ReaderPrincipal
from app.core.db import get_db
from app.core.errors import Conflict, Forbidden, InvalidInput, NotFound, responses
from app.core.inputs import EXTERNAL_ID
from app.core.pagination import PageRequest, page_request
from app.domain.vocabulary import ClarificationStatus

router = APIRouter(prefix="/v1/clarifications", tags=["clarifications"])


@router.get("", response_model=ClarificationPage, responses=responses(Forbidden, InvalidInput))
def list_clarifications(
    user_id: str | None = Query(
        None, pattern=EXTERNAL_ID,
        description="One user's questions; without it (auditor or admin keys) every user's."),
    status: ClarificationStatus | None = ClarificationStatus.pending,
    page: PageRequest = Depends(page_request),
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> ClarificationPage:
    """Clarifying questions, oldest first (the order they were raised in); by default the
    pending ones. Follow `next_cursor` for the next page."""
    return service.list_questions(db, principal, user_id, status, page)


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
    c = service.answer(db, principal.tenant_id, clarification_id, body, request.state.trace_id)
    return service.rendered(db, c)
