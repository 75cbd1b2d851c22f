from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from app.checkcall.schemas import ToolCheckOut
from app.domain.vocabulary import (
    ClarificationStatus,
    Direction,
    EdgeRelation,
    Layer,
    NodeState,
    Origin,
    Timescale,
)
from app.events.schemas import EventSummary
from app.gate.schemas import DecisionListItem
from app.models import UserErasure
from app.models.enums import ErasureStatus


class ExportSession(BaseModel):
    session_id: str
    started_at: datetime
    last_event_at: datetime | None


class ExportHypothesis(BaseModel):
    id: uuid.UUID
    event_id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: Direction
    scope: str
    timescale: Timescale
    confidence: float
    provenance: Origin
    extractor: str
    created_at: datetime


class ExportVersion(BaseModel):
    version: int
    claim: str | None
    layer: Layer
    state: NodeState
    scope: str
    change: str
    event_id: uuid.UUID | None
    decision_id: uuid.UUID | None
    actor_key_id: uuid.UUID | None = Field(
        description="The API key that made a correction; null for changes from an event.")
    actor_role: str | None
    changed_at: datetime


class ExportLineage(BaseModel):
    event_id: uuid.UUID
    hypothesis_id: uuid.UUID | None
    decision_id: uuid.UUID | None
    relation: str


class ExportMemory(BaseModel):
    id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: Direction
    scope: str
    timescale: Timescale
    layer: Layer
    state: NodeState
    origin: Origin
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    retired_at: datetime | None
    erased: bool
    versions: list[ExportVersion]
    lineage: list[ExportLineage]


class ExportEdge(BaseModel):
    src_node_id: uuid.UUID
    dst_node_id: uuid.UUID
    relation: EdgeRelation
    probability: float


class ExportQuestion(BaseModel):
    id: uuid.UUID
    node_id: uuid.UUID
    contradicted_node_id: uuid.UUID | None = Field(
        description="The claim the one asked about would replace, if any.")
    event_id: uuid.UUID
    source: str | None = Field(description="Where the claim asked about came from (an origin).")
    question: str | None = Field(
        description="Rendered from the claims as they are now; none once the claim asked "
                    "about is erased.")
    status: ClarificationStatus
    answer: str | None
    created_at: datetime
    answered_at: datetime | None


class ExportRetrieval(BaseModel):
    id: uuid.UUID
    mode: str
    query_sha256: str
    k: int
    created_at: datetime
    results: list[dict[str, Any]] = Field(description="node_id, rank and score per result.")


class ExportAudit(BaseModel):
    id: uuid.UUID
    status: str
    decoder: str
    cited_node_ids: list[str]
    result: dict[str, Any] | None
    created_at: datetime


class UserExport(BaseModel):
    """Everything Capture holds about one user."""

    user_id: str
    created_at: datetime
    exported_at: datetime
    sessions: list[ExportSession]
    events: list[EventSummary]
    hypotheses: list[ExportHypothesis]
    decisions: list[DecisionListItem]
    memories: list[ExportMemory]
    edges: list[ExportEdge]
    questions: list[ExportQuestion]
    retrievals: list[ExportRetrieval]
    tool_checks: list[ToolCheckOut]
    audits: list[ExportAudit]


class ErasureOut(BaseModel):
    """A user erasure and, once done, its receipt: the rows deleted per table."""

    id: uuid.UUID
    status: ErasureStatus
    user_ref_sha256: str = Field(description="SHA-256 of the erased user's id.")
    requested_at: datetime
    completed_at: datetime | None
    counts: dict[str, int]
    error_code: str | None

    @classmethod
    def of(cls, e: UserErasure) -> ErasureOut:
        return cls(id=e.id, status=e.status, user_ref_sha256=e.user_ref_sha256,
                   requested_at=e.requested_at, completed_at=e.completed_at, counts=e.counts,
                   error_code=e.error_code)


class ErasurePage(BaseModel):
    items: list[ErasureOut]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")
