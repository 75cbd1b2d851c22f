"""A user's whole record: exported, or erased as a job with a receipt."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Request
from sqlalchemy.orm import Session

from app.core.auth import AgentPrincipal, AuditorPrincipal, Principal, ReaderPrincipal
from app.core.db import get_db
from app.core.errors import InvalidInput, NotFound, responses
from app.core.inputs import UserIdPath
from app.core.pagination import PageRequest, page_request
from app.users import service
from app.users.schemas import ErasureOut, ErasurePage, UserExport

router = APIRouter(prefix="/v1/users", tags=["users"])
erasures_router = APIRouter(prefix="/v1/erasures", tags=["users"])


@router.get("/{user_id}/export", response_model=UserExport, responses=responses(NotFound),
            operation_id="export_user")
def export_user(
    user_id: UserIdPath,
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> UserExport:
    """Everything held about the user as one document: sessions, events, what was read from
    them, decisions, memories with their versions and lineage, questions, retrievals, tool
    checks and audits."""
    return service.export(db, principal, user_id)


@router.delete("/{user_id}", status_code=202, response_model=ErasureOut,
               responses=responses(NotFound), operation_id="erase_user")
def erase_user(
    request: Request,
    user_id: UserIdPath,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> ErasureOut:
    """Erase the user entirely, as a job: every row about them is deleted. Poll
    `GET /v1/erasures/{id}` for the receipt (rows deleted per table)."""
    return service.request_erasure(db, principal, user_id, request.state.trace_id)


@erasures_router.get("/{erasure_id}", response_model=ErasureOut,
                     responses=responses(NotFound), operation_id="get_erasure")
def get_erasure(
    erasure_id: uuid.UUID,
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> ErasureOut:
    """An erasure job's status and, once done, its receipt."""
    return service.get_erasure(db, principal, erasure_id)


@erasures_router.get("", response_model=ErasurePage, responses=responses(InvalidInput),
                     operation_id="list_erasures")
def list_erasures(
    page: PageRequest = Depends(page_request),
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> ErasurePage:
    """The tenant's erasure receipts, newest first."""
    return service.list_erasures(db, principal, page)
