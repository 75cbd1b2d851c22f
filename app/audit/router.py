from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Request
from sqlalchemy.orm import Session

from app.audit import service
from app.audit.schemas import AuditAccepted, AuditOut, AuditRequest
from app.core.auth import AgentPrincipal, Principal, ReaderPrincipal
from app.core.db import get_db
from app.core.errors import InvalidInput, NotFound, responses

router = APIRouter(prefix="/v1/audit", tags=["audit"])


@router.post(
    "",
    status_code=202,
    response_model=AuditAccepted,
    responses=responses(InvalidInput),
    summary="Audit a response's citations by counterfactual re-decoding",
    operation_id="create_audit",
)
def request_audit(
    body: AuditRequest,
    request: Request,
    principal: Principal = AgentPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> AuditAccepted:
    """202 with an audit id. A task re-decodes the turn with the memory set L and with each
    of the top three cited nodes removed, computes Inf(n) = U(y_factual) − U(y without n),
    drops citations whose removal changes nothing, and updates each audited node's running
    influence (the retrieval prior). The decoder is deployment configuration
    (`CAPTURE_AUDIT_DECODER`: `reselect` needs `candidates`)."""
    return service.create_audit(db, principal, body, request.state.trace_id)


@router.get("/{audit_id}", response_model=AuditOut, responses=responses(NotFound))
def get_audit(
    audit_id: uuid.UUID,
    principal: Principal = ReaderPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> AuditOut:
    """The audit's status and, once done, each citation's influence and whether it was kept."""
    return service.get_audit(db, principal, audit_id)
