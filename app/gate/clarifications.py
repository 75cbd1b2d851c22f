"""Clarifying questions: listed for the user (or, for auditors, across users), answered on
the user channel."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core import spans
from app.core.auth import AgentPrincipal, Principal, ReaderPrincipal
from app.core.db import get_db
from app.core.errors import Conflict, Forbidden, InvalidInput, NotFound, responses
from app.core.pagination import PageRequest, cut, decode_cursor, page_request
from app.domain.vocabulary import ClarificationStatus, NodeState
from app.events import repository as events_repository
from app.events.schemas import EXTERNAL_ID
from app.gate import repository
from app.ledger.service import promote, retire, supersede_conflicting
from app.models import Clarification, Node, User
from app.models.base import utcnow
from app.models.enums import Role

router = APIRouter(prefix="/v1/clarifications", tags=["clarifications"])


class ClarificationOut(BaseModel):
    id: uuid.UUID
    user_id: str
    node_id: uuid.UUID
    event_id: uuid.UUID
    question: str | None
    status: ClarificationStatus
    answer: str | None
    created_at: datetime
    answered_at: datetime | None


class ClarificationPage(BaseModel):
    items: list[ClarificationOut]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")


class ClarificationAnswer(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"answer": "confirm"}, {"answer": "scope", "scope": "work"}]
        },
    )

    answer: Literal["confirm", "reject", "scope"] = Field(
        description="confirm: remember it; reject: forget it; scope: only in `scope`."
    )
    scope: str | None = Field(default=None, max_length=64, pattern=r"^[a-z0-9_\-]+$")

    @model_validator(mode="after")
    def _scope_given(self) -> ClarificationAnswer:
        if self.answer == "scope" and not self.scope:
            raise ValueError("answer 'scope' needs a scope")
        return self


def _out(c: Clarification, user_id: str) -> ClarificationOut:
    return ClarificationOut(
        id=c.id,
        user_id=user_id,
        node_id=c.node_id,
        event_id=c.event_id,
        question=c.question,
        status=c.status,
        answer=c.answer,
        created_at=c.created_at,
        answered_at=c.answered_at,
    )


@router.get("", response_model=ClarificationPage, responses=responses(Forbidden, InvalidInput))
def list_clarifications(
    user_id: str | None = Query(
        None, pattern=EXTERNAL_ID,
        description="One user's questions; without it (auditor or admin keys) every user's."),
    status: ClarificationStatus | None = ClarificationStatus.pending,
    page: PageRequest = Depends(page_request),
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db),
) -> ClarificationPage:
    """Clarifying questions, oldest first (the order they were raised in); by default the
    pending ones. Follow `next_cursor` for the next page."""
    if user_id is None and principal.role == Role.agent:
        raise Forbidden("listing every user's questions needs an auditor or admin key")
    internal_id = None
    if user_id is not None:
        user = events_repository.find_user(db, principal.tenant_id, user_id)
        if user is None:
            return ClarificationPage(items=[], next_cursor=None)
        internal_id = user.id
    rows = repository.list_clarifications(
        db, principal.tenant_id, decode_cursor(page.cursor, datetime), page.limit,
        status=status.value if status else None, user_id=internal_id,
    )
    sliced = cut(rows, page.limit, lambda row: (row[0].created_at, row[0].id))
    return ClarificationPage(items=[_out(c, external) for c, external in sliced.rows],
                             next_cursor=sliced.next_cursor)


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
    db: Session = Depends(get_db),
) -> ClarificationOut:
    """The user's answer resolves the quarantined claim: promote, scope, or evict it."""
    c = resolve(db, principal.tenant_id, clarification_id, body, request.state.trace_id)
    user = db.get(User, c.user_id)
    return _out(c, user.external_id if user is not None else "")


def resolve(db: Session, tenant_id: uuid.UUID, clarification_id: uuid.UUID,
            body: ClarificationAnswer, trace_id: str) -> Clarification:
    """Apply the user's answer to one of the tenant's pending clarifications (row-locked):
    `confirm` promotes the claim, `scope` narrows it first, `reject` evicts it. A confirmed
    claim supersedes the active claims it replaces (same subject and scope)."""
    c = db.scalar(
        select(Clarification)
        .where(Clarification.id == clarification_id, Clarification.tenant_id == tenant_id)
        .with_for_update()
    )
    if c is None:
        raise NotFound("clarification not found")
    if c.status == ClarificationStatus.deferred.value:
        raise Conflict("the question has not been asked yet")
    if c.status != ClarificationStatus.pending.value:
        raise Conflict("clarification already answered")
    node = db.get(Node, c.node_id)
    if node is None or node.erased_at is not None:
        raise NotFound("the claim in question no longer exists")
    now = utcnow()
    recorder = spans.SpanRecorder(db, tenant_id=c.tenant_id, trace_id=trace_id,
                                  user_id=c.user_id)
    with recorder.span(
        spans.CLARIFICATION_ANSWER,
        kind="server",
        attributes={
            "capture.clarification.id": c.id,
            "capture.clarification.answer": body.answer,
            "gen_ai.memory.record.id": str(node.id),
        },
    ):
        if body.answer == "reject":
            if node.state in (NodeState.quarantined.value, NodeState.active.value):
                retire(db, node, NodeState.evicted, now, c.event_id, c.decision_id)
        else:
            if body.answer == "scope" and body.scope:
                node.scope = body.scope
                c.answer_scope = body.scope
            if node.state != NodeState.active.value:
                promote(db, node, now, True, c.event_id, c.decision_id, change="user_confirmed")
            # "Yes" to "X instead of Y?" replaces Y: the answer is the user's own revision.
            supersede_conflicting(db, node, now, c.event_id, c.decision_id)
        c.status, c.answer, c.answered_at = "answered", body.answer, now
    db.flush()
    return c
