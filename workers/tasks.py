"""Celery tasks: thin wrappers over the pipeline, by name, ids only."""

from __future__ import annotations

import uuid

from celery import Task

from app import pipeline
from app.notifications import service as notifications
from app.users import service as users
from workers.celery_app import celery_app
from workers.retrying import retry_or_give_up, run_or_retry

MAX_RETRIES = 5


@celery_app.task(
    name=pipeline.PROCESS_EVENT_TASK, bind=True, acks_late=True, max_retries=MAX_RETRIES
)
def process_event(self: Task, event_id: str) -> None:  # type: ignore[type-arg,unused-ignore]
    """Process one event (and earlier pending ones of its user), committing after each:
    a kill loses only the event in flight. Safe to run twice."""
    event = uuid.UUID(event_id)
    retry_or_give_up(
        self,
        lambda: pipeline.process_backlog(event),
        lambda db: pipeline.mark_failed(db, event, "processing_error"),
        what=f"event {event_id}",
        max_retries=MAX_RETRIES,
    )


@celery_app.task(name=pipeline.SWEEP_QUARANTINE_TASK, acks_late=True)
def sweep_quarantine() -> int:
    return pipeline.sweep_quarantine()


@celery_app.task(name=pipeline.REQUEUE_STALE_TASK, acks_late=True)
def requeue_stale_events() -> int:
    return pipeline.requeue_stale_events()


@celery_app.task(name=notifications.DELIVER_WEBHOOK_TASK, bind=True, acks_late=True,
                 max_retries=None)
def deliver_webhook(self: Task, delivery_id: str) -> None:  # type: ignore[type-arg,unused-ignore]
    """One delivery attempt; while it stays pending, try again when its backoff is over
    (the attempts are bounded by CAPTURE_WEBHOOK_MAX_ATTEMPTS on the row)."""
    wait = notifications.attempt(uuid.UUID(delivery_id))
    if wait is not None:
        raise self.retry(countdown=max(wait, 0.05))


@celery_app.task(name=notifications.RETRY_WEBHOOKS_TASK, acks_late=True)
def retry_webhooks() -> int:
    """Periodic: attempt every due delivery (one whose task was lost, say)."""
    return notifications.retry_due()


@celery_app.task(name=users.ERASE_USER_TASK, bind=True, acks_late=True,
                 max_retries=MAX_RETRIES)
def erase_user(self: Task, erasure_id: str) -> None:  # type: ignore[type-arg,unused-ignore]
    """Erase a user entirely (one transaction). Safe to run twice."""
    erasure = uuid.UUID(erasure_id)
    run_or_retry(
        self,
        lambda db: users.erase(db, erasure),
        lambda db: users.mark_erasure_failed(db, erasure),
        what=f"erasure {erasure_id}",
        max_retries=MAX_RETRIES,
    )
