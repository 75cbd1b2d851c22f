"""The training ledger's stable-overwrite guard follows app.ledger.service: only an
established stable node (confirmed like an overwrite would need) is guarded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from app.domain.claims import Hypothesis
from app.domain.vocabulary import Action, Direction, Origin, Timescale
from workers.gate.ledger_sim import SimEvent, SimLedger

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
UNIT = np.ones(4, dtype=np.float32) / 2.0  # cosine 1.0 between every claim


def _say(ledger: SimLedger, value: str, action: Action, session: str, day: int,
         origin: Origin = Origin.user) -> Action:
    hypothesis = Hypothesis(claim=f"Prefers {value} answers", subject="answer_length",
                            value=value, direction=Direction.prefer, scope="global",
                            timescale=Timescale.permanent, confidence=0.9, provenance=origin)
    at = T0 + timedelta(days=day)
    related = ledger.related(hypothesis, UNIT, at)
    targets = [r.node_id for r in related if r.state == "active"]
    return ledger.apply(action, hypothesis, UNIT, related, targets, 0.95,
                        SimEvent(origin, session, at))


def _active(ledger: SimLedger) -> list[str | None]:
    return [n.value for n in ledger.nodes if n.state == "active"]


def test_provisional_node_is_revised_by_one_statement() -> None:
    ledger = SimLedger()
    _say(ledger, "short", Action.add, "s0", 0)
    assert _say(ledger, "detailed", Action.revise, "s1", 1) == Action.revise
    assert _active(ledger) == ["detailed"]


def test_established_node_needs_evidence_again() -> None:
    ledger = SimLedger()
    _say(ledger, "short", Action.add, "s0", 0)
    _say(ledger, "short", Action.retain, "s1", 1)  # corroborated in a second session
    assert _say(ledger, "detailed", Action.revise, "s2", 2) == Action.quarantine
    assert _active(ledger) == ["short"]
    assert _say(ledger, "detailed", Action.revise, "s3", 3) == Action.revise
    assert _active(ledger) == ["detailed"]


def test_untrusted_channel_never_establishes() -> None:
    ledger = SimLedger()
    _say(ledger, "short", Action.add, "s0", 0, origin=Origin.shared_file)
    _say(ledger, "short", Action.retain, "s1", 1, origin=Origin.shared_file)
    assert _say(ledger, "detailed", Action.revise, "s2", 2) == Action.revise
