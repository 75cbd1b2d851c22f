"""The ledger's rules as pure functions over plain data.

The service's ledger (`app.ledger.service`, over stored nodes) and the training replay
(`workers.gate.ledger_sim`, over nodes in memory) both call these, so the gate is trained on
the ledger it writes to. Each side keeps only its bookkeeping: the service its versions,
lineage, edges and questions, the replay the evidence it keeps in memory.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from app.domain.claims import GLOBAL_SCOPE
from app.domain.gate import RelatedNode
from app.domain.vocabulary import Action, Layer, NodeState, Origin, Timescale
from app.ledger.constants import (
    CORROBORATION_MIN_AUTHENTICITY,
    CORROBORATION_MIN_COSINE,
    CORROBORATION_MIN_ENTAILMENT,
    LAYER_DECAY_PER_DAY,
    QUARANTINE_DECAY_PER_DAY,
    QUARANTINE_RETENTION_FLOOR,
    SECONDS_PER_DAY,
    STABLE_OVERWRITE_EVENTS_ACROSS_SESSIONS,
    STABLE_OVERWRITE_EVENTS_ONE_SESSION,
    STABLE_OVERWRITE_MIN_CONFIDENCE,
)

# Δt after which a quarantined node's retention exp(−γq Δt) falls below φ (≈14.05 days).
QUARANTINE_LIFETIME = timedelta(
    days=math.log(1.0 / QUARANTINE_RETENTION_FLOOR) / QUARANTINE_DECAY_PER_DAY
)


class Decaying(Protocol):
    """What decay reads of a node."""

    @property
    def c0(self) -> float: ...
    @property
    def authenticity(self) -> float: ...
    @property
    def layer(self) -> str: ...
    @property
    def last_corroborated_at(self) -> datetime: ...


class LedgerNode(Protocol):
    """What the state transitions read and write of a node."""

    scope: str
    timescale: str
    layer: str
    state: str
    last_corroborated_at: datetime


def layer_for(scope: str, timescale: str, layered: bool) -> Layer:
    """The layer a claim lives in: contextual when scoped, transient when situational."""
    if not layered:
        return Layer.stable
    if scope != GLOBAL_SCOPE:
        return Layer.contextual
    if timescale == Timescale.situational.value:
        return Layer.transient
    return Layer.stable


def decayed_confidence(node: Decaying, at: datetime) -> float:
    """c0 · σ(h) · exp(−γ_layer (t − t0)), t0 = last corroboration."""
    days = max(0.0, (at - node.last_corroborated_at).total_seconds() / SECONDS_PER_DAY)
    rate = LAYER_DECAY_PER_DAY[Layer(node.layer)]
    return node.c0 * node.authenticity * math.exp(-rate * days)


# --- quarantine and eviction ------------------------------------------------------------


def quarantine_retention(quarantined_at: datetime | None, at: datetime) -> float:
    """exp(−γq Δt) since quarantine: the normalized multiplier eviction is defined on."""
    if quarantined_at is None:
        return 1.0
    days = max(0.0, (at - quarantined_at).total_seconds() / SECONDS_PER_DAY)
    return math.exp(-QUARANTINE_DECAY_PER_DAY * days)


def evicts(state: str, quarantined_at: datetime | None, at: datetime) -> bool:
    """A quarantined node whose retention fell below φ by `at` is evicted."""
    return (
        state == NodeState.quarantined.value
        and quarantined_at is not None
        and quarantine_retention(quarantined_at, at) < QUARANTINE_RETENTION_FLOOR
    )


def quarantined_twin(related: Iterable[RelatedNode], scope: str) -> uuid.UUID | None:
    """A quarantined node holding the same claim in the same scope, if any: a repeat of the
    claim adds evidence to it rather than a second node, and an admitted one promotes it."""
    for node in related:
        if (
            node.state == NodeState.quarantined.value
            and node.scope == scope
            and node.relation.supports >= CORROBORATION_MIN_ENTAILMENT
        ):
            return node.node_id
    return None


# --- corroboration and promotion --------------------------------------------------------


def corroborates(
    node_scope: str,
    node_state: str,
    related: RelatedNode | None,
    claim_scope: str,
    authenticity: float,
    action: Action,
    needs_user_support: bool,
) -> bool:
    """Same scope, cosine ≥ 0.82, entailment ≥ 0.75, authenticity ≥ 0.70, not held; and,
    where the channel rule applies, only the user's own words lift a claim out of
    quarantine (`needs_user_support`: this claim is not)."""
    return (
        related is not None
        and node_scope == claim_scope
        and related.cosine >= CORROBORATION_MIN_COSINE
        and related.relation.supports >= CORROBORATION_MIN_ENTAILMENT
        and authenticity >= CORROBORATION_MIN_AUTHENTICITY
        and action not in (Action.quarantine, Action.clarify)
        and (node_state != NodeState.quarantined.value or not needs_user_support)
    )


def corroborate(node: LedgerNode, at: datetime) -> bool:
    """Move the node's last corroboration to `at`; whether it is held, to be promoted."""
    node.last_corroborated_at = max(node.last_corroborated_at, at)
    return node.state == NodeState.quarantined.value


def promote(node: LedgerNode, at: datetime, layered: bool) -> None:
    """Quarantined (or retired) → active, in the layer its scope implies."""
    node.state = NodeState.active.value
    node.layer = layer_for(node.scope, node.timescale, layered).value
    node.last_corroborated_at = max(node.last_corroborated_at, at)


def retire(node: LedgerNode, state: NodeState) -> None:
    """Active or quarantined → superseded (a revision replaced it) or evicted (expired, or
    rejected): kept, never retrievable."""
    node.state = state.value


# --- the stable-overwrite rule ----------------------------------------------------------


def enough_stable_evidence(sessions: Sequence[uuid.UUID | str]) -> bool:
    """Two authenticated user events (confidence ≥ 0.80) across sessions, or three in one;
    `sessions` holds the session of each qualifying event."""
    return (
        len(sessions) >= STABLE_OVERWRITE_EVENTS_ACROSS_SESSIONS and len(set(sessions)) >= 2
    ) or len(sessions) >= STABLE_OVERWRITE_EVENTS_ONE_SESSION


def qualifies_for_overwrite(origin: str, authenticity: float) -> bool:
    """An event counts as evidence for a stable overwrite: the user's, and authentic."""
    return origin == Origin.user.value and authenticity >= STABLE_OVERWRITE_MIN_CONFIDENCE


def guards_overwrite(layer: str, sessions: Callable[[], Sequence[uuid.UUID | str]]) -> bool:
    """An established stable node (its qualifying events, `sessions()`, are the evidence it
    takes to overwrite one) is guarded. A preference stated once is provisional, and the
    next authenticated statement may revise it: one sentence neither establishes a user's
    stable preference nor overturns an established one."""
    return layer == Layer.stable.value and enough_stable_evidence(sessions())


def stable_overwrite_allowed(
    session: uuid.UUID | str, qualifies: bool, held: Sequence[uuid.UUID | str]
) -> bool:
    """This event (its session, whether it qualifies) and the qualifying events behind the
    claim's held twin (`held`, their sessions) are enough evidence to overwrite."""
    evidence: list[uuid.UUID | str] = [session] if qualifies else []
    evidence.extend(held)
    return enough_stable_evidence(evidence)
