from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.config import get_settings
from app.core.inputs import EXTERNAL_ID, SafeStr, Timestamp
from app.domain.vocabulary import Action, Direction, NodeState, Origin, Timescale
from app.models import Decision, Event, HypothesisRow
from app.models.enums import EventStatus

# Events may be replayed from the past; one from the future beyond clock skew is an error.
MAX_CLOCK_SKEW = timedelta(days=1)


def check_text_size(value: str, limit: int, field: str) -> str:
    if len(value.encode()) > limit:
        raise ValueError(f"{field} exceeds {limit} bytes")
    return value


class EventCreate(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "user_id": "alice",
                    "session_id": "s1",
                    "origin": "user",
                    "text": "I prefer short answers.",
                    "occurred_at": "2026-11-01T09:00:00Z",
                    "idempotency_key": "4f0c2a4e-5d1b-4c7e-9a51-2f3b8d6e7c10",
                },
                {
                    "user_id": "alice",
                    "session_id": "s1",
                    "origin": "tool_output",
                    "tool_name": "web_search",
                    "text": "Casa Azul, Porto: rated 4.8, info@casa-azul.example",
                    "occurred_at": "2026-11-01T09:05:00Z",
                    "idempotency_key": "b7e2d9f1-0c3a-4e58-8d26-91a4f5c3e7b2",
                },
            ]
        },
    )

    user_id: str = Field(pattern=EXTERNAL_ID, description="The caller's pseudonymous user id.")
    session_id: str = Field(pattern=EXTERNAL_ID)
    origin: Origin
    text: SafeStr = Field(min_length=1, description="At most 32 KB of UTF-8 (configurable).")
    occurred_at: Timestamp = Field(
        description="ISO-8601 with a timezone, from 1970-01-01 to a day past the server's clock."
    )
    domain: str | None = Field(default=None, max_length=64, pattern=r"^[a-z0-9_\-]+$")
    source_uri: SafeStr | None = Field(default=None, max_length=2048)
    tool_name: SafeStr | None = Field(default=None, max_length=128)
    idempotency_key: SafeStr | None = Field(default=None, min_length=1, max_length=128)

    @field_validator("text")
    @classmethod
    def _text_size(cls, value: str) -> str:
        return check_text_size(value, get_settings().max_event_text_bytes, "text")

    def in_the_future(self) -> bool:
        """`occurred_at` lies more than MAX_CLOCK_SKEW past the server's clock: a refusal by
        the clock, which no schema can state (400 `invalid_input`, not a 422)."""
        return self.occurred_at - datetime.now(UTC) > MAX_CLOCK_SKEW


class DecisionOut(BaseModel):
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

    @classmethod
    def of(cls, d: Decision) -> DecisionOut:
        return cls(
            id=d.id,
            hypothesis_id=d.hypothesis_id,
            action=d.action,
            proposed_action=d.proposed_action,
            probabilities={
                "retain": d.p_retain,
                "add": d.p_add,
                "scope": d.p_scope,
                "revise": d.p_revise,
                "quarantine": d.p_quarantine,
                "clarify": d.p_clarify,
            },
            entropy=d.entropy,
            authenticity=d.authenticity,
            policy=d.policy_name,
            policy_version=d.policy_version,
            target_node_id=d.target_node_id,
            reasons=d.reasons,
        )


class HypothesisOut(BaseModel):
    id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: Direction
    scope: str
    timescale: Timescale
    confidence: float
    provenance: Origin
    extractor: str = Field(description="The extractor that read it (`CAPTURE_EXTRACTOR`, or "
                           "`learned` where an LLM extractor could not answer).")
    extractor_version: str

    @classmethod
    def of(cls, h: HypothesisRow) -> HypothesisOut:
        return cls(
            id=h.id,
            claim=h.claim,
            subject=h.subject,
            value=h.value,
            direction=h.direction,
            scope=h.scope,
            timescale=h.timescale,
            confidence=h.confidence,
            provenance=h.provenance,
            extractor=h.extractor,
            extractor_version=h.extractor_version,
        )


class NodeChangeOut(BaseModel):
    node_id: uuid.UUID
    version: int
    change: str
    state: NodeState
    decision_id: uuid.UUID | None


class EventAccepted(BaseModel):
    event_id: uuid.UUID
    status: EventStatus
    duplicate: bool = False
    trace_id: str
    decisions: list[DecisionOut] | None = None


class EventDetail(BaseModel):
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


class UserOut(BaseModel):
    user_id: str
    created_at: datetime
    events: int
    last_event_at: datetime | None


class UserPage(BaseModel):
    items: list[UserOut]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")


class EventSummary(BaseModel):
    id: uuid.UUID
    seq: int = Field(description="The user's arrival order.")
    session_id: str
    origin: Origin
    text: str | None
    occurred_at: datetime
    received_at: datetime
    domain: str | None
    tool_name: str | None
    status: EventStatus
    error_code: str | None
    erased: bool
    trace_id: str

    @classmethod
    def of(cls, event: Event, session_external_id: str) -> EventSummary:
        return cls(
            id=event.id,
            seq=event.seq,
            session_id=session_external_id,
            origin=event.origin,
            text=event.text,
            occurred_at=event.occurred_at,
            received_at=event.received_at,
            domain=event.domain,
            tool_name=event.tool_name,
            status=event.status,
            error_code=event.error_code,
            erased=event.erased_at is not None,
            trace_id=event.trace_id,
        )


class EventPage(BaseModel):
    items: list[EventSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")


class BatchEvent(EventCreate):
    idempotency_key: SafeStr = Field(min_length=1, max_length=128,
                                 description="Required in a batch: a retried batch writes "
                                 "each event once.")


class EventBatch(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"events": [
                {"user_id": "alice", "session_id": "s1", "origin": "user",
                 "text": "I prefer short answers.", "occurred_at": "2026-11-01T09:00:00Z",
                 "idempotency_key": "import-3f2a9c-1"},
                {"user_id": "alice", "session_id": "s1", "origin": "user",
                 "text": "Please use metric units.", "occurred_at": "2026-11-01T09:01:00Z",
                 "idempotency_key": "import-3f2a9c-2"},
            ]}]
        },
    )

    events: list[BatchEvent] = Field(min_length=1, max_length=1000)


class BatchItemResult(BaseModel):
    index: int
    idempotency_key: str
    status: Literal["accepted", "duplicate", "error"]
    event_id: uuid.UUID | None = None
    error: dict[str, str] | None = Field(default=None, description="code and message")


class BatchAccepted(BaseModel):
    results: list[BatchItemResult]
    accepted: int
    duplicates: int
    errors: int
