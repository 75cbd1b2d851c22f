"""Notifications: an outbox row per subscribed endpoint, written in the transaction of the
change it reports; delivered after commit, signed, retried with backoff until delivered or
the attempts run out.

Delivery runs in a Celery task (`capture.deliver_webhook`) when a broker is configured,
else in process right after the commit; a periodic sweep (`capture.retry_webhooks`, or a
thread of the API process without a broker) retries what is due. A delivery's row is locked
while it is attempted, so two workers never send it at once; a crash after the POST and
before the commit sends it again: receivers deduplicate by `Capture-Webhook-Id`.

Payloads carry ids, codes and counts; the claim or question text is added at delivery
time, read from the live rows (a question rendered from its claims), only for endpoints
that opted in (`include_memory_text`), so an erased claim is never sent.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
import uuid
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy.orm import Session

from app import registry
from app.core.config import get_settings
from app.core.db import after_commit, session_scope
from app.domain import questions
from app.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from app.models.base import utcnow
from app.models.enums import DeliveryStatus
from app.notifications import repository

log = logging.getLogger(__name__)

DELIVER_WEBHOOK_TASK = "capture.deliver_webhook"
RETRY_WEBHOOKS_TASK = "capture.retry_webhooks"

CLARIFICATION_ASKED = "clarification.asked"
MEMORY_QUARANTINED = "memory.quarantined"
TOOL_CALL_DENIED = "tool_call.denied"
TOOL_CALL_ASKED = "tool_call.asked"
EVENT_FAILED = "event.failed"
USER_ERASED = "user.erased"
EVENT_TYPES = (
    CLARIFICATION_ASKED,
    MEMORY_QUARANTINED,
    TOOL_CALL_DENIED,
    TOOL_CALL_ASKED,
    EVENT_FAILED,
    USER_ERASED,
)
# The types whose claim or question text an opted-in endpoint receives.
TEXT_BEARING = {CLARIFICATION_ASKED, MEMORY_QUARANTINED}

SIGNATURE_HEADER = "Capture-Signature"
MAX_BACKOFF_S = 3600.0


def new_secret() -> str:
    return f"whsec_{secrets.token_urlsafe(32)}"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The `Capture-Signature` header: HMAC-SHA256 keyed by the endpoint's secret over
    `{timestamp}.{body}`."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def emit(
    db: Session,
    tenant_id: uuid.UUID,
    event_type: str,
    data: dict[str, Any],
    *,
    user_id: uuid.UUID | None = None,
    subject_id: uuid.UUID | None = None,
) -> None:
    """Write one outbox row per endpoint subscribed to `event_type`, in the caller's
    transaction; each is handed to delivery once that transaction commits."""
    subscribers = repository.subscribed(db, tenant_id, event_type)
    if not subscribers:
        return
    payload = dict(data)
    if user_id is not None:
        payload["user_id"] = repository.external_user_id(db, user_id)
    for endpoint in subscribers:
        delivery = WebhookDelivery(
            id=uuid.uuid4(),
            tenant_id=tenant_id,
            endpoint_id=endpoint.id,
            event_type=event_type,
            user_id=user_id,
            subject_id=subject_id,
            payload=payload,
            status=DeliveryStatus.pending.value,
            attempts=0,
            next_attempt_at=utcnow(),
        )
        db.add(delivery)
        delivery_id = delivery.id
        after_commit(db, lambda d=delivery_id: enqueue_delivery(d))  # type: ignore[misc]
    db.flush()


def enqueue_delivery(delivery_id: uuid.UUID) -> None:
    settings = get_settings()
    if settings.eager_tasks:
        attempt(delivery_id)
        return
    registry.send_task(DELIVER_WEBHOOK_TASK, [str(delivery_id)], settings.task_queue)


def backoff_s(attempts: int) -> float:
    """Seconds before the next try after `attempts` failed ones."""
    base = get_settings().webhook_retry_base_s
    return float(min(base * 2 ** max(attempts - 1, 0), MAX_BACKOFF_S))


def memory_text(db: Session, delivery: WebhookDelivery) -> str | None:
    """The claim or question a delivery is about, as held now: a question is rendered from
    its claims (app/domain/questions.py); None once its claim is erased."""
    if delivery.subject_id is None:
        return None
    if delivery.event_type == CLARIFICATION_ASKED:
        row = repository.question_claims(db, delivery.tenant_id, delivery.subject_id)
        if row is None:
            return None
        c, node, contradicted = row
        return questions.question_text(
            c.status, c.source, node.live_claim(),
            contradicted.live_claim() if contradicted is not None else None,
        )
    return repository.live_claim(db, delivery.tenant_id, delivery.subject_id)


def body_of(db: Session, delivery: WebhookDelivery, endpoint: WebhookEndpoint) -> bytes:
    """The signed body: the stored payload (ids, codes, counts), and for an endpoint that
    opted in, the claim or question text read now."""
    data = dict(delivery.payload)
    if endpoint.include_memory_text and delivery.event_type in TEXT_BEARING:
        data["text"] = memory_text(db, delivery)
    envelope = {
        "id": str(delivery.id),
        "type": delivery.event_type,
        "created_at": delivery.created_at.isoformat(),
        "data": data,
    }
    return json.dumps(envelope, separators=(",", ":"), sort_keys=True).encode()


def attempt(delivery_id: uuid.UUID) -> float | None:
    """Try to deliver once if it is due. Returns the seconds until it is due again (still
    pending), or None (delivered, given up, gone, or held by another worker)."""
    with session_scope() as db:
        delivery = repository.lock_due(db, delivery_id)
        if delivery is None or delivery.status != DeliveryStatus.pending.value:
            return None
        now = utcnow()
        if delivery.next_attempt_at > now:
            return (delivery.next_attempt_at - now).total_seconds()
        endpoint = db.get(WebhookEndpoint, delivery.endpoint_id)
        if endpoint is None or endpoint.disabled_at is not None:
            delivery.status = DeliveryStatus.failed.value
            delivery.last_error = "endpoint_disabled"
            return None
        return _post(db, delivery, endpoint)


def _post(db: Session, delivery: WebhookDelivery, endpoint: WebhookEndpoint) -> float | None:
    settings = get_settings()
    body = body_of(db, delivery, endpoint)
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Capture-Webhooks/1",
        SIGNATURE_HEADER: sign(endpoint.secret, timestamp, body),
        "Capture-Webhook-Id": str(delivery.id),
        "Capture-Webhook-Type": delivery.event_type,
    }
    status_code: int | None = None
    error: str | None = None
    t0 = time.perf_counter()
    try:
        response = httpx.post(endpoint.url, content=body, headers=headers,
                              timeout=settings.webhook_timeout_s, follow_redirects=False)
        status_code = response.status_code
        if not 200 <= status_code < 300:
            error = "http_status"
    except httpx.TimeoutException:
        error = "timeout"
    except httpx.HTTPError:
        error = "connection_error"
    elapsed_ms = (time.perf_counter() - t0) * 1000
    now = utcnow()
    db.add(WebhookAttempt(delivery_id=delivery.id, attempted_at=now, status_code=status_code,
                          error=error, duration_ms=round(elapsed_ms, 3)))
    delivery.attempts += 1
    delivery.last_status_code, delivery.last_error = status_code, error
    if error is None:
        delivery.status = DeliveryStatus.delivered.value
        delivery.delivered_at = now
        return None
    log.info("webhook delivery %s attempt %d failed: %s %s", delivery.id, delivery.attempts,
             error, status_code or "")
    if delivery.attempts >= settings.webhook_max_attempts:
        delivery.status = DeliveryStatus.failed.value
        return None
    wait = backoff_s(delivery.attempts)
    delivery.next_attempt_at = now + timedelta(seconds=wait)
    return wait


def retry_due(limit: int = 100) -> int:
    """Attempt every pending delivery that is due (the periodic sweep); how many were."""
    with session_scope() as db:
        ids = list(repository.due_ids(db, utcnow(), limit))
    for delivery_id in ids:
        attempt(delivery_id)
    return len(ids)


class InProcessSweeper:
    """Without a broker: a daemon thread of the API process that retries due deliveries."""

    def __init__(self, interval_s: float) -> None:
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="capture-webhooks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self._interval_s + 1)

    def _run(self) -> None:
        while not self._stop.wait(self._interval_s):
            try:
                retry_due()
            except Exception:  # the next sweep tries again
                log.exception("webhook sweep failed")
