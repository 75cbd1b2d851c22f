"""The question the client composes from check-call's reasons when the decision is ask."""

from __future__ import annotations

import uuid
from typing import Any

from capture_client import compose_question
from capture_client.models import CheckCallResponse


def _check(decision: str, reasons: list[dict[str, Any]],
           provenance: dict[str, Any] | None = None) -> CheckCallResponse:
    return CheckCallResponse.model_validate({
        "decision": decision, "reasons": reasons, "arg_provenance": provenance or {},
        "features": {}, "triage_score": 0.1, "side_effect": "external_send",
        "tool_source": "policy",
        "policy_version": "1", "decision_id": str(uuid.uuid4()), "trace_id": "t" * 32,
    })


def _value(index: int, verdict: str) -> dict[str, Any]:
    return {"index": index, "kind": "email", "value_sha256": "0" * 64, "in_content": False,
            "external": True, "verdict": verdict, "code": None, "sources": []}


def test_names_only_the_values_that_asked() -> None:
    check = _check("ask", [
        {"code": "value_from_untrusted_channel", "effect": "ask", "argument": "recipients",
         "rule": "R7", "evidence": []},
        {"code": "value_user_stated", "effect": "allow", "argument": "recipients",
         "rule": "R2", "evidence": []},
    ], {"recipients": [_value(0, "allow"), _value(1, "ask")]})
    question = compose_question(
        "send_email", {"recipients": ["dana@reyes-cpa.example", "info@casa-azul.example"]}, check)
    assert question == (
        "Before I run send_email: recipients (info@casa-azul.example) came from a tool output, "
        "document or shared file, not from you. Should I go ahead?"
    )


def test_call_level_and_unknown_codes() -> None:
    check = _check("ask", [
        {"code": "tool_unknown", "effect": "ask", "rule": "unknown", "evidence": []},
        {"code": "some_new_code", "effect": "ask", "argument": "to",
         "rule": "a rule the client does not know yet", "evidence": []},
    ])
    question = compose_question("post_message", {"to": "x"}, check)
    assert "post_message is not a tool I have a policy for" in question
    assert "to: a rule the client does not know yet" in question
