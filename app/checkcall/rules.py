"""The decision rules: each sink value's sources decide its verdict; the most severe verdict
decides the call. Trajectory features are not an input here (they never decide).

Rules, in the order they are tried for one sink value (docs/checkcall.md has examples):

  R1 allow  value_allowlisted            the operator's allowlist covers it
  R2 allow  value_user_stated            the user's own words (any session) or a memory the
                                         user's channel wrote
  R3 deny   value_from_injected_instruction / value_from_quarantined_memory
                                         every source is an injected instruction or a
                                         quarantined node (a correction aside)
  R4 ask    value_also_in_injected_instruction
                                         an injected instruction supplied it as well
  R5 allow  value_from_requested_record  a low-risk sink, every source a data record a
                                         non-user channel returned in this session after
                                         the user's request (a hotel from search results)
  R6 ask    value_from_agent_correction  an external sink, held by a memory only through a
                                         correction (PATCH), not in the user's own words
  R6 ask    value_from_pasted_content    an external sink, from text the user pasted only
  R6 ask    value_user_questioned        an external sink the user's own words only asked
                                         about or warned against
  R7 ask    value_from_untrusted_channel an external sink, from non-user channels only
  R8 ask    value_unsourced_external     an external sink, found nowhere
  R9 allow  value_internal               a sink that does not leave the user
  R10 ask   value_names_another_party    an id picked from a record whose line names a
                                         party (name and address) that this session's
                                         records, or the user, give with another address
                                         (a look-alike sender); replaces R5 or R9
Content entities (names, addresses inside a body or title) deny by R3
(`content_from_injected_instruction`, `content_from_quarantined_memory`); an address
(e-mail, IBAN, URL) in the content of an external send that only a non-user channel
supplied, outside the records the user asked for, asks (`content_from_untrusted_channel`).

Call-level rules:
  C1 allow  no_side_effect               a read-only tool
  C2 deny   session_record_missing       a side-effecting call in a session with no record
  C3 ask    tool_unknown                 a tool the policy does not know (policy default)
  C4 ask    tool_requires_confirmation   the policy says always ask
  C5 deny   user_declined                the user said no to this exact call
  C6 allow  value_user_confirmed         after an ask, the user said yes to this exact call:
                                         its asks become allows (never its denies)
  C7 allow  no_sink_values               a side-effecting call with nothing to trace
  C8 ask    too_many_values              more values than are traced (or nested too deep)
  C9 ask    action_from_injected_instruction
                                         a side-effecting call whose values block nothing,
                                         whose action an untrusted channel of this session
                                         asked for (an injected instruction, an
                                         imperative, or the change worded as due, in
                                         content the user did not write),
                                         and the user did not
  C10 ask   action_not_requested         a side-effecting call whose values block nothing,
                                         that text the user did not write in this session
                                         speaks of (the action's object, or a value of the
                                         call), while the user's own words never speak of
                                         the action nor name its values
  info      binding_unverified           an arg_binding the record does not bear out
  info      declaration_over_pattern     the policy file matched the tool by a pattern only;
                                         its declaration made the tool stricter (this
                                         argument a sink, or its side effect)
  info      declared_destination         the policy file names the tool as a read; its
                                         declaration names this argument a destination
  info      declared_delivery            the declaration's words (the tool's description
                                         says it sends its output on, or this argument's
                                         says it receives it) make this argument a sink
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from app.checkcall.policy import Risk, SideEffect, Sink, ToolSpec
from app.checkcall.provenance import TAINTED, TRUSTED, Answer, Source, SourceKind
from app.text.normalize import SinkValue, ValueKind


class Effect(StrEnum):
    allow = "allow"
    ask = "ask"
    deny = "deny"
    info = "info"


SEVERITY = {Effect.info: 0, Effect.allow: 1, Effect.ask: 2, Effect.deny: 3}

RULES: dict[str, tuple[Effect, str]] = {
    "value_allowlisted": (Effect.allow, "R1: the operator's allowlist covers the value"),
    "value_user_stated": (
        Effect.allow,
        "R2: the user stated the value (own words, or a memory the user's channel wrote)",
    ),
    "value_from_injected_instruction": (
        Effect.deny,
        "R3: the value comes only from an instruction injected into content the user did not write",
    ),
    "value_from_quarantined_memory": (
        Effect.deny,
        "R3: the value comes only from content the gate quarantined (or an injected instruction)",
    ),
    "value_also_in_injected_instruction": (
        Effect.ask,
        "R4: an injected instruction also supplied the value",
    ),
    "value_from_requested_record": (
        Effect.allow,
        "R5: a low-risk sink filled from a data record returned for the user's request",
    ),
    "value_from_agent_correction": (
        Effect.ask,
        "R6: the value goes out and a memory holds it only through a correction made with an "
        "API key, not in the user's own words",
    ),
    "value_from_pasted_content": (
        Effect.ask,
        "R6: the value goes out and comes only from text the user pasted (a third party wrote it)",
    ),
    "value_user_questioned": (
        Effect.ask,
        "R6: the value goes out and the user named it only to ask about it or warn against it",
    ),
    "value_from_untrusted_channel": (
        Effect.ask,
        "R7: the value goes out and comes only from a non-user channel",
    ),
    "value_unsourced_external": (
        Effect.ask,
        "R8: the value goes out and appears nowhere the user could have meant",
    ),
    "value_internal": (Effect.allow, "R9: the sink does not leave the user"),
    "value_names_another_party": (
        Effect.ask,
        "R10: the id's record names a party whose name also comes with another address in "
        "this session's records or the user's words",
    ),
    "content_from_injected_instruction": (
        Effect.deny,
        "R3: content names a value found only in an injected instruction",
    ),
    "content_from_quarantined_memory": (
        Effect.deny,
        "R3: content names a value found only in quarantined content",
    ),
    "content_from_untrusted_channel": (
        Effect.ask,
        "R7: content sent out carries an address only a non-user channel supplied",
    ),
    "no_side_effect": (Effect.allow, "C1: the tool has no side effect"),
    "session_record_missing": (
        Effect.deny,
        "C2: no record of this session; side-effecting calls fail closed",
    ),
    "tool_unknown": (Effect.ask, "C3: the tool policy does not know this tool"),
    "tool_requires_confirmation": (Effect.ask, "C4: the tool policy always asks for this tool"),
    "user_declined": (Effect.deny, "C5: the user declined this exact call"),
    "value_user_confirmed": (
        Effect.allow,
        "C6: the user confirmed this exact call after it was asked",
    ),
    "no_sink_values": (Effect.allow, "C7: the call has no sink value to trace"),
    "too_many_values": (
        Effect.ask,
        "C8: the argument holds more values than are traced (or nests too deep); the rest "
        "went unchecked",
    ),
    "action_from_injected_instruction": (
        Effect.ask,
        "C9: an untrusted channel of this session asked for this action and the user did not",
    ),
    "action_not_requested": (
        Effect.ask,
        "C10: text the user did not write speaks of this action and the user's own words "
        "never asked for it",
    ),
    "binding_unverified": (
        Effect.info,
        "the declared binding's content does not contain the value",
    ),
    "declaration_over_pattern": (
        Effect.info,
        "the policy file names the tool only by a pattern, a guess from its name; its "
        "declaration shows more (this argument a sink, or a side effect), and the stricter "
        "of the two applies",
    ),
    "declared_destination": (
        Effect.info,
        "the policy file names the tool as a read; its declaration names this argument as "
        "where the tool delivers, so it is traced as a sink",
    ),
    "declared_delivery": (
        Effect.info,
        "the tool's declaration says in words that the tool delivers its output to this "
        "argument (its own description, or the tool's), so it is traced as a high-risk sink",
    ),
}


@dataclass(frozen=True, slots=True)
class Evidence:
    kind: str  # node | event | retrieval | tool_check
    id: uuid.UUID


@dataclass(slots=True)
class Reason:
    code: str
    argument: str | None = None
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def effect(self) -> Effect:
        return RULES[self.code][0]

    @property
    def rule(self) -> str:
        return RULES[self.code][1]


@dataclass(slots=True)
class ValueVerdict:
    value: SinkValue
    sink: Sink | None  # None for an entity inside a content argument
    sources: list[Source]
    code: str | None  # None: a content entity that decides nothing

    @property
    def external(self) -> bool:
        return self.sink is not None and self.sink.external

    @property
    def effect(self) -> Effect | None:
        return RULES[self.code][0] if self.code else None


@dataclass(frozen=True, slots=True)
class Confirmation:
    answer: Answer
    check_id: uuid.UUID  # the earlier ask
    event_id: uuid.UUID  # the user's reply


def judge_value(
    value: SinkValue, sink: Sink | None, sources: list[Source], *, outbound: bool = False
) -> str | None:
    """The rule a value falls under; `outbound`: the call is an external send."""
    kinds = {s.kind for s in sources}
    # A correction is not a source of its own: a value it holds that otherwise comes only
    # from injected or quarantined content is tainted.
    tainted_only = bool(kinds - _CORRECTION) and kinds - _CORRECTION <= TAINTED
    if value.from_content or sink is None:
        if tainted_only:
            return (
                "content_from_quarantined_memory"
                if SourceKind.quarantined_memory in kinds
                else "content_from_injected_instruction"
            )
        if (
            outbound
            and value.kind in _ADDRESS_KINDS
            and kinds
            and not kinds & TRUSTED
            and kinds - _REQUESTED
        ):
            return "content_from_untrusted_channel"
        return None
    if SourceKind.allowlist in kinds:
        return "value_allowlisted"
    if kinds & TRUSTED:
        return "value_user_stated"
    if tainted_only:
        return (
            "value_from_quarantined_memory"
            if SourceKind.quarantined_memory in kinds
            else "value_from_injected_instruction"
        )
    if kinds & TAINTED:
        return "value_also_in_injected_instruction"
    if not sink.external:
        return "value_internal"
    if kinds and kinds == {SourceKind.requested_record} and sink.risk == Risk.low:
        return "value_from_requested_record"
    if SourceKind.agent_correction in kinds:
        return "value_from_agent_correction"
    if SourceKind.pasted_content in kinds:
        return "value_from_pasted_content"
    if SourceKind.user_mentioned in kinds:
        return "value_user_questioned"
    if kinds:
        return "value_from_untrusted_channel"
    return "value_unsourced_external"


_CORRECTION = frozenset({SourceKind.agent_correction})
_REQUESTED = frozenset({SourceKind.requested_record})
_ADDRESS_KINDS = frozenset({ValueKind.email, ValueKind.iban, ValueKind.url})


def _evidence(sources: list[Source]) -> list[Evidence]:
    out: list[Evidence] = []
    for s in sources:
        if s.node_id is not None:
            out.append(Evidence("node", s.node_id))
        if s.event_id is not None:
            out.append(Evidence("event", s.event_id))
        out.extend(Evidence("retrieval", r) for r in s.retrieval_ids)
    return list(dict.fromkeys(out))


@dataclass(slots=True)
class Decision:
    decision: Effect
    reasons: list[Reason]


def decide(
    spec: ToolSpec,
    *,
    session_recorded: bool,
    verdicts: list[ValueVerdict],
    unknown_tool_effect: str,
    confirmation: Confirmation | None,
    unverified_bindings: list[str],
    truncated: Sequence[str] = (),
    injected_action: Sequence[uuid.UUID] = (),
    unrequested_action: Sequence[uuid.UUID] = (),
) -> Decision:
    """The call's decision and every reason behind it, most severe first."""
    if spec.side_effect == SideEffect.read:
        return Decision(Effect.allow, [Reason("no_side_effect")])
    if not session_recorded:
        return Decision(Effect.deny, [Reason("session_record_missing")])
    reasons: list[Reason] = []
    if not spec.known:
        code = "tool_unknown"
        reasons.append(Reason(code))
        if unknown_tool_effect == "deny":
            return Decision(Effect.deny, reasons)
    if spec.require_ask:
        reasons.append(Reason("tool_requires_confirmation"))
    grouped: dict[tuple[str, str], Reason] = {}
    for verdict in verdicts:
        if verdict.code is None:
            continue
        key = (verdict.code, verdict.value.arg)
        reason = grouped.setdefault(key, Reason(verdict.code, verdict.value.arg))
        reason.evidence = list(dict.fromkeys([*reason.evidence, *_evidence(verdict.sources)]))
    reasons.extend(grouped.values())
    reasons.extend(Reason("binding_unverified", arg) for arg in unverified_bindings)
    reasons.extend(Reason(code, arg) for code, arg in spec.notes)
    reasons.extend(Reason("too_many_values", arg) for arg in truncated)
    if injected_action:
        reasons.append(
            Reason(
                "action_from_injected_instruction",
                evidence=[Evidence("event", e) for e in injected_action],
            )
        )
    if unrequested_action and not injected_action:
        reasons.append(
            Reason(
                "action_not_requested",
                evidence=[Evidence("event", e) for e in unrequested_action],
            )
        )
    if confirmation is not None:
        reply = [
            Evidence("tool_check", confirmation.check_id),
            Evidence("event", confirmation.event_id),
        ]
        if confirmation.answer == Answer.declined:
            return Decision(Effect.deny, [Reason("user_declined", evidence=reply), *reasons])
        if any(r.effect == Effect.ask for r in reasons):
            confirmed = [r for r in reasons if r.effect != Effect.ask]
            reasons = [Reason("value_user_confirmed", evidence=reply), *confirmed]
    if not any(r.effect in (Effect.allow, Effect.ask, Effect.deny) for r in reasons):
        reasons.append(Reason("no_sink_values"))
    decision = max((r.effect for r in reasons), key=lambda e: SEVERITY[e])
    if decision == Effect.info:
        decision = Effect.allow
    reasons.sort(key=lambda r: -SEVERITY[r.effect])
    return Decision(decision, reasons)
