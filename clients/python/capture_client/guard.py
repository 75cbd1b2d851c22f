"""The answer to "may the agent run this tool call?", and the question to put to the user when
Capture asks for confirmation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from capture_client.models import (
    ArgBinding,
    CheckCallRequest,
    CheckCallResponse,
    Decision,
    ReasonOut,
    ToolDeclaration,
)

# Why a value needs the user's confirmation, in words a user reads (docs/checkcall.md).
_VALUE_ASKS = {
    "value_from_untrusted_channel": (
        "came from a tool output, document or shared file, not from you"
    ),
    "value_from_pasted_content": "comes only from text you pasted, which someone else wrote",
    "value_unsourced_external": "does not appear anywhere you mentioned",
    "value_also_in_injected_instruction": (
        "also appears in an instruction hidden in content you did not write"
    ),
}
_CALL_ASKS = {
    "tool_unknown": "{tool} is not a tool I have a policy for",
    "tool_requires_confirmation": "{tool} always needs your confirmation",
    "too_many_values": "the call holds more values than can be checked",
    "action_from_injected_instruction": (
        "{tool} was asked for by content you did not write (a tool output, document or "
        "shared file), not by you"
    ),
}
_MAX_SHOWN = 3
_MAX_CHARS = 60


@dataclass(frozen=True)
class GuardResult:
    """check-call's decision on one tool call.

    `allowed`: run it. `ask`: the question to put to the user (None unless the decision is
    ask); write the reply as a user event and check the same call again (`Capture.confirm`
    does both). `denied`: do not run it; `reasons` says why."""

    tool_name: str
    args: Mapping[str, Any]
    call_id: str
    user_id: str
    session_id: str
    check: CheckCallResponse
    arg_bindings: Mapping[str, list[ArgBinding]] | None = field(default=None)
    declaration: ToolDeclaration | None = field(default=None)

    @classmethod
    def from_check(cls, request: CheckCallRequest, check: CheckCallResponse) -> GuardResult:
        return cls(
            tool_name=request.tool.name,
            args=request.tool.args,
            call_id=request.call_id or "",
            user_id=request.user_id,
            session_id=request.session_id,
            check=check,
            arg_bindings=request.arg_bindings,
            declaration=request.tool.declaration,
        )

    @property
    def decision(self) -> Decision:
        return self.check.decision

    @property
    def allowed(self) -> bool:
        return self.check.decision == "allow"

    @property
    def denied(self) -> bool:
        return self.check.decision == "deny"

    @property
    def ask(self) -> str | None:
        if self.check.decision != "ask":
            return None
        return compose_question(self.tool_name, self.args, self.check)

    @property
    def reasons(self) -> list[ReasonOut]:
        """The reasons that carry the decision (most severe first)."""
        return [r for r in self.check.reasons if r.effect == self.check.decision]

    @property
    def reason_codes(self) -> list[str]:
        return [r.code for r in self.reasons]


def _shown(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = str(value)
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 1] + "…"


def _values(args: Mapping[str, Any], argument: str, check: CheckCallResponse) -> list[str]:
    """The argument's values that need confirmation, as the agent passed them (the service
    never echoes values back: it returns their positions)."""
    value = args.get(argument)
    if isinstance(value, list):
        asked = [
            p.index
            for p in check.arg_provenance.get(argument, [])
            if p.verdict == "ask" and not p.in_content and 0 <= p.index < len(value)
        ]
        picked = [value[i] for i in asked] if asked else value
    else:
        picked = [value]
    shown = [s for s in map(_shown, picked) if s is not None]
    return shown[:_MAX_SHOWN]


def _clause(reason: ReasonOut, tool_name: str, args: Mapping[str, Any],
            check: CheckCallResponse) -> str:
    if reason.argument is not None and reason.code in _VALUE_ASKS:
        values = _values(args, reason.argument, check)
        named = f"{reason.argument} ({', '.join(values)})" if values else reason.argument
        return f"{named} {_VALUE_ASKS[reason.code]}"
    if reason.code in _CALL_ASKS:
        return _CALL_ASKS[reason.code].format(tool=tool_name)
    subject = f"{reason.argument}: " if reason.argument else ""
    return subject + reason.rule


def compose_question(tool_name: str, args: Mapping[str, Any], check: CheckCallResponse) -> str:
    """A yes/no question for the user, from the call and the reasons that asked."""
    clauses: list[str] = []
    for reason in check.reasons:
        if reason.effect != "ask":
            continue
        clause = _clause(reason, tool_name, args, check)
        if clause not in clauses:
            clauses.append(clause)
    why = "; ".join(clauses) if clauses else "it needs your confirmation"
    return f"Before I run {tool_name}: {why}. Should I go ahead?"
