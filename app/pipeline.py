"""The map of Capture's write path: the stages one event goes through, in order.

    ① events      POST /v1/events stores the event (span create_memory) and, after commit,
                  enqueues PROCESS_EVENT by name with the event id only
    ② extraction  the extractor reads hypotheses from the event, or abstains
    ③ gate        a stateful policy first reads the event (`advance`: the learned gate
                  integrates h over the gap and updates it), then the admission policy
                  decides one of six actions per hypothesis
    ④ ledger      the action is applied to the user's claim graph; where it holds a claim
                  and asks, the clarifications stage asks the user (or defers the question)
    ⑤ retrieval   POST /v1/retrieve reads active nodes only        (app/retrieval)
    ⑥ checkcall   POST /v1/check-call judges a tool call            (app/checkcall)
    ⑦ selection   POST /v1/select picks a response under τ_safe     (app/selection)
    ⑧ audit       POST /v1/audit re-decodes without each citation   (app/audit)

Stages ②–④ run in one transaction per event under the user's gate-state row lock, so one
user's events apply in arrival order (`events.seq`) and never concurrently, whichever
worker picks the task up. A task for a later event first processes any earlier pending
events of the same user, so order holds even when tasks arrive out of order; it commits
after each event (`process_backlog`), so a worker killed mid-backlog loses only the event
in flight, and the next task for the user starts from the first event still pending.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy.orm import Session

from app import registry
from app.clarifications import service as clarifications_service
from app.core import spans
from app.core.config import get_settings
from app.core.db import session_scope
from app.core.embeddings import get_embedder
from app.core.errors import database_unavailable
from app.core.metrics import DECISIONS, EVENTS_PROCESSED, WRITE_PATH_SECONDS
from app.domain.claims import Extraction, Hypothesis
from app.domain.gate import AdmissionPolicy, EventView, asks_questions
from app.domain.vocabulary import Origin
from app.events import repository as events_repository
from app.extraction import service as extraction_service
from app.gate import service as gate_service
from app.gate.policies import get_policy
from app.ledger import channel_guard
from app.ledger import service as ledger_service
from app.models import Event, GateState
from app.models.base import utcnow
from app.models.enums import EventStatus
from app.notifications import service as notifications

log = logging.getLogger(__name__)

PROCESS_EVENT_TASK = "capture.process_event"
SWEEP_QUARANTINE_TASK = "capture.sweep_quarantine"
REQUEUE_STALE_TASK = "capture.requeue_stale_events"
EVENTS_PER_TRANSACTION = 1


@dataclass(slots=True)
class EventOutcome:
    event_id: uuid.UUID
    decision_ids: list[uuid.UUID] = field(default_factory=list)
    node_changes: list[tuple[uuid.UUID, str]] = field(default_factory=list)


def enqueue_process_event(event_id: uuid.UUID) -> None:
    """Run now in-process (no broker configured) or hand to Celery by task name."""
    settings = get_settings()
    if settings.eager_tasks:
        run_process_event(event_id)
        return
    registry.send_task(PROCESS_EVENT_TASK, [str(event_id)], settings.queue_for("events"))


def run_process_event(event_id: uuid.UUID, policy_name: str | None = None) -> None:
    """Process the event (and earlier pending ones of its user), one transaction each."""
    try:
        process_backlog(event_id, policy_name)
    except Exception:
        log.exception("processing failed for event %s", event_id)
        with session_scope() as db:
            mark_failed(db, event_id, "processing_error")


def mark_failed(db: Session, event_id: uuid.UUID, code: str) -> None:
    event = events_repository.event_by_id(db, event_id)
    if event is not None and event.status == EventStatus.pending.value:
        event.status = EventStatus.failed.value
        event.error_code = code
        event.processed_at = utcnow()
        notifications.emit(db, event.tenant_id, notifications.EVENT_FAILED,
                           {"event_id": str(event.id), "error_code": code},
                           user_id=event.user_id)


def process_backlog(
    event_id: uuid.UUID, policy_name: str | None = None,
    per_transaction: int = EVENTS_PER_TRANSACTION,
) -> list[EventOutcome]:
    """Process `event_id` and every earlier pending event of its user, in order, committing
    after every `per_transaction` events. A crash or an error rolls back only the
    transaction in flight; what committed stays processed, and the next call (a retry, a
    redelivery, a requeue) resumes at the user's first event still pending. Idempotent."""
    outcomes: list[EventOutcome] = []
    while True:
        with session_scope() as db:
            done = _process_pending(db, event_id, policy_name, per_transaction, outcomes)
        if done:
            return outcomes


def process_event(
    db: Session, event_id: uuid.UUID, policy_name: str | None = None
) -> list[EventOutcome]:
    """Process `event_id` and every earlier pending event of its user, in order, in the
    transaction of `db`. Idempotent."""
    outcomes: list[EventOutcome] = []
    _process_pending(db, event_id, policy_name, None, outcomes)
    return outcomes


def _process_pending(
    db: Session, event_id: uuid.UUID, policy_name: str | None, limit: int | None,
    outcomes: list[EventOutcome],
) -> bool:
    """Under the user's gate-state lock, process the first `limit` (all when None) of the
    user's pending events up to `event_id`, in order, appending to `outcomes`. Returns
    whether `event_id` is no longer pending afterwards."""
    found = events_repository.event_with_tenant(db, event_id)
    if found is None or found[0].status != EventStatus.pending.value:
        return True  # gone, or already processed by an earlier delivery
    event, tenant = found
    policy = get_policy(policy_name or (tenant.admission_policy if tenant else None)
                        or get_settings().admission_policy)
    state = gate_service.lock_state(db, event.tenant_id, event.user_id, policy)
    # Read after the lock: a task that held it before may have processed some of them.
    pending = events_repository.pending_up_to(db, event.user_id, event.seq, limit)
    trusted = tenant.trusted_sources if tenant is not None else []
    for pending_event in pending:
        try:
            with db.begin_nested():  # a poison event's partial work is undone alone
                outcomes.append(_process_one(db, pending_event, state, policy, trusted))
        except Exception as exc:
            if database_unavailable(exc):
                raise  # transient: the task retries from this event
            # Deterministic: retrying cannot help, and the user's later events wait behind
            # it, so it fails on its first attempt and they go on.
            log.warning("event %s failed in processing (%s); the user's later events go on",
                        pending_event.id, type(exc).__name__)
            mark_failed(db, pending_event.id, "processing_error")
    return limit is None or len(pending) < limit or pending[-1].id == event.id


def _process_one(
    db: Session, event: Event, state: GateState, policy: AdmissionPolicy,
    trusted_sources: list[str],
) -> EventOutcome:
    t0 = time.perf_counter()
    outcome = EventOutcome(event.id)
    recorder = spans.SpanRecorder(
        db,
        tenant_id=event.tenant_id,
        trace_id=event.trace_id,
        user_id=event.user_id,
        session_id=event.session_id,
    )
    with recorder.span(
        spans.PROCESS_EVENT,
        kind="consumer",
        attributes={
            "capture.event.id": event.id,
            "capture.event.origin": event.origin,
            "capture.policy": policy.name,
        },
    ):
        ledger_service.evict_expired_quarantine(db, event.user_id, event.occurred_at)
        extractor = extraction_service.get_extractor(get_settings().extractor)
        with recorder.span(spans.EXTRACT, attributes={"capture.event.id": event.id}) as attrs:
            extraction = extraction_service.extract(
                db, extractor, event, asks=asks_questions(policy)
            )
            attrs.update(
                {
                    "capture.extractor": extractor.name,
                    "capture.extraction.hypotheses": len(extraction.hypotheses),
                    "capture.extraction.abstain_reason": extraction.abstain_reason or "",
                }
            )
        advance = getattr(policy, "advance", None)
        if advance is not None:  # a stateful gate reads every event, preference or not
            state.latent = advance(_event_view(event, state), state.latent)
        trusted = channel_guard.trusted_source(trusted_sources, event.tool_name, event.source_uri)
        if extraction.hypotheses:
            embeddings = get_embedder().embed([h.claim for h in extraction.hypotheses])
        for hypothesis, vector in zip(
            extraction.hypotheses, embeddings if extraction.hypotheses else [], strict=True
        ):
            decision_id, changes = apply_hypothesis(
                db,
                recorder,
                event,
                state,
                policy,
                extraction,
                hypothesis,
                [float(x) for x in vector],
                trusted,
            )
            outcome.decision_ids.append(decision_id)
            outcome.node_changes.extend(changes)
        if asks_questions(policy) and not any(
            change == "clarification_asked" for _, change in outcome.node_changes
        ):
            asked = clarifications_service.ask_next(db, event)
            if asked is not None:
                outcome.node_changes.append((asked, "clarification_asked"))
        gate_service.record_event(state, event)
        event.status = EventStatus.processed.value
        event.processed_at = utcnow()
    db.flush()
    EVENTS_PROCESSED.inc()
    WRITE_PATH_SECONDS.observe(time.perf_counter() - t0)
    return outcome


def _event_view(event: Event, state: GateState) -> EventView:
    """The event as a stateful policy's `advance` reads it (before record_event moves on)."""
    previous = state.last_event_at
    return EventView(
        event_id=event.id,
        text=event.text or "",
        origin=Origin(event.origin),
        occurred_at=event.occurred_at,
        seconds_since_last_event=(
            None if previous is None else max(0.0, (event.occurred_at - previous).total_seconds())
        ),
        new_session=state.last_session_id is not None and state.last_session_id != event.session_id,
    )


def apply_hypothesis(
    db: Session,
    recorder: spans.SpanRecorder,
    event: Event,
    state: GateState,
    policy: AdmissionPolicy,
    extraction: Extraction,
    hypothesis: Hypothesis,
    embedding: list[float],
    trusted_source: str | None = None,
) -> tuple[uuid.UUID, list[tuple[uuid.UUID, str]]]:
    """Stages ③ and ④ for one hypothesis: decide, then apply. Returns the decision id and
    the node changes."""
    hypothesis_row = extraction_service.persist(db, event, extraction, hypothesis)
    with recorder.span(
        spans.GATE_DECIDE, attributes={"capture.hypothesis.id": hypothesis_row.id}
    ) as attrs:
        gate_input, nodes = gate_service.build_input(
            db, event, hypothesis, embedding, state, asks=asks_questions(policy)
        )
        decision = policy.decide(gate_input)
        if decision.latent is not None:
            state.latent = decision.latent  # advanced atomically with the decision
        decision_row = gate_service.persist_decision(db, event, hypothesis_row, decision, policy)
        attrs.update(
            {
                "capture.decision.id": decision_row.id,
                "capture.gate.action": decision.action.value,
                "capture.gate.entropy": round(decision.entropy, 6),
                "capture.gate.authenticity": round(decision.authenticity, 6),
                "capture.policy": policy.name,
                "capture.policy.version": policy.version,
            }
        )
    with recorder.span(
        spans.LEDGER_APPLY, attributes={"capture.decision.id": decision_row.id}
    ) as attrs:
        ctx = ledger_service.ApplyContext(
            db=db,
            policy=policy,
            event=event,
            hypothesis=hypothesis,
            hypothesis_row=hypothesis_row,
            decision_row=decision_row,
            gate=decision,
            embedding=embedding,
            related=gate_input.related,
            nodes=nodes,
            may_ask=gate_input.may_ask,
            trusted_source=trusted_source,
        )
        applied = ledger_service.apply_decision(ctx)
        if ctx.question is not None:  # held, ask: the clarifications stage writes the question
            asked = clarifications_service.ask(
                db, event, decision_row.id, hypothesis, ctx.question
            )
            if asked is not None:
                ctx.changes.append(ledger_service.LedgerChange(ctx.question.node.id, asked))
        if applied != decision.action:
            decision_row.proposed_action = decision.action.value
            decision_row.action = applied.value
        attrs.update(
            {
                "capture.ledger.action": applied.value,
                "gen_ai.memory.record.id": [str(c.node_id) for c in ctx.changes],
                "capture.ledger.changes": [c.change for c in ctx.changes],
            }
        )
    DECISIONS.labels(action=applied.value, policy=policy.name).inc()
    return decision_row.id, [(c.node_id, c.change) for c in ctx.changes]


def sweep_quarantine() -> int:
    """Periodic task: evict every quarantined node whose retention fell below φ by now."""
    with session_scope() as db:
        return len(ledger_service.evict_expired_quarantine(db, None, utcnow()))


def requeue_stale_events(stale_after_s: float | None = None, limit: int = 1000) -> int:
    """Enqueue again the last pending event of each user whose events have waited longer
    than `stale_after_s` (default CAPTURE_REQUEUE_STALE_AFTER_S): its task lost its worker
    or its broker message. That task processes the user's earlier ones too; processing is
    idempotent, so a task still queued only finds the work done."""
    if stale_after_s is None:
        stale_after_s = get_settings().requeue_stale_after_s
    with session_scope() as db:
        event_ids = events_repository.stale_pending(
            db, utcnow() - timedelta(seconds=stale_after_s), limit)
    for event_id in event_ids:
        if event_id is not None:
            enqueue_process_event(event_id)
    return len(event_ids)
