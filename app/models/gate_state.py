from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, utcnow


class GateState(Base):
    """Per-user gate state. Its row lock serializes one user's event processing."""

    __tablename__ = "gate_states"

    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), primary_key=True)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    # Which policy/model wrote the latent; a state from another version is never read.
    model_name: Mapped[str] = mapped_column(String(64))
    model_version: Mapped[str] = mapped_column(String(32))
    latent: Mapped[bytes | None] = mapped_column(LargeBinary)
    last_event_at: Mapped[datetime | None]
    last_session_id: Mapped[uuid.UUID | None]
    events_seen: Mapped[int] = mapped_column(default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
