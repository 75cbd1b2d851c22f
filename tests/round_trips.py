"""What the round-trip tests share: the statements a connection runs, and an agent
principal of tenant-a for calling the services directly."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, event, select
from sqlalchemy.orm import Session

from app.core.auth import Principal
from app.models import Tenant
from app.models.enums import Role


@contextmanager
def statements(connection: Connection) -> Iterator[list[str]]:
    """Every statement `connection` runs inside the block, whitespace folded."""
    seen: list[str] = []

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(" ".join(statement.split()))

    event.listen(connection, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(connection, "before_cursor_execute", note)


def agent_principal(db: Session) -> Principal:
    tenant_id = db.execute(select(Tenant.id).where(Tenant.name == "tenant-a")).scalar_one()
    return Principal(tenant_id=tenant_id, key_id=uuid.uuid4(), role=Role.agent)
