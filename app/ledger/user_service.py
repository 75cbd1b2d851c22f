"""What a user does with their own memories: see, correct, confirm, erase."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.core import spans
from app.core.auth import Principal
from app.core.embeddings import embed_one
from app.core.errors import InvalidInput, NotFound
from app.domain.extractor import EventInput
from app.domain.vocabulary import ClarificationStatus, Direction, NodeState, Origin, Timescale
from app.events import repository as events_repository
from app.extraction.deterministic import claim_text
from app.extraction.service import get_extractor
from app.extraction.taxonomy import DIMENSIONS_BY_NAME
from app.ledger import repository
from app.ledger.schemas import (
    ErasureReceipt,
    EventErasureReceipt,
    NodeOut,
    NodePage,
    NodePatch,
)
from app.ledger.service import decayed_confidence, promote, retire, supersede_conflicting
from app.models import Clarification, Event, HypothesisRow, Node, NodeLineage, NodeVersion, User
from app.models.base import utcnow


def _user(db: Session, principal: Principal, external_id: str) -> User:
    user = events_repository.find_user(db, principal.tenant_id, external_id)
    if user is None:
        raise NotFound("user not found")
    return user


def _node(db: Session, user: User, node_id: uuid.UUID) -> Node:
    node = db.scalar(
        select(Node).where(
            Node.id == node_id, Node.user_id == user.id, Node.tenant_id == user.tenant_id
        )
    )
    if node is None or node.erased_at is not None:
        raise NotFound("node not found")
    return node


def node_out(node: Node, at: datetime | None = None) -> NodeOut:
    return NodeOut(
        id=node.id,
        claim=node.claim,
        subject=node.subject,
        value=node.value,
        direction=node.direction,
        scope=node.scope,
        timescale=node.timescale,
        layer=node.layer,
        state=node.state,
        origin=node.origin,
        c0=node.c0,
        authenticity=node.authenticity,
        confidence_now=round(decayed_confidence(node, at or utcnow()), 6),
        last_corroborated_at=node.last_corroborated_at,
        quarantined_at=node.quarantined_at,
        valid_from=node.valid_from,
        valid_to=node.valid_to,
        recorded_at=node.recorded_at,
        retired_at=node.retired_at,
        influence=node.influence,
        retrieval_count=node.retrieval_count,
        version=node.version,
    )


def list_nodes(
    db: Session,
    principal: Principal,
    external_user_id: str,
    *,
    state: str | None,
    layer: str | None,
    scope: str | None,
    as_of: datetime | None,
    limit: int,
    offset: int,
) -> NodePage:
    user = events_repository.find_user(db, principal.tenant_id, external_user_id)
    if user is None:  # a read never creates the user it names
        return NodePage(nodes=[], total=0, limit=limit, offset=offset)
    query = select(Node).where(Node.user_id == user.id, Node.erased_at.is_(None))
    if as_of is not None:
        # What was held (active) at event time `as_of`, as recorded by now.
        query = query.where(
            Node.valid_from <= as_of, (Node.valid_to.is_(None)) | (Node.valid_to > as_of)
        )
    elif state is not None:
        query = query.where(Node.state == state)
    if layer is not None:
        query = query.where(Node.layer == layer)
    if scope is not None:
        query = query.where(Node.scope == scope)
    total = db.scalar(select(func.count()).select_from(query.subquery())) or 0
    nodes = db.scalars(query.order_by(Node.recorded_at, Node.id).limit(limit).offset(offset)).all()
    return NodePage(nodes=[node_out(n) for n in nodes], total=total, limit=limit, offset=offset)


def get_node(
    db: Session, principal: Principal, external_user_id: str, node_id: uuid.UUID
) -> NodeOut:
    return node_out(_node(db, _user(db, principal, external_user_id), node_id))


def correct_node(
    db: Session,
    principal: Principal,
    external_user_id: str,
    node_id: uuid.UUID,
    patch: NodePatch,
    trace_id: str,
) -> NodeOut:
    user = _user(db, principal, external_user_id)
    node = _node(db, user, node_id)
    if patch.model_dump(exclude_none=True) == {}:
        raise InvalidInput("nothing to change")
    now = utcnow()
    recorder = spans.SpanRecorder(db, tenant_id=user.tenant_id, trace_id=trace_id, user_id=user.id)
    with recorder.span(
        spans.NODE_CHANGE, kind="server", attributes={"gen_ai.memory.record.id": str(node.id)}
    ) as attrs:
        changed: list[str] = []
        if patch.state == NodeState.active.value and node.state != NodeState.active.value:
            # The explicit user correction that brings a claim back (or out of quarantine).
            promote(db, node, now, True, None, None, change="user_confirmed")
            _resolve_clarifications(db, node, "confirm")
            changed.append("state")
        elif patch.state == NodeState.evicted.value and node.state != NodeState.evicted.value:
            retire(db, node, NodeState.evicted, now)
            _resolve_clarifications(db, node, "reject")
            changed.append("state")
        edits = []
        if patch.claim is not None and patch.claim != node.claim:
            _rewrite_claim(node, patch.claim)
            edits.append("claim")
        if patch.direction is not None and patch.direction != node.direction:
            _turn(node, patch.direction)
            edits.append("direction")
        if patch.scope is not None and patch.scope != node.scope:
            node.scope = patch.scope
            edits.append("scope")
        if patch.layer is not None and patch.layer != node.layer:
            node.layer = patch.layer
            edits.append("layer")
        if edits:
            node.version += 1
            repository.add_version(db, node, "user_corrected", now)
            if "direction" in edits and node.state == NodeState.active.value:
                # A corrected claim is a confirmed one: it replaces what it contradicts.
                supersede_conflicting(db, node, now, None, None)
        changed.extend(edits)
        attrs["capture.node.changed"] = changed
    db.flush()
    return node_out(node)


def _rewrite_claim(node: Node, claim: str) -> None:
    node.claim = claim
    node.claim_sha256 = hashlib.sha256(claim.encode()).hexdigest()
    node.embedding = embed_one(claim)
    extraction = get_extractor().extract(
        EventInput(text=claim, origin=Origin.user, occurred_at=utcnow())
    )
    if len(extraction.hypotheses) == 1:
        h = extraction.hypotheses[0]
        node.subject, node.value, node.direction = h.subject, h.value, h.direction.value


def _turn(node: Node, direction: str) -> None:
    """Set the claim's direction; a taxonomy claim worded canonically is reworded to match
    (an open claim keeps the user's words)."""
    dimension = DIMENSIONS_BY_NAME.get(node.subject)
    value, scope, timescale = node.value, node.scope, Timescale(node.timescale)
    reworded = None
    if dimension is not None and value is not None:
        before = claim_text(dimension, value, Direction(node.direction), scope, timescale)
        if node.claim == before:
            reworded = claim_text(dimension, value, Direction(direction), scope, timescale)
    node.direction = direction
    if reworded is not None:
        node.claim = reworded
        node.claim_sha256 = hashlib.sha256(reworded.encode()).hexdigest()
        node.embedding = embed_one(reworded)


def _resolve_clarifications(db: Session, node: Node, answer: str) -> None:
    """The user settled the claim themselves: its open question is answered, and one not
    asked yet is withdrawn (never shown, so no copy of the claim is kept in it)."""
    db.execute(
        update(Clarification)
        .where(Clarification.node_id == node.id,
               Clarification.status == ClarificationStatus.pending.value)
        .values(status=ClarificationStatus.answered.value, answer=answer, answered_at=utcnow())
    )
    db.execute(
        update(Clarification)
        .where(Clarification.node_id == node.id,
               Clarification.status == ClarificationStatus.deferred.value)
        .values(status=ClarificationStatus.withdrawn.value, question=None)
    )


def erase_node(
    db: Session, principal: Principal, external_user_id: str, node_id: uuid.UUID, trace_id: str
) -> ErasureReceipt:
    """Erasure: the claim and embedding, and the text of events that fed only this node, are
    removed from every table; lineage stays as ids and hashes."""
    user = _user(db, principal, external_user_id)
    node = _node(db, user, node_id)
    now = utcnow()
    recorder = spans.SpanRecorder(db, tenant_id=user.tenant_id, trace_id=trace_id, user_id=user.id)
    with recorder.span(
        spans.NODE_CHANGE,
        kind="server",
        attributes={"gen_ai.memory.record.id": str(node.id), "capture.node.change": "erased"},
    ) as attrs:
        lineage = db.scalars(select(NodeLineage).where(NodeLineage.node_id == node.id)).all()
        event_ids = {row.event_id for row in lineage}
        # Events that also fed another node that still exists keep their text.
        shared = (
            set(
                db.scalars(
                    select(NodeLineage.event_id)
                    .join(Node, Node.id == NodeLineage.node_id)
                    .where(
                        NodeLineage.event_id.in_(event_ids),
                        NodeLineage.node_id != node.id,
                        Node.erased_at.is_(None),
                    )
                ).all()
            )
            if event_ids
            else set()
        )
        only_this = event_ids - shared
        hypothesis_ids = {row.hypothesis_id for row in lineage if row.hypothesis_id}
        hypotheses = _erase_events(db, only_this, hypothesis_ids, now)
        _erase_node_text(db, node, now)
        attrs.update(
            {"capture.erasure.events": len(only_this), "capture.erasure.hypotheses": hypotheses}
        )
    db.flush()
    return ErasureReceipt(
        node_id=node.id,
        erased_at=now,
        events_erased=len(only_this),
        hypotheses_erased=hypotheses,
    )


def erase_event(
    db: Session, principal: Principal, external_user_id: str, event_id: uuid.UUID, trace_id: str
) -> EventErasureReceipt:
    """Erase one event the agent read (a message with an address in it, a pasted document):
    its text and source URI, what extraction read from it, and every memory that only it fed
    are removed from every table; a memory other events also fed keeps its claim. Ids,
    hashes and the decisions stay for the audit trail."""
    user = _user(db, principal, external_user_id)
    event = db.scalar(
        select(Event).where(
            Event.id == event_id, Event.user_id == user.id, Event.tenant_id == user.tenant_id
        )
    )
    if event is None or event.erased_at is not None:
        raise NotFound("event not found")
    now = utcnow()
    recorder = spans.SpanRecorder(db, tenant_id=user.tenant_id, trace_id=trace_id, user_id=user.id)
    with recorder.span(
        spans.EVENT_ERASURE, kind="server", attributes={"capture.event.id": str(event.id)}
    ) as attrs:
        fed = set(db.scalars(select(NodeLineage.node_id).where(NodeLineage.event_id == event.id)))
        # A node is this event's alone when no other unerased event is in its lineage.
        others = (
            set(
                db.scalars(
                    select(NodeLineage.node_id)
                    .join(Event, Event.id == NodeLineage.event_id)
                    .where(
                        NodeLineage.node_id.in_(fed),
                        NodeLineage.event_id != event.id,
                        Event.erased_at.is_(None),
                    )
                )
            )
            if fed
            else set()
        )
        nodes = db.scalars(
            select(Node).where(Node.id.in_(fed - others), Node.erased_at.is_(None))
        ).all()
        for node in nodes:
            _erase_node_text(db, node, now)
        hypotheses = _erase_events(db, {event.id}, set(), now)
        attrs.update(
            {"capture.erasure.nodes": len(nodes), "capture.erasure.hypotheses": hypotheses}
        )
    db.flush()
    return EventErasureReceipt(
        event_id=event.id, erased_at=now, nodes_erased=len(nodes), hypotheses_erased=hypotheses
    )


def _erase_events(
    db: Session, event_ids: set[uuid.UUID], hypothesis_ids: set[uuid.UUID], now: datetime
) -> int:
    """Clear the text of these events and of the hypotheses read from them (and of the given
    hypotheses); returns how many hypotheses were cleared."""
    hypothesis_ids = set(hypothesis_ids)
    if event_ids:
        db.execute(
            update(Event)
            .where(Event.id.in_(event_ids))
            .values(text=None, source_uri=None, erased_at=now)
        )
        hypothesis_ids |= set(
            db.scalars(select(HypothesisRow.id).where(HypothesisRow.event_id.in_(event_ids)))
        )
    if hypothesis_ids:
        db.execute(
            update(HypothesisRow).where(HypothesisRow.id.in_(hypothesis_ids)).values(claim=None)
        )
    return len(hypothesis_ids)


def _erase_node_text(db: Session, node: Node, now: datetime) -> None:
    """Retire the node (evicted) and clear its claim everywhere it is kept."""
    if node.state in (NodeState.active.value, NodeState.quarantined.value):
        retire(db, node, NodeState.evicted, now)
    db.execute(update(NodeVersion).where(NodeVersion.node_id == node.id).values(claim=None))
    db.execute(
        update(Clarification)
        .where(Clarification.node_id == node.id)
        .values(question=None, status="erased")
    )
    node.claim = None
    node.embedding = None
    node.erased_at = now
