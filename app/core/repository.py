"""SQL for tenants and API keys, the first-start lock and the readiness probe."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Row, func, select, text, update
from sqlalchemy.orm import Session

from app.models import ApiKey, Tenant


def tenant_named(db: Session, name: str) -> Tenant | None:
    return db.scalar(select(Tenant).where(Tenant.name == name))


def key_by_hash(db: Session, key_hash: str) -> ApiKey | None:
    return db.scalar(select(ApiKey).where(ApiKey.key_hash == key_hash))


def keys_with_tenants(db: Session, tenant: str | None) -> Sequence[Row[ApiKey, str]]:
    """API keys with their tenant's name (of one tenant, when given), oldest first."""
    query = select(ApiKey, Tenant.name).join(Tenant, Tenant.id == ApiKey.tenant_id)
    if tenant:
        query = query.where(Tenant.name == tenant)
    return db.execute(query.order_by(ApiKey.created_at)).all()


def lock_first_start(db: Session) -> None:
    """A transaction-level advisory lock: replicas starting together take turns."""
    db.execute(text("SELECT pg_advisory_xact_lock(4242001)"))


def count_keys(db: Session) -> int:
    return db.scalar(select(func.count()).select_from(ApiKey)) or 0


def ping(conn: Connection) -> None:
    conn.execute(text("SELECT 1"))


def touch_key(db: Session, key_id: uuid.UUID, now: datetime, unless_used_after: datetime) -> None:
    """Set the key's last use to `now` unless it was recorded after `unless_used_after`: the
    conditional UPDATE lets concurrent requests through without each writing."""
    db.execute(
        update(ApiKey)
        .where(
            ApiKey.id == key_id,
            (ApiKey.last_used_at.is_(None)) | (ApiKey.last_used_at < unless_used_after),
        )
        .values(last_used_at=now)
        .execution_options(synchronize_session=False)
    )


def advisory_xact_lock(conn: Connection, key: int) -> None:
    """Wait for the transaction-scoped advisory lock `key` (released at commit or rollback)."""
    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
