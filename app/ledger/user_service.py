"""What a user does with their own memories: see, correct, confirm, erase."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime

from sqlalchemy.orm import Session

from app.core import spans
from app.core.auth import Principal
from app.core.embeddings import embed_one
from app.core.errors import InvalidInput, NotFound
from app.domain.extractor import EventInput
from app.domain.vocabulary import Direction, NodeState, Origin, Timescale
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
from app.ledger.service import promote, retire, supersede_conflicting
from app.models import Node, User
from app.models.base import utcnow


def _user(db: Session, principal: Principal, external_id: str) -> User:
    user = events_repository.find_user(db, principal.tenant_id, external_id)
    if user is None:
        raise NotFound("user not found")
    return user


def _node(db: Session, user: User, node_id: uuid.UUID) -> Node:
    node = repository.user_node(db, user, node_id)
    if node is None or node.erased_at is not None:
        raise NotFound("node not found")
    return node


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
    total, nodes = repository.node_page(
        db, user.id, state=state, layer=layer, scope=scope, as_of=as_of, limit=limit,
        offset=offset,
    )
    return NodePage(nodes=[NodeOut.of(n) for n in nodes], total=total, limit=limit, offset=offset)


def get_node(
    db: Session, principal: Principal, external_user_id: str, node_id: uuid.UUID
) -> NodeOut:
    return NodeOut.of(_node(db, _user(db, principal, external_user_id), node_id))


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
    version_before = node.version
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
            # A correction through the API: the key's words, not the user's (check-call
            # traces a value only a correction holds as `agent_correction`).
            repository.add_version(db, node, "corrected", now)
            if "direction" in edits and node.state == NodeState.active.value:
                # A corrected claim is a confirmed one: it replaces what it contradicts.
                supersede_conflicting(db, node, now, None, None)
        changed.extend(edits)
        attrs["capture.node.changed"] = changed
        attrs["capture.actor.key_id"] = str(principal.key_id)
        attrs["capture.actor.role"] = principal.role.value
    db.flush()
    # Every version this request wrote records who made it.
    repository.record_actor(db, node.id, version_before, principal.key_id, principal.role.value)
    return NodeOut.of(node)


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
    repository.settle_questions(db, node.id, answer, utcnow())


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
        lineage = repository.lineage_of(db, node.id)
        event_ids = {row.event_id for row in lineage}
        # Events that also fed another node that still exists keep their text.
        shared = repository.events_feeding_other_live_nodes(db, event_ids, node.id)
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
    event = repository.user_event(db, user, event_id)
    if event is None or event.erased_at is not None:
        raise NotFound("event not found")
    now = utcnow()
    recorder = spans.SpanRecorder(db, tenant_id=user.tenant_id, trace_id=trace_id, user_id=user.id)
    with recorder.span(
        spans.EVENT_ERASURE, kind="server", attributes={"capture.event.id": str(event.id)}
    ) as attrs:
        fed = repository.nodes_fed_by(db, event.id)
        # A node is this event's alone when no other unerased event is in its lineage.
        others = repository.nodes_fed_by_other_live_events(db, fed, event.id)
        nodes = repository.unerased_nodes(db, fed - others)
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
        repository.erase_event_text(db, event_ids, now)
        hypothesis_ids |= repository.hypotheses_read_from(db, event_ids)
    if hypothesis_ids:
        repository.erase_hypothesis_claims(db, hypothesis_ids)
    return len(hypothesis_ids)


def _erase_node_text(db: Session, node: Node, now: datetime) -> None:
    """Retire the node (evicted) and clear its claim everywhere it is kept."""
    if node.state in (NodeState.active.value, NodeState.quarantined.value):
        retire(db, node, NodeState.evicted, now)
    repository.erase_node_copies(db, node.id)
    node.claim = None
    node.embedding = None
    node.erased_at = now
