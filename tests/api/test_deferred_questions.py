"""A question the gate would ask while the user's question budget is spent is deferred, not
lost: it is asked at a later user event once the budget allows (app/clarifications/service.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.gate import QUESTION_BUDGET_SPENT, GateDecision, GateInput
from app.domain.vocabulary import ACTIONS, Action
from app.gate import policies
from app.gate.service import QUESTION_BURST, QUESTION_EVERY_EVENTS
from app.models import Tenant
from tests.api.test_memories_api import _nodes, _write


class _AsksWithinBudget:
    """Asks about every claim while the budget allows, as the learned gates do."""

    name, version, layered, guard_stable = "asks_within_budget_test", "1", True, False
    clarify = True

    def decide(self, gate_input: GateInput) -> GateDecision:
        uniform = dict.fromkeys(ACTIONS, 1 / 6)
        if gate_input.may_ask:
            return GateDecision(Action.clarify, uniform, 0.5, [], ["entropy_above_eta"])
        return GateDecision(Action.quarantine, uniform, 0.5, [], [QUESTION_BUDGET_SPENT])


@pytest.fixture
def asking(db: Session, tenant_a: Any) -> Iterator[dict[str, str]]:
    policies.POLICIES[_AsksWithinBudget.name] = _AsksWithinBudget  # type: ignore[assignment]
    db.query(Tenant).filter_by(name="tenant-a").update(
        {"admission_policy": _AsksWithinBudget.name})
    db.commit()
    yield tenant_a.headers()
    del policies.POLICIES[_AsksWithinBudget.name]


def _questions(client: TestClient, h: dict[str, str], status: str) -> list[dict[str, Any]]:
    response = client.get(f"/v1/clarifications?user_id=alice&status={status}", headers=h)
    assert response.status_code == 200, response.text
    out: list[dict[str, Any]] = response.json()["items"]
    return out


STATEMENTS = ("I prefer short answers.", "I prefer metric units.", "I prefer a casual tone.")


class TestDeferredQuestions:
    def test_a_burst_is_asked_one_by_one_as_the_budget_allows(
            self, client: TestClient, asking: dict[str, str]) -> None:
        h = asking
        actions = [[d["action"] for d in _write(client, h, text)["decisions"]]
                   for text in STATEMENTS]
        assert actions == [["clarify"], ["clarify"], ["quarantine"]]
        pending = _questions(client, h, "pending")
        assert len(pending) == QUESTION_BURST
        # Asked at the event that raised it; a deferred question is not asked anywhere yet.
        assert all(q["asked_event_id"] == q["event_id"] for q in pending)
        [deferred] = _questions(client, h, "deferred")
        assert "casual" in deferred["question"].lower()
        assert deferred["asked_event_id"] is None
        # Not asked yet: it cannot be answered.
        early = client.post(f"/v1/clarifications/{deferred['id']}/answer", headers=h,
                            json={"answer": "confirm"})
        assert early.status_code == 409
        # Later user events that raise nothing ask it once the first question leaves the
        # window of QUESTION_BURST × 12 events, and not before.
        window = QUESTION_BURST * QUESTION_EVERY_EVENTS
        fillers = 0
        while not any(q["id"] == deferred["id"] for q in _questions(client, h, "pending")):
            filler = _write(client, h, "Thanks, that helps.")
            fillers += 1
            assert fillers <= window
        [asked] = [q for q in _questions(client, h, "pending") if q["id"] == deferred["id"]]
        assert asked["asked_event_id"] == filler["event_id"] != asked["event_id"]
        assert fillers == window - len(STATEMENTS) + 1  # asked at the event seq 1 + window
        assert _questions(client, h, "deferred") == []
        answered = client.post(f"/v1/clarifications/{deferred['id']}/answer", headers=h,
                               json={"answer": "confirm"})
        assert answered.status_code == 200, answered.text
        assert "casual" in [n["value"] for n in _nodes(client, h, state="active")]

    def test_a_claim_that_left_quarantine_is_withdrawn_unasked(
            self, client: TestClient, asking: dict[str, str]) -> None:
        h = asking
        for text in STATEMENTS:
            _write(client, h, text)
        [deferred] = _questions(client, h, "deferred")
        # The user confirms the held claim directly before anyone asks.
        confirmed = client.patch(f"/v1/users/alice/nodes/{deferred['node_id']}", headers=h,
                                 json={"state": "active"})
        assert confirmed.status_code == 200, confirmed.text
        [withdrawn] = _questions(client, h, "withdrawn")
        assert withdrawn["id"] == deferred["id"]
        assert withdrawn["question"] is None
        for _ in range(QUESTION_BURST * QUESTION_EVERY_EVENTS):
            _write(client, h, "Thanks, that helps.")
        assert len(_questions(client, h, "pending")) == QUESTION_BURST  # nothing more to ask

    def test_a_tool_output_event_never_asks_a_deferred_question(
            self, client: TestClient, asking: dict[str, str]) -> None:
        h = asking
        for text in STATEMENTS:
            _write(client, h, text)
        for _ in range(QUESTION_BURST * QUESTION_EVERY_EVENTS):
            _write(client, h, "weather.get -> 14 C, light rain", origin="tool_output")
        assert len(_questions(client, h, "deferred")) == 1
