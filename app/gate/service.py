"""Gate stage: build the policy's view of the ledger, decide, persist the decision, keep state."""

from __future__ import annotations

import uuid
from datetime import datetime

import numpy as np
from sqlalchemy.orm import Session

from app.core.pagination import PageRequest, cut, decode_cursor
from app.domain.claims import Hypothesis
from app.domain.gate import AdmissionPolicy, GateDecision, GateInput
from app.domain.relation import ClaimFields
from app.domain.vocabulary import Action, Origin
from app.events import repository as events_repository
from app.gate import repository
from app.gate.policies import related_node
from app.gate.schemas import DecisionListItem, DecisionPage
from app.ledger import repository as ledger_repository
from app.ledger.rules import decayed_confidence
from app.models import Decision, Event, GateState, HypothesisRow, Node
from app.models.base import utcnow


def lock_state(
    db: Session, tenant_id: uuid.UUID, user_id: uuid.UUID, policy: AdmissionPolicy
) -> GateState:
    """The user's gate state, row-locked for the rest of the transaction (per-user order).

    A state written by another policy or model version is never read as this one's: its
    latent is reset and the change is recorded by the new version's name on the row.
    """
    state = _locked(db, user_id)
    if state is None:  # the user's first event: create the row, then lock it (races insert once)
        state = _insert_state(db, tenant_id, user_id, policy)
    if (state.model_name, state.model_version) != (policy.name, policy.version):
        state.model_name, state.model_version, state.latent = policy.name, policy.version, None
    return state


def _locked(db: Session, user_id: uuid.UUID) -> GateState | None:
    return repository.locked_state(db, user_id)


def _insert_state(
    db: Session, tenant_id: uuid.UUID, user_id: uuid.UUID, policy: AdmissionPolicy
) -> GateState:
    repository.insert_state(db, tenant_id, user_id, policy.name, policy.version)
    state = _locked(db, user_id)
    assert state is not None
    return state


def build_input(
    db: Session,
    event: Event,
    hypothesis: Hypothesis,
    embedding: list[float],
    state: GateState,
    asks: bool,
) -> tuple[GateInput, dict[uuid.UUID, Node]]:
    """The gate's view of one hypothesis; `asks`: the policy asks questions (only then is the
    user's question budget looked up)."""
    # Nodes this same event wrote are siblings from one sentence ("I switched from yoga to
    # swimming": prefer swimming, avoid yoga), never evidence for or against each other.
    nodes = {
        n.id: n
        for n in ledger_repository.nodes_for_subject(db, event.user_id, hypothesis.subject)
        if n.created_by_event_id != event.id
    }
    query = np.asarray(embedding, dtype=np.float32)
    new_fields = ClaimFields(hypothesis.subject, hypothesis.value, hypothesis.direction.value)
    related = []
    for node in nodes.values():
        cosine = (
            float(np.dot(query, np.asarray(node.embedding, dtype=np.float32)))
            if node.embedding is not None
            else 0.0
        )
        confidence = decayed_confidence(node, event.occurred_at)
        related.append(related_node(node.id, node, new_fields, cosine, confidence))
    gap = _seconds_since(state.last_event_at, event.occurred_at)
    gate_input = GateInput(
        event_id=event.id,
        hypothesis=hypothesis,
        origin=Origin(event.origin),
        occurred_at=event.occurred_at,
        seconds_since_last_event=gap,
        new_session=state.last_session_id is not None and state.last_session_id != event.session_id,
        related=tuple(related),
        latent=state.latent,
        may_ask=asks and may_ask(db, event),
    )
    return gate_input, nodes


# "At most one clarifying turn per twelve interactions" (paper §3.3), per user. Questions
# are rationed like a token bucket: any QUESTION_BURST × 12 consecutive events of a user hold
# at most QUESTION_BURST questions, so the long-run rate stays ≤ 1/12 for every user while a
# user who has not been asked for a while can be asked about two close ambiguous events
# (genuine changes and attacks come in clusters). The burst is chosen on dev
# (docs/models/gate.md).
QUESTION_EVERY_EVENTS = 12
QUESTION_BURST = 2


def may_ask(db: Session, event: Event) -> bool:
    """Fewer than QUESTION_BURST questions were asked at the user's previous
    QUESTION_BURST × 12 − 1 events (a deferred question counts where it is asked)."""
    window = QUESTION_BURST * QUESTION_EVERY_EVENTS
    asked = repository.questions_asked_between(db, event.user_id, event.seq - window, event.seq)
    return asked < QUESTION_BURST


def _seconds_since(previous: datetime | None, now: datetime) -> float | None:
    return None if previous is None else max(0.0, (now - previous).total_seconds())


def persist_decision(
    db: Session,
    event: Event,
    hypothesis_row: HypothesisRow,
    decision: GateDecision,
    policy: AdmissionPolicy,
) -> Decision:
    p = decision.probabilities
    row = Decision(
        tenant_id=event.tenant_id,
        user_id=event.user_id,
        event_id=event.id,
        hypothesis_id=hypothesis_row.id,
        action=decision.action.value,
        p_retain=p.get(Action.retain, 0.0),
        p_add=p.get(Action.add, 0.0),
        p_scope=p.get(Action.scope, 0.0),
        p_revise=p.get(Action.revise, 0.0),
        p_quarantine=p.get(Action.quarantine, 0.0),
        p_clarify=p.get(Action.clarify, 0.0),
        entropy=decision.entropy,
        authenticity=decision.authenticity,
        policy_name=policy.name,
        policy_version=policy.version,
        target_node_id=decision.targets[0] if decision.targets else None,
        reasons=list(decision.reasons),
    )
    db.add(row)
    db.flush()
    return row


def record_event(state: GateState, event: Event) -> None:
    """Advance the per-user state past this event (the learned gate also stores its latent)."""
    state.last_event_at = event.occurred_at
    state.last_session_id = event.session_id
    state.events_seen += 1
    state.updated_at = utcnow()


def list_decisions(
    db: Session,
    tenant_id: uuid.UUID,
    page: PageRequest,
    *,
    action: Action | None,
    external_user_id: str | None,
) -> DecisionPage:
    """The tenant's gate decisions, newest first; `action` and the user narrow them."""
    user_id = None
    if external_user_id is not None:
        user = events_repository.find_user(db, tenant_id, external_user_id)
        if user is None:  # a read never creates the user it names
            return DecisionPage(items=[], next_cursor=None)
        user_id = user.id
    rows = repository.list_decisions(
        db, tenant_id, decode_cursor(page.cursor, datetime), page.limit,
        action=action.value if action else None, user_id=user_id,
    )
    sliced = cut(rows, page.limit, lambda row: (row[0].created_at, row[0].id))
    return DecisionPage(
        items=[DecisionListItem.listed(d, external) for d, external in sliced.rows],
        next_cursor=sliced.next_cursor,
    )
