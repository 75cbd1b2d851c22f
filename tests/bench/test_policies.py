"""Bench-side admission policies: the static summary freezes, the oracle follows its labels."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain.claims import Hypothesis
from app.domain.gate import GateInput, RelatedNode
from app.domain.relation import Relation
from app.domain.vocabulary import Action, Direction, Origin
from app.gate.policies import POLICIES
from bench.common import policies

NOW = datetime(2024, 3, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    yield
    policies.forget_events()


def hyp(value: str, *, scope: str = "global", origin: Origin = Origin.user,
        direction: Direction = Direction.prefer) -> Hypothesis:
    return Hypothesis(claim=f"Prefers {value}", subject="format", value=value, scope=scope,
                      direction=direction, confidence=0.9, provenance=origin)


def node(value: str, *, scope: str = "global", supports: float = 0.0,
         contradicts: float = 0.9) -> RelatedNode:
    return RelatedNode(uuid.uuid4(), "format", value, "prefer", scope, "stable", "active", 0.9,
                       NOW, 0.9, Relation(supports, contradicts))


def gate_input(h: Hypothesis, context: policies.EventContext, *, origin: Origin = Origin.user,
               related: tuple[RelatedNode, ...] = (), latent: bytes | None = None) -> GateInput:
    event_id = uuid.uuid4()
    policies.register_event(event_id, context)
    return GateInput(event_id, h, origin, NOW, None, False, related, latent)


def oracle(action: str, value: str, label: str = "genuine_preference",
           **extra: Any) -> policies.EventContext:
    labels = {"action": action, "dimension": "format", "value": value, "scope": "global",
              "direction": "prefer", **extra}
    return policies.EventContext(session="s1", oracle=labels, label=label)


class TestRegistration:
    def test_register_adds_both_policies_by_name(self) -> None:
        policies.register()
        assert POLICIES["static_summary"] is policies.StaticSummary
        assert POLICIES["oracle"] is policies.Oracle

    def test_an_unregistered_event_is_an_error(self) -> None:
        with pytest.raises(LookupError):
            policies.event_context(uuid.uuid4())


class TestStaticSummary:
    def test_summarizes_the_first_session_with_a_user_statement_then_freezes(self) -> None:
        policy = policies.StaticSummary()
        s1 = policies.EventContext(session="s1")
        # A tool's claim is not a user statement: nothing, and no summary session yet.
        tool = policy.decide(gate_input(hyp("prose"), s1, origin=Origin.tool_output))
        assert tool.action == Action.retain
        assert tool.latent is None
        first = policy.decide(gate_input(hyp("prose"), s1))
        assert first.action == Action.add
        assert first.latent == b"s1"
        # Later in the same session a contradiction still revises the summary.
        again = policy.decide(gate_input(hyp("bullets"), s1, related=(node("prose"),),
                                         latent=b"s1"))
        assert again.action == Action.revise
        # Any later session: frozen.
        later = policy.decide(gate_input(hyp("table"), policies.EventContext(session="s2"),
                                         latent=b"s1"))
        assert later.action == Action.retain
        assert later.targets == []


class TestOracle:
    def test_attacks_are_quarantined_and_other_claims_ignored(self) -> None:
        policy = policies.Oracle()
        attack = policy.decide(gate_input(hyp("bullets"), oracle("quarantine", "bullets",
                                                                 label="attack")))
        assert attack.action == Action.quarantine
        assert attack.authenticity == 0.0
        misread = policy.decide(gate_input(hyp("table"), oracle("add", "bullets")))
        assert misread.action == Action.retain
        assert misread.reasons == ["not_the_oracle_claim"]
        wrong_direction = policy.decide(gate_input(hyp("bullets", direction=Direction.avoid),
                                                   oracle("add", "bullets")))
        assert wrong_direction.action == Action.retain

    def test_genuine_claims_are_made_to_hold(self) -> None:
        policy = policies.Oracle()
        old = node("prose")
        revise = policy.decide(gate_input(hyp("bullets"), oracle("revise", "bullets"),
                                          related=(old,)))
        assert revise.action == Action.revise
        assert revise.targets == [old.node_id]
        # Labelled retain, but memory lacks the claim (an earlier event was misread): add.
        missing = policy.decide(gate_input(hyp("bullets"), oracle("retain", "bullets")))
        assert missing.action == Action.add
        held = node("bullets", supports=0.95, contradicts=0.0)
        kept = policy.decide(gate_input(hyp("bullets"), oracle("add", "bullets"),
                                        related=(held,)))
        assert kept.action == Action.retain
        assert kept.targets == [held.node_id]
        scoped = policy.decide(gate_input(
            hyp("bullets", scope="standups"), oracle("scope", "bullets", scope="standups"),
            related=(old,)))
        assert scoped.action == Action.scope
        assert scoped.targets == [old.node_id]

    def test_sarcasm_changes_nothing(self) -> None:
        decision = policies.Oracle().decide(gate_input(
            hyp("bullets"), oracle("retain", "bullets", label="sarcasm")))
        assert decision.action == Action.retain
        assert decision.targets == []

    def test_an_action_without_a_claim_is_applied_as_given(self) -> None:
        context = policies.EventContext(session="s1", oracle={"action": "quarantine"},
                                        label="attack")
        assert policies.Oracle().decide(gate_input(hyp("x"), context)).action == (
            Action.quarantine)
