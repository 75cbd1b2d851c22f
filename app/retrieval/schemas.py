from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.config import get_settings
from app.core.inputs import EXTERNAL_ID, SafeStr, Timestamp
from app.domain.vocabulary import Direction, Layer, Origin
from app.events.schemas import check_text_size


class RetrieveRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "user_id": "alice",
                    "session_id": "s1",
                    "query": "How long should answers be?",
                    "mode": "context",
                    "k": 5,
                }
            ]
        },
    )

    user_id: str = Field(pattern=EXTERNAL_ID)
    session_id: str = Field(pattern=EXTERNAL_ID)
    query: SafeStr = Field(min_length=1)
    domain: str | None = Field(default=None, max_length=64, pattern=r"^[a-z0-9_\-]+$")
    k: int = Field(default=12, ge=1, le=50)
    mode: Literal["tool", "context"] = Field(
        default="tool",
        description="`tool`: an agent's memory-search tool call; `context`: the framework's "
        "context assembly. Both are recorded, so no retrieval is implicit.",
    )
    at: Timestamp | None = Field(
        default=None, description="Score decay at this time (default: now). Must have a timezone."
    )

    @field_validator("query")
    @classmethod
    def _query_size(cls, value: str) -> str:
        return check_text_size(value, get_settings().max_query_bytes, "query")


class ScoreComponents(BaseModel):
    similarity: float
    decayed_confidence: float
    scope_match: float
    influence_prior: float


class RetrievedMemory(BaseModel):
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


class RetrieveResponse(BaseModel):
    retrieval_id: uuid.UUID | None = Field(
        description="The recorded retrieval; null when nothing was recorded (a user the "
        "tenant never wrote an event for, or a new session where nothing was returned)."
    )
    trace_id: str
    mode: Literal["tool", "context"]
    memories: list[RetrievedMemory]
