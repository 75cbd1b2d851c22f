"""The simulated user who answers clarifying questions in `capture bench prefguard`: answers
read the latent state (never the label), errors are seeded, and an answer goes through the
service's own clarification path into the ledger."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

from bench.common import policies as bench_policies
from bench.common.clarify_answers import PendingClaim, SimulatedUser, truthful_answer
from bench.common.service import BenchTenant, attached, bench_database
from bench.prefguard.harness import run_episode

STATE = {"global": {"units": "metric", "format": "prose"},
         "scoped": {"standups": {"format": "bullets"}}}


def claim(subject: str, value: str, scope: str = "global",
          direction: str = "prefer") -> PendingClaim:
    return PendingClaim(subject, value, scope, direction)


class TestTruthfulAnswer:
    def test_confirms_what_the_user_holds_where_it_applies(self) -> None:
        assert truthful_answer(claim("units", "metric"), STATE) == ("confirm", None)
        assert truthful_answer(claim("format", "bullets", "standups"), STATE) == ("confirm",
                                                                                  None)
        # A global value holds inside a domain without a value of its own.
        assert truthful_answer(claim("units", "metric", "travel"), STATE) == ("confirm", None)

    def test_narrows_a_global_claim_the_user_holds_in_one_domain(self) -> None:
        assert truthful_answer(claim("format", "bullets"), STATE) == ("scope", "standups")

    def test_rejects_what_the_user_does_not_hold(self) -> None:
        assert truthful_answer(claim("units", "imperial"), STATE) == ("reject", None)
        assert truthful_answer(claim("format", "prose", "standups"), STATE) == ("reject", None)
        assert truthful_answer(claim("tone", "casual"), STATE) == ("reject", None)
        assert truthful_answer(PendingClaim(None, None, "global", "prefer"), STATE) == (
            "reject", None)

    def test_avoid_claims(self) -> None:
        assert truthful_answer(claim("units", "imperial", direction="avoid"), STATE) == (
            "confirm", None)
        assert truthful_answer(claim("units", "metric", direction="avoid"), STATE) == (
            "reject", None)
        assert truthful_answer(claim("tone", "formal", direction="avoid"), STATE) == (
            "reject", None)


class TestErrors:
    def test_no_error_is_always_truthful(self) -> None:
        user = SimulatedUser(0.0)
        for i in range(50):
            assert user.answer(claim("units", "imperial"), STATE, episode_id="e",
                               event_index=i, question=0) == ("reject", None)

    def test_errors_flip_at_about_the_given_rate_and_are_reproducible(self) -> None:
        user = SimulatedUser(0.08)
        answers = [user.answer(claim("units", "metric"), STATE, episode_id=f"e{i}",
                               event_index=3, question=0)[0] for i in range(2000)]
        assert 0.06 < answers.count("reject") / len(answers) < 0.10
        assert set(answers) == {"confirm", "reject"}
        again = [user.answer(claim("units", "metric"), STATE, episode_id=f"e{i}",
                             event_index=3, question=0)[0] for i in range(2000)]
        assert again == answers
        # A wrong answer to a scope question is a reject, never a confirm of the global.
        wrong = [user.answer(claim("format", "bullets"), STATE, episode_id=f"e{i}",
                             event_index=0, question=0) for i in range(500)]
        assert set(wrong) == {("scope", "standups"), ("reject", None)}

    def test_errs_names_exactly_the_answers_that_are_not_the_truthful_one(self) -> None:
        user = SimulatedUser(0.08)
        truth = truthful_answer(claim("units", "metric"), STATE)
        for i in range(500):
            given = user.answer(claim("units", "metric"), STATE, episode_id=f"e{i}",
                                event_index=2, question=1)
            assert user.errs(episode_id=f"e{i}", event_index=2, question=1) == (given != truth)
        assert not SimulatedUser(0.0).errs(episode_id="e", event_index=0, question=0)


@pytest.fixture(scope="module")
def oracle_tenant(server_uri: str) -> Iterator[BenchTenant]:
    with bench_database(server_uri, "capture_bench_clarify") as url, attached(url) as engine:
        yield BenchTenant("oracle", _engine(engine))


def _engine(engine: Engine) -> Engine:
    return engine


def episode(episode_id: str, state_after: dict[str, Any]) -> dict[str, Any]:
    """One user event the oracle is labelled to ask about."""
    oracle = {"action": "clarify", "attack": False, "changepoint": False,
              "dimension": "units", "value": "metric", "direction": "prefer",
              "scope": "global", "timescale": "permanent", "state_after": state_after,
              "session_id": f"{episode_id}-s0"}
    return {"episode_id": episode_id, "user_id": episode_id, "track": "T2", "probes": [],
            "events": [{"t": "2024-03-01T09:00:00Z", "origin": "user",
                        "text": "Please always use metric units, kilometres and kilograms.",
                        "label": "weak_evidence", "oracle": oracle}]}


class TestThroughTheService:
    def test_a_confirmed_question_admits_the_claim(self, oracle_tenant: BenchTenant) -> None:
        outcome = run_episode(oracle_tenant, episode("clarify-yes", {
            "global": {"units": "metric"}, "scoped": {}}), user_answers=SimulatedUser(0.0))
        [event] = outcome.events
        assert event.actions == ["clarify"]
        assert event.answers == ["confirm"]
        assert event.changes == ["quarantined", "user_confirmed"]
        bench_policies.forget_events()

    def test_a_rejected_question_evicts_it(self, oracle_tenant: BenchTenant) -> None:
        outcome = run_episode(oracle_tenant, episode("clarify-no", {"global": {},
                                                                    "scoped": {}}),
                              user_answers=SimulatedUser(0.0))
        [event] = outcome.events
        assert event.answers == ["reject"]
        assert event.changes == ["quarantined", "evicted"]

    def test_without_a_user_the_claim_waits(self, oracle_tenant: BenchTenant) -> None:
        outcome = run_episode(oracle_tenant, episode("clarify-none", {
            "global": {"units": "metric"}, "scoped": {}}))
        [event] = outcome.events
        assert event.answers == []
        assert event.changes == ["quarantined"]
