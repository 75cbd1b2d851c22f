from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from app.audit.schemas import AuditRef
from app.events.schemas import DecisionOut, HypothesisOut
from app.ledger.schemas import NodeOut


class LineageEvent(BaseModel):
    event_id: uuid.UUID
    relation: str
    origin: str
    session_id: str
    occurred_at: datetime
    text_sha256: str
    erased: bool
    hypothesis_id: uuid.UUID | None
    decision_id: uuid.UUID | None
    trace_id: str


class VersionOut(BaseModel):
    version: int
    change: str
    state: str
    layer: str
    scope: str
    claim: str | None
    changed_at: datetime
    event_id: uuid.UUID | None
    decision_id: uuid.UUID | None
    # A change made through the API (a correction): the key and its role.
    actor_key_id: uuid.UUID | None = None
    actor_role: str | None = None


class EdgeOut(BaseModel):
    relation: str
    src_node_id: uuid.UUID
    dst_node_id: uuid.UUID
    probability: float
    decision_id: uuid.UUID | None


class RetrievalHit(BaseModel):
    retrieval_id: uuid.UUID
    session_id: str
    mode: str
    rank: int
    score: float
    at: datetime
    trace_id: str


class ToolCheckRef(BaseModel):
    check_id: uuid.UUID
    tool_name: str
    decision: str
    at: datetime
    trace_id: str


class NodeLineageOut(BaseModel):
    node: NodeOut
    events: list[LineageEvent]
    hypotheses: list[HypothesisOut]
    decisions: list[DecisionOut]
    versions: list[VersionOut]
    edges: list[EdgeOut]
    retrievals: list[RetrievalHit]
    tool_checks: list[ToolCheckRef]
    audits: list[AuditRef] = Field(
        default_factory=list, description="Citation audits the node was cited in.")


class GraphVertex(BaseModel):
    id: str
    kind: str  # write | processing | retrieval | action | memory
    operation: str
    at: datetime | None
    observability: str  # observed: this session's record; cross_session: written elsewhere
    attributes: dict[str, Any]


class GraphEdge(BaseModel):
    src: str
    dst: str
    relation: str
    verified: bool  # established by ids/content, not by order alone
    # Data-dependency edges into an action: the argument the source fed and what kind of
    # source it was (check-call's source kinds: user_utterance, injected_instruction, …).
    argument: str | None = None
    source: str | None = None


class SessionGraph(BaseModel):
    session_id: str
    user_id: str
    vertices: list[GraphVertex]
    edges: list[GraphEdge]


class SpanOut(BaseModel):
    span_id: str
    parent_span_id: str | None
    name: str
    kind: str
    started_at: datetime
    ended_at: datetime
    status: str
    attributes: dict[str, Any]


class TraceOut(BaseModel):
    trace_id: str
    spans: list[SpanOut]
