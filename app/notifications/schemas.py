from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EventType = Literal[
    "clarification.asked",
    "memory.quarantined",
    "tool_call.denied",
    "tool_call.asked",
    "event.failed",
    "user.erased",
]


class WebhookCreate(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{
                "url": "https://hooks.example.com/capture",
                "event_types": ["clarification.asked", "tool_call.denied"],
            }]
        },
    )

    url: str = Field(max_length=2048, pattern=r"^https?://[^\s]+$")
    event_types: list[EventType] = Field(min_length=1, max_length=6)
    include_memory_text: bool = Field(
        default=False,
        description="Add the claim or question text to clarification.asked and "
        "memory.quarantined notifications (off: ids and codes only).",
    )
    description: str | None = Field(default=None, max_length=256)


class WebhookOut(BaseModel):
    id: uuid.UUID
    url: str
    event_types: list[EventType]
    include_memory_text: bool
    description: str | None
    created_at: datetime


class WebhookCreated(WebhookOut):
    secret: str = Field(description="Signs every delivery (Capture-Signature); shown once.")


class AttemptOut(BaseModel):
    attempted_at: datetime
    status_code: int | None
    error: str | None = Field(description="timeout | connection_error | http_status")
    duration_ms: float


class DeliveryOut(BaseModel):
    id: uuid.UUID
    event_type: EventType
    status: Literal["pending", "delivered", "failed"]
    attempts: int
    next_attempt_at: datetime | None
    created_at: datetime
    delivered_at: datetime | None
    payload: dict[str, object]
    attempt_log: list[AttemptOut]


class DeliveryPage(BaseModel):
    items: list[DeliveryOut]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")
