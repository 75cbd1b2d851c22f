"""Clarifying questions: asked or deferred when the ledger holds a claim, a deferred one asked
at a later event, listed for the user (or, for auditors, across users), answered on the user
channel. Each question put to the user writes a `clarification.asked` webhook outbox row in
the same transaction.

When the gate would ask about a claim but the user has already been asked twice in the last
24 events (app/gate/service.may_ask), the claim is held in quarantine and its question is
kept as a `deferred` clarification instead of being lost. At a later event on the user
channel — the user is present — that asks nothing itself, the oldest deferred question whose
claim is still in quarantine is asked (status `pending`, counted against the budget at that
event); one whose claim has left quarantine meanwhile (repeated into the ledger, corrected or
erased by the user, expired) is `withdrawn`. A new user's burst of preference statements is
thus asked about one by one instead of being held.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy.orm import Session

from app.clarifications import repository
from app.clarifications.schemas import ClarificationAnswer, ClarificationOut, ClarificationPage
from app.core import spans
from app.core.auth import Principal
from app.core.errors import Conflict, Forbidden, NotFound
from app.core.pagination import PageRequest, cut, decode_cursor
from app.domain import questions
from app.domain.claims import Hypothesis
from app.domain.vocabulary import ClarificationStatus, NodeState, Origin
from app.events import repository as events_repository
from app.gate.service import may_ask
from app.ledger import repository as ledger_repository
from app.ledger.service import Question, promote, retire, supersede_conflicting
from app.models import Clarification, Event, Node
from app.models.base import utcnow
from app.models.enums import Role
from app.notifications import service as notifications


def question_text(c: Clarification, node: Node | None, contradicted: Node | None) -> str | None:
    """The question as the user reads it, from the claims as they are now
    (app/domain/questions.py)."""
    return questions.question_text(
        c.status, c.source, node.live_claim() if node is not None else None,
        contradicted.live_claim() if contradicted is not None else None,
    )


def rendered_question(db: Session, c: Clarification) -> str | None:
    """One clarification's question, rendered from its claims as they are now."""
    node = db.get(Node, c.node_id)
    contradicted = db.get(Node, c.contradicted_node_id) if c.contradicted_node_id else None
    return question_text(c, node, contradicted)


def rendered(db: Session, c: Clarification) -> ClarificationOut:
    """One clarification as the API shows it."""
    return ClarificationOut.of(c, repository.external_user_id(db, c.user_id) or "",
                               rendered_question(db, c))


def ask(
    db: Session, event: Event, decision_id: uuid.UUID, hypothesis: Hypothesis,
    question: Question,
) -> str | None:
    """Write the question the ledger asked for about its held claim: asked now (pending),
    or kept for later (deferred; one open question per held claim, so a repeat of the claim
    adds no second one). Returns the node change it makes, if any."""
    if question.status == ClarificationStatus.deferred:
        if ledger_repository.open_question(db, question.node.id) is not None:
            return None
        _add(db, event, decision_id, hypothesis, question)
        return "clarification_deferred"
    _add(db, event, decision_id, hypothesis, question)
    return "clarification_asked"


def _add(
    db: Session, event: Event, decision_id: uuid.UUID, hypothesis: Hypothesis,
    question: Question,
) -> None:
    asked = question.status == ClarificationStatus.pending
    clarification_id = uuid.uuid4()
    db.add(
        Clarification(
            id=clarification_id,
            tenant_id=event.tenant_id,
            user_id=event.user_id,
            event_id=event.id,
            decision_id=decision_id,
            node_id=question.node.id,
            contradicted_node_id=question.contradicted[0].id if question.contradicted else None,
            source=hypothesis.provenance.value,
            status=question.status.value,
            asked_event_id=event.id if asked else None,
        )
    )
    if asked:
        _notify_asked(db, event, clarification_id, question.node.id)


def _notify_asked(
    db: Session, event: Event, clarification_id: uuid.UUID, node_id: uuid.UUID
) -> None:
    notifications.emit(
        db, event.tenant_id, notifications.CLARIFICATION_ASKED,
        {"clarification_id": str(clarification_id), "node_id": str(node_id),
         "event_id": str(event.id)},
        user_id=event.user_id, subject_id=clarification_id,
    )


def ask_next(db: Session, event: Event) -> uuid.UUID | None:
    """Ask the user's oldest deferred question at `event` if it is on the user channel and
    the budget allows; returns the node asked about."""
    if event.origin != Origin.user.value:
        return None
    # Most users hold no deferred question: one indexed lookup, and the budget is counted
    # only when there is something to ask.
    deferred = repository.deferred_questions(db, event.user_id)
    if not deferred or not may_ask(db, event):
        return None
    for clarification, state in deferred:
        if state != NodeState.quarantined.value:
            clarification.status = ClarificationStatus.withdrawn.value
            continue
        clarification.status = ClarificationStatus.pending.value
        clarification.asked_event_id = event.id
        _notify_asked(db, event, clarification.id, clarification.node_id)
        return clarification.node_id
    return None


def list_questions(
    db: Session,
    principal: Principal,
    external_user_id: str | None,
    status: ClarificationStatus | None,
    page: PageRequest,
) -> ClarificationPage:
    """Questions oldest first, one user's or (auditor and admin keys) every user's."""
    if external_user_id is None and principal.role == Role.agent:
        raise Forbidden("listing every user's questions needs an auditor or admin key")
    user_id = None
    if external_user_id is not None:
        user = events_repository.find_user(db, principal.tenant_id, external_user_id)
        if user is None:  # a read never creates the user it names
            return ClarificationPage(items=[], next_cursor=None)
        user_id = user.id
    rows = repository.list_questions(
        db, principal.tenant_id, decode_cursor(page.cursor, datetime), page.limit,
        status=status, user_id=user_id,
    )
    sliced = cut(rows, page.limit, lambda row: (row[0].created_at, row[0].id))
    return ClarificationPage(
        items=[ClarificationOut.of(c, external, question_text(c, node, contradicted))
               for c, external, node, contradicted in sliced.rows],
        next_cursor=sliced.next_cursor,
    )


def answer(db: Session, tenant_id: uuid.UUID, clarification_id: uuid.UUID,
            body: ClarificationAnswer, trace_id: str) -> Clarification:
    """Apply the user's answer to one of the tenant's pending clarifications (row-locked):
    `confirm` promotes the claim, `scope` narrows it first, `reject` evicts it. A confirmed
    claim supersedes the active claims it replaces (same subject and scope)."""
    c = repository.locked_question(db, tenant_id, clarification_id)
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
