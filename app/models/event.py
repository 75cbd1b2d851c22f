from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, Computed, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from app.domain.vocabulary import Origin
from app.models.base import Base, new_id, utcnow
from app.models.enums import EventStatus, check_in


class Event(Base):
    """One thing the agent read. Append-only: only processing status and erasure change it."""

    __tablename__ = "events"
    __table_args__ = (
        UniqueConstraint("tenant_id", "idempotency_key", name="uq_events_tenant_idempotency"),
        UniqueConstraint("user_id", "seq", name="uq_events_user_seq"),
        Index("ix_events_user_status_seq", "user_id", "status", "seq"),
        Index(
            "ix_events_match_keys",
            "match_keys",
            postgresql_using="gin",
            postgresql_with={"fastupdate": "off"},
        ),
        check_in("origin", Origin, "origin"),
        check_in("status", EventStatus, "status"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"))
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id"), index=True)
    seq: Mapped[int]
    origin: Mapped[str] = mapped_column(String(32))
    # NULL once erased; the hash stays so lineage can still be verified.
    text: Mapped[str | None] = mapped_column(Text)
    text_sha256: Mapped[str] = mapped_column(String(64))
    # Trigrams of the text for check-call's prefilter (migration 0013), written by Postgres.
    match_keys: Mapped[list[int]] = mapped_column(
        ARRAY(BigInteger),
        Computed("coalesce(text_match_keys(text), '{}'::bigint[])", persisted=True),
        deferred=True,
    )
    occurred_at: Mapped[datetime]
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    domain: Mapped[str | None] = mapped_column(String(64))
    source_uri: Mapped[str | None] = mapped_column(String(2048))
    tool_name: Mapped[str | None] = mapped_column(String(128))
    idempotency_key: Mapped[str | None] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16), default=EventStatus.pending.value)
    processed_at: Mapped[datetime | None]
    error_code: Mapped[str | None] = mapped_column(String(64))
    erased_at: Mapped[datetime | None]
    trace_id: Mapped[str] = mapped_column(String(32))
