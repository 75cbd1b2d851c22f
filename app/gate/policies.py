"""Admission policies: the decision for each hypothesis, given what the ledger already holds.

Every policy returns a full distribution over the six actions (one-hot for the heuristic
baselines, whose entropy is therefore 0 and which never ask), the authenticity read-off
σ(h), and the node(s) the action targets. The ledger applies the action; a policy never
writes. The learned gate (issue 4) implements the same interface.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, get_args

from app.core.config import AdmissionPolicyName
from app.extraction.schemas import GLOBAL_SCOPE, Hypothesis, Origin
from app.ledger.constants import EDGE_MIN_PROBABILITY
from app.ledger.relations import ClaimFields, Relation, relate
from app.models.enums import ACTIONS, Action, NodeState


@dataclass(frozen=True, slots=True)
class RelatedNode:
    """An existing node near the hypothesis, with its relation to it."""

    node_id: uuid.UUID
    subject: str
    value: str | None
    direction: str
    scope: str
    layer: str
    state: str
    confidence: float
    recorded_at: datetime
    cosine: float
    relation: Relation

    @classmethod
    def of(
        cls,
        node_id: uuid.UUID,
        node: NodeFields,
        new: ClaimFields,
        cosine: float,
        confidence: float,
    ) -> RelatedNode:
        """An existing node (a ledger row, or the training ledger's copy) and its relation
        to the new claim: one construction for the service and for training."""
        return cls(
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


class NodeFields(Protocol):
    """What RelatedNode.of reads of a node."""

    @property
    def subject(self) -> str: ...
    @property
    def value(self) -> str | None: ...
    @property
    def direction(self) -> str: ...
    @property
    def scope(self) -> str: ...
    @property
    def layer(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def recorded_at(self) -> datetime: ...


@dataclass(frozen=True, slots=True)
class GateInput:
    event_id: uuid.UUID
    hypothesis: Hypothesis
    origin: Origin
    occurred_at: datetime
    # log(1 + Δt) input of the gate; seconds since this user's previous event (None: first).
    seconds_since_last_event: float | None
    new_session: bool
    related: tuple[RelatedNode, ...]
    # The policy's own per-user latent state as it last stored it (None: none yet). Only a
    # state written by this policy name and version is ever passed in.
    latent: bytes | None = None
    # The policy asks and the user's question budget allows asking now
    # (app/gate/service.may_ask); a policy that would ask decides silently otherwise.
    may_ask: bool = True


@dataclass(frozen=True, slots=True)
class EventView:
    """What a stateful policy reads of every event, preference or not (see `advance`)."""

    event_id: uuid.UUID
    text: str
    origin: Origin
    occurred_at: datetime
    seconds_since_last_event: float | None
    new_session: bool


@dataclass(slots=True)
class GateDecision:
    action: Action
    probabilities: dict[Action, float]
    authenticity: float
    targets: list[uuid.UUID] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    # The latent state to persist after this decision (None: keep what is stored).
    latent: bytes | None = None

    @property
    def entropy(self) -> float:
        entropy = -sum(p * math.log(p) for p in self.probabilities.values() if p > 0.0)
        return entropy if entropy > 0.0 else 0.0  # never -0.0 for a one-hot distribution


class AdmissionPolicy(Protocol):
    name: str
    version: str
    # Whether nodes get timescale layers (else every node is `stable`) and whether a
    # stable node needs repeated authenticated evidence before it is revised.
    layered: bool
    guard_stable: bool

    def decide(self, gate_input: GateInput) -> GateDecision: ...


class AdvancingPolicy(AdmissionPolicy, Protocol):
    """A policy whose latent state reads every event (the learned gates: h(t) integrates over
    each gap and takes a GRU update per event, preference or not). The pipeline calls
    `advance` once per event, before any `decide` for its hypotheses, and stores the latent
    it returns on the user's GateState in the event's transaction; policies without it are
    unaffected."""

    def advance(self, event: EventView, latent: bytes | None) -> bytes: ...


# A decision's reason when the policy would have asked but the user's question budget was
# spent: the ledger keeps the question for later (a `deferred` clarification).
QUESTION_BUDGET_SPENT = "question_budget_spent"


def asks_questions(policy: AdmissionPolicy) -> bool:
    """Whether the policy asks clarifying questions: the learned gates' `clarify` switch (the
    heuristic policies have none and never ask)."""
    return bool(getattr(policy, "clarify", False))


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
        same_subject = [
            r for r in _active(gate_input) if r.subject == gate_input.hypothesis.subject
        ]
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
    """Registry entry for a learned gate in workers.gate.infer; calling it loads the policy
    (torch is imported on first use, never when app.* is imported)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self) -> AdmissionPolicy:
        from workers.gate.infer import LEARNED_POLICIES

        policy: AdmissionPolicy = LEARNED_POLICIES[self.name]()
        return policy


HEURISTIC_POLICIES: dict[str, Callable[[], AdmissionPolicy]] = {
    FullHistory.name: FullHistory,
    Recency.name: Recency,
    StateMem.name: StateMem,
    ProvenanceOnly.name: ProvenanceOnly,
}
# Every other name the settings accept is a learned gate (issue 4), its comparisons and
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
    "GLOBAL_SCOPE",
    "AdmissionPolicy",
    "AdvancingPolicy",
    "EventView",
    "GateDecision",
    "GateInput",
    "RelatedNode",
    "get_policy",
    "one_hot",
]
