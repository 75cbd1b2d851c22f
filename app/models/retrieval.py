from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, new_id, utcnow


class Retrieval(Base):
    """One retrieval call; the query is kept only as a hash (it may quote memory text)."""

    __tablename__ = "retrievals"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id"), index=True)
    mode: Mapped[str] = mapped_column(String(16))
    query_sha256: Mapped[str] = mapped_column(String(64))
    domain: Mapped[str | None] = mapped_column(String(64))
    k: Mapped[int]
    trace_id: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RetrievalResult(Base):
    __tablename__ = "retrieval_results"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    retrieval_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("retrievals.id"), index=True)
    node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("nodes.id"), index=True)
    rank: Mapped[int]
    score: Mapped[float]
    components: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)


class ToolCheck(Base):
    """A check-call decision with its evidence (node and event ids, never values)."""

    __tablename__ = "tool_checks"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    session_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("sessions.id"), index=True)
    call_id: Mapped[str | None] = mapped_column(String(128))
    tool_name: Mapped[str] = mapped_column(String(128))
    args_sha256: Mapped[str] = mapped_column(String(64))
    decision: Mapped[str] = mapped_column(String(8))
    reasons: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, default=list)
    evidence_node_ids: Mapped[list[str]] = mapped_column(JSONB, default=list)
    evidence_event_ids: Mapped[list[str]] = mapped_column(JSONB, default=list)
    features: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    # Per argument: each value's kind, hash, verdict and sources (ids and kinds only).
    arg_provenance: Mapped[dict[str, Any]] = mapped_column(
        JSONB, default=dict, server_default=text("'{}'::jsonb")
    )
    side_effect: Mapped[str | None] = mapped_column(String(16))
    # What classified the tool: policy, registered, declaration or default.
    tool_source: Mapped[str | None] = mapped_column(String(16))
    triage_score: Mapped[float | None]
    policy_version: Mapped[str] = mapped_column(String(32))
    trace_id: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
