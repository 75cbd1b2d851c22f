from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.config import get_settings
from app.core.inputs import EXTERNAL_ID, SafeStr
from app.events.schemas import check_text_size
from app.selection.schemas import MAX_CANDIDATES

MAX_CITED = 32


AuditStatus = Literal["pending", "done", "failed"]


class AuditRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "user_id": "alice",
                    "session_id": "s3",
                    "prompt": "Summarize the meeting notes.",
                    "response": "Three decisions: ship Friday, hire one, move the offsite.",
                    "cited_node_ids": ["3f6c1d2e-8a4b-4f0e-9c7d-5b2a1e8f3c64"],
                }
            ]
        },
    )

    user_id: str = Field(pattern=EXTERNAL_ID)
    session_id: str = Field(pattern=EXTERNAL_ID)
    prompt: SafeStr = Field(min_length=1, description="The user's turn the response answered.")
    response: SafeStr = Field(min_length=1, description="The response the agent sent.")
    cited_node_ids: list[uuid.UUID] = Field(
        min_length=1, max_length=MAX_CITED,
        description="Memories the response cites; the top three by retrieval rank are audited.")
    candidates: list[SafeStr] | None = Field(
        default=None, max_length=MAX_CANDIDATES,
        description="The candidates the response was chosen from (needed by `reselect`).")

    @field_validator("prompt")
    @classmethod
    def _prompt_size(cls, value: str) -> str:
        return check_text_size(value, get_settings().max_query_bytes, "prompt")

    @field_validator("response")
    @classmethod
    def _response_size(cls, value: str) -> str:
        return check_text_size(value, get_settings().max_event_text_bytes, "response")

    @field_validator("candidates")
    @classmethod
    def _candidate_sizes(cls, value: list[str] | None) -> list[str] | None:
        limit = get_settings().max_event_text_bytes
        for text in value or []:
            if not text.strip():
                raise ValueError("candidates must not be empty")
            check_text_size(text, limit, "candidate")
        return value


class AuditAccepted(BaseModel):
    audit_id: uuid.UUID
    status: AuditStatus
    decoder: str
    trace_id: str


class CitationOut(BaseModel):
    node_id: uuid.UUID
    rank: int = Field(description="Position among the cited nodes by retrieval rank (0 = top).")
    status: Literal["audited", "beyond_top_k", "not_active"] = Field(
        description="`audited` (top three), `beyond_top_k`, or `not_active`.")
    influence: float | None = Field(description="Inf(n) = U(y_factual) − U(y without n)")
    counterfactual_utility: float | None
    selection_changed: bool | None
    kept: bool | None = Field(
        description="false: removing it changed nothing (|Inf| < 0.10 and the same output).")


class AuditOut(BaseModel):
    audit_id: uuid.UUID
    status: AuditStatus = Field(description="`pending`, `done` or `failed`.")
    decoder: str
    trace_id: str
    retrieval_id: uuid.UUID | None
    created_at: datetime
    completed_at: datetime | None
    memory_node_ids: list[uuid.UUID] = Field(description="The memory set L, best rank first.")
    citations: list[CitationOut]
    kept_node_ids: list[uuid.UUID] | None
    dropped_node_ids: list[uuid.UUID] | None
    factual_utility: float | None = Field(description="U(y_factual): the re-decode with all of L.")
    response_utility: float | None = Field(description="U of the response the agent sent.")
    response_matches_factual: bool | None
    error_code: str | None


class AuditRef(BaseModel):
    """An audit in which a node was cited (node lineage)."""

    audit_id: uuid.UUID
    status: str
    citation_status: str
    influence: float | None
    selection_changed: bool | None
    kept: bool | None
    decoder: str
    at: datetime
    trace_id: str
