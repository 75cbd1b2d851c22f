"""Apply a gate decision to the ledger: the six actions with the paper's semantics (DESIGN §4).

Called inside the per-user lock of the event being processed, in that event's transaction,
so each event's changes land atomically or not at all.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

from sqlalchemy.orm import Session

from app.domain.claims import GLOBAL_SCOPE, Hypothesis
from app.domain.gate import (
    QUESTION_BUDGET_SPENT,
    AdmissionPolicy,
    GateDecision,
    RelatedNode,
    asks_questions,
)
from app.domain.vocabulary import (
    Action,
    ClarificationStatus,
    EdgeRelation,
    NodeState,
    Origin,
)
from app.extraction.open_claims import is_open_subject
from app.ledger import channel_guard, repository, rules
from app.ledger.constants import (
    EDGE_MIN_PROBABILITY,
    STABLE_OVERWRITE_MIN_CONFIDENCE,
)
from app.models import Decision, Event, HypothesisRow, Node
from app.models.base import utcnow
from app.notifications import service as notifications


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(slots=True)
class LedgerChange:
    node_id: uuid.UUID
    change: str


@dataclass(slots=True)
class Question:
    """The ledger holds `node` and asks that the user be asked about it: now (`pending`) or
    once their question budget allows (`deferred`). The clarifications stage writes it."""

    node: Node
    status: ClarificationStatus
    contradicted: list[Node]


@dataclass(slots=True)
class ApplyContext:
    db: Session
    policy: AdmissionPolicy
    event: Event
    hypothesis: Hypothesis
    hypothesis_row: HypothesisRow
    decision_row: Decision
    gate: GateDecision
    embedding: list[float]
    related: tuple[RelatedNode, ...]
    nodes: dict[uuid.UUID, Node]
    changes: list[LedgerChange] = field(default_factory=list)
    # The policy asks questions and the user's question budget allows one (gate.service.may_ask).
    may_ask: bool = False
    # The tenant's trusted-source entry that covers the event's source (channel_guard).
    trusted_source: str | None = None
    # Held, ask: the question the ledger asks for, if any (always its last step).
    question: Question | None = None

    @property
    def at(self) -> datetime:
        return self.event.occurred_at

    @property
    def needs_user_support(self) -> bool:
        """The policy applies the channel rule and this claim is not the user's own words."""
        return guards_channel(self.policy) and channel_guard.needs_user_support(
            Origin(self.event.origin), self.hypothesis.provenance, self.trusted_source
        )


def guards_channel(policy: AdmissionPolicy) -> bool:
    """Whether the policy's ledger applies the channel rule (the learned gates do; the
    baselines keep their published semantics)."""
    return bool(getattr(policy, "guard_channel", False))


# Actions that would make a claim an active memory.
_WRITES = frozenset({Action.add, Action.scope, Action.revise})


def apply_decision(ctx: ApplyContext) -> Action:
    """Apply the gate's action; returns the action applied (see Decision.proposed_action)."""
    action = ctx.gate.action
    if action == Action.clarify:
        node = _quarantine(ctx)
        _ask(ctx, node)
        return action
    if action == Action.quarantine:
        node = _quarantine(ctx)
        if QUESTION_BUDGET_SPENT in ctx.gate.reasons:
            _defer(ctx, node)
        return action
    if action in _WRITES and ctx.needs_user_support:
        return _hold_for_user(ctx)
    if action in _WRITES and ctx.trusted_source is not None and not channel_guard.from_user(
        Origin(ctx.event.origin), ctx.hypothesis.provenance
    ):
        ctx.decision_row.reasons = [*ctx.decision_row.reasons, channel_guard.TRUSTED_SOURCE]
    if action == Action.revise:
        return _revise(ctx)
    if action == Action.retain:
        for target in _targets(ctx):
            if _corroborates(ctx, target):
                _corroborate(ctx, target)
        return action
    if action == Action.scope and ctx.hypothesis.scope != GLOBAL_SCOPE:
        node = _write_or_promote(ctx)
        for target in _targets(ctx):
            if target.id != node.id:
                repository.add_edge(
                    ctx.db, node, target.id, EdgeRelation.narrows.value, 1.0, ctx.decision_row.id
                )
        return action
    # add (and scope without a scope to narrow to, which is an add)
    _write_or_promote(ctx)
    return Action.add


def _targets(ctx: ApplyContext) -> list[Node]:
    return [ctx.nodes[t] for t in ctx.gate.targets if t in ctx.nodes]


def _relation_of(ctx: ApplyContext, node_id: uuid.UUID) -> RelatedNode | None:
    return next((r for r in ctx.related if r.node_id == node_id), None)


def _corroborates(ctx: ApplyContext, node: Node) -> bool:
    return rules.corroborates(
        node.scope,
        node.state,
        _relation_of(ctx, node.id),
        ctx.hypothesis.scope,
        ctx.gate.authenticity,
        ctx.gate.action,
        ctx.needs_user_support,
    )


def _matching_quarantined(ctx: ApplyContext) -> Node | None:
    """A quarantined node holding the same claim in the same scope, if any."""
    twin = rules.quarantined_twin(ctx.related, ctx.hypothesis.scope)
    return None if twin is None else ctx.nodes[twin]


def _new_node(ctx: ApplyContext, state: NodeState) -> Node:
    h = ctx.hypothesis
    active = state == NodeState.active
    node = Node(
        id=uuid.uuid4(),
        tenant_id=ctx.event.tenant_id,
        user_id=ctx.event.user_id,
        claim=h.claim,
        claim_sha256=sha256(h.claim),
        subject=h.subject,
        value=h.value,
        direction=h.direction.value,
        scope=h.scope,
        timescale=h.timescale.value,
        embedding=ctx.embedding,
        layer=rules.layer_for(h.scope, h.timescale.value, ctx.policy.layered).value,
        state=state.value,
        origin=h.provenance.value,
        c0=h.confidence,
        authenticity=ctx.gate.authenticity,
        last_corroborated_at=ctx.at,
        quarantined_at=None if active else ctx.at,
        valid_from=ctx.at if active else None,
        created_by_event_id=ctx.event.id,
    )
    ctx.db.add(node)
    ctx.db.flush()
    ctx.nodes[node.id] = node
    repository.add_version(ctx.db, node, "created" if active else "quarantined", ctx.at,
                           ctx.event.id, ctx.decision_row.id)
    repository.add_lineage(
        ctx.db, node.id, ctx.event.id, "wrote", ctx.hypothesis_row.id, ctx.decision_row.id
    )
    ctx.changes.append(LedgerChange(node.id, "created" if active else "quarantined"))
    if not active:
        notifications.emit(
            ctx.db, ctx.event.tenant_id, notifications.MEMORY_QUARANTINED,
            {"node_id": str(node.id), "event_id": str(ctx.event.id),
             "decision_id": str(ctx.decision_row.id), "origin": node.origin},
            user_id=ctx.event.user_id, subject_id=node.id,
        )
    _link_related(ctx, node)
    return node


def _link_related(ctx: ApplyContext, node: Node) -> None:
    """Support and contradiction edges to live nodes, when the relation is probable enough."""
    for related in ctx.related:
        if related.node_id == node.id:
            continue
        if related.relation.contradicts >= EDGE_MIN_PROBABILITY:
            repository.add_edge(
                ctx.db,
                node,
                related.node_id,
                EdgeRelation.contradicts.value,
                related.relation.contradicts,
                ctx.decision_row.id,
            )
        elif related.relation.supports >= EDGE_MIN_PROBABILITY and related.scope != node.scope:
            repository.add_edge(
                ctx.db,
                node,
                related.node_id,
                EdgeRelation.supports.value,
                related.relation.supports,
                ctx.decision_row.id,
            )


def _write_or_promote(ctx: ApplyContext) -> Node:
    """An admitted claim: promote a quarantined twin it corroborates, else write a new node."""
    pending = _matching_quarantined(ctx)
    if pending is not None and _corroborates(ctx, pending):
        _corroborate(ctx, pending)
        return pending
    return _new_node(ctx, NodeState.active)


def _corroborate(ctx: ApplyContext, node: Node) -> None:
    held = rules.corroborate(node, ctx.at)
    repository.add_lineage(
        ctx.db, node.id, ctx.event.id, "corroborated", ctx.hypothesis_row.id, ctx.decision_row.id
    )
    if held:
        promote(ctx.db, node, ctx.at, ctx.policy.layered, ctx.event.id, ctx.decision_row.id)
        ctx.changes.append(LedgerChange(node.id, "promoted"))
    else:
        ctx.changes.append(LedgerChange(node.id, "corroborated"))


def promote(
    db: Session,
    node: Node,
    at: datetime,
    layered: bool,
    event_id: uuid.UUID | None,
    decision_id: uuid.UUID | None,
    change: str = "promoted",
) -> None:
    """Quarantined (or retired, by a user's correction) → active, in the layer its scope implies."""
    rules.promote(node, at, layered)
    node.valid_from = at
    node.valid_to = None
    node.retired_at = None
    node.version += 1
    repository.add_version(db, node, change, at, event_id, decision_id)


def supersede(
    db: Session,
    new_node: Node,
    old: Node,
    at: datetime,
    event_id: uuid.UUID | None,
    decision_id: uuid.UUID | None,
) -> None:
    """`new_node` replaces `old`: old is retired as superseded, with a `supersedes` edge."""
    retire(db, old, NodeState.superseded, at, event_id, decision_id)
    repository.add_edge(db, new_node, old.id, EdgeRelation.supersedes.value, 1.0, decision_id)


def supersede_conflicting(
    db: Session,
    node: Node,
    at: datetime,
    event_id: uuid.UUID | None,
    decision_id: uuid.UUID | None,
) -> list[uuid.UUID]:
    """Retire the user's active nodes that a confirmed claim replaces: in the same subject
    and scope, a preference for another value (a dimension holds one value per scope), or an
    avoid of the value now preferred; for a confirmed avoid, the preference for that value.
    Free-text claims (no subject) replace nothing: what they contradict is not known."""
    if node.subject is None:
        return []
    rows = [r for r in repository.nodes_for_subject(db, node.user_id, node.subject)
            if r.id != node.id and r.scope == node.scope and r.state == NodeState.active.value]
    if node.direction == "avoid":
        replaced = [r for r in rows if r.direction == "prefer" and r.value == node.value]
    else:
        replaced = [r for r in rows if (r.direction == "prefer" and r.value != node.value)
                    or (r.direction == "avoid" and r.value == node.value)]
    for old in replaced:
        supersede(db, node, old, at, event_id, decision_id)
    return [old.id for old in replaced]


def retire(
    db: Session,
    node: Node,
    state: NodeState,
    at: datetime,
    event_id: uuid.UUID | None = None,
    decision_id: uuid.UUID | None = None,
) -> None:
    """Active or quarantined → superseded or evicted (kept, never retrievable)."""
    if node.state == NodeState.active.value:
        node.valid_to = at
    rules.retire(node, state)
    node.retired_at = utcnow()
    node.version += 1
    repository.add_version(db, node, state.value, at, event_id, decision_id)


def _quarantine(ctx: ApplyContext) -> Node:
    pending = _matching_quarantined(ctx)
    if pending is not None:
        # A repeat of a claim already held in quarantine adds evidence, not a second node.
        repository.add_lineage(
            ctx.db, pending.id, ctx.event.id, "repeated", ctx.hypothesis_row.id, ctx.decision_row.id
        )
        ctx.changes.append(LedgerChange(pending.id, "repeated"))
        return pending
    return _new_node(ctx, NodeState.quarantined)


def _revise(ctx: ApplyContext) -> Action:
    targets = [t for t in _targets(ctx) if t.state == NodeState.active.value]
    if not targets:
        _write_or_promote(ctx)
        return Action.add
    # The guard protects what the user has established (a stable node confirmed with the
    # evidence it takes to overwrite one), not whatever was said once.
    guarded = ctx.policy.guard_stable and any(
        rules.guards_overwrite(t.layer, partial(_qualifying_sessions, ctx, t.id))
        for t in targets
    )
    if guarded and not _stable_overwrite_allowed(ctx):
        # One sentence does not redefine a user: hold the claim until evidence repeats, or
        # until the user confirms it when asked (their own answer, on the user channel).
        ctx.decision_row.reasons = [*ctx.decision_row.reasons, "stable_overwrite_needs_evidence"]
        node = _quarantine(ctx)
        if _may_ask_about_guarded(ctx):
            if ctx.may_ask:
                _ask(ctx, node)
                return Action.clarify
            _defer(ctx, node)
        return Action.quarantine
    pending = _matching_quarantined(ctx)
    if pending is not None:
        repository.add_lineage(
            ctx.db,
            pending.id,
            ctx.event.id,
            "corroborated",
            ctx.hypothesis_row.id,
            ctx.decision_row.id,
        )
        promote(ctx.db, pending, ctx.at, ctx.policy.layered, ctx.event.id, ctx.decision_row.id)
        ctx.changes.append(LedgerChange(pending.id, "promoted"))
        new_node = pending
    else:
        new_node = _new_node(ctx, NodeState.active)
    for target in targets:
        supersede(ctx.db, new_node, target, ctx.at, ctx.event.id, ctx.decision_row.id)
        ctx.changes.append(LedgerChange(target.id, "superseded"))
    return Action.revise


def _hold_for_user(ctx: ApplyContext) -> Action:
    """The channel rule: hold a claim the user did not state in their own words, and ask
    them about it where a question may be asked (a taxonomy claim, in the service's words;
    an open claim would quote text the user did not write)."""
    ctx.decision_row.reasons = [*ctx.decision_row.reasons, channel_guard.NEEDS_USER_SUPPORT]
    node = _quarantine(ctx)
    if (asks_questions(ctx.policy) and not is_open_subject(ctx.hypothesis.subject)
            and not _has_open_question(ctx, node)):
        if ctx.may_ask:
            _ask(ctx, node)
            return Action.clarify
        _defer(ctx, node)
    return Action.quarantine


def _may_ask_about_guarded(ctx: ApplyContext) -> bool:
    """Whether a revision the stable-overwrite rule holds is asked about: by a policy that
    asks, for a claim from the user channel, or from an untrusted one when it is a taxonomy
    claim (in the service's own words; an open claim quotes the untrusted text, which is never
    shown to the user). The gate proposed the revision, so it reads the claim as the user's
    own (their settings export, their file); the user's answer on the user channel is the
    authentication that channel lacks, as for the gate's second look."""
    if not asks_questions(ctx.policy):
        return False
    return ctx.event.origin == Origin.user.value or not is_open_subject(ctx.hypothesis.subject)


def _stable_overwrite_allowed(ctx: ApplyContext) -> bool:
    """This event and the held repeats of its claim are enough evidence to overwrite."""
    pending = _matching_quarantined(ctx)
    return rules.stable_overwrite_allowed(
        ctx.event.session_id,
        rules.qualifies_for_overwrite(ctx.event.origin, ctx.gate.authenticity),
        [] if pending is None else _qualifying_sessions(ctx, pending.id),
    )


def _qualifying_sessions(ctx: ApplyContext, node_id: uuid.UUID) -> list[uuid.UUID]:
    """The session of each authenticated user event in the node's lineage, this one aside."""
    return repository.qualifying_sessions(
        ctx.db, node_id, ctx.event.id, STABLE_OVERWRITE_MIN_CONFIDENCE
    )


def _ask(ctx: ApplyContext, node: Node) -> None:
    """Ask the user about the held claim now."""
    ctx.question = Question(node, ClarificationStatus.pending, _contradicted(ctx))


def _defer(ctx: ApplyContext, node: Node) -> None:
    """The gate would have asked but the user's question budget is spent: keep the question,
    to be asked at a later event of theirs once the budget allows."""
    ctx.question = Question(node, ClarificationStatus.deferred, _contradicted(ctx))


def _has_open_question(ctx: ApplyContext, node: Node) -> bool:
    """A question about the node is pending or deferred."""
    return repository.open_question(ctx.db, node.id) is not None


def _contradicted(ctx: ApplyContext) -> list[Node]:
    """The active claims the held one contradicts, as a question about it names them."""
    return [
        ctx.nodes[r.node_id]
        for r in ctx.related
        if r.relation.contradicts >= EDGE_MIN_PROBABILITY and r.state == NodeState.active.value
    ]


def evict_expired_quarantine(
    db: Session, user_id: uuid.UUID | None, at: datetime
) -> list[uuid.UUID]:
    """Evict quarantined nodes whose retention exp(−γq Δt) fell below φ by time `at`."""
    evicted: list[uuid.UUID] = []
    for node in repository.expired_quarantine(db, user_id, at - rules.QUARANTINE_LIFETIME):
        if rules.evicts(node.state, node.quarantined_at, at):
            retire(db, node, NodeState.evicted, at)
            evicted.append(node.id)
    return evicted
