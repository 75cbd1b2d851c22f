"""The tenant's webhook endpoints and what was delivered to them."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import cast

from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.core.errors import Conflict, InvalidInput, NotFound
from app.core.pagination import PageRequest, cut, decode_cursor
from app.models import WebhookEndpoint
from app.models.base import utcnow
from app.models.enums import DeliveryStatus
from app.notifications import repository, service
from app.notifications.schemas import (
    AttemptOut,
    DeliveryOut,
    DeliveryPage,
    EventType,
    WebhookCreate,
    WebhookCreated,
    WebhookOut,
)

MAX_ENDPOINTS = 20


def create(db: Session, tenant_id: uuid.UUID, body: WebhookCreate) -> WebhookCreated:
    if get_settings().environment == "production" and not body.url.startswith("https://"):
        raise InvalidInput("webhook URLs must use https in production")
    if len(repository.endpoints(db, tenant_id)) >= MAX_ENDPOINTS:
        raise Conflict(f"a tenant has at most {MAX_ENDPOINTS} webhook endpoints")
    endpoint = WebhookEndpoint(
        id=uuid.uuid4(), tenant_id=tenant_id, url=body.url, secret=service.new_secret(),
        event_types=sorted(set(body.event_types)), include_memory_text=body.include_memory_text,
        description=body.description, created_at=utcnow(),
    )
    db.add(endpoint)
    db.flush()
    return WebhookCreated(**WebhookOut.of(endpoint).model_dump(), secret=endpoint.secret)


def list_enabled(db: Session, tenant_id: uuid.UUID) -> list[WebhookOut]:
    return [WebhookOut.of(e) for e in repository.endpoints(db, tenant_id)]


def disable(db: Session, tenant_id: uuid.UUID, webhook_id: uuid.UUID) -> None:
    endpoint = repository.endpoint(db, tenant_id, webhook_id)
    if endpoint is None or endpoint.disabled_at is not None:
        raise NotFound("webhook not found")
    endpoint.disabled_at = utcnow()
    db.flush()


def deliveries(
    db: Session, tenant_id: uuid.UUID, webhook_id: uuid.UUID, page: PageRequest,
    status: str | None,
) -> DeliveryPage:
    if repository.endpoint(db, tenant_id, webhook_id) is None:
        raise NotFound("webhook not found")
    rows = repository.list_deliveries(db, webhook_id, decode_cursor(page.cursor, datetime),
                                      page.limit, status)
    sliced = cut(rows, page.limit, lambda d: (d.created_at, d.id))
    attempts = repository.attempts_of(db, [d.id for d in sliced.rows])
    return DeliveryPage(
        items=[
            DeliveryOut(
                id=d.id,
                event_type=cast(EventType, d.event_type),
                status=DeliveryStatus(d.status).value,
                attempts=d.attempts,
                next_attempt_at=(
                    d.next_attempt_at if d.status == DeliveryStatus.pending.value else None
                ),
                created_at=d.created_at,
                delivered_at=d.delivered_at,
                payload=d.payload,
                attempt_log=[
                    AttemptOut(attempted_at=a.attempted_at, status_code=a.status_code,
                               error=a.error, duration_ms=a.duration_ms)
                    for a in attempts[d.id]
                ],
            )
            for d in sliced.rows
        ],
        next_cursor=sliced.next_cursor,
    )
