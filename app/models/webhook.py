from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, new_id, utcnow
from app.models.enums import DeliveryStatus, check_in


class WebhookEndpoint(Base):
    """Where a tenant receives notifications, and the secret their signatures are keyed by."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    url: Mapped[str] = mapped_column(String(2048))
    secret: Mapped[str] = mapped_column(String(128))
    event_types: Mapped[list[str]] = mapped_column(ARRAY(String(64)))
    # Off by default: notifications carry ids and codes; on, the claim or question text too.
    include_memory_text: Mapped[bool] = mapped_column(default=False)
    description: Mapped[str | None] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    disabled_at: Mapped[datetime | None]


class WebhookDelivery(Base):
    """The outbox: one notification for one endpoint, written in the transaction of the
    change it reports, delivered at least once."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        check_in("status", DeliveryStatus, "status"),
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_endpoint_created", "endpoint_id", "created_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    endpoint_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("webhook_endpoints.id"))
    event_type: Mapped[str] = mapped_column(String(64))
    # The user it is about (no foreign key: erasing the user deletes these rows by it).
    user_id: Mapped[uuid.UUID | None] = mapped_column(index=True)
    # The node or clarification whose text an opted-in endpoint receives, read at delivery.
    subject_id: Mapped[uuid.UUID | None]
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB)
    status: Mapped[str] = mapped_column(String(16), default=DeliveryStatus.pending.value)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_status_code: Mapped[int | None]
    last_error: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    delivered_at: Mapped[datetime | None]


class WebhookAttempt(Base):
    """One try at delivering a notification: when, the HTTP status or the error code."""

    __tablename__ = "webhook_attempts"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    delivery_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE"), index=True
    )
    attempted_at: Mapped[datetime] = mapped_column(default=utcnow)
    status_code: Mapped[int | None]
    error: Mapped[str | None] = mapped_column(String(64))
    duration_ms: Mapped[float]
