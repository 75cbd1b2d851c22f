"""Which nodes an action targets, given the related nodes (online and in training replay)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from app.domain.claims import GLOBAL_SCOPE, Hypothesis
from app.domain.gate import RelatedNode
from app.domain.vocabulary import Action, NodeState
from app.ledger.constants import CORROBORATION_MIN_AUTHENTICITY, EDGE_MIN_PROBABILITY

_ACTIVE = NodeState.active.value
_QUARANTINED = NodeState.quarantined.value


def targets_for(
    action: Action, hypothesis: Hypothesis, related: Sequence[RelatedNode], authenticity: float
) -> list[uuid.UUID]:
    """retain: the nodes it supports in its scope (a quarantined twin too, when authentic
    enough to corroborate it); revise: the active nodes it contradicts in its scope (else the
    active nodes of its subject there with another value); scope: the active global nodes of
    its subject it narrows. add / quarantine / clarify target nothing."""
    scope = hypothesis.scope
    if action == Action.retain:
        return [
            r.node_id
            for r in related
            if r.scope == scope
            and r.relation.supports >= EDGE_MIN_PROBABILITY
            and (
                r.state == _ACTIVE
                or (r.state == _QUARANTINED and authenticity >= CORROBORATION_MIN_AUTHENTICITY)
            )
        ]
    if action == Action.revise:
        in_scope = [r for r in related if r.state == _ACTIVE and r.scope == scope]
        contradicted = [
            r.node_id for r in in_scope if r.relation.contradicts >= EDGE_MIN_PROBABILITY
        ]
        if contradicted:
            return contradicted
        return [
            r.node_id
            for r in in_scope
            if r.value != hypothesis.value and r.relation.supports < EDGE_MIN_PROBABILITY
        ]
    if action == Action.scope and scope != GLOBAL_SCOPE:
        return [r.node_id for r in related if r.state == _ACTIVE and r.scope == GLOBAL_SCOPE]
    return []
