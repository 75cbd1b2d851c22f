from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from sqlalchemy.orm import Session

from app.core.auth import AgentPrincipal, Principal
from app.core.db import get_db
from app.core.errors import responses
from app.selection import service
from app.selection.safety import SafetyUnavailable
from app.selection.schemas import SelectRequest, SelectResponse

router = APIRouter(prefix="/v1", tags=["selection"])


@router.post(
    "/select",
    response_model=SelectResponse,
    responses=responses(SafetyUnavailable),
    summary="Pick a response under the safety bound",
)
def select(
    body: SelectRequest,
    request: Request,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> SelectResponse:
    """Best of N candidates maximizing w_p·r_p − w_s·r_s subject to r_s ≤ τ_safe, with a
    refusal naming the harm when every candidate violates the bound. Memories are read by a
    recorded `context` retrieval of the prompt. w_p, w_s and τ_safe come from deployment
    configuration only (`CAPTURE_SELECTOR_*`); no request field or memory can move them.
    503 when the configured safety scorer cannot answer (never treated as safe)."""
    return service.select(db, principal, body, request.state.trace_id)
