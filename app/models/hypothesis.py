from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.domain.vocabulary import Direction, Origin, Timescale
from app.models.base import Base, new_id, utcnow
from app.models.enums import check_in


class HypothesisRow(Base):
    """A hypothesis extraction read from an event (see app.domain.claims.Hypothesis)."""

    __tablename__ = "hypotheses"
    __table_args__ = (
        check_in("direction", Direction, "direction"),
        check_in("timescale", Timescale, "timescale"),
        check_in("provenance", Origin, "provenance"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    event_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("events.id"), index=True)
    claim: Mapped[str | None] = mapped_column(String(512))
    subject: Mapped[str] = mapped_column(String(64))
    value: Mapped[str | None] = mapped_column(String(128))
    direction: Mapped[str] = mapped_column(String(16))
    scope: Mapped[str] = mapped_column(String(64))
    timescale: Mapped[str] = mapped_column(String(16))
    confidence: Mapped[float]
    provenance: Mapped[str] = mapped_column(String(32))
    extractor: Mapped[str] = mapped_column(String(64))
    extractor_version: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
