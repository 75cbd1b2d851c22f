"""Clarifying questions as the API shows them, and the user's answer."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.domain.vocabulary import ClarificationStatus
from app.models import Clarification


class ClarificationOut(BaseModel):
    id: uuid.UUID
    user_id: str
    node_id: uuid.UUID
    event_id: uuid.UUID = Field(description="The event whose claim the question is about.")
    asked_event_id: uuid.UUID | None = Field(
        default=None, description="The event at which the user was asked: the raising event, "
        "or a later one of theirs when the question was deferred; null while deferred.")
    question: str | None
    status: ClarificationStatus
    answer: str | None
    created_at: datetime
    answered_at: datetime | None

    @classmethod
    def of(cls, c: Clarification, user_id: str, question: str | None) -> ClarificationOut:
        """`question`: the text rendered from the live claims (app/clarifications/service.py)."""
        return cls(
            id=c.id,
            user_id=user_id,
            node_id=c.node_id,
            event_id=c.event_id,
            asked_event_id=c.asked_event_id,
            question=question,
            status=c.status,
            answer=c.answer,
            created_at=c.created_at,
            answered_at=c.answered_at,
        )


class ClarificationPage(BaseModel):
    items: list[ClarificationOut]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page.")


class ClarificationAnswer(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"answer": "confirm"}, {"answer": "scope", "scope": "work"}],
            "anyOf": [
                {"properties": {"answer": {"enum": ["confirm", "reject"]}}},
                {"required": ["scope"], "properties": {"scope": {"type": "string",
                                                                  "minLength": 1}}},
            ],
        },
    )

    answer: Literal["confirm", "reject", "scope"] = Field(
        description="confirm: remember it; reject: forget it; scope: only in `scope`."
    )
    scope: str | None = Field(default=None, max_length=64, pattern=r"^[a-z0-9_\-]+$")

    @model_validator(mode="after")
    def _scope_given(self) -> ClarificationAnswer:
        if self.answer == "scope" and not self.scope:
            raise ValueError("answer 'scope' needs a scope")
        return self
