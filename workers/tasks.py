"""Celery tasks: thin wrappers over the pipeline, by name, ids only."""

from __future__ import annotations

import uuid

from celery import Task

from app import pipeline
from workers.celery_app import celery_app
from workers.retrying import run_or_retry

MAX_RETRIES = 5


@celery_app.task(
    name=pipeline.PROCESS_EVENT_TASK, bind=True, acks_late=True, max_retries=MAX_RETRIES
)
def process_event(self: Task, event_id: str) -> None:  # type: ignore[type-arg,unused-ignore]
    """Process one event (and earlier pending ones of its user). Safe to run twice."""
    event = uuid.UUID(event_id)
    run_or_retry(
        self,
        lambda db: pipeline.process_event(db, event),
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
