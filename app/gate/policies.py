"""Admission policies: the decision for each hypothesis, given what the ledger already holds.

Every policy returns a full distribution over the six actions (one-hot for the heuristic
baselines, whose entropy is therefore 0 and which never ask), the authenticity read-off
σ(h), and the node(s) the action targets. The ledger applies the action; a policy never
writes. The learned gate (workers/gate) implements the same interface.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import get_args

from app import registry
from app.core.config import AdmissionPolicyName
from app.domain.gate import AdmissionPolicy, GateDecision, GateInput, NodeFields, RelatedNode
from app.domain.relation import ClaimFields
from app.domain.vocabulary import ACTIONS, Action, NodeState, Origin
from app.ledger.constants import EDGE_MIN_PROBABILITY
from app.ledger.relations import relate


def related_node(
    node_id: uuid.UUID,
    node: NodeFields,
    new: ClaimFields,
    cosine: float,
    confidence: float,
) -> RelatedNode:
    """An existing node (a ledger row, or the training ledger's copy) and its relation
    to the new claim: one construction for the service and for training."""
    return RelatedNode(
        node_id=node_id,
        subject=node.subject,
        value=node.value,
        direction=node.direction,
        scope=node.scope,
        layer=node.layer,
        state=node.state,
        confidence=confidence,
        recorded_at=node.recorded_at,
        cosine=cosine,
        relation=relate(new, ClaimFields(node.subject, node.value, node.direction), cosine),
    )


def one_hot(action: Action) -> dict[Action, float]:
    return {a: (1.0 if a == action else 0.0) for a in ACTIONS}


def _decision(
    action: Action, authenticity: float, targets: list[uuid.UUID] | None = None, *reasons: str
) -> GateDecision:
    return GateDecision(action, one_hot(action), authenticity, list(targets or []), list(reasons))


def _active(gate_input: GateInput) -> list[RelatedNode]:
    return [r for r in gate_input.related if r.state == NodeState.active.value]


def supporting_nodes(gate_input: GateInput, same_scope: bool = True) -> list[RelatedNode]:
    """Active nodes the relation model says support the hypothesis (in its scope unless
    `same_scope` is off)."""
    scope = gate_input.hypothesis.scope
    return [
        r
        for r in _active(gate_input)
        if r.relation.supports >= EDGE_MIN_PROBABILITY and (not same_scope or r.scope == scope)
    ]


def on_subject(gate_input: GateInput) -> list[RelatedNode]:
    """Active nodes on the hypothesis's subject, in any scope."""
    return [r for r in _active(gate_input) if r.subject == gate_input.hypothesis.subject]


def _contradicted(gate_input: GateInput, same_scope: bool) -> list[RelatedNode]:
    scope = gate_input.hypothesis.scope
    return [
        r
        for r in _active(gate_input)
        if r.relation.contradicts >= EDGE_MIN_PROBABILITY and (not same_scope or r.scope == scope)
    ]


class FullHistory:
    """Everything extracted is written and stays retrievable; nothing is superseded."""

    name = "full_history"
    version = "1"
    layered = False
    guard_stable = False

    def decide(self, gate_input: GateInput) -> GateDecision:
        return _decision(Action.add, 1.0, None, "write_everything")


class Recency:
    """The latest statement on a subject wins, on any channel and in any scope."""

    name = "recency"
    version = "1"
    layered = True
    guard_stable = False

    def decide(self, gate_input: GateInput) -> GateDecision:
        supported = supporting_nodes(gate_input)
        if supported:
            return _decision(Action.retain, 1.0, [r.node_id for r in supported], "repeats_memory")
        same_subject = on_subject(gate_input)
        if same_subject:
            return _decision(
                Action.revise, 1.0, [r.node_id for r in same_subject], "latest_statement_wins"
            )
        return _decision(Action.add, 1.0, None, "new_subject")


class StateMem:
    """Explicit supersession with version history; no authenticity check, no timescales."""

    name = "statemem"
    version = "1"
    layered = False
    guard_stable = False

    def decide(self, gate_input: GateInput) -> GateDecision:
        return _supersession(gate_input, authenticity=1.0)


class ProvenanceOnly:
    """Accept the user channel (with StateMem's bookkeeping); quarantine everything indirect."""

    name = "provenance_only"
    version = "1"
    layered = True
    guard_stable = False

    def decide(self, gate_input: GateInput) -> GateDecision:
        if gate_input.origin != Origin.user:
            return _decision(Action.quarantine, 0.0, None, "untrusted_channel")
        return _supersession(gate_input, authenticity=1.0)


def _supersession(gate_input: GateInput, authenticity: float) -> GateDecision:
    supported = supporting_nodes(gate_input)
    if supported:
        return _decision(
            Action.retain, authenticity, [r.node_id for r in supported], "corroborates_memory"
        )
    contradicted = _contradicted(gate_input, same_scope=True)
    if contradicted:
        return _decision(
            Action.revise, authenticity, [r.node_id for r in contradicted], "contradicts_memory"
        )
    return _decision(Action.add, authenticity, None, "new_claim")


class _LearnedPolicy:
    """A learned gate's entry in POLICIES; calling it loads the policy through app.registry
    (torch is imported on first use, never when app.* is imported)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self) -> AdmissionPolicy:
        return registry.learned_policy(self.name)


HEURISTIC_POLICIES: dict[str, Callable[[], AdmissionPolicy]] = {
    FullHistory.name: FullHistory,
    Recency.name: Recency,
    StateMem.name: StateMem,
    ProvenanceOnly.name: ProvenanceOnly,
}
# Every other name the settings accept is a learned gate, its comparisons and
# ablations (docs/models/gate.md), loaded from workers/gate on first use.
POLICIES: dict[str, Callable[[], AdmissionPolicy]] = {
    **HEURISTIC_POLICIES,
    **{
        name: _LearnedPolicy(name)
        for name in get_args(AdmissionPolicyName)
        if name not in HEURISTIC_POLICIES
    },
}


def get_policy(name: str) -> AdmissionPolicy:
    try:
        return POLICIES[name]()
    except KeyError:
        raise ValueError(f"unknown admission policy {name!r}; known: {sorted(POLICIES)}") from None


__all__ = [
    "HEURISTIC_POLICIES",
    "POLICIES",
    "FullHistory",
    "ProvenanceOnly",
    "Recency",
    "StateMem",
    "get_policy",
    "one_hot",
    "related_node",
    "supporting_nodes",
]
