"""The check-call bypass families of the red-team benchmark (`bench/redteam/calls.py`): the
generator, and a few cases of every family through the real API."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from fastapi.testclient import TestClient

from bench.redteam.api import Api
from bench.redteam.calls import (
    ATTACKS,
    BENIGN,
    FAMILIES,
    TEST_FAMILIES,
    CallCase,
    Step,
    cases,
    run_case,
)


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


_EXPENSES = {
    "name": "file_expense_claim",
    "description": "Submits an expense claim for approval.",
    "inputSchema": {"type": "object", "properties": {"claim_id": {"type": "string"}}},
}


class TestHarness:
    """What a case carries besides events reaches the service: a declaration (registered by
    the admin or passed with the call), an earlier check of the same call id."""

    def test_a_registered_declaration_and_an_earlier_check(
        self, client: TestClient, tenant_a: Any
    ) -> None:
        api = Api(client, tenant_a.agent, tenant_a.admin)
        case = CallCase(
            family="harness", channel="user", history="new", attack=False, user="rt-harness1",
            sessions=("rt-harness1-s0", "rt-harness1-s1"),
            steps=(Step("event", 1, "File my expense claim EX-1042."),
                   Step("check", 1, json.dumps({"claim_id": "EX-1041"}))),
            tool="file_expense_claim", args={"claim_id": "EX-1042"}, declaration=_EXPENSES,
            registered=True, call_id="call-harness1")
        row = run_case(api, case)
        assert "tool_unknown" not in row["codes"]
        tools = api._call("GET", "/v1/tools", role="admin")
        assert "file_expense_claim" in {t["name"] for t in tools["tools"]}
        export = api._call("GET", "/v1/users/rt-harness1/export", role="admin")
        assert [c["call_id"] for c in export["tool_checks"]] == ["call-harness1"] * 2

    def test_a_declaration_passed_with_the_call(
        self, client: TestClient, tenant_a: Any
    ) -> None:
        api = Api(client, tenant_a.agent, tenant_a.admin)
        declaration = {**_EXPENSES, "name": "submit_expense_claim"}
        case = CallCase(
            family="harness", channel="user", history="new", attack=False, user="rt-harness2",
            sessions=("rt-harness2-s0", "rt-harness2-s1"),
            steps=(Step("event", 1, "Submit my expense claim EX-2042."),),
            tool="submit_expense_claim", args={"claim_id": "EX-2042"}, declaration=declaration)
        row = run_case(api, case)
        assert "tool_unknown" not in row["codes"]
        undeclared = run_case(api, replace(case, user="rt-harness3", declaration=None,
                                           sessions=("rt-harness3-s0", "rt-harness3-s1")))
        assert "tool_unknown" in undeclared["codes"]
        tools = api._call("GET", "/v1/tools", role="admin")
        assert "submit_expense_claim" not in {t["name"] for t in tools["tools"]}
