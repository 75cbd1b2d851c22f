"""SQL for webhook endpoints, the delivery outbox and its attempts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Row, select
from sqlalchemy.orm import Session, aliased

from app.core.pagination import Key, after
from app.models import Clarification, Node, User, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from app.models.enums import DeliveryStatus


def subscribed(db: Session, tenant_id: uuid.UUID, event_type: str) -> Sequence[WebhookEndpoint]:
    """The tenant's enabled endpoints that asked for `event_type`."""
    return db.scalars(
        select(WebhookEndpoint).where(
            WebhookEndpoint.tenant_id == tenant_id,
            WebhookEndpoint.disabled_at.is_(None),
            WebhookEndpoint.event_types.contains([event_type]),
        ).order_by(WebhookEndpoint.created_at)
    ).all()


def endpoints(db: Session, tenant_id: uuid.UUID) -> Sequence[WebhookEndpoint]:
    return db.scalars(
        select(WebhookEndpoint)
        .where(WebhookEndpoint.tenant_id == tenant_id, WebhookEndpoint.disabled_at.is_(None))
        .order_by(WebhookEndpoint.created_at)
    ).all()


def endpoint(db: Session, tenant_id: uuid.UUID, endpoint_id: uuid.UUID) -> WebhookEndpoint | None:
    return db.scalar(
        select(WebhookEndpoint).where(
            WebhookEndpoint.id == endpoint_id, WebhookEndpoint.tenant_id == tenant_id
        )
    )


def external_user_id(db: Session, user_id: uuid.UUID) -> str | None:
    return db.scalar(select(User.external_id).where(User.id == user_id))


def lock_due(db: Session, delivery_id: uuid.UUID) -> WebhookDelivery | None:
    """The delivery, row-locked, unless another worker holds it (it is being delivered)."""
    return db.scalar(
        select(WebhookDelivery)
        .where(WebhookDelivery.id == delivery_id)
        .with_for_update(skip_locked=True)
    )


def due_ids(db: Session, now: datetime, limit: int) -> Sequence[uuid.UUID]:
    return db.scalars(
        select(WebhookDelivery.id)
        .where(
            WebhookDelivery.status == DeliveryStatus.pending.value,
            WebhookDelivery.next_attempt_at <= now,
        )
        .order_by(WebhookDelivery.next_attempt_at)
        .limit(limit)
    ).all()


def live_claim(db: Session, tenant_id: uuid.UUID, node_id: uuid.UUID) -> str | None:
    """One of the tenant's claims as held now (None once erased)."""
    return db.scalar(
        select(Node.claim).where(Node.id == node_id, Node.tenant_id == tenant_id,
                                 Node.erased_at.is_(None))
    )


def question_claims(
    db: Session, tenant_id: uuid.UUID, clarification_id: uuid.UUID
) -> Row[Clarification, Node, Node | None] | None:
    """One of the tenant's questions with the node it asks about and the node it would
    replace (if any), from which its text is rendered."""
    contradicted = aliased(Node)
    return db.execute(
        select(Clarification, Node, contradicted)
        .join(Node, Node.id == Clarification.node_id)
        .outerjoin(contradicted, contradicted.id == Clarification.contradicted_node_id)
        .where(Clarification.id == clarification_id, Clarification.tenant_id == tenant_id)
    ).first()


def list_deliveries(
    db: Session,
    endpoint_id: uuid.UUID,
    after_key: Key | None,
    limit: int,
    status: str | None,
) -> Sequence[WebhookDelivery]:
    """An endpoint's deliveries, newest first."""
    query = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
    if status is not None:
        query = query.where(WebhookDelivery.status == status)
    condition = after(WebhookDelivery.created_at, WebhookDelivery.id, after_key, descending=True)
    if condition is not None:
        query = query.where(condition)
    return db.scalars(
        query.order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id.desc())
        .limit(limit + 1)
    ).all()


def attempts_of(
    db: Session, delivery_ids: list[uuid.UUID]
) -> dict[uuid.UUID, list[WebhookAttempt]]:
    out: dict[uuid.UUID, list[WebhookAttempt]] = {d: [] for d in delivery_ids}
    if delivery_ids:
        for attempt in db.scalars(
            select(WebhookAttempt)
            .where(WebhookAttempt.delivery_id.in_(delivery_ids))
            .order_by(WebhookAttempt.attempted_at)
        ):
            out[attempt.delivery_id].append(attempt)
    return out
