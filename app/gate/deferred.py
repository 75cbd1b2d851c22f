"""Deferred clarifying questions: asked when the user's question budget allows again.

When the gate would ask about a claim but the user has already been asked twice in the last
24 events (app/gate/service.may_ask), the claim is held in quarantine and its question is
kept as a `deferred` clarification (app/ledger/service._defer) instead of being lost. At a
later event on the user channel — the user is present — that asks nothing itself, the oldest
deferred question whose claim is still in quarantine is asked (status `pending`, counted
against the budget at that event); one whose claim has left quarantine meanwhile (repeated
into the ledger, corrected or erased by the user, expired) is `withdrawn`. A new user's
burst of preference statements is thus asked about one by one instead of being held.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.vocabulary import ClarificationStatus, NodeState, Origin
from app.gate.service import may_ask
from app.models import Clarification, Event, Node
from app.notifications import service as notifications


def ask_next(db: Session, event: Event) -> uuid.UUID | None:
    """Ask the user's oldest deferred question at `event` if it is on the user channel and
    the budget allows; returns the node asked about."""
    if event.origin != Origin.user.value:
        return None
    # Most users hold no deferred question: one indexed lookup, and the budget is counted
    # only when there is something to ask.
    deferred = db.execute(
        select(Clarification, Node.state)
        .join(Node, Node.id == Clarification.node_id)
        .where(Clarification.user_id == event.user_id,
               Clarification.status == ClarificationStatus.deferred.value)
        .order_by(Clarification.created_at)
        .with_for_update(of=Clarification)
    ).all()
    if not deferred or not may_ask(db, event):
        return None
    for clarification, state in deferred:
        if state != NodeState.quarantined.value:
            clarification.status = ClarificationStatus.withdrawn.value
            clarification.question = None  # never shown: keep no copy of the claim
            continue
        clarification.status = ClarificationStatus.pending.value
        clarification.asked_event_id = event.id
        notifications.emit(
            db, event.tenant_id, notifications.CLARIFICATION_ASKED,
            {"clarification_id": str(clarification.id), "node_id": str(clarification.node_id),
             "event_id": str(event.id)},
            user_id=event.user_id, subject_id=clarification.id,
        )
        return clarification.node_id
    return None
