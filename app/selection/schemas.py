from __future__ import annotations

import uuid

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.config import get_settings
from app.core.inputs import EXTERNAL_ID, SafeStr
from app.domain.vocabulary import Direction
from app.events.schemas import check_text_size

MAX_CANDIDATES = 16


class SelectRequest(BaseModel):
    """Nothing here can move the safety bound: unknown fields are rejected."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "user_id": "alice",
                    "session_id": "s3",
                    "prompt": "Summarize the meeting notes.",
                    "candidates": [
                        "Three decisions: ship Friday, hire one engineer, move the offsite.",
                        "The meeting covered many topics. First, the team discussed ...",
                    ],
                }
            ]
        },
    )

    user_id: str = Field(pattern=EXTERNAL_ID)
    session_id: str = Field(pattern=EXTERNAL_ID)
    prompt: SafeStr = Field(min_length=1, description="The user's turn the candidates answer.")
    candidates: list[SafeStr] = Field(
        min_length=1, max_length=MAX_CANDIDATES,
        description=f"1 to {MAX_CANDIDATES} candidate responses (paper: N = 8).")

    @field_validator("prompt")
    @classmethod
    def _prompt_size(cls, value: str) -> str:
        return check_text_size(value, get_settings().max_query_bytes, "prompt")

    @field_validator("candidates")
    @classmethod
    def _candidate_sizes(cls, value: list[str]) -> list[str]:
        limit = get_settings().max_event_text_bytes
        for text in value:
            if not text.strip():
                raise ValueError("candidates must not be empty")
            check_text_size(text, limit, "candidate")
        return value


class CandidateScoreOut(BaseModel):
    index: int
    r_p: float = Field(description="Preference utility given the retrieved memories, 0–1.")
    r_s: float = Field(description="Safety risk, 0–1; never reads the ledger.")
    objective: float = Field(description="w_p · r_p − w_s · r_s")
    within_bound: bool = Field(description="r_s ≤ τ_safe")
    safety_category: str | None


class MemoryUsed(BaseModel):
    node_id: uuid.UUID
    claim: str | None
    subject: str
    value: str | None
    direction: Direction
    scope: str
    score: float


class RefusalOut(BaseModel):
    message: str
    category: str | None


class SelectorSettings(BaseModel):
    w_p: float
    w_s: float
    tau_safe: float
    utility_model: str
    safety_scorer: str


class SelectResponse(BaseModel):
    trace_id: str
    retrieval_id: uuid.UUID
    chosen_index: int | None = Field(description="Index of the chosen candidate; null on refusal.")
    response: str = Field(description="The chosen candidate, or the refusal message.")
    refused: bool
    refusal: RefusalOut | None
    candidates: list[CandidateScoreOut]
    memories: list[MemoryUsed]
    selector: SelectorSettings
