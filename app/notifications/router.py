"""Webhook endpoints (admin keys) and their deliveries (auditors)."""

from __future__ import annotations

import uuid
from typing import Literal

from fastapi import APIRouter, Depends, Response
from sqlalchemy.orm import Session

from app.core.auth import AdminPrincipal, AuditorPrincipal, Principal
from app.core.db import get_db
from app.core.errors import Conflict, InvalidInput, NotFound, responses
from app.core.pagination import PageRequest, page_request
from app.notifications import endpoints
from app.notifications.schemas import DeliveryPage, WebhookCreate, WebhookCreated, WebhookOut

router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"])


@router.post("", status_code=201, response_model=WebhookCreated,
             responses=responses(Conflict, InvalidInput), operation_id="create_webhook")
def create_webhook(
    body: WebhookCreate,
    principal: Principal = AdminPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> WebhookCreated:
    """Register an endpoint for the tenant's notifications. The response holds the signing
    secret, shown once (docs/operations.md shows how to verify a delivery)."""
    return endpoints.create(db, principal.tenant_id, body)


@router.get("", response_model=list[WebhookOut], operation_id="list_webhooks")
def list_webhooks(
    principal: Principal = AdminPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> list[WebhookOut]:
    """The tenant's enabled endpoints (at most 20; never their secrets)."""
    return endpoints.list_enabled(db, principal.tenant_id)


@router.delete("/{webhook_id}", status_code=204, responses=responses(NotFound),
               operation_id="delete_webhook")
def delete_webhook(
    webhook_id: uuid.UUID,
    principal: Principal = AdminPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> Response:
    """Stop sending to the endpoint; its pending deliveries fail as `endpoint_disabled`."""
    endpoints.disable(db, principal.tenant_id, webhook_id)
    return Response(status_code=204)


@router.get("/{webhook_id}/deliveries", response_model=DeliveryPage,
            responses=responses(NotFound, InvalidInput), operation_id="list_webhook_deliveries")
def list_deliveries(
    webhook_id: uuid.UUID,
    status: Literal["pending", "delivered", "failed"] | None = None,
    page: PageRequest = Depends(page_request),
    principal: Principal = AuditorPrincipal,
    db: Session = Depends(get_db, scope="function"),
) -> DeliveryPage:
    """The endpoint's deliveries, newest first, each with its attempts."""
    return endpoints.deliveries(db, principal.tenant_id, webhook_id, page, status)
