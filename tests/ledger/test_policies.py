"""The heuristic admission policies behave as the paper's baselines."""

from __future__ import annotations

import pytest

from app.extraction.schemas import Origin
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
