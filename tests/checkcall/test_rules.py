"""The decision rules, value by value and for the whole call."""

from __future__ import annotations

import uuid

import pytest

from app.checkcall.policy import DEFAULT_POLICY_PATH, Risk, Sink, load_policy
from app.checkcall.provenance import Answer, Source, SourceKind
from app.checkcall.rules import Confirmation, Effect, ValueVerdict, decide, judge_value
from app.text.normalize import SinkValue, ValueKind

EMAIL = SinkValue("recipients", ValueKind.email, "x@y.io")
HOTEL = SinkValue("hotel", ValueKind.name, "casa azul")
HIGH_OUT = Sink(kind=ValueKind.email, risk=Risk.high, external=True)
LOW_OUT = Sink(kind=ValueKind.name, risk=Risk.low, external=True)
INTERNAL = Sink(kind=ValueKind.id, risk=Risk.low, external=False)
S = SourceKind


def _sources(*kinds: SourceKind) -> list[Source]:
    return [Source(kind=k, event_id=uuid.uuid4()) for k in kinds]


class TestJudgeValue:
    @pytest.mark.parametrize(
        ("value", "sink", "kinds", "code"),
        [
            (EMAIL, HIGH_OUT, [S.allowlist, S.injected_instruction], "value_allowlisted"),
            (EMAIL, HIGH_OUT, [S.user_utterance, S.injected_instruction], "value_user_stated"),
            (EMAIL, HIGH_OUT, [S.user_memory], "value_user_stated"),
            (EMAIL, HIGH_OUT, [S.injected_instruction], "value_from_injected_instruction"),
            (EMAIL, HIGH_OUT, [S.quarantined_memory], "value_from_quarantined_memory"),
            (
                EMAIL,
                HIGH_OUT,
                [S.quarantined_memory, S.injected_instruction],
                "value_from_quarantined_memory",
            ),
            (
                EMAIL,
                HIGH_OUT,
                [S.injected_instruction, S.untrusted_data],
                "value_also_in_injected_instruction",
            ),
            (EMAIL, HIGH_OUT, [S.requested_record], "value_from_untrusted_channel"),
            (EMAIL, HIGH_OUT, [S.pasted_content], "value_from_pasted_content"),
            (EMAIL, HIGH_OUT, [S.untrusted_memory], "value_from_untrusted_channel"),
            (EMAIL, HIGH_OUT, [], "value_unsourced_external"),
            (HOTEL, LOW_OUT, [S.requested_record], "value_from_requested_record"),
            (HOTEL, LOW_OUT, [S.requested_record, S.directive], "value_from_untrusted_channel"),
            (HOTEL, LOW_OUT, [S.untrusted_data], "value_from_untrusted_channel"),
            (HOTEL, LOW_OUT, [], "value_unsourced_external"),
            (HOTEL, INTERNAL, [], "value_internal"),
            (HOTEL, INTERNAL, [S.injected_instruction], "value_from_injected_instruction"),
        ],
    )
    def test_codes(self, value: SinkValue, sink: Sink, kinds: list[SourceKind], code: str) -> None:
        assert judge_value(value, sink, _sources(*kinds)) == code

    def test_content_entities_only_deny(self) -> None:
        name = SinkValue("title", ValueKind.name, "riverside view hotel", from_content=True)
        assert judge_value(name, None, _sources(S.injected_instruction)) == (
            "content_from_injected_instruction"
        )
        assert judge_value(name, None, _sources(S.injected_instruction, S.user_utterance)) is None
        assert judge_value(name, None, []) is None


class TestDecide:
    policy = load_policy(DEFAULT_POLICY_PATH)

    def _verdict(self, code: str, sink: Sink = HIGH_OUT) -> ValueVerdict:
        return ValueVerdict(EMAIL, sink, _sources(S.user_utterance), code)

    def _decide(
        self, tool: str, verdicts: list[ValueVerdict], **kw: object
    ) -> tuple[str, list[str]]:
        outcome = decide(
            self.policy.tool(tool),
            session_recorded=bool(kw.get("recorded", True)),
            verdicts=verdicts,
            unknown_tool_effect="ask",
            confirmation=kw.get("confirmation"),  # type: ignore[arg-type]
            unverified_bindings=[],
        )
        return outcome.decision.value, [r.code for r in outcome.reasons]

    def test_the_most_severe_value_decides(self) -> None:
        verdicts = [
            self._verdict("value_user_stated"),
            self._verdict("value_from_injected_instruction"),
        ]
        decision, reasons = self._decide("send_email", verdicts)
        assert decision == "deny"
        assert reasons[0] == "value_from_injected_instruction"

    def test_read_tools_are_allowed_even_without_a_session(self) -> None:
        assert self._decide("web_search", [], recorded=False) == ("allow", ["no_side_effect"])

    def test_a_missing_session_fails_closed(self) -> None:
        decision, reasons = self._decide(
            "send_email", [self._verdict("value_user_stated")], recorded=False
        )
        assert (decision, reasons) == ("deny", ["session_record_missing"])

    def test_unknown_tools_ask(self) -> None:
        assert self._decide("launch_rocket", []) == ("ask", ["tool_unknown"])

    def test_confirmation_turns_asks_into_allow_never_denies(self) -> None:
        yes = Confirmation(Answer.confirmed, uuid.uuid4(), uuid.uuid4())
        ask = [self._verdict("value_unsourced_external")]
        assert self._decide("send_email", ask, confirmation=yes) == (
            "allow",
            ["value_user_confirmed"],
        )
        deny = [self._verdict("value_from_injected_instruction")]
        assert self._decide("send_email", deny, confirmation=yes)[0] == "deny"
        no = Confirmation(Answer.declined, uuid.uuid4(), uuid.uuid4())
        assert self._decide("send_email", ask, confirmation=no)[0] == "deny"

    def test_a_side_effecting_call_with_nothing_to_trace(self) -> None:
        assert self._decide("create_file", []) == ("allow", ["no_sink_values"])

    def test_every_code_has_an_effect_and_a_rule(self) -> None:
        from app.checkcall.rules import RULES

        assert all(isinstance(effect, Effect) and rule for effect, rule in RULES.values())
