"""The admission gate's contract: what a policy reads of a hypothesis and the ledger around
it, and the decision it returns. The ledger applies the decision; a policy never writes."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from app.domain.claims import Hypothesis
from app.domain.relation import Relation
from app.domain.vocabulary import Action, Origin


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


class NodeFields(Protocol):
    """What `app.gate.policies.related_node` reads of a node."""

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
