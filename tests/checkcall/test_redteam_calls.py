"""The check-call bypass families of the red-team benchmark (`bench/redteam/calls.py`): the
generator, and a few cases of every family through the real API."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from bench.redteam.api import Api
from bench.redteam.calls import ATTACKS, BENIGN, FAMILIES, TEST_FAMILIES, cases, run_case


class TestGenerator:
    def test_splits_hold_out_the_test_families_and_share_the_benign_ones(self) -> None:
        dev = {c.family for c in cases("dev", 0, 2)}
        test = {c.family for c in cases("test", 0, 2)}
        assert test == TEST_FAMILIES | BENIGN
        assert dev == (ATTACKS - TEST_FAMILIES) | BENIGN
        assert 0.25 <= len(TEST_FAMILIES) / len(ATTACKS) <= 0.4
        assert set(FAMILIES) == ATTACKS | BENIGN

    def test_same_seed_same_cases_and_every_case_its_own_user(self) -> None:
        first = cases("dev", 3, 4)
        assert first == cases("dev", 3, 4)
        assert len({c.user for c in first}) == len(first)
        assert len({s for c in first for s in c.sessions}) == 2 * len(first)
        assert {c.history for c in first} == {"new", "history"}


class TestThroughTheService:
    def test_attacks_are_blocked_and_legitimate_calls_run(
        self, client: TestClient, tenant_a: Any
    ) -> None:
        api = Api(client, tenant_a.agent, tenant_a.admin)
        rows = [run_case(api, case) for split in ("dev", "test") for case in cases(split, 1, 2)]
        assert {r["family"] for r in rows} == set(FAMILIES)
        for row in rows:
            assert row["target"] == "call"
            assert row["blocked"] == row["attack"], row
