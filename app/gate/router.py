"""Gate decisions for auditors."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query
from sqlalchemy.orm import Session

from app.core.auth import AuditorPrincipal, Principal
from app.core.db import get_db
from app.core.errors import InvalidInput, responses
from app.core.inputs import EXTERNAL_ID
from app.core.pagination import PageRequest, page_request
from app.domain.vocabulary import Action
from app.gate import service
from app.gate.schemas import DecisionPage

router = APIRouter(prefix="/v1/decisions", tags=["provenance"])


@router.get("", response_model=DecisionPage, responses=responses(InvalidInput),
            operation_id="list_decisions")
def list_decisions(
    action: Action | None = None,
    user_id: str | None = Query(None, pattern=EXTERNAL_ID),
    page: PageRequest = Depends(page_request),
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> DecisionPage:
    """The tenant's gate decisions, newest first: e.g. every `quarantine` or `clarify`.
    Follow `next_cursor` for the next page."""
    return service.list_decisions(db, principal.tenant_id, page, action=action,
                                  external_user_id=user_id)
