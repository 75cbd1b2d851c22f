from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from app.events.schemas import DecisionOut


class DecisionListItem(DecisionOut):
    user_id: str
    event_id: uuid.UUID
    created_at: datetime


class DecisionPage(BaseModel):
    items: list[DecisionListItem]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")
