from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from app.checkcall.schemas import ToolCheckOut
from app.events.schemas import EventSummary
from app.gate.schemas import DecisionListItem


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
    direction: str
    scope: str
    timescale: str
    confidence: float
    provenance: str
    extractor: str
    created_at: datetime


class ExportVersion(BaseModel):
    version: int
    claim: str | None
    layer: str
    state: str
    scope: str
    change: str
    event_id: uuid.UUID | None
    decision_id: uuid.UUID | None
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
    direction: str
    scope: str
    timescale: str
    layer: str
    state: str
    origin: str
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
    relation: str
    probability: float


class ExportQuestion(BaseModel):
    id: uuid.UUID
    node_id: uuid.UUID
    event_id: uuid.UUID
    question: str | None
    status: str
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
    status: str = Field(description="pending | done | failed")
    user_ref_sha256: str = Field(description="SHA-256 of the erased user's id.")
    requested_at: datetime
    completed_at: datetime | None
    counts: dict[str, int]
    error_code: str | None


class ErasurePage(BaseModel):
    items: list[ErasureOut]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")
