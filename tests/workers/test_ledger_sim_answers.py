"""The training ledger answers the questions its clarify targets ask, as the user would
online: "no" to a claim that is not the user's evicts it; a held authentic claim stays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from app.domain.claims import Hypothesis
from app.domain.vocabulary import Action, Direction, Origin, Timescale
from workers.gate.ledger_sim import SimEvent, SimLedger

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
UNIT = np.ones(4, dtype=np.float32) / 2.0  # cosine 1.0 between every claim


def _ask(ledger: SimLedger, authenticity: float) -> None:
    hypothesis = Hypothesis(claim="Prefers step-by-step explanations",
                            subject="explanation_depth", value="step_by_step",
                            direction=Direction.prefer, scope="global",
                            timescale=Timescale.permanent, confidence=0.6,
                            provenance=Origin.user)
    related = ledger.related(hypothesis, UNIT, T0)
    ledger.apply(Action.clarify, hypothesis, UNIT, related, [], authenticity,
                 SimEvent(Origin.user, "s0", T0 + timedelta(minutes=1)))


def _states(ledger: SimLedger) -> list[str]:
    return [n.state for n in ledger.nodes]


def test_a_question_about_a_claim_not_the_users_is_answered_no() -> None:
    ledger = SimLedger(answers=True)
    _ask(ledger, authenticity=0.0)  # "walkthroughs one step at a time? maybe."
    assert _states(ledger) == ["evicted"]


def test_an_authentic_claim_asked_about_stays_held() -> None:
    ledger = SimLedger(answers=True)
    _ask(ledger, authenticity=1.0)
    assert _states(ledger) == ["quarantined"]


def test_by_default_the_question_only_holds() -> None:
    ledger = SimLedger()  # how the shipped gates were trained
    _ask(ledger, authenticity=0.0)
    assert _states(ledger) == ["quarantined"]
