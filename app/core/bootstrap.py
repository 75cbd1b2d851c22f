"""First start: migrate, and when the database has no API key yet, create an admin key."""

from __future__ import annotations

from app.core import repository
from app.core.auth import create_api_key, get_or_create_tenant
from app.core.db import get_engine, session_scope
from app.core.migrate import upgrade_to_head
from app.models.enums import Role

DEFAULT_TENANT = "default"


def migrate() -> None:
    upgrade_to_head(get_engine())


def ensure_admin_key() -> str | None:
    """The raw admin key when one was just created (print it once), else None."""
    with session_scope() as db:
        # Replicas starting together must not each create a first key.
        repository.lock_first_start(db)
        if repository.count_keys(db) > 0:
            return None
        tenant = get_or_create_tenant(db, DEFAULT_TENANT)
        _, raw = create_api_key(db, tenant, Role.admin, "bootstrap admin")
        return raw
