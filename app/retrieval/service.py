"""Search a user's active memories and record what was returned (span search_memory)."""

from __future__ import annotations

import hashlib
import time

from sqlalchemy.orm import Session

from app.core import spans
from app.core.auth import Principal
from app.core.embeddings import embed_one
from app.core.metrics import RETRIEVAL_SECONDS
from app.events import repository as events_repository
from app.ledger.rules import decayed_confidence
from app.models import User
from app.models.base import new_id, utcnow
from app.retrieval import repository
from app.retrieval.schemas import (
    RetrievedMemory,
    RetrieveRequest,
    RetrieveResponse,
    ScoreComponents,
)
from app.retrieval.scoring import Scored, influence_prior, scope_match

# Candidates pulled from the index before rescoring: a generous multiple of k.
CANDIDATE_FACTOR = 4
MIN_CANDIDATES = 48


def retrieve(
    db: Session, principal: Principal, body: RetrieveRequest, trace_id: str
) -> RetrieveResponse:
    t0 = time.perf_counter()
    # A read never creates the user it names: an unknown user has no memories to return.
    target = repository.target(db, principal.tenant_id, body.user_id, body.session_id)
    if target is None:
        return RetrieveResponse(retrieval_id=None, trace_id=trace_id, mode=body.mode,
                                memories=[])
    query_vector = embed_one(body.query)
    pool = repository.nearest(
        db,
        principal.tenant_id,
        target.user_id,
        query_vector,
        max(MIN_CANDIDATES, CANDIDATE_FACTOR * body.k),
    )
    session_id = target.session_id
    if session_id is None:
        if not pool:  # nothing returned into a session never seen: nothing to record
            return RetrieveResponse(retrieval_id=None, trace_id=trace_id, mode=body.mode,
                                    memories=[])
        # Memories returned into a new session are provenance for its later tool calls.
        user = db.get(User, target.user_id)
        assert user is not None
        session_id = events_repository.get_or_create_session(db, user, body.session_id).id
    at = body.at or utcnow()
    recorder = spans.SpanRecorder(
        db, tenant_id=principal.tenant_id, trace_id=trace_id, user_id=target.user_id,
        session_id=session_id, collect=True,
    )
    retrieval_id = new_id()
    with recorder.span(spans.SEARCH_MEMORY, kind="server") as attrs:
        scored = [
            (
                node,
                Scored(
                    similarity=node.similarity,
                    decayed_confidence=decayed_confidence(node, at),
                    scope_match=scope_match(node.scope, body.domain),
                    influence_prior=influence_prior(node.influence),
                ),
            )
            for node in pool
        ]
        # Highest score; ties by confidence, then recency, then node id.
        scored.sort(
            key=lambda ns: (
                -ns[1].score,
                -ns[1].decayed_confidence,
                -ns[0].recorded_at.timestamp(),
                str(ns[0].id),
            )
        )
        top = scored[: body.k]
        attrs.update(
            {
                "capture.retrieval.id": retrieval_id,
                "capture.retrieval.mode": body.mode,
                "capture.retrieval.k": body.k,
                "gen_ai.conversation.id": body.session_id,
                "gen_ai.memory.record.id": [str(node.id) for node, _ in top],
            }
        )
    # The retrieval, its results, the retrieval counts and the span: one statement.
    (span,) = recorder.collected
    repository.record(
        db,
        {
            "id": retrieval_id,
            "tenant_id": principal.tenant_id,
            "user_id": target.user_id,
            "session_id": session_id,
            "mode": body.mode,
            "query_sha256": hashlib.sha256(body.query.encode()).hexdigest(),
            "domain": body.domain,
            "k": body.k,
            "trace_id": recorder.trace_id,
            "created_at": utcnow(),
        },
        [
            {"id": new_id(), "node_id": node.id, "rank": rank, "score": s.score,
             "components": _components(s).model_dump()}
            for rank, (node, s) in enumerate(top)
        ],
        span,
    )
    RETRIEVAL_SECONDS.observe(time.perf_counter() - t0)
    return RetrieveResponse(
        retrieval_id=retrieval_id,
        trace_id=recorder.trace_id,
        mode=body.mode,
        memories=[
            RetrievedMemory(
                node_id=node.id,
                claim=node.claim,
                subject=node.subject,
                value=node.value,
                direction=node.direction,
                scope=node.scope,
                layer=node.layer,
                origin=node.origin,
                score=round(s.score, 6),
                components=_components(s),
                recorded_at=node.recorded_at,
            )
            for node, s in top
        ],
    )


def _components(s: Scored) -> ScoreComponents:
    return ScoreComponents(
        similarity=round(s.similarity, 6),
        decayed_confidence=round(s.decayed_confidence, 6),
        scope_match=s.scope_match,
        influence_prior=s.influence_prior,
    )
