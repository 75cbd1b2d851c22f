"""Gate decisions as auditors list them."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from app.events.schemas import DecisionOut
from app.models import Decision


class DecisionListItem(DecisionOut):
    user_id: str
    event_id: uuid.UUID
    created_at: datetime

    @classmethod
    def listed(cls, d: Decision, user_id: str) -> DecisionListItem:
        return cls(**DecisionOut.of(d).model_dump(), user_id=user_id, event_id=d.event_id,
                   created_at=d.created_at)


class DecisionPage(BaseModel):
    items: list[DecisionListItem]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")
