"""The six actions and the ledger rules of DESIGN §4, through real policies and Postgres."""

from __future__ import annotations

import math
from datetime import timedelta

from sqlalchemy import select

from app.domain.vocabulary import Origin, Timescale
from app.gate.service import QUESTION_BURST
from app.ledger.rules import QUARANTINE_LIFETIME, decayed_confidence
from app.ledger.service import evict_expired_quarantine
from app.models import Clarification, Decision, Edge, NodeLineage, NodeVersion
from tests.ledger.conftest import LedgerDriver


class TestAddAndLayers:
    def test_layer_follows_scope_and_timescale(self, driver: LedgerDriver) -> None:
        driver.say("answer_length", "short")
        driver.say("tone", "casual", scope="standups")
        driver.say("format", "table", timescale=Timescale.situational)
        layers = {n.subject: n.layer for n in driver.nodes("active")}
        assert layers == {"answer_length": "stable", "tone": "contextual", "format": "transient"}

    def test_decay_by_layer(self, driver: LedgerDriver) -> None:
        driver.say("answer_length", "short", confidence=1.0)
        node = driver.nodes("active")[0]
        later = node.last_corroborated_at + timedelta(days=10)
        assert math.isclose(decayed_confidence(node, later), math.exp(-0.01 * 10), rel_tol=1e-6)
        node.layer = "transient"
        assert math.isclose(decayed_confidence(node, later), math.exp(-0.5 * 10), rel_tol=1e-6)


class TestRetainCorroborates:
    def test_repeat_corroborates_instead_of_duplicating(self, driver: LedgerDriver) -> None:
        driver.say("answer_length", "short")
        changes = driver.say("answer_length", "short", after=timedelta(days=3))
        assert [c for _, c in changes] == ["corroborated"]
        nodes = driver.nodes()
        assert len(nodes) == 1
        assert nodes[0].last_corroborated_at == driver.clock
        relations = driver.db.scalars(select(NodeLineage.relation)).all()
        assert sorted(relations) == ["corroborated", "wrote"]


class TestReviseSupersedesWithHistory:
    def test_contradiction_supersedes(self, driver: LedgerDriver) -> None:
        driver.say("answer_length", "short")
        driver.say("answer_length", "detailed")
        assert driver.active() == [("answer_length", "detailed", "global")]
        old = driver.nodes("superseded")[0]
        assert old.valid_to == driver.clock
        assert old.retired_at is not None
        edge = driver.db.scalars(select(Edge).where(Edge.relation == "supersedes")).one()
        assert edge.dst_node_id == old.id
        changes = [v.change for v in driver.db.scalars(
            select(NodeVersion).where(NodeVersion.node_id == old.id)
            .order_by(NodeVersion.version))]
        assert changes == ["created", "superseded"]

    def test_as_of_answers_what_was_held(self, driver: LedgerDriver) -> None:
        from app.ledger.user_service import list_nodes

        driver.say("answer_length", "short")
        first_time = driver.clock
        driver.say("answer_length", "detailed", after=timedelta(days=2))
        from app.core.auth import Principal
        from app.models.enums import Role

        tenant_id = driver.nodes()[0].tenant_id
        principal = Principal(tenant_id=tenant_id, key_id=tenant_id, role=Role.admin)
        held_then = list_nodes(driver.db, principal, "u1", state=None, layer=None, scope=None,
                               as_of=first_time + timedelta(hours=1), limit=10, offset=0)
        held_now = list_nodes(driver.db, principal, "u1", state=None, layer=None, scope=None,
                              as_of=driver.clock + timedelta(hours=1), limit=10, offset=0)
        assert [n.value for n in held_then.nodes] == ["short"]
        assert [n.value for n in held_now.nodes] == ["detailed"]


class TestQuarantineAndPromotion:
    def test_untrusted_channel_is_quarantined_not_retrievable(self, driver: LedgerDriver) -> None:
        driver.say("answer_length", "short")
        driver.say("answer_length", "detailed", origin=Origin.tool_output)
        assert driver.active() == [("answer_length", "short", "global")]
        quarantined = driver.nodes("quarantined")[0]
        assert quarantined.quarantined_at == driver.clock
        assert quarantined.valid_from is None

    def test_repeat_injection_adds_evidence_not_nodes(self, driver: LedgerDriver) -> None:
        driver.say("tone", "playful", origin=Origin.retrieved_document)
        driver.say("tone", "playful", origin=Origin.retrieved_document)
        assert len(driver.nodes("quarantined")) == 1

    def test_user_corroboration_promotes(self, driver: LedgerDriver) -> None:
        driver.say("units", "metric", origin=Origin.shared_file)
        changes = driver.say("units", "metric", after=timedelta(days=2))
        assert [c for _, c in changes] == ["promoted"]
        node = driver.nodes("active")[0]
        assert node.layer == "stable"
        assert node.valid_from == driver.clock

    def test_eviction_after_about_fourteen_days(self, driver: LedgerDriver) -> None:
        driver.say("units", "imperial", origin=Origin.tool_output)
        node = driver.nodes("quarantined")[0]
        assert 14.0 < QUARANTINE_LIFETIME.total_seconds() / 86400 < 14.1
        assert evict_expired_quarantine(driver.db, node.user_id,
                                        driver.clock + timedelta(days=13)) == []
        evicted = evict_expired_quarantine(driver.db, node.user_id,
                                           driver.clock + timedelta(days=14, hours=6))
        assert evicted == [node.id]
        assert node.state == "evicted"

    def test_write_path_evicts_by_event_time(self, driver: LedgerDriver) -> None:
        driver.say("units", "imperial", origin=Origin.tool_output)
        from app.ledger.service import evict_expired_quarantine as evict

        driver.say("tone", "formal", after=timedelta(days=15))
        evict(driver.db, None, driver.clock)
        assert [n.subject for n in driver.nodes("evicted")] == ["units"]


class TestScope:
    def test_scope_action_narrows(self, driver: LedgerDriver) -> None:
        import uuid

        from app.domain.gate import GateDecision, GateInput
        from app.domain.vocabulary import Action
        from app.gate.policies import one_hot

        class ScopeFirst:
            name, version, layered, guard_stable = "scope_test", "1", True, False

            def decide(self, gate_input: GateInput) -> GateDecision:
                targets: list[uuid.UUID] = [r.node_id for r in gate_input.related
                                            if r.state == "active"]
                action = Action.scope if targets else Action.add
                return GateDecision(action, one_hot(action), 1.0, targets)

        from app.gate import policies

        policies.POLICIES["scope_test"] = ScopeFirst  # type: ignore[assignment]
        try:
            driver.policy_name = "scope_test"
            driver.say("answer_length", "detailed")
            driver.say("answer_length", "short", scope="standups")
        finally:
            del policies.POLICIES["scope_test"]
        assert sorted(driver.active()) == [("answer_length", "detailed", "global"),
                                           ("answer_length", "short", "standups")]
        edge = driver.db.scalars(select(Edge).where(Edge.relation == "narrows")).one()
        scoped = next(n for n in driver.nodes("active") if n.scope == "standups")
        assert edge.src_node_id == scoped.id
        assert scoped.layer == "contextual"


class TestStableOverwriteRule:
    def _guarded(self, driver: LedgerDriver, asks: bool = False) -> None:
        from app.gate import policies

        class Guarded(policies.StateMem):
            name = "guarded_test"
            layered = True
            guard_stable = True
            clarify = asks  # a policy that asks questions (the learned gates)

        policies.POLICIES["guarded_test"] = Guarded
        driver.policy_name = "guarded_test"

    def teardown_method(self) -> None:
        from app.gate import policies

        policies.POLICIES.pop("guarded_test", None)

    def _establish(self, driver: LedgerDriver) -> None:
        """"short" stated in two sessions: established, as overwriting would need."""
        driver.say("answer_length", "short", session="s0")
        driver.say("answer_length", "short", session="s9", after=timedelta(days=1))
        assert driver.active() == [("answer_length", "short", "global")]

    def test_provisional_stable_node_is_revised_by_one_statement(
        self, driver: LedgerDriver
    ) -> None:
        self._guarded(driver)
        driver.say("answer_length", "short")
        driver.say("answer_length", "detailed")
        assert driver.active() == [("answer_length", "detailed", "global")]
        decision = driver.db.get(Decision, driver.decisions[-1])
        assert decision is not None
        assert (decision.proposed_action, decision.action) == (None, "revise")  # as proposed

    def test_one_sentence_does_not_overwrite_established(self, driver: LedgerDriver) -> None:
        self._guarded(driver)
        self._establish(driver)
        driver.say("answer_length", "detailed")
        assert driver.active() == [("answer_length", "short", "global")]
        decision = driver.db.get(Decision, driver.decisions[-1])
        assert decision is not None
        assert (decision.proposed_action, decision.action) == ("revise", "quarantine")
        assert "stable_overwrite_needs_evidence" in decision.reasons

    def test_a_policy_that_asks_asks_the_user_instead(self, driver: LedgerDriver) -> None:
        from app.clarifications.schemas import ClarificationAnswer
        from app.clarifications.service import answer as resolve

        self._guarded(driver, asks=True)
        self._establish(driver)
        driver.say("answer_length", "detailed")
        assert driver.active() == [("answer_length", "short", "global")]
        decision = driver.db.get(Decision, driver.decisions[-1])
        assert decision is not None
        assert (decision.proposed_action, decision.action) == ("revise", "clarify")
        question = driver.db.scalars(select(Clarification)).one()
        assert question.question is not None
        assert "short" in question.question
        # The user's own "yes" is the evidence one sentence lacked.
        resolve(driver.db, question.tenant_id, question.id,
                ClarificationAnswer(answer="confirm"), "0" * 32)
        assert driver.active() == [("answer_length", "detailed", "global")]

    def test_a_guarded_revision_from_the_users_own_file_is_asked_about(
            self, driver: LedgerDriver) -> None:
        """The gate proposes the revision from a shared file (it reads it as the user's own):
        the rule still holds it, and asks, naming where it came from."""
        self._guarded(driver, asks=True)
        self._establish(driver)
        driver.say("answer_length", "detailed", origin=Origin.shared_file)
        assert driver.active() == [("answer_length", "short", "global")]
        decision = driver.db.get(Decision, driver.decisions[-1])
        assert decision is not None
        assert (decision.proposed_action, decision.action) == ("revise", "clarify")
        question = driver.db.scalars(select(Clarification)).one().question
        assert question is not None
        assert "A file you shared suggests" in question

    def test_untrusted_guarded_revisions_stay_held_without_questions(
            self, driver: LedgerDriver) -> None:
        self._guarded(driver)  # a policy that does not ask
        self._establish(driver)
        driver.say("answer_length", "detailed", origin=Origin.shared_file)
        decision = driver.db.get(Decision, driver.decisions[-1])
        assert decision is not None
        assert (decision.proposed_action, decision.action) == ("revise", "quarantine")
        assert driver.db.scalars(select(Clarification)).all() == []

    def test_a_spent_question_budget_holds_and_defers_the_question(
            self, driver: LedgerDriver) -> None:
        self._guarded(driver, asks=True)
        self._establish(driver)
        driver.say("answer_length", "detailed")  # asks
        driver.say("answer_length", "detailed")  # asks again (two in one session: not enough)
        assert len(driver.db.scalars(select(Clarification)).all()) == QUESTION_BURST == 2
        driver.say("tone", "formal", session="s0")
        driver.say("tone", "formal", session="s9", after=timedelta(days=1))  # established
        driver.say("tone", "casual", session="s9")  # would ask: the budget is spent
        decision = driver.db.get(Decision, driver.decisions[-1])
        assert decision is not None
        assert (decision.proposed_action, decision.action) == ("revise", "quarantine")
        questions = driver.db.scalars(select(Clarification)).all()
        assert sorted(q.status for q in questions) == ["deferred", "pending", "pending"]
        deferred = next(q for q in questions if q.status == "deferred")
        assert deferred.asked_event_id is None  # not asked yet: nothing counts against budget
        assert deferred.question is not None
        assert "casual" in deferred.question.lower()

    def test_two_sessions_overwrite(self, driver: LedgerDriver) -> None:
        self._guarded(driver)
        self._establish(driver)
        driver.say("answer_length", "detailed", session="s1")
        driver.say("answer_length", "detailed", session="s2", after=timedelta(days=1))
        assert driver.active() == [("answer_length", "detailed", "global")]

    def test_three_in_one_session_overwrite(self, driver: LedgerDriver) -> None:
        self._guarded(driver)
        self._establish(driver)
        for _ in range(2):
            driver.say("answer_length", "detailed", session="s1")
        assert driver.active() == [("answer_length", "short", "global")]
        driver.say("answer_length", "detailed", session="s1")
        assert driver.active() == [("answer_length", "detailed", "global")]

    def test_untrusted_evidence_never_counts(self, driver: LedgerDriver) -> None:
        self._guarded(driver)
        self._establish(driver)
        for session in ("s1", "s2", "s3"):
            driver.say("answer_length", "detailed", origin=Origin.shared_file, session=session)
        assert driver.active() == [("answer_length", "short", "global")]

    def test_untrusted_statements_never_establish(self, driver: LedgerDriver) -> None:
        self._guarded(driver)
        driver.say("answer_length", "short", origin=Origin.shared_file, session="s0")
        driver.say("answer_length", "short", origin=Origin.shared_file, session="s9",
                   after=timedelta(days=1))
        driver.say("answer_length", "detailed", session="s1")
        assert driver.active() == [("answer_length", "detailed", "global")]


class TestClarify:
    def test_clarify_quarantines_and_asks(self, driver: LedgerDriver) -> None:
        from app.domain.gate import GateDecision, GateInput
        from app.domain.vocabulary import ACTIONS, Action
        from app.gate import policies

        class Unsure:
            name, version, layered, guard_stable = "unsure_test", "1", True, False

            def decide(self, gate_input: GateInput) -> GateDecision:
                return GateDecision(Action.clarify, dict.fromkeys(ACTIONS, 1 / 6), 0.5, [])

        policies.POLICIES["unsure_test"] = Unsure  # type: ignore[assignment]
        try:
            driver.say("answer_length", "short")
            driver.policy_name = "unsure_test"
            driver.say("answer_length", "detailed")
        finally:
            del policies.POLICIES["unsure_test"]
        question = driver.db.scalars(select(Clarification)).one()
        assert question.status == "pending"
        assert question.question is not None
        assert "Prefers detailed answer_length" in question.question
        assert driver.db.get(Decision, driver.decisions[-1]).entropy > 1.7  # type: ignore[union-attr]
        assert driver.active() == [("answer_length", "short", "global")]


class TestStalePendingEventsAreRequeued:
    def test_requeue_processes_a_lost_event(self, db: object) -> None:
        from datetime import UTC, datetime

        from sqlalchemy.orm import Session

        from app import pipeline
        from app.core.auth import get_or_create_tenant
        from app.events import repository as events_repository
        from app.models import Event

        assert isinstance(db, Session)
        tenant = get_or_create_tenant(db, "requeue")
        user = events_repository.get_or_create_user(db, tenant.id, "lost")
        session = events_repository.get_or_create_session(db, user, "s")
        event = Event(tenant_id=tenant.id, user_id=user.id, session_id=session.id,
                      seq=events_repository.next_seq(db, user.id), origin="user",
                      text="I prefer short answers.", text_sha256="0" * 64,
                      occurred_at=datetime(2026, 1, 1, tzinfo=UTC), trace_id="a" * 32,
                      received_at=datetime(2026, 1, 1, tzinfo=UTC))
        db.add(event)
        db.commit()
        assert pipeline.requeue_stale_events() == 1
        db.expire_all()
        assert db.get(Event, event.id).status == "processed"  # type: ignore[union-attr]
        assert pipeline.requeue_stale_events() == 0


class TestAPoisonEventFailsFast:
    def test_it_fails_on_the_first_attempt_and_later_events_go_on(self, db: object) -> None:
        """An event processing cannot read (here a year-1 timestamp stored before the API
        bounded timestamps) is failed at once; the user's later event is processed in the
        same task instead of waiting behind retries."""
        from datetime import UTC, datetime

        from sqlalchemy.orm import Session

        from app import pipeline
        from app.core.auth import get_or_create_tenant
        from app.events import repository as events_repository
        from app.models import Event

        assert isinstance(db, Session)
        tenant = get_or_create_tenant(db, "poison")
        user = events_repository.get_or_create_user(db, tenant.id, "poisoned")
        session = events_repository.get_or_create_session(db, user, "s")

        def event(at: datetime, text: str) -> Event:
            row = Event(tenant_id=tenant.id, user_id=user.id, session_id=session.id,
                        seq=events_repository.next_seq(db, user.id), origin="user",
                        text=text, text_sha256="0" * 64, occurred_at=at, trace_id="b" * 32)
            db.add(row)
            db.flush()
            return row

        poison = event(datetime(1, 1, 1, tzinfo=UTC), "I prefer short answers.")
        later = event(datetime(2026, 1, 1, tzinfo=UTC), "I prefer detailed answers.")
        db.commit()
        outcomes = pipeline.process_event(db, later.id)
        db.commit()
        db.expire_all()
        assert db.get(Event, poison.id).status == "failed"  # type: ignore[union-attr]
        assert db.get(Event, poison.id).error_code == "processing_error"  # type: ignore[union-attr]
        assert db.get(Event, later.id).status == "processed"  # type: ignore[union-attr]
        assert [o.event_id for o in outcomes] == [later.id]
