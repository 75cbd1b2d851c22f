from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from app.core.inputs import WHITESPACE_CLASS, SafeStr, storable_text
from app.models import WebhookEndpoint

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

    # Not SafeStr: its schema pattern would replace this one; NUL is excluded here instead.
    url: Annotated[str, AfterValidator(storable_text)] = Field(
        max_length=2048, pattern=rf"^https?://[^\x00{WHITESPACE_CLASS}]+$")
    event_types: list[EventType] = Field(min_length=1, max_length=6)
    include_memory_text: bool = Field(
        default=False,
        description="Add the claim or question text to clarification.asked and "
        "memory.quarantined notifications (off: ids and codes only).",
    )
    description: SafeStr | None = Field(default=None, max_length=256)


class WebhookOut(BaseModel):
    id: uuid.UUID
    url: str
    event_types: list[EventType]
    include_memory_text: bool
    description: str | None
    created_at: datetime

    @classmethod
    def of(cls, e: WebhookEndpoint) -> WebhookOut:
        return cls(id=e.id, url=e.url, event_types=cast(list[EventType], e.event_types),
                   include_memory_text=e.include_memory_text, description=e.description,
                   created_at=e.created_at)


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
