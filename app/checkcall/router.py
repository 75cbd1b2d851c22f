from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from sqlalchemy.orm import Session

from app.checkcall import service
from app.checkcall.declaration import TOOL_NAME, ToolDeclaration
from app.checkcall.schemas import (
    CheckCallRequest,
    CheckCallResponse,
    RegisteredTool,
    RegisteredToolPage,
    ToolCheckPage,
)
from app.core.auth import (
    AdminPrincipal,
    AgentPrincipal,
    AuditorPrincipal,
    Principal,
    ReaderPrincipal,
)
from app.core.db import get_db
from app.core.errors import InvalidInput, NotFound, responses
from app.core.inputs import EXTERNAL_ID, Offset
from app.core.pagination import PageRequest, page_request

router = APIRouter(prefix="/v1", tags=["check-call"])

ToolNamePath = Annotated[str, Path(pattern=TOOL_NAME, description="The tool's name.")]


@router.post(
    "/check-call",
    response_model=CheckCallResponse,
    responses=responses(InvalidInput),
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
    triage signals and never decide. A tool the operator's policy file does not name is
    classified from its declaration (registered, or passed as `tool.declaration`); one the
    file names only by a pattern is read with its declaration, the stricter deciding;
    `tool_source` says which. See docs/checkcall.md for the codes."""
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


@router.put(
    "/tools/{name}",
    response_model=RegisteredTool,
    responses=responses(InvalidInput),
    summary="Declare a tool for the tenant",
)
def register_tool(
    name: ToolNamePath,
    body: ToolDeclaration,
    principal: Principal = AdminPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> RegisteredTool:
    """Register the tool's own definition in the MCP `Tool` shape (admin key). Check-call
    classifies the tool from it (side effect, sink and content arguments; the response
    shows how) wherever the operator's policy file does not name the tool, and reads it with
    the file's entry where the file names the tool only by a pattern or as a read (a
    declaration adds sinks there, never removes one). Replaces an earlier declaration of the
    same name."""
    return service.register_tool(db, principal, name, body)


@router.get(
    "/tools",
    response_model=RegisteredToolPage,
    responses=responses(),
    summary="List the tenant's declared tools",
)
def list_tools(
    limit: int = Query(100, ge=1, le=500),
    offset: Offset = 0,
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> RegisteredToolPage:
    """The tools the tenant's admin declared, by name, each with how check-call reads it."""
    return service.list_tools(db, principal, limit, offset)


@router.delete(
    "/tools/{name}",
    status_code=204,
    response_class=Response,
    responses=responses(NotFound),
    summary="Remove a declared tool",
)
def unregister_tool(
    name: ToolNamePath,
    principal: Principal = AdminPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> Response:
    """Forget the tenant's declaration of the tool (admin key)."""
    service.unregister_tool(db, principal, name)
    return Response(status_code=204)
