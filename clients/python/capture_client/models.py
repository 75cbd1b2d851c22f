"""Request and response models mirroring the component schemas of Capture's OpenAPI spec.

Each class has the name of the component it mirrors; tests/client/test_spec_drift.py fails
when a field, its type or whether it is required differs from openapi/openapi.json.
Requests forbid unknown fields as the service does; responses ignore fields they do not
know, so a newer service does not break an older client.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Decision = Literal["allow", "ask", "deny"]
RetrievalMode = Literal["tool", "context"]
AuditStatus = Literal["pending", "done", "failed"]
ToolSource = Literal["policy", "registered", "declaration", "default"]


class Origin(StrEnum):
    user = "user"
    retrieved_document = "retrieved_document"
    tool_output = "tool_output"
    shared_file = "shared_file"


class Direction(StrEnum):
    prefer = "prefer"
    avoid = "avoid"


class Timescale(StrEnum):
    permanent = "permanent"
    situational = "situational"


class Layer(StrEnum):
    stable = "stable"
    contextual = "contextual"
    transient = "transient"


class NodeState(StrEnum):
    active = "active"
    quarantined = "quarantined"
    superseded = "superseded"
    evicted = "evicted"


class Role(StrEnum):
    agent = "agent"
    auditor = "auditor"
    admin = "admin"


class EventStatus(StrEnum):
    pending = "pending"
    processed = "processed"
    failed = "failed"


class Action(StrEnum):
    retain = "retain"
    add = "add"
    scope = "scope"
    revise = "revise"
    quarantine = "quarantine"
    clarify = "clarify"


class ClarificationStatus(StrEnum):
    pending = "pending"
    answered = "answered"
    erased = "erased"
    deferred = "deferred"
    withdrawn = "withdrawn"


class SideEffect(StrEnum):
    read = "read"
    write = "write"
    external_send = "external_send"


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Response(BaseModel):
    model_config = ConfigDict(extra="ignore")


# Errors


class ErrorBody(_Response):
    code: str
    message: str
    details: dict[str, Any] | None = None


class ErrorResponse(_Response):
    error: ErrorBody


# Events


class EventCreate(_Request):
    user_id: str
    session_id: str
    origin: Origin
    text: str
    occurred_at: datetime
    domain: str | None = None
    source_uri: str | None = None
    tool_name: str | None = None
    idempotency_key: str | None = None


class DecisionOut(_Response):
    id: uuid.UUID
    hypothesis_id: uuid.UUID
    action: Action
    proposed_action: Action | None
    probabilities: dict[str, float]
    entropy: float
    authenticity: float
    policy: str
    policy_version: str
    target_node_id: uuid.UUID | None
    reasons: list[str]


class HypothesisOut(_Response):
    id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: Direction
    scope: str
    timescale: Timescale
    confidence: float
    provenance: Origin
    extractor: str
    extractor_version: str


class NodeChangeOut(_Response):
    node_id: uuid.UUID
    version: int
    change: str
    state: NodeState
    decision_id: uuid.UUID | None


class EventAccepted(_Response):
    event_id: uuid.UUID
    status: EventStatus
    duplicate: bool = False
    trace_id: str
    decisions: list[DecisionOut] | None = None


class EventDetail(_Response):
    id: uuid.UUID
    user_id: str
    session_id: str
    origin: Origin
    text: str | None
    text_sha256: str
    occurred_at: datetime
    received_at: datetime
    domain: str | None
    source_uri: str | None
    tool_name: str | None
    status: EventStatus
    error_code: str | None
    erased: bool
    trace_id: str
    hypotheses: list[HypothesisOut]
    decisions: list[DecisionOut]
    node_changes: list[NodeChangeOut]


# Retrieval


class RetrieveRequest(_Request):
    user_id: str
    session_id: str
    query: str
    domain: str | None = None
    k: int = 12
    mode: RetrievalMode = "tool"
    at: datetime | None = None


class ScoreComponents(_Response):
    similarity: float
    decayed_confidence: float
    scope_match: float
    influence_prior: float


class RetrievedMemory(_Response):
    node_id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: Direction
    scope: str
    layer: Layer
    origin: Origin
    score: float
    components: ScoreComponents
    recorded_at: datetime


class RetrieveResponse(_Response):
    retrieval_id: uuid.UUID | None
    trace_id: str
    mode: RetrievalMode
    memories: list[RetrievedMemory]


# Check-call


class ToolAnnotations(BaseModel):
    """MCP tool annotations (hints the tool's server states)."""

    model_config = ConfigDict(extra="ignore")

    title: str | None = None
    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None


class ToolDeclaration(BaseModel):
    """A tool's definition in the MCP `Tool` shape, as its server lists it. Fields the
    service does not read (`outputSchema`, `icons`, `_meta`) are dropped, so an MCP `Tool`'s
    `model_dump()` can be passed as it is."""

    model_config = ConfigDict(extra="ignore")

    name: str
    title: str | None = None
    description: str | None = None
    inputSchema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    annotations: ToolAnnotations | None = None


class ToolCall(_Request):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    declaration: ToolDeclaration | None = None


class ArgBinding(_Request):
    node_id: uuid.UUID | None = None
    event_id: uuid.UUID | None = None


class CheckCallRequest(_Request):
    user_id: str
    session_id: str
    tool: ToolCall
    call_id: str | None = None
    arg_bindings: dict[str, list[ArgBinding]] | None = None


class EvidenceRef(_Response):
    kind: Literal["node", "event", "retrieval", "tool_check"]
    id: uuid.UUID


class ReasonOut(_Response):
    code: str
    effect: Literal["allow", "ask", "deny", "info"]
    rule: str
    argument: str | None = None
    evidence: list[EvidenceRef]


class SourceOut(_Response):
    kind: str
    origin: str | None = None
    session: Literal["this", "other"] | None = None
    event_id: uuid.UUID | None = None
    node_id: uuid.UUID | None = None
    node_state: str | None = None
    retrieval_ids: list[uuid.UUID] = Field(default_factory=list)
    declared: bool = False


class ValueProvenance(_Response):
    index: int
    kind: str
    value_sha256: str
    in_content: bool
    external: bool
    verdict: Decision | None
    code: str | None
    sources: list[SourceOut]


class CheckCallResponse(_Response):
    decision: Decision
    reasons: list[ReasonOut]
    arg_provenance: dict[str, list[ValueProvenance]]
    features: dict[str, Any]
    triage_score: float
    side_effect: SideEffect
    tool_source: ToolSource
    policy_version: str
    decision_id: uuid.UUID | None
    trace_id: str


class SinkOut(_Response):
    kind: str
    risk: Literal["high", "low"]
    external: bool


class ToolClassification(_Response):
    side_effect: SideEffect
    sinks: dict[str, SinkOut]
    content: list[str]


class RegisteredTool(_Response):
    name: str
    declaration: ToolDeclaration
    classification: ToolClassification
    created_at: datetime
    updated_at: datetime


class RegisteredToolPage(_Response):
    tools: list[RegisteredTool]
    total: int
    limit: int
    offset: int


# Memories


class NodeOut(_Response):
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
    c0: float
    authenticity: float
    confidence_now: float
    last_corroborated_at: datetime
    quarantined_at: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    retired_at: datetime | None
    influence: float | None
    retrieval_count: int
    version: int


class NodePage(_Response):
    nodes: list[NodeOut]
    total: int
    limit: int
    offset: int


class NodePatch(_Request):
    claim: str | None = None
    direction: Literal["prefer", "avoid"] | None = None
    scope: str | None = None
    layer: Literal["stable", "contextual", "transient"] | None = None
    state: Literal["active", "evicted"] | None = None


class ErasureReceipt(_Response):
    node_id: uuid.UUID
    erased_at: datetime
    events_erased: int
    hypotheses_erased: int


class EventErasureReceipt(_Response):
    event_id: uuid.UUID
    erased_at: datetime
    nodes_erased: int
    hypotheses_erased: int


# Clarifications


class ClarificationOut(_Response):
    id: uuid.UUID
    user_id: str
    node_id: uuid.UUID
    event_id: uuid.UUID
    asked_event_id: uuid.UUID | None = None
    question: str | None
    status: ClarificationStatus
    answer: str | None
    created_at: datetime
    answered_at: datetime | None


class ClarificationPage(_Response):
    items: list[ClarificationOut]
    next_cursor: str | None


class ClarificationAnswer(_Request):
    answer: Literal["confirm", "reject", "scope"]
    scope: str | None = None


# Selection


class SelectRequest(_Request):
    user_id: str
    session_id: str
    prompt: str
    candidates: list[str]


class CandidateScoreOut(_Response):
    index: int
    r_p: float
    r_s: float
    objective: float
    within_bound: bool
    safety_category: str | None


class MemoryUsed(_Response):
    node_id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: Direction
    scope: str
    score: float


class RefusalOut(_Response):
    message: str
    category: str | None


class SelectorSettings(_Response):
    w_p: float
    w_s: float
    tau_safe: float
    utility_model: str
    safety_scorer: str


class SelectResponse(_Response):
    trace_id: str
    retrieval_id: uuid.UUID
    chosen_index: int | None
    response: str
    refused: bool
    refusal: RefusalOut | None
    candidates: list[CandidateScoreOut]
    memories: list[MemoryUsed]
    selector: SelectorSettings


# Audit


class AuditRequest(_Request):
    user_id: str
    session_id: str
    prompt: str
    response: str
    cited_node_ids: list[uuid.UUID]
    candidates: list[str] | None = None


class AuditAccepted(_Response):
    audit_id: uuid.UUID
    status: AuditStatus
    decoder: str
    trace_id: str


class CitationOut(_Response):
    node_id: uuid.UUID
    rank: int
    status: Literal["audited", "beyond_top_k", "not_active"]
    influence: float | None
    counterfactual_utility: float | None
    selection_changed: bool | None
    kept: bool | None


class AuditOut(_Response):
    audit_id: uuid.UUID
    status: AuditStatus
    decoder: str
    trace_id: str
    retrieval_id: uuid.UUID | None
    created_at: datetime
    completed_at: datetime | None
    memory_node_ids: list[uuid.UUID]
    citations: list[CitationOut]
    kept_node_ids: list[uuid.UUID] | None
    dropped_node_ids: list[uuid.UUID] | None
    factual_utility: float | None
    response_utility: float | None
    response_matches_factual: bool | None
    error_code: str | None


class KeyIdentity(_Response):
    tenant_id: uuid.UUID
    key_id: uuid.UUID
    role: Role
