"""POST /v1/select: retrieve the user's memories for the prompt (a recorded `context`
retrieval), score every candidate, pick under the safety bound, record a span.

Benchmark hooks (pure, no database): `select_candidates(memories, candidates, prompt=...)`
and `SelectorConfig` (re-exported from app.selection.selector).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.core import spans
from app.core.auth import Principal
from app.core.config import get_settings
from app.events import repository as events_repository
from app.retrieval import service as retrieval_service
from app.retrieval.schemas import RetrievedMemory, RetrieveRequest
from app.selection.memory import Memory
from app.selection.safety import get_safety_scorer
from app.selection.schemas import (
    CandidateScoreOut,
    MemoryUsed,
    RefusalOut,
    SelectorSettings,
    SelectRequest,
    SelectResponse,
)
from app.selection.selector import (
    CandidateScore,
    Selection,
    SelectorConfig,
    decide,
    select_candidates,
)
from app.selection.utility import get_utility

__all__ = ["SelectorConfig", "select", "select_candidates", "to_memory"]


def to_memory(m: RetrievedMemory) -> Memory:
    return Memory(node_id=str(m.node_id), claim=m.claim, subject=m.subject, value=m.value,
                  direction=m.direction, scope=m.scope, score=m.score)


def select(db: Session, principal: Principal, body: SelectRequest,
           trace_id: str) -> SelectResponse:
    settings = get_settings()
    config = SelectorConfig.from_settings(settings)  # never from the request or the ledger
    # A selection is recorded, with its retrieval, under the user and session it names.
    user = events_repository.get_or_create_user(db, principal.tenant_id, body.user_id)
    session = events_repository.get_or_create_session(db, user, body.session_id)
    retrieved = retrieval_service.retrieve(
        db, principal,
        RetrieveRequest(user_id=body.user_id, session_id=body.session_id, query=body.prompt,
                        mode="context"),
        trace_id,
    )
    assert retrieved.retrieval_id is not None  # the session exists, so it was recorded
    utility, safety = get_utility(), get_safety_scorer()
    recorder = spans.SpanRecorder(db, tenant_id=principal.tenant_id, trace_id=retrieved.trace_id,
                                  user_id=user.id, session_id=session.id)
    with recorder.span(spans.SELECT_RESPONSE, kind="server") as attrs:
        memories = [to_memory(m) for m in retrieved.memories]
        r_p = [float(x) for x in utility.score(body.prompt, memories, body.candidates)]
        selection = decide(r_p, safety.assess(body.prompt, body.candidates), config)
        attrs.update(_span_attributes(selection, retrieved.retrieval_id, memories))
    return SelectResponse(
        trace_id=retrieved.trace_id,
        retrieval_id=retrieved.retrieval_id,
        chosen_index=selection.chosen,
        response=(body.candidates[selection.chosen] if selection.chosen is not None
                  else selection.refusal.message if selection.refusal else ""),
        refused=selection.refused,
        refusal=(RefusalOut(message=selection.refusal.message,
                            category=selection.refusal.category)
                 if selection.refusal else None),
        candidates=[_score_out(s) for s in selection.scores],
        memories=[
            MemoryUsed(node_id=m.node_id, claim=m.claim, subject=m.subject, value=m.value,
                       direction=m.direction, scope=m.scope, score=m.score)
            for m in retrieved.memories
        ],
        selector=SelectorSettings(w_p=config.weight_utility, w_s=config.weight_safety,
                                  tau_safe=settings.selector_tau_safe,
                                  utility_model=utility.name, safety_scorer=safety.name),
    )


def _score_out(s: CandidateScore) -> CandidateScoreOut:
    return CandidateScoreOut(index=s.index, r_p=s.r_p, r_s=s.r_s, objective=s.objective,
                             within_bound=s.within_bound, safety_category=s.safety_category)


def _span_attributes(selection: Selection, retrieval_id: object,
                     memories: list[Memory]) -> dict[str, object]:
    """Ids, scores and codes only: never a candidate's or a memory's text."""
    return {
        "capture.retrieval.id": str(retrieval_id),
        "gen_ai.memory.record.id": [m.node_id for m in memories],
        "capture.selection.candidates": len(selection.scores),
        "capture.selection.chosen": -1 if selection.chosen is None else selection.chosen,
        "capture.selection.refused": selection.refused,
        "capture.selection.refusal_category": (selection.refusal.category or ""
                                               if selection.refusal else ""),
        "capture.selection.tau_safe": selection.config.tau_safe,
        "capture.selection.r_p": [s.r_p for s in selection.scores],
        "capture.selection.r_s": [s.r_s for s in selection.scores],
    }
