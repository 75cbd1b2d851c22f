from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy.orm import Session

from app.checkcall import service
from app.checkcall.schemas import TOOL_NAME, CheckCallRequest, CheckCallResponse, ToolCheckPage
from app.core.auth import AgentPrincipal, AuditorPrincipal, Principal
from app.core.db import get_db
from app.core.errors import InvalidInput, responses
from app.core.inputs import EXTERNAL_ID
from app.core.pagination import PageRequest, page_request

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


@router.get(
    "/tool-checks",
    response_model=ToolCheckPage,
    responses=responses(InvalidInput),
    operation_id="list_tool_checks",
)
def list_tool_checks(
    decision: Literal["allow", "ask", "deny"] | None = None,
    user_id: str | None = Query(None, pattern=EXTERNAL_ID),
    tool_name: str | None = Query(None, pattern=TOOL_NAME),
    page: PageRequest = Depends(page_request),
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> ToolCheckPage:
    """The tenant's tool-call checks with their evidence, newest first: e.g. every `deny`
    or `ask`. Follow `next_cursor` for the next page."""
    return service.list_checks(db, principal, page, decision=decision, external_user_id=user_id,
                               tool_name=tool_name)
