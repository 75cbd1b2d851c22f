"""Where adherence goes: each lost changepoint gets the first cause that applies, split by
channel, and changepoints a method adheres to are not counted as lost."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest

from bench.common.records import Candidate, EpisodeOutcome, EventRecord, ProbeRecord
from bench.prefguard.adherence_losses import cause, losses

POOL = [Candidate("Sure.", None), Candidate("In prose.", {"format": "prose"}),
        Candidate("- bullets", {"format": "bullets"})]
GENERIC, PROSE, BULLETS = range(3)


def changepoint(index: int, origin: str = "user", **kw: Any) -> EventRecord:
    return EventRecord(index=index, origin=origin, label="genuine_preference",
                       oracle_action="revise", changepoint=True, dimension="format",
                       value="bullets", **kw)


def probe(after: int, selected: int) -> ProbeRecord:
    return ProbeRecord(after_event=after, kind="final", dimension="format", scope="global",
                       true_state={"global": {"format": "bullets"}, "scoped": {}},
                       candidates=list(POOL), selected=selected, unpersonalized=GENERIC)


@pytest.mark.parametrize(
    ("actions", "changes", "wrong", "expected"),
    [
        ([], [], 0, "not_read"),
        (["clarify"], ["quarantined", "evicted"], 1, "answer_in_error"),
        (["clarify"], ["quarantined", "evicted"], 0, "answered_no"),
        # A deferred question (budget spent): held at the event, rejected later.
        (["quarantine"], ["quarantined", "evicted"], 0, "answered_no"),
        (["clarify"], ["quarantined"], 0, "asked_waiting"),
        (["retain"], [], 0, "retained"),
        (["quarantine"], ["quarantined"], 0, "held"),
        (["revise"], ["created", "superseded"], 0, "admitted"),
        (["clarify"], ["quarantined", "user_confirmed"], 0, "admitted"),
    ],
)
def test_the_first_cause_that_applies(actions: list[str], changes: list[str], wrong: int,
                                      expected: str) -> None:
    assert cause(changepoint(0, actions=actions, changes=changes,
                             wrong_answers=wrong)) == expected


def test_counts_only_lost_changepoints_by_channel() -> None:
    events = [
        changepoint(0, actions=["revise"], changes=["created"]),  # adhered at probe 0
        changepoint(1, origin="shared_file", actions=["quarantine"], changes=["quarantined"]),
        changepoint(2, actions=["clarify"], changes=["quarantined", "evicted"],
                    wrong_answers=1),
    ]
    ep = EpisodeOutcome("e", "u", "T1", events, [probe(0, BULLETS), probe(1, PROSE),
                                                 probe(2, GENERIC)])
    assert losses([ep]) == {"changepoints": 3, "lost": 2, "untrusted:held": 1,
                            "user:answer_in_error": 1}


class TestWhyHeld:
    """A changepoint held in quarantine without a question is told apart by why: the
    stable-overwrite rule held a write the policy proposed, the question budget was spent, or
    the policy itself chose to hold it."""

    def test_the_stable_overwrite_rule(self) -> None:
        event = changepoint(0, actions=["quarantine"], changes=["quarantined"],
                            proposed=["revise"], reasons=["most_probable"])
        assert cause(event) == "guarded"

    def test_a_spent_question_budget(self) -> None:
        event = changepoint(0, actions=["quarantine"], changes=["quarantined"],
                            proposed=[""], reasons=["question_budget_spent"])
        assert cause(event) == "budget_spent"

    def test_the_policy_s_own_hold(self) -> None:
        event = changepoint(0, actions=["quarantine"], changes=["quarantined"],
                            proposed=[""], reasons=["most_probable"])
        assert cause(event) == "held"

    def test_outcomes_recorded_before_proposals_were(self) -> None:
        # Outcome files written before `proposed` was recorded still load and score.
        old = asdict(changepoint(0, actions=["quarantine"], changes=["quarantined"],
                                 reasons=["most_probable"]))
        del old["proposed"]
        [event] = EpisodeOutcome.from_json({"episode_id": "e", "user_id": "u", "track": "T1",
                                            "events": [old], "probes": []}).events
        assert event.proposed == []
        assert cause(event) == "held"
