"""POST /v1/audit and GET /v1/audit/{id}, and the audit run the task `capture.audit` does.

Request: validate, snapshot the memory set L (the session's latest retrieval of this exact
prompt, else a recorded `context` retrieval), store the audit, enqueue it after commit by
task name with its id only (in-process when no broker is configured).

Run (one transaction, idempotent): re-fetch the audit, re-decode with L and with each of
the top three cited nodes removed, write the citations, update each audited node's running
influence (the retrieval prior), drop the stored texts, record a span.

Benchmark hook (pure): `counterfactual(prompt, memories, cited_node_ids, decoder, ...)`.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from collections.abc import Sequence

from sqlalchemy.orm import Session

from app import registry
from app.audit import repository
from app.audit.counterfactual import (
    TOP_CITED,
    AuditOutcome,
    counterfactual,
    top_cited,
    updated_influence,
)
from app.audit.schemas import AuditAccepted, AuditOut, AuditRef, AuditRequest, CitationOut
from app.core import spans
from app.core.auth import Principal
from app.core.config import get_settings
from app.core.db import after_commit, session_scope
from app.core.errors import InvalidInput, NotFound
from app.domain.audit import AuditDecoder
from app.events import repository as events_repository
from app.models import Audit, AuditCitation, Node
from app.models.base import utcnow
from app.retrieval import service as retrieval_service
from app.retrieval.schemas import RetrieveRequest
from app.selection.memory import Memory

__all__ = ["AUDIT_TASK", "counterfactual", "create_audit", "get_audit", "run_audit"]

log = logging.getLogger(__name__)

AUDIT_TASK = "capture.audit"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def create_audit(db: Session, principal: Principal, body: AuditRequest,
                 trace_id: str) -> AuditAccepted:
    settings = get_settings()
    decoder = settings.audit_decoder
    if decoder == "reselect" and not body.candidates:
        raise InvalidInput("the reselect decoder needs the turn's candidates")
    user = events_repository.get_or_create_user(db, principal.tenant_id, body.user_id)
    session = events_repository.get_or_create_session(db, user, body.session_id)
    cited = list(dict.fromkeys(body.cited_node_ids))
    known = repository.user_nodes(db, principal.tenant_id, user.id, cited)
    unknown = [str(n) for n in cited if n not in known]
    if unknown:
        raise InvalidInput("cited nodes are not memories of this user",
                           details={"node_ids": unknown})
    prompt_hash = _sha256(body.prompt)
    retrieval = repository.latest_retrieval_for(db, session.id, prompt_hash)
    retrieval_id: uuid.UUID | None
    if retrieval is not None:
        retrieval_id = retrieval.id
        memory_ids = repository.retrieval_node_ids(db, retrieval.id)
    else:
        retrieved = retrieval_service.retrieve(
            db, principal,
            RetrieveRequest(user_id=body.user_id, session_id=body.session_id,
                            query=body.prompt, mode="context"),
            trace_id,
        )
        retrieval_id = retrieved.retrieval_id
        memory_ids = [m.node_id for m in retrieved.memories]
    # Cited nodes the retrieval did not return were in the agent's context some other way.
    memory_ids += [n for n in cited if n not in memory_ids]
    recorder = spans.SpanRecorder(db, tenant_id=principal.tenant_id, trace_id=trace_id,
                                  user_id=user.id, session_id=session.id)
    with recorder.span(spans.AUDIT_REQUEST, kind="server") as attrs:
        audit = repository.add(db, Audit(
            tenant_id=principal.tenant_id, user_id=user.id, session_id=session.id,
            retrieval_id=retrieval_id, status="pending", decoder=decoder,
            prompt_sha256=prompt_hash, response_sha256=_sha256(body.response),
            inputs={"prompt": body.prompt, "response": body.response,
                    "candidates": body.candidates or []},
            memory_node_ids=[str(n) for n in memory_ids],
            cited_node_ids=[str(n) for n in cited],
            trace_id=recorder.trace_id,
        ))
        attrs.update({
            "capture.audit.id": audit.id,
            "capture.audit.decoder": decoder,
            "capture.retrieval.id": retrieval_id,
            "gen_ai.memory.record.id": [str(n) for n in cited],
        })
    audit_id = audit.id
    after_commit(db, lambda: enqueue_audit(audit_id, decoder))
    return AuditAccepted(audit_id=audit.id, status=audit.status, decoder=decoder,
                         trace_id=audit.trace_id)


def enqueue_audit(audit_id: uuid.UUID, decoder: str | None = None) -> None:
    """Run now in-process (no broker configured) or hand to Celery by task name."""
    settings = get_settings()
    if settings.eager_tasks:
        run_audit_by_id(audit_id)
        return
    registry.send_task(AUDIT_TASK, [str(audit_id)], settings.queue_for("audit", decoder))


def run_audit_by_id(
    audit_id: uuid.UUID, decoder: AuditDecoder[Memory] | None = None
) -> None:
    """One transaction; a failure marks the audit failed (eager path)."""
    try:
        with session_scope() as db:
            run_audit(db, audit_id, decoder)
    except Exception:
        log.exception("audit %s failed", audit_id)
        with session_scope() as db:
            mark_failed(db, audit_id, "decoder_error")


def mark_failed(db: Session, audit_id: uuid.UUID, code: str) -> None:
    audit = repository.lock(db, audit_id)
    if audit is not None and audit.status == "pending":
        audit.status = "failed"
        audit.error_code = code
        audit.inputs = None
        audit.completed_at = utcnow()


def _memories(nodes: Sequence[Node]) -> list[Memory]:
    return [Memory(node_id=str(n.id), claim=n.claim, subject=n.subject, value=n.value,
                   direction=n.direction, scope=n.scope) for n in nodes]


def run_audit(
    db: Session, audit_id: uuid.UUID, decoder: AuditDecoder[Memory] | None = None
) -> bool:
    """Run one pending audit; False when it is gone or already ran (idempotent)."""
    audit = repository.lock(db, audit_id)
    if audit is None or audit.status != "pending" or audit.inputs is None:
        return False
    if decoder is None:
        decoder = registry.audit_decoder(audit.decoder)
    started = time.perf_counter()
    memory_ids = [uuid.UUID(n) for n in audit.memory_node_ids]
    active = repository.active_nodes(db, audit.tenant_id, audit.user_id, memory_ids)
    memories = _memories([active[n] for n in memory_ids if n in active])
    cited = audit.cited_node_ids
    prompt = str(audit.inputs["prompt"])
    response = str(audit.inputs["response"])
    candidates = list(audit.inputs.get("candidates") or [])
    if candidates and response not in candidates:
        candidates.append(response)  # the sent response is one of the options re-selected
    recorder = spans.SpanRecorder(db, tenant_id=audit.tenant_id, trace_id=audit.trace_id,
                                  user_id=audit.user_id, session_id=audit.session_id)
    with recorder.span(spans.AUDIT_RUN, kind="consumer") as attrs:
        outcome = counterfactual(prompt, memories, cited, decoder, response=response,
                                 candidates=candidates)
        _record(db, audit, outcome, cited, {str(n) for n in active})
        audit.result = {
            "factual_utility": outcome.factual_utility,
            "response_utility": outcome.response_utility,
            "response_matches_factual": outcome.response_matches_factual,
            "factual_index": outcome.factual.index,
            "factual_refused": outcome.factual.refused,
            "decode_ms": round(1000 * (time.perf_counter() - started), 3),
        }
        audit.kept_node_ids = outcome.kept_node_ids
        audit.status = "done"
        audit.inputs = None  # no text is kept once the audit has run
        audit.completed_at = utcnow()
        attrs.update({
            "capture.audit.id": audit.id,
            "capture.audit.decoder": decoder.name,
            "gen_ai.memory.record.id": [c.node_id for c in outcome.citations],
            "capture.audit.influence": [c.influence for c in outcome.citations],
            "capture.audit.kept": [c.kept for c in outcome.citations],
        })
    db.flush()
    return True


def _record(db: Session, audit: Audit, outcome: AuditOutcome, cited: Sequence[str],
            active: set[str]) -> None:
    by_node = {c.node_id: c for c in outcome.citations}
    ordered = top_cited(cited, _order_stub(audit), limit=len(cited))
    rows = []
    for rank, node_id in enumerate(ordered):
        result = by_node.get(node_id)
        status = ("audited" if result is not None
                  else "not_active" if node_id not in active else "beyond_top_k")
        rows.append(AuditCitation(
            audit_id=audit.id, node_id=uuid.UUID(node_id), rank=rank, status=status,
            influence=result.influence if result else None,
            counterfactual_utility=result.counterfactual_utility if result else None,
            selection_changed=result.selection_changed if result else None,
            kept=result.kept if result else None,
        ))
    repository.add_citations(db, rows)
    nodes = repository.lock_nodes(db, [uuid.UUID(c.node_id) for c in outcome.citations])
    for citation in outcome.citations:
        node = nodes.get(uuid.UUID(citation.node_id))
        if node is not None:
            node.influence = updated_influence(node.influence, citation.influence)


def _order_stub(audit: Audit) -> list[Memory]:
    """The memory set's order as Memory stubs (ranking cited nodes needs ids only)."""
    return [Memory(node_id=n) for n in audit.memory_node_ids]


def get_audit(db: Session, principal: Principal, audit_id: uuid.UUID) -> AuditOut:
    audit = repository.get(db, principal.tenant_id, audit_id)
    if audit is None:
        raise NotFound("audit not found")
    citations = repository.citations_of(db, audit.id)
    result = audit.result or {}
    kept = None if audit.kept_node_ids is None else [uuid.UUID(n) for n in audit.kept_node_ids]
    dropped = None if audit.status != "done" else [
        c.node_id for c in citations if c.kept is False]
    return AuditOut(
        audit_id=audit.id, status=audit.status, decoder=audit.decoder,
        trace_id=audit.trace_id, retrieval_id=audit.retrieval_id,
        created_at=audit.created_at, completed_at=audit.completed_at,
        memory_node_ids=[uuid.UUID(n) for n in audit.memory_node_ids],
        citations=[
            CitationOut(node_id=c.node_id, rank=c.rank, status=c.status, influence=c.influence,
                        counterfactual_utility=c.counterfactual_utility,
                        selection_changed=c.selection_changed, kept=c.kept)
            for c in citations
        ],
        kept_node_ids=kept, dropped_node_ids=dropped,
        factual_utility=result.get("factual_utility"),
        response_utility=result.get("response_utility"),
        response_matches_factual=result.get("response_matches_factual"),
        error_code=audit.error_code,
    )


def lineage_refs(db: Session, tenant_id: uuid.UUID, node_id: uuid.UUID) -> list[AuditRef]:
    """The audits a node was cited in, oldest first (node lineage)."""
    return [
        AuditRef(audit_id=a.id, status=a.status, citation_status=c.status,
                 influence=c.influence, selection_changed=c.selection_changed, kept=c.kept,
                 decoder=a.decoder, at=a.created_at, trace_id=a.trace_id)
        for c, a in repository.citations_of_node(db, tenant_id, node_id)
    ]


__all__ += ["TOP_CITED", "enqueue_audit", "lineage_refs", "mark_failed", "run_audit_by_id"]
