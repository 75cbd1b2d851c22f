"""The gate's decisions as auditors list them."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy.orm import Session

from app.core.pagination import PageRequest, cut, decode_cursor
from app.events import repository as events_repository
from app.events import service as events_service
from app.gate import repository
from app.gate.schemas import DecisionListItem, DecisionPage


def list_decisions(
    db: Session,
    tenant_id: uuid.UUID,
    page: PageRequest,
    *,
    action: str | None,
    external_user_id: str | None,
) -> DecisionPage:
    """The tenant's gate decisions, newest first; `action` and the user narrow them."""
    user_id = None
    if external_user_id is not None:
        user = events_repository.find_user(db, tenant_id, external_user_id)
        if user is None:
            return DecisionPage(items=[], next_cursor=None)
        user_id = user.id
    rows = repository.list_decisions(
        db, tenant_id, decode_cursor(page.cursor, datetime), page.limit,
        action=action, user_id=user_id,
    )
    sliced = cut(rows, page.limit, lambda row: (row[0].created_at, row[0].id))
    return DecisionPage(
        items=[
            DecisionListItem(
                **events_service.decision_out(d).model_dump(),
                user_id=external,
                event_id=d.event_id,
                created_at=d.created_at,
            )
            for d, external in sliced.rows
        ],
        next_cursor=sliced.next_cursor,
    )
