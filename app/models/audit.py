from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, new_id, utcnow


class Audit(Base):
    """One counterfactual citation audit of a response.

    `inputs` (prompt, response, candidates) is held only until the audit has run, so the
    task can re-fetch it by id; afterwards only hashes, node ids and scores remain.
    """

    __tablename__ = "audits"
    __table_args__ = (Index("ix_audits_user_created", "user_id", "created_at"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"))
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id"), index=True)
    retrieval_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("retrievals.id"))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    decoder: Mapped[str] = mapped_column(String(32))
    prompt_sha256: Mapped[str] = mapped_column(String(64))
    response_sha256: Mapped[str] = mapped_column(String(64))
    inputs: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # The memory set L the response was decoded with: node ids, best retrieval rank first.
    memory_node_ids: Mapped[list[str]] = mapped_column(JSONB, default=list)
    cited_node_ids: Mapped[list[str]] = mapped_column(JSONB, default=list)
    kept_node_ids: Mapped[list[str] | None] = mapped_column(JSONB)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    error_code: Mapped[str | None] = mapped_column(String(64))
    trace_id: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    completed_at: Mapped[datetime | None]


class AuditCitation(Base):
    """One cited node of an audit: its counterfactual influence and whether it was kept."""

    __tablename__ = "audit_citations"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    audit_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("audits.id"), index=True)
    node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("nodes.id"), index=True)
    # Position among the cited nodes by retrieval rank (0 = top); only the top 3 are audited.
    rank: Mapped[int]
    # audited | beyond_top_k | not_active
    status: Mapped[str] = mapped_column(String(16))
    influence: Mapped[float | None]  # Inf(n) = U(y_factual) − U(y without n)
    counterfactual_utility: Mapped[float | None]
    selection_changed: Mapped[bool | None]
    kept: Mapped[bool | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
