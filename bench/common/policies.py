"""Bench-side admission policies, registered into app.gate.policies.POLICIES at run time.

The service's policies see only the GateInput. These two also need what the benchmark
knows about each event it wrote (its session, its oracle labels), so the harness registers
that per event id before the event's transaction commits (processing runs in-process right
after the commit) and the policy looks it up by `gate_input.event_id`.

- `static_summary`: the paper's static-summary baseline. The profile is summarized once,
  from the user-channel statements of the first session in which the user stated any
  preference (read with StateMem's supersession inside that session), and then frozen:
  nothing later, on any channel, changes memory. The summary session is kept in the
  policy's per-user latent state. (The first session *tout court* holds no preference in
  about two thirds of the generator's episodes, which would make it an empty profile.)
- `oracle`: reads the generator's labels. A hypothesis that is not the labelled claim
  (dimension, value, direction, scope) leaves memory unchanged; an attack or weak signal is
  quarantined (or clarified) as labelled; a genuine claim is made to hold in the ledger
  (retain if held, revise what it replaces in its scope, scope or add otherwise), so one
  misread earlier event does not leave the ceiling short; sarcasm and other non-genuine
  labels change nothing. Third-party episodes carry only an action per event, applied as
  given. A ceiling that shares the extractor, the ledger, retrieval and the selector.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from app.domain.claims import GLOBAL_SCOPE
from app.domain.gate import AdmissionPolicy, GateDecision, GateInput, RelatedNode
from app.domain.vocabulary import Action, NodeState
from app.gate import policies as gate_policies
from app.gate.policies import StateMem, one_hot

GENUINE_LABELS = frozenset({"genuine_preference", "context_specific", "literal_statement"})


@dataclass(frozen=True, slots=True)
class EventContext:
    """What the benchmark knows about one event it wrote."""

    session: str
    oracle: dict[str, Any] | None = None
    label: str | None = None


_CONTEXT: dict[uuid.UUID, EventContext] = {}
# The context of the event being written now: the bench learns the event's id from the
# service's answer, after the gate has decided, so the first unregistered event the gate
# asks about takes it (the bench writes one event at a time per process).
_NEXT: list[EventContext] = []


def register_event(event_id: uuid.UUID, context: EventContext) -> None:
    _CONTEXT[event_id] = context


def expect_event(context: EventContext) -> None:
    """The context of the next event written (bound to its id on the first lookup)."""
    _NEXT[:] = [context]


def written(event_id: uuid.UUID, context: EventContext) -> None:
    """The expected event was written as `event_id`."""
    _NEXT.clear()
    _CONTEXT[event_id] = context


def forget_events() -> None:
    _CONTEXT.clear()
    _NEXT.clear()


def event_context(event_id: uuid.UUID) -> EventContext:
    context = _CONTEXT.get(event_id)
    if context is None and _NEXT:
        context = _CONTEXT[event_id] = _NEXT.pop()
    if context is None:
        raise LookupError(
            f"event {event_id} was not registered with bench.common.policies.register_event"
        )
    return context


def _decision(
    action: Action, authenticity: float, targets: list[uuid.UUID], reason: str,
    latent: bytes | None = None,
) -> GateDecision:
    return GateDecision(action, one_hot(action), authenticity, targets, [reason], latent)


class StaticSummary:
    name = "static_summary"
    version = "1"
    layered = False
    guard_stable = False

    def decide(self, gate_input: GateInput) -> GateDecision:
        session = event_context(gate_input.event_id).session.encode()
        summary_session = gate_input.latent
        if summary_session is not None and summary_session != session:
            return _decision(Action.retain, 1.0, [], "summary_frozen")
        if gate_input.origin.value != "user":
            return _decision(Action.retain, 1.0, [], "not_a_user_statement")
        decision = StateMem().decide(gate_input)
        decision.latent = session  # the summary is this session's, from now on
        decision.reasons = [*decision.reasons, "summary_session"]
        return decision


def _live(gate_input: GateInput) -> list[RelatedNode]:
    return [r for r in gate_input.related if r.state == NodeState.active.value]


class Oracle:
    name = "oracle"
    version = "1"
    layered = True
    guard_stable = False

    def decide(self, gate_input: GateInput) -> GateDecision:
        context = event_context(gate_input.event_id)
        oracle = context.oracle or {}
        h = gate_input.hypothesis
        action = Action(oracle.get("action", "retain"))
        if "dimension" not in oracle:
            # Third-party episodes label the event, not a claim: apply the action as given.
            return _decision(action, 0.0 if action in UNTRUSTED else 1.0, [], "oracle_label")
        claim = (oracle["dimension"], oracle.get("value"), oracle.get("direction", "prefer"),
                 oracle.get("scope", h.scope))
        if claim != (h.subject, h.value, h.direction.value, h.scope):
            return _decision(Action.retain, 1.0, [], "not_the_oracle_claim")
        if action in UNTRUSTED:
            return _decision(action, 0.0, [], "oracle_untrusted")
        if context.label not in GENUINE_LABELS:
            return _decision(Action.retain, 1.0, [], "oracle_no_change")
        return _to_true_state(gate_input)


UNTRUSTED = (Action.quarantine, Action.clarify)


def _to_true_state(gate_input: GateInput) -> GateDecision:
    """A genuine claim of the true state: make the ledger hold it, whatever the label said
    relative to the oracle's own memory (an earlier genuine event may have been misread)."""
    h = gate_input.hypothesis
    active = _live(gate_input)
    same_scope = [r for r in active if r.subject == h.subject and r.scope == h.scope]
    held = [r.node_id for r in same_scope
            if r.value == h.value and r.direction == h.direction.value]
    if held:
        return _decision(Action.retain, 1.0, held, "oracle_corroborates")
    if same_scope:
        return _decision(Action.revise, 1.0, [r.node_id for r in same_scope], "oracle_revises")
    if h.scope != GLOBAL_SCOPE:
        broader = [r.node_id for r in active if r.subject == h.subject and r.scope != h.scope]
        return _decision(Action.scope, 1.0, broader, "oracle_scopes")
    return _decision(Action.add, 1.0, [], "oracle_adds")


BENCH_POLICIES: dict[str, type[AdmissionPolicy]] = {
    StaticSummary.name: StaticSummary,
    Oracle.name: Oracle,
}


def register() -> None:
    """Make the bench policies selectable by name (tenants' admission_policy)."""
    for name, policy in BENCH_POLICIES.items():
        gate_policies.POLICIES.setdefault(name, policy)
