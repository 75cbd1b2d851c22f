from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, new_id, utcnow
from app.models.enums import ErasureStatus, check_in


class UserErasure(Base):
    """A request to erase one user entirely, and its receipt (rows deleted per table).

    Holds no text of the user: `user_id` is the internal id of the erased row and
    `user_ref_sha256` the SHA-256 of the caller's external id, so the caller can match
    a receipt to the id they asked about.
    """

    __tablename__ = "user_erasures"
    __table_args__ = (
        check_in("status", ErasureStatus, "status"),
        Index("ix_user_erasures_tenant_requested", "tenant_id", "requested_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"))
    user_id: Mapped[uuid.UUID] = mapped_column(index=True)
    user_ref_sha256: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default=ErasureStatus.pending.value)
    counts: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    error_code: Mapped[str | None] = mapped_column(String(64))
    trace_id: Mapped[str] = mapped_column(String(32))
    requested_at: Mapped[datetime] = mapped_column(default=utcnow)
    completed_at: Mapped[datetime | None]
