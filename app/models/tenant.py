from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, new_id, utcnow
from app.models.enums import Role, check_in


class Tenant(Base):
    __tablename__ = "tenants"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    # The tenant's admission policy; NULL follows CAPTURE_ADMISSION_POLICY.
    admission_policy: Mapped[str | None] = mapped_column(String(64))
    # Non-user sources the operator trusts to speak for the user (tool names, or source URI
    # prefixes such as `https://drive.example/alice/`): their claims may be admitted without
    # the user's own confirmation (app/ledger/channel_guard.py).
    trusted_sources: Mapped[list[str]] = mapped_column(
        ARRAY(String(256)), default=list, server_default="{}"
    )
    # Requests per minute per API key of this tenant; NULL follows CAPTURE_RATE_LIMIT_PER_MINUTE.
    rate_limit_per_minute: Mapped[int | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ApiKey(Base):
    """An API key, stored only as a keyed hash; the prefix lets operators tell keys apart."""

    __tablename__ = "api_keys"
    __table_args__ = (check_in("role", Role, "role"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    name: Mapped[str] = mapped_column(String(128))
    prefix: Mapped[str] = mapped_column(String(16), unique=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]


class User(Base):
    """A pseudonymous end user of one tenant; `external_id` is the caller's id for them."""

    __tablename__ = "users"
    __table_args__ = (
        UniqueConstraint("tenant_id", "external_id", name="uq_users_tenant_external"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    external_id: Mapped[str] = mapped_column(String(128))
    # Arrival counter: each event takes the next value under the row lock, fixing per-user order.
    event_seq: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AgentSession(Base):
    """A conversation session of one user (`gen_ai.conversation.id`)."""

    __tablename__ = "sessions"
    __table_args__ = (UniqueConstraint("user_id", "external_id", name="uq_sessions_user_external"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    external_id: Mapped[str] = mapped_column(String(128))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_event_at: Mapped[datetime | None]
