from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from sqlalchemy.orm import Session

from app.core.auth import AgentPrincipal, Principal
from app.core.db import get_db
from app.core.errors import responses
from app.retrieval import service
from app.retrieval.schemas import RetrieveRequest, RetrieveResponse

router = APIRouter(prefix="/v1", tags=["retrieval"])


@router.post("/retrieve", response_model=RetrieveResponse, responses=responses())
def retrieve(
    body: RetrieveRequest,
    request: Request,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> RetrieveResponse:
    """Active memories only, scored 0.55 similarity + 0.20 decayed confidence + 0.15 scope
    match + 0.10 influence prior, with each component. Every call is recorded."""
    return service.retrieve(db, principal, body, request.state.trace_id)
