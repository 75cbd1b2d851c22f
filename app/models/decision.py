from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.domain.vocabulary import Action
from app.models.base import Base, new_id, utcnow
from app.models.enums import check_in


class Decision(Base):
    """The admission policy's decision for one hypothesis, with its full action distribution."""

    __tablename__ = "decisions"
    __table_args__ = (check_in("action", Action, "action"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    event_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("events.id"), index=True)
    hypothesis_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("hypotheses.id"), index=True)
    action: Mapped[str] = mapped_column(String(16))
    # The action the policy chose before the ledger's rules (e.g. revise held back by the
    # stable-overwrite rule is applied as quarantine); NULL when applied as chosen.
    proposed_action: Mapped[str | None] = mapped_column(String(16))
    p_retain: Mapped[float]
    p_add: Mapped[float]
    p_scope: Mapped[float]
    p_revise: Mapped[float]
    p_quarantine: Mapped[float]
    p_clarify: Mapped[float]
    entropy: Mapped[float]
    # σ(h): the policy's authenticity read-off, which modulates node confidence.
    authenticity: Mapped[float]
    policy_name: Mapped[str] = mapped_column(String(64))
    policy_version: Mapped[str] = mapped_column(String(32))
    target_node_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("nodes.id"))
    # Codes explaining the decision (never memory text).
    reasons: Mapped[list[str]] = mapped_column(JSONB, default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
