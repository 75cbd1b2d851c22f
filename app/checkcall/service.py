"""Judge a tool call before the agent runs it: trace each sink value to where it came from,
apply the rules, record the decision with its evidence (span check_tool_call)."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from prometheus_client import Counter, Histogram
from sqlalchemy.orm import Session

from app.checkcall import features as features_module
from app.checkcall import repository
from app.checkcall.declaration import (
    ToolDeclaration,
    action_words,
    argument_sink,
    classify,
    classify_stored,
    over_pattern,
    over_read_entry,
)
from app.checkcall.intent import asked_before, injected_action, unrequested_action
from app.checkcall.parties import Parties
from app.checkcall.policy import (
    Risk,
    SideEffect,
    Sink,
    ToolPolicy,
    ToolSpec,
    get_policy,
    unknown_tool,
)
from app.checkcall.provenance import (
    EventRecord,
    Evidence,
    Source,
    SourceKind,
    answer_of,
    trace,
)
from app.checkcall.rules import Confirmation, Effect, ValueVerdict, decide, judge_value
from app.checkcall.schemas import (
    ArgBinding,
    CheckCallRequest,
    CheckCallResponse,
    EvidenceRef,
    ReasonOut,
    RegisteredTool,
    RegisteredToolPage,
    SinkOut,
    SourceOut,
    ToolCall,
    ToolCheckOut,
    ToolCheckPage,
    ToolClassification,
    ValueProvenance,
)
from app.core import spans
from app.core.auth import Principal
from app.core.errors import InvalidInput, NotFound
from app.core.pagination import PageRequest, cut, decode_cursor
from app.domain.vocabulary import Origin
from app.events import repository as events_repository
from app.models import ToolDeclarationRow
from app.models.base import utcnow
from app.notifications import service as notifications
from app.text.normalize import (
    SinkValue,
    ValueKind,
    content_entities,
    sha256,
    sink_values,
)

CHECK_CALLS = Counter("capture_check_calls_total", "Tool-call checks", ["decision"])
CHECK_CALL_SECONDS = Histogram(
    "capture_check_call_seconds",
    "Check-call latency",
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25),
)


# The decisions a webhook is told about.
NOTIFIED = {
    Effect.deny: notifications.TOOL_CALL_DENIED,
    Effect.ask: notifications.TOOL_CALL_ASKED,
}


def args_sha256(tool: ToolCall) -> str:
    canonical = json.dumps({"name": tool.name, "args": tool.args}, sort_keys=True, default=str)
    return sha256(canonical)


# Values traced per call; a call with more is asked about (`too_many_values`).
MAX_VALUES_PER_CALL = 300


# Kinds that designate a party: in an argument the policy does not list, they go out.
ADDRESS_KINDS = frozenset(
    {ValueKind.email, ValueKind.url, ValueKind.domain, ValueKind.iban, ValueKind.phone}
)
# A number below this in an unlisted argument is a setting (a count, a priority).
SETTING_NUMBER = 100
MAX_SETTING_CHARS = 24


def unlisted_sink(spec: ToolSpec, value: SinkValue) -> Sink:
    """The sink of a value in an argument the policy lists neither as a sink nor as content
    (`to`, `reply_to`, a custom name): an address goes out (high risk) whatever the tool;
    other values go where the tool's effect goes (low risk), except settings (one word, a
    small number), which stay internal. Every one of them is traced, so any can deny."""
    if value.kind in ADDRESS_KINDS:
        return Sink(kind="auto", risk=Risk.high, external=True)
    setting = (
        value.kind == ValueKind.name
        and " " not in value.normalized
        and len(value.normalized) <= MAX_SETTING_CHARS
    ) or (value.kind == ValueKind.amount and abs(float(value.normalized)) < SETTING_NUMBER)
    external = spec.side_effect == SideEffect.external_send and not setting
    return Sink(kind="auto", risk=Risk.low, external=external)


MAX_ROUTED_DEPTH = 4
MAX_JSON_CONTENT = 16 * 1024


def routed_fields(
    arg: str, value: Any, effect: SideEffect
) -> list[tuple[str, Any, Sink]]:
    """Fields of a structured content argument (an HTTP body, as an object or a JSON
    string) whose names say where something goes (`recipient`, `to`, `webhook_url`,
    `iban`): their addresses are traced as sinks of their own, named `arg.field`."""
    if isinstance(value, str) and value.lstrip().startswith("{") and len(value) <= MAX_JSON_CONTENT:
        try:
            value = json.loads(value)
        except ValueError:
            return []
    out: list[tuple[str, Any, Sink]] = []

    def walk(item: Any, path: str, depth: int) -> None:
        if depth > MAX_ROUTED_DEPTH:
            return
        if isinstance(item, list):
            for child in item:
                walk(child, path, depth + 1)
        elif isinstance(item, dict):
            for key, child in item.items():
                sink = argument_sink(str(key), {}, effect)
                if isinstance(sink, Sink):
                    out.append((f"{path}.{key}", child, sink))
                else:
                    walk(child, f"{path}.{key}", depth + 1)

    walk(value, arg, 0)
    return out


def call_values(
    spec: ToolSpec, args: dict[str, Any]
) -> tuple[list[tuple[SinkValue, Sink | None]], list[str]]:
    """Sink values of sink arguments (and of every argument the policy does not list),
    then entities inside content arguments; and the arguments that held more values than
    are traced."""
    if spec.side_effect == SideEffect.read:
        return [], []
    out: list[tuple[SinkValue, Sink | None]] = []
    truncated: list[str] = []
    seen: set[tuple[str, str]] = set()
    for arg, value in args.items():
        if arg in spec.content:
            continue
        sink = spec.sink_for(arg)
        values, cut = sink_values(arg, value, sink.kind if sink is not None else "auto")
        if cut:
            truncated.append(arg)
        for sv in values:
            seen.add((sv.kind.value, sv.normalized))
            out.append((sv, sink if sink is not None else unlisted_sink(spec, sv)))
    for arg in spec.content:
        if arg in args:
            for path, leaf, field_sink in routed_fields(arg, args[arg], spec.side_effect):
                values, cut = sink_values(path, leaf, field_sink.kind)
                if cut:
                    truncated.append(arg)
                # Only addresses: a header such as User-Agent names no party.
                for sv in values:
                    if sv.kind in ADDRESS_KINDS:
                        seen.add((sv.kind.value, sv.normalized))
                        out.append((sv, field_sink))
            entities, cut = content_entities(arg, args[arg])
            if cut:
                truncated.append(arg)
            out.extend((sv, None) for sv in entities if (sv.kind.value, sv.normalized) not in seen)
    out = carried_out(out)
    if len(out) > MAX_VALUES_PER_CALL:
        truncated.extend(sorted({value.arg for value, _ in out[MAX_VALUES_PER_CALL:]}))
        out = out[:MAX_VALUES_PER_CALL]
    return out, sorted(set(truncated))


def carried_out(
    values: list[tuple[SinkValue, Sink | None]],
) -> list[tuple[SinkValue, Sink | None]]:
    """A call that reaches a party outside the user (an invitation's participants) carries
    every address it holds to them: an address in one of its internal sinks (a meeting's
    location) is traced as a high-risk external sink."""
    if not any(sink is not None and sink.external for _, sink in values):
        return values
    return [
        (
            value,
            Sink(kind=sink.kind, risk=Risk.high, external=True)
            if sink is not None and value.kind in ADDRESS_KINDS and not sink.external
            else sink,
        )
        for value, sink in values
    ]


# How far back, and over how many of the user's turns in other sessions, a standing request
# for an action is looked for.
STANDING_REQUEST_WINDOW = timedelta(days=30)
STANDING_REQUEST_TURNS = 20

# Verdicts under which an id picked from a record goes through: the id still stands for the
# party its record line names.
_ID_PASSES = frozenset({"value_internal", "value_from_requested_record"})


def reads_declaration(named: ToolSpec | None) -> bool:
    """Whether a declaration of the tool counts: the policy file does not name the tool,
    names it only by a pattern, or names it as a read."""
    return named is None or named.pattern is not None or named.side_effect == SideEffect.read


def declared_spec(tool: ToolCall, registered: dict[str, Any] | None) -> ToolSpec | None:
    """The tool as its declaration reads: the one the tenant's admin registered, else the
    one passed with the call."""
    if registered is not None:
        return classify_stored(registered, "registered")
    if tool.declaration is not None:
        return classify(tool.declaration, "declaration")
    return None


def resolve_tool(
    policy: ToolPolicy, tool: ToolCall, registered: dict[str, Any] | None
) -> ToolSpec:
    """The tool as check-call sees it, given the declaration the tenant registered for it
    (if any). The policy file's entry for the tool's exact name is the operator's word; for
    a read, a destination argument its declaration lists is traced all the same. A pattern
    of the file is a guess from the name: the declaration is read with it, the stricter of
    the two deciding. A tool the file does not name is classified from its declaration;
    with none, the fail-closed default."""
    named = policy.named(tool.name)
    if named is not None and not reads_declaration(named):
        return named
    declared = declared_spec(tool, registered)
    if declared is None:
        return named or unknown_tool(tool.name)
    if named is None:
        return declared
    if named.pattern is None:
        return over_read_entry(named, declared)
    return over_pattern(named, declared)


@dataclass(frozen=True, slots=True)
class Traced:
    """The tool as check-call sees it, the values it traces, and what the record holds."""

    spec: ToolSpec
    values: list[tuple[SinkValue, Sink | None]]
    truncated: list[str]
    context: repository.CallContext
    ledger: repository.LedgerEvidence


def read_evidence(
    db: Session,
    tenant_id: uuid.UUID,
    policy: ToolPolicy,
    body: CheckCallRequest,
    declared_events: set[uuid.UUID],
    declared_nodes: set[uuid.UUID],
) -> Traced:
    """The call's values and their evidence, in one read. The declaration the tenant
    registered for the tool comes with the evidence: the values are first taken as if there
    were none (the common case) and, where there is one, read again if it changes what is
    traced, so the evidence is always that of the values the decision traces."""
    registered_tool = body.tool.name if reads_declaration(policy.named(body.tool.name)) else None

    def read(
        values: list[tuple[SinkValue, Sink | None]],
    ) -> tuple[repository.CallContext, repository.LedgerEvidence]:
        return repository.call_evidence(
            db,
            tenant_id,
            body.user_id,
            body.session_id,
            {value.needle for value, _ in values},
            declared_events,
            declared_nodes,
            NOTIFIED.values(),
            registered_tool,
        )

    spec = resolve_tool(policy, body.tool, None)
    values, truncated = call_values(spec, body.tool.args)
    context, ledger = read(values)
    if context.registered is not None:
        spec = resolve_tool(policy, body.tool, context.registered)
        needles = {value.needle for value, _ in values}
        values, truncated = call_values(spec, body.tool.args)
        if {value.needle for value, _ in values} != needles:
            context, ledger = read(values)
    return Traced(spec, values, truncated, context, ledger)


def check_call(
    db: Session, principal: Principal, body: CheckCallRequest, trace_id: str
) -> CheckCallResponse:
    declaration = body.tool.declaration
    if declaration is not None and declaration.name != body.tool.name:
        # Across two fields, which the request's schema cannot state: 400, not a 422.
        raise InvalidInput("the declaration's name must be the tool's name")
    t0 = time.perf_counter()
    policy = get_policy()
    bindings = body.arg_bindings or {}
    declared_events = {b.event_id for refs in bindings.values() for b in refs if b.event_id}
    declared_nodes = {b.node_id for refs in bindings.values() for b in refs if b.node_id}
    traced = read_evidence(db, principal.tenant_id, policy, body, declared_events, declared_nodes)
    spec, values, truncated = traced.spec, traced.values, traced.truncated
    context, ledger = traced.context, traced.ledger
    # A user the tenant never wrote an event for: the check is decided (a side-effecting
    # call fails closed, session_record_missing) but not recorded, so reads naming random
    # users write nothing.
    user_id = context.user_id
    allowlist = policy.allowlist_for(context.tenant_name)
    session_events, prior = context.events, context.checks
    evidence = assemble(session_events, ledger, declared_events, declared_nodes)
    args_hash = args_sha256(body.tool)
    recorder = spans.SpanRecorder(
        db,
        tenant_id=principal.tenant_id,
        trace_id=trace_id,
        user_id=user_id,
        session_id=context.session_id,
        persist=user_id is not None,
        collect=True,
    )
    with recorder.span(
        spans.CHECK_TOOL_CALL,
        kind="server",
        attributes={"gen_ai.tool.name": body.tool.name, "gen_ai.conversation.id": body.session_id},
    ) as attrs:
        verdicts = []
        outbound = spec.side_effect == SideEffect.external_send
        parties = Parties(session_events)
        for value, sink in values:
            sources = trace(value, evidence, allowlist)
            code = judge_value(value, sink, sources, outbound=outbound)
            if code in _ID_PASSES and parties.another(value):
                code = "value_names_another_party"
            verdicts.append(ValueVerdict(value, sink, sources, code))
        # Whose idea the call is matters where its values decide nothing against it: an
        # action only an untrusted channel asked for is asked about however its arguments
        # were sourced, unless a value was picked from the records the user's own request
        # returned in this session (the user asked for the search to act on it).
        values_decide = any(
            v.sink is not None
            and (v.effect in (Effect.ask, Effect.deny) or v.code == "value_from_requested_record")
            for v in verdicts
        )
        judged_action = spec.side_effect != SideEffect.read and not values_decide
        hint = action_words(body.tool.declaration)
        unrequested = (
            unrequested_action(
                body.tool.name,
                body.tool.args,
                session_events,
                hint,
                reaches_out=any(v.external for v in verdicts),
            )
            if judged_action
            else []
        )
        # Read only where the call would be asked about: a request the user made in an
        # earlier session ("on the 3rd, turn two-factor off") that this call carries out.
        if unrequested and user_id is not None and asked_before(
            body.tool.name,
            body.tool.args,
            repository.earlier_user_turns(
                db, user_id, context.session_id, utcnow() - STANDING_REQUEST_WINDOW,
                STANDING_REQUEST_TURNS,
            ),
            hint,
        ):
            unrequested = []
        outcome = decide(
            spec,
            session_recorded=bool(session_events),
            verdicts=verdicts,
            unknown_tool_effect=policy.unknown_tool,
            confirmation=confirmation(body.call_id, args_hash, prior, session_events),
            unverified_bindings=unverified_bindings(body.arg_bindings, verdicts),
            truncated=truncated,
            injected_action=(
                injected_action(body.tool.name, session_events, hint) if judged_action else ()
            ),
            unrequested_action=unrequested,
        )
        feats = {
            **features_module.trajectory(_ops(context, spec, policy)),
            **features_module.session_signals(session_events),
            **features_module.call_signals(verdicts),
        }
        score = features_module.triage_score(feats)
        reasons = [_reason_out(r) for r in outcome.reasons]
        provenance = _arg_provenance(verdicts)
        node_ids = sorted({str(e.id) for r in reasons for e in r.evidence if e.kind == "node"})
        event_ids = sorted({str(e.id) for r in reasons for e in r.evidence if e.kind == "event"})
        fed_by = sorted(
            {rid for v in verdicts for s in v.sources for rid in s.retrieval_ids}, key=str
        )
        check_id, checked_at = uuid.uuid4(), utcnow()
        notice = NOTIFIED.get(outcome.decision)
        # The evidence read saw which types an endpoint takes: no lookup for the others.
        if user_id is not None and notice in context.subscribed:
            notifications.emit(
                db, principal.tenant_id, notice,
                {"tool_check_id": str(check_id), "tool_name": body.tool.name,
                 "decision": outcome.decision.value, "call_id": body.call_id,
                 "reasons": [r.code for r in reasons], "trace_id": recorder.trace_id},
                user_id=user_id,
            )
        fed_traces = sorted({r.trace_id for r in context.retrievals if r.id in set(fed_by)})
        attrs.update(
            {
                "capture.tool_check.id": check_id,
                "capture.tool_check.decision": outcome.decision.value,
                "capture.tool_check.reasons": [r.code for r in reasons],
                "capture.tool_check.side_effect": spec.side_effect.value,
                "capture.tool_check.tool_source": spec.source,
                "capture.policy.version": policy.version,
                "capture.evidence.node_ids": node_ids,
                "capture.evidence.event_ids": event_ids,
                "capture.retrieval.ids": fed_by,
                "capture.link.trace_ids": fed_traces,
                "capture.triage_score": score,
            }
        )
        if body.call_id:
            attrs["gen_ai.tool.call.id"] = body.call_id
    if user_id is not None:
        # Written once the span has closed: the decision row and the span in one statement.
        repository.add_check(
            db,
            {
                "id": check_id,
                "tenant_id": principal.tenant_id,
                "user_id": user_id,
                "session_id": context.session_id,
                "call_id": body.call_id,
                "tool_name": body.tool.name,
                "args_sha256": args_hash,
                "decision": outcome.decision.value,
                "reasons": [r.model_dump(mode="json", exclude={"rule"}) for r in reasons],
                "evidence_node_ids": node_ids,
                "evidence_event_ids": event_ids,
                "features": feats,
                "arg_provenance": {
                    arg: [v.model_dump(mode="json") for v in items]
                    for arg, items in provenance.items()
                },
                "side_effect": spec.side_effect.value,
                "tool_source": spec.source,
                "triage_score": score,
                "policy_version": policy.version,
                "trace_id": recorder.trace_id,
                "created_at": checked_at,
            },
            recorder.collected,
        )
    CHECK_CALLS.labels(decision=outcome.decision.value).inc()
    CHECK_CALL_SECONDS.observe(time.perf_counter() - t0)
    return CheckCallResponse(
        decision=outcome.decision.value,
        reasons=reasons,
        arg_provenance=provenance,
        features=feats,
        triage_score=score,
        side_effect=spec.side_effect.value,
        tool_source=spec.source,
        policy_version=policy.version,
        decision_id=check_id if user_id is not None else None,
        trace_id=recorder.trace_id,
    )


def _ops(
    context: repository.CallContext, spec: ToolSpec, policy: ToolPolicy
) -> list[features_module.Op]:
    """The session's operations in the paper's vocabulary, the call being checked last."""
    ops = [
        features_module.Op(r.at, "recall" if r.mode == "tool" else "context")
        for r in context.retrievals
    ]
    ops += [features_module.Op(e.received_at, "save") for e in context.events if e.wrote_node]
    for c in context.checks:
        side_effect = (
            SideEffect(c.side_effect) if c.side_effect else policy.tool(c.tool_name).side_effect
        )
        ops.append(features_module.Op(c.at, features_module.OP_OF_SIDE_EFFECT[side_effect]))
    ops.append(features_module.Op(utcnow(), features_module.OP_OF_SIDE_EFFECT[spec.side_effect]))
    return ops


def assemble(
    session_events: list[EventRecord],
    ledger: repository.LedgerEvidence,
    declared_events: set[uuid.UUID],
    declared_nodes: set[uuid.UUID],
) -> Evidence:
    """The record that could have supplied the values: the session's events, the ledger-wide
    candidates the literal prefilter found (each verified afterwards by the value's matcher),
    declared bindings, and the events that wrote the candidate nodes."""
    by_id = {e.id: e for e in (*session_events, *ledger.events, *ledger.node_events)}
    return Evidence(
        session_events=session_events,
        ledger_events=ledger.events,
        nodes=ledger.nodes,
        node_events={
            n.created_by_event_id: by_id[n.created_by_event_id]
            for n in ledger.nodes
            if n.created_by_event_id in by_id
        },
        declared_event_ids=frozenset(declared_events),
        declared_node_ids=frozenset(declared_nodes),
    )


def confirmation(
    call_id: str | None,
    args_hash: str,
    prior: list[repository.PriorCheck],
    session_events: list[EventRecord],
) -> Confirmation | None:
    """The user's answer to the last `ask` of this exact call (same call id and arguments)."""
    if call_id is None:
        return None
    asks = [
        c
        for c in prior
        if c.call_id == call_id and c.args_sha256 == args_hash and c.decision == "ask"
    ]
    if not asks:
        return None
    asked = asks[-1]
    for event in session_events:
        if event.origin == Origin.user.value and event.received_at > asked.at:
            answer = answer_of(event.text)
            if answer is not None:
                return Confirmation(
                    answer=answer, check_id=uuid.UUID(asked.id), event_id=event.id
                )
    return None


def unverified_bindings(
    bindings: dict[str, list[ArgBinding]] | None, verdicts: list[ValueVerdict]
) -> list[str]:
    out = []
    for arg, refs in (bindings or {}).items():
        sources = [s for v in verdicts if v.value.arg == arg for s in v.sources]
        for ref in refs:
            if not any(
                (ref.event_id is not None and s.event_id == ref.event_id)
                or (ref.node_id is not None and s.node_id == ref.node_id)
                for s in sources
            ):
                out.append(arg)
                break
    return out


def _reason_out(reason: Any) -> ReasonOut:
    return ReasonOut(
        code=reason.code,
        effect=reason.effect.value,
        rule=reason.rule,
        argument=reason.argument,
        evidence=[EvidenceRef(kind=e.kind, id=e.id) for e in reason.evidence],
    )


def _source_out(source: Source) -> SourceOut:
    return SourceOut(
        kind=source.kind.value,
        origin=source.origin,
        session=None if source.in_session is None else ("this" if source.in_session else "other"),
        event_id=source.event_id,
        node_id=source.node_id,
        node_state=source.node_state,
        retrieval_ids=list(source.retrieval_ids),
        declared=source.declared,
    )


def _arg_provenance(verdicts: list[ValueVerdict]) -> dict[str, list[ValueProvenance]]:
    out: dict[str, list[ValueProvenance]] = {}
    for verdict in verdicts:
        items = out.setdefault(verdict.value.arg, [])
        effect = verdict.effect
        items.append(
            ValueProvenance(
                index=len(items),
                kind=verdict.value.kind.value,
                value_sha256=verdict.value.value_sha256,
                in_content=verdict.value.from_content,
                external=verdict.external
                and all(s.kind != SourceKind.allowlist for s in verdict.sources),
                verdict=effect.value if effect is not None and effect.value != "info" else None,
                code=verdict.code,
                sources=[_source_out(s) for s in verdict.sources],
            )
        )
    return out


def list_checks(
    db: Session,
    principal: Principal,
    page: PageRequest,
    *,
    decision: str | None,
    external_user_id: str | None,
    tool_name: str | None,
) -> ToolCheckPage:
    """The tenant's recorded checks, newest first; `decision` and the user narrow them."""
    user_id = None
    if external_user_id is not None:
        user = events_repository.find_user(db, principal.tenant_id, external_user_id)
        if user is None:  # a read never creates the user it names
            return ToolCheckPage(items=[], next_cursor=None)
        user_id = user.id
    rows = repository.list_checks(
        db, principal.tenant_id, decode_cursor(page.cursor, datetime), page.limit,
        decision=decision, user_id=user_id, tool_name=tool_name,
    )
    sliced = cut(rows, page.limit, lambda row: (row[0].created_at, row[0].id))
    return ToolCheckPage(
        items=[ToolCheckOut.of(c, external) for c, external in sliced.rows],
        next_cursor=sliced.next_cursor,
    )


# ── declared tools (`/v1/tools`) ───────────────────────────────────────────────────


def _registered_out(row: ToolDeclarationRow) -> RegisteredTool:
    declaration = ToolDeclaration.model_validate(row.declaration)
    spec = classify_stored(row.declaration, "registered")
    return RegisteredTool(
        name=row.name,
        declaration=declaration,
        classification=ToolClassification(
            side_effect=spec.side_effect,
            sinks={
                arg: SinkOut(kind=str(sink.kind), risk=sink.risk.value, external=sink.external)
                for arg, sink in spec.sinks.items()
            },
            content=list(spec.content),
        ),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def register_tool(
    db: Session, principal: Principal, name: str, declaration: ToolDeclaration
) -> RegisteredTool:
    """Declare (or re-declare) a tool for the tenant. Check-call classifies the tool from
    it wherever the operator's policy file does not name it, and reads it with the file's
    entry where the file names the tool only by a pattern or as a read (`resolve_tool`)."""
    if declaration.name != name:
        raise InvalidInput("the declaration's name must be the tool name in the path")
    stored = declaration.model_dump(mode="json", exclude_none=True)
    row = repository.put_declaration(db, principal.tenant_id, name, stored, principal.key_id)
    return _registered_out(row)


def list_tools(
    db: Session, principal: Principal, limit: int, offset: int
) -> RegisteredToolPage:
    rows, total = repository.list_declarations(db, principal.tenant_id, limit, offset)
    return RegisteredToolPage(
        tools=[_registered_out(r) for r in rows], total=total, limit=limit, offset=offset
    )


def unregister_tool(db: Session, principal: Principal, name: str) -> None:
    if not repository.delete_declaration(db, principal.tenant_id, name):
        raise NotFound("no tool of that name is registered")
