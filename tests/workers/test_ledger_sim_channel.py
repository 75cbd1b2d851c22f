"""The training ledger applies the channel rule only when asked: the replay trains the gate
on its own decisions, and the service's ledger holds a claim not in the user's words after
them."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from app.domain.claims import Hypothesis
from app.domain.vocabulary import Action, Direction, Origin, Timescale
from workers.gate.ledger_sim import SimEvent, SimLedger

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
UNIT = np.ones(4, dtype=np.float32) / 2.0  # cosine 1.0 between every claim


def _add(ledger: SimLedger, origin: Origin) -> Action:
    hypothesis = Hypothesis(claim="Prefers short answers", subject="answer_length",
                            value="short", direction=Direction.prefer, scope="global",
                            timescale=Timescale.permanent, confidence=0.9, provenance=origin)
    related = ledger.related(hypothesis, UNIT, T0)
    return ledger.apply(Action.add, hypothesis, UNIT, related, [], 0.95,
                        SimEvent(origin, "s0", T0))


def _states(ledger: SimLedger) -> list[str]:
    return [n.state for n in ledger.nodes]


def test_replay_ledger_writes_what_the_gate_admits() -> None:
    ledger = SimLedger()
    assert _add(ledger, Origin.tool_output) == Action.add
    assert _states(ledger) == ["active"]


def test_channel_rule_holds_a_claim_not_in_the_users_words() -> None:
    ledger = SimLedger(channel_rule=True)
    assert _add(ledger, Origin.tool_output) == Action.quarantine
    assert _states(ledger) == ["quarantined"]


def test_channel_rule_keeps_it_held_until_the_user_says_it() -> None:
    ledger = SimLedger(channel_rule=True)
    _add(ledger, Origin.tool_output)
    assert _add(ledger, Origin.tool_output) == Action.quarantine
    assert _states(ledger) == ["quarantined"]
    assert _add(ledger, Origin.user) == Action.add
    assert _states(ledger) == ["active"]
