"""A user's whole record: exported as one document, or erased entirely as a job.

Erasure deletes every row about the user (events, what was read from them, decisions,
memories with their versions and lineage, questions, retrievals, tool checks, audits,
spans, sessions, gate state, pending notifications) in one transaction under the user's
row lock, and keeps a receipt that holds no text of theirs: the rows deleted per table and
the SHA-256 of their id.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from datetime import datetime

from sqlalchemy.orm import Session

from app import registry
from app.checkcall.schemas import ToolCheckOut
from app.clarifications.service import question_text
from app.core import spans
from app.core.auth import Principal
from app.core.config import get_settings
from app.core.db import after_commit, session_scope
from app.core.errors import NotFound
from app.core.pagination import PageRequest, cut, decode_cursor
from app.events import repository as events_repository
from app.events.schemas import EventSummary
from app.gate.schemas import DecisionListItem
from app.models import UserErasure
from app.models.base import utcnow
from app.models.enums import ErasureStatus
from app.notifications import service as notifications
from app.users import repository
from app.users.schemas import (
    ErasureOut,
    ErasurePage,
    ExportAudit,
    ExportEdge,
    ExportHypothesis,
    ExportLineage,
    ExportMemory,
    ExportQuestion,
    ExportRetrieval,
    ExportSession,
    ExportVersion,
    UserExport,
)

log = logging.getLogger(__name__)

ERASE_USER_TASK = "capture.erase_user"


def user_ref(external_id: str) -> str:
    return hashlib.sha256(external_id.encode()).hexdigest()


def export(db: Session, principal: Principal, external_id: str) -> UserExport:
    user = events_repository.find_user(db, principal.tenant_id, external_id)
    if user is None:
        raise NotFound("user not found")
    sessions = repository.sessions(db, user.id)
    session_names = {s.id: s.external_id for s in sessions}
    nodes = repository.nodes(db, user.id)
    node_ids = [n.id for n in nodes]
    nodes_by_id = {n.id: n for n in nodes}
    versions = repository.versions(db, node_ids) if node_ids else []
    lineage = repository.lineage(db, node_ids) if node_ids else []
    retrievals = repository.retrievals(db, user.id)
    results = (repository.retrieval_results(db, [r.id for r in retrievals])
               if retrievals else [])
    return UserExport(
        user_id=user.external_id,
        created_at=user.created_at,
        exported_at=utcnow(),
        sessions=[ExportSession(session_id=s.external_id, started_at=s.started_at,
                                last_event_at=s.last_event_at) for s in sessions],
        events=[EventSummary.of(e, session_names.get(e.session_id, ""))
                for e in repository.events(db, user.id)],
        hypotheses=[
            ExportHypothesis(
                id=h.id, event_id=h.event_id, claim=h.claim, subject=h.subject, value=h.value,
                direction=h.direction, scope=h.scope, timescale=h.timescale,
                confidence=h.confidence, provenance=h.provenance, extractor=h.extractor,
                created_at=h.created_at,
            )
            for h in repository.hypotheses(db, user.id)
        ],
        decisions=[
            DecisionListItem.listed(d, user.external_id)
            for d in repository.decisions(db, user.id)
        ],
        memories=[
            ExportMemory(
                id=n.id, claim=n.claim, subject=n.subject, value=n.value,
                direction=n.direction, scope=n.scope, timescale=n.timescale, layer=n.layer,
                state=n.state, origin=n.origin, valid_from=n.valid_from, valid_to=n.valid_to,
                recorded_at=n.recorded_at, retired_at=n.retired_at,
                erased=n.erased_at is not None,
                versions=[
                    ExportVersion(version=v.version, claim=v.claim, layer=v.layer,
                                  state=v.state, scope=v.scope, change=v.change,
                                  event_id=v.event_id, decision_id=v.decision_id,
                                  actor_key_id=v.actor_key_id, actor_role=v.actor_role,
                                  changed_at=v.changed_at)
                    for v in versions if v.node_id == n.id
                ],
                lineage=[
                    ExportLineage(event_id=row.event_id, hypothesis_id=row.hypothesis_id,
                                  decision_id=row.decision_id, relation=row.relation)
                    for row in lineage if row.node_id == n.id
                ],
            )
            for n in nodes
        ],
        edges=[ExportEdge(src_node_id=e.src_node_id, dst_node_id=e.dst_node_id,
                          relation=e.relation, probability=e.probability)
               for e in repository.edges(db, user.id)],
        questions=[
            ExportQuestion(id=c.id, node_id=c.node_id,
                           contradicted_node_id=c.contradicted_node_id, event_id=c.event_id,
                           source=c.source,
                           question=question_text(c, nodes_by_id.get(c.node_id),
                                                  nodes_by_id.get(c.contradicted_node_id)
                                                  if c.contradicted_node_id else None),
                           status=c.status, answer=c.answer,
                           created_at=c.created_at, answered_at=c.answered_at)
            for c in repository.clarifications(db, user.id)
        ],
        retrievals=[
            ExportRetrieval(
                id=r.id, mode=r.mode, query_sha256=r.query_sha256, k=r.k,
                created_at=r.created_at,
                results=[{"node_id": str(x.node_id), "rank": x.rank, "score": x.score}
                         for x in results if x.retrieval_id == r.id],
            )
            for r in retrievals
        ],
        tool_checks=[ToolCheckOut.of(c, user.external_id)
                     for c in repository.tool_checks(db, user.id)],
        audits=[
            ExportAudit(id=a.id, status=a.status, decoder=a.decoder,
                        cited_node_ids=a.cited_node_ids, result=a.result,
                        created_at=a.created_at)
            for a in repository.audits(db, user.id)
        ],
    )


def request_erasure(
    db: Session, principal: Principal, external_id: str, trace_id: str
) -> ErasureOut:
    """Record the erasure job and enqueue it after commit; a second request for a user
    whose erasure is pending returns the pending one."""
    user = events_repository.find_user(db, principal.tenant_id, external_id)
    if user is None:
        raise NotFound("user not found")
    pending = repository.pending_erasure(db, user.id)
    if pending is not None:
        return ErasureOut.of(pending)
    job = UserErasure(id=uuid.uuid4(), tenant_id=principal.tenant_id, user_id=user.id,
                      user_ref_sha256=user_ref(external_id),
                      status=ErasureStatus.pending.value, counts={}, trace_id=trace_id,
                      requested_at=utcnow())
    db.add(job)
    db.flush()
    job_id = job.id
    after_commit(db, lambda: enqueue_erasure(job_id))
    return ErasureOut.of(job)


def enqueue_erasure(erasure_id: uuid.UUID) -> None:
    settings = get_settings()
    if settings.eager_tasks:
        run_erasure(erasure_id)
        return
    registry.send_task(ERASE_USER_TASK, [str(erasure_id)], settings.task_queue)


def run_erasure(erasure_id: uuid.UUID) -> None:
    """The job in process: one transaction; on error the job is marked failed."""
    try:
        with session_scope() as db:
            erase(db, erasure_id)
    except Exception:
        log.exception("user erasure %s failed", erasure_id)
        with session_scope() as db:
            mark_erasure_failed(db, erasure_id)


def erase(db: Session, erasure_id: uuid.UUID) -> None:
    """Delete the user's rows and complete the receipt; a job no longer pending is left as
    it is, so running it twice is safe."""
    job = repository.lock_erasure(db, erasure_id)
    if job is None or job.status != ErasureStatus.pending.value:
        return
    recorder = spans.SpanRecorder(db, tenant_id=job.tenant_id, trace_id=job.trace_id)
    with recorder.span(spans.USER_ERASURE, kind="consumer",
                       attributes={"capture.erasure.id": job.id}) as attrs:
        user = repository.lock_user(db, job.user_id)
        counts = repository.delete_everything(db, job.user_id) if user is not None else {}
        job.counts = counts
        job.status = ErasureStatus.done.value
        job.completed_at = utcnow()
        attrs["capture.erasure.rows"] = sum(counts.values())
        notifications.emit(db, job.tenant_id, notifications.USER_ERASED,
                           {"erasure_id": str(job.id), "user_ref_sha256": job.user_ref_sha256,
                            "counts": counts})
    db.flush()
    log.info("user erasure %s done: %d rows", job.id, sum(counts.values()))


def mark_erasure_failed(db: Session, erasure_id: uuid.UUID) -> None:
    job = repository.lock_erasure(db, erasure_id)
    if job is not None and job.status == ErasureStatus.pending.value:
        job.status, job.error_code = ErasureStatus.failed.value, "erasure_error"
        job.completed_at = utcnow()


def get_erasure(db: Session, principal: Principal, erasure_id: uuid.UUID) -> ErasureOut:
    job = repository.erasure(db, principal.tenant_id, erasure_id)
    if job is None:
        raise NotFound("erasure not found")
    return ErasureOut.of(job)


def list_erasures(db: Session, principal: Principal, page: PageRequest) -> ErasurePage:
    rows = repository.list_erasures(db, principal.tenant_id,
                                    decode_cursor(page.cursor, datetime), page.limit)
    sliced = cut(rows, page.limit, lambda e: (e.requested_at, e.id))
    return ErasurePage(items=[ErasureOut.of(e) for e in sliced.rows],
                       next_cursor=sliced.next_cursor)
