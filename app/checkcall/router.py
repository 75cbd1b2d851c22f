from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from sqlalchemy.orm import Session

from app.checkcall import service
from app.checkcall.schemas import CheckCallRequest, CheckCallResponse
from app.core.auth import AgentPrincipal, Principal
from app.core.db import get_db
from app.core.errors import responses

router = APIRouter(prefix="/v1", tags=["check-call"])


@router.post(
    "/check-call",
    response_model=CheckCallResponse,
    responses=responses(),
    summary="Check a tool call before running it",
)
def check_call(
    body: CheckCallRequest,
    request: Request,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> CheckCallResponse:
    """`allow`, `ask` (confirm with the user first) or `deny`, decided from where each sink
    argument's value came from: the user's own words, the operator's allowlist, data
    records returned for the user's request, non-user channels, injected instructions or
    quarantined memories. Deterministic; every decision is recorded with its evidence
    (node and event ids, never values). Trajectory `features` and `triage_score` are
    triage signals and never decide. See docs/checkcall.md for the codes."""
    return service.check_call(db, principal, body, request.state.trace_id)
