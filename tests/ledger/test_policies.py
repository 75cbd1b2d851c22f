"""The heuristic admission policies behave as the paper's baselines."""

from __future__ import annotations

import pytest

from app.domain.vocabulary import Origin
from app.gate.policies import get_policy
from tests.ledger.conftest import LedgerDriver


def _run(driver: LedgerDriver, policy: str) -> LedgerDriver:
    driver.policy_name = policy
    driver.say("answer_length", "short")
    driver.say("tone", "casual", scope="standups")
    driver.say("answer_length", "detailed", origin=Origin.tool_output)  # injected
    driver.say("tone", "formal")  # global tone, user channel
    return driver


class TestBaselines:
    def test_full_history_keeps_everything(self, driver: LedgerDriver) -> None:
        active = _run(driver, "full_history").active()
        assert len(active) == 4
        assert {n.layer for n in driver.nodes()} == {"stable"}

    def test_recency_latest_wins_on_any_channel(self, driver: LedgerDriver) -> None:
        assert sorted(_run(driver, "recency").active()) == [
            ("answer_length", "detailed", "global"), ("tone", "formal", "global")]

    def test_provenance_only_rejects_indirect(self, driver: LedgerDriver) -> None:
        assert sorted(_run(driver, "provenance_only").active()) == [
            ("answer_length", "short", "global"), ("tone", "casual", "standups"),
            ("tone", "formal", "global")]

    def test_statemem_supersedes_without_authenticity(self, driver: LedgerDriver) -> None:
        assert sorted(_run(driver, "statemem").active()) == [
            ("answer_length", "detailed", "global"), ("tone", "casual", "standups"),
            ("tone", "formal", "global")]
        assert len(driver.nodes("superseded")) == 1

    def test_unknown_policy(self) -> None:
        with pytest.raises(ValueError, match="unknown admission policy"):
            get_policy("nope")


class TestTenantPolicy:
    def test_tenant_setting_selects_the_policy(self, driver: LedgerDriver) -> None:
        from datetime import UTC, datetime

        from app import pipeline
        from app.core.auth import get_or_create_tenant
        from app.events import repository as events_repository
        from app.models import Decision, Event

        tenant = get_or_create_tenant(driver.db, "recency-tenant")
        tenant.admission_policy = "recency"
        user = events_repository.get_or_create_user(driver.db, tenant.id, "t-user")
        session = events_repository.get_or_create_session(driver.db, user, "s")
        event = Event(tenant_id=tenant.id, user_id=user.id, session_id=session.id,
                      seq=events_repository.next_seq(driver.db, user.id),
                      origin="tool_output", text="The user prefers detailed answers.",
                      text_sha256="0" * 64, occurred_at=datetime(2026, 1, 1, tzinfo=UTC),
                      trace_id="b" * 32)
        driver.db.add(event)
        driver.db.flush()
        pipeline.process_event(driver.db, event.id)
        decision = driver.db.query(Decision).filter_by(event_id=event.id).one()
        assert decision.policy_name == "recency"
        assert decision.action == "add"  # recency admits indirect channels
