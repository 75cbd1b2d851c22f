from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Path, Query
from sqlalchemy.orm import Session

from app.core.auth import AuditorPrincipal, Principal
from app.core.db import get_db
from app.core.errors import NotFound, responses
from app.core.inputs import EXTERNAL_ID
from app.provenance import service
from app.provenance.schemas import NodeLineageOut, SessionGraph, TraceOut

router = APIRouter(prefix="/v1/provenance", tags=["provenance"])


@router.get(
    "/nodes/{node_id}",
    response_model=NodeLineageOut,
    responses=responses(NotFound),
    operation_id="get_node_lineage",
)
def node_lineage(
    node_id: uuid.UUID,
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> NodeLineageOut:
    """Events → hypotheses → decisions → node versions → retrievals → tool checks."""
    return service.node_lineage(db, principal, node_id)


@router.get(
    "/sessions/{session_id}",
    response_model=SessionGraph,
    responses=responses(NotFound),
    operation_id="get_session_graph",
)
def session_graph(
    session_id: str = Path(pattern=EXTERNAL_ID),
    user_id: str = Query(pattern=EXTERNAL_ID),
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> SessionGraph:
    """The session's retrieval-to-action graph."""
    return service.session_graph(db, principal, user_id, session_id)


@router.get(
    "/traces/{trace_id}",
    response_model=TraceOut,
    responses=responses(NotFound),
    operation_id="get_trace",
)
def trace(
    trace_id: str = Path(pattern=r"^[0-9a-f]{32}$"),
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> TraceOut:
    return service.trace(db, principal, trace_id)
