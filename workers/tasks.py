"""Celery tasks: thin wrappers over the pipeline, by name, ids only."""

from __future__ import annotations

import logging
import uuid

from celery import Task

from app import pipeline
from app.core.db import session_scope
from workers.celery_app import celery_app

log = logging.getLogger(__name__)

MAX_RETRIES = 5


@celery_app.task(
    name=pipeline.PROCESS_EVENT_TASK, bind=True, acks_late=True, max_retries=MAX_RETRIES
)
def process_event(self: Task, event_id: str) -> None:  # type: ignore[type-arg,unused-ignore]
    """Process one event (and earlier pending ones of its user). Safe to run twice."""
    try:
        with session_scope() as db:
            pipeline.process_event(db, uuid.UUID(event_id))
    except Exception as exc:
        if self.request.retries >= MAX_RETRIES:
            log.exception("giving up on event %s", event_id)
            with session_scope() as db:
                pipeline.mark_failed(db, uuid.UUID(event_id), "processing_error")
            return
        raise self.retry(exc=exc, countdown=min(2**self.request.retries, 30)) from exc


@celery_app.task(name=pipeline.SWEEP_QUARANTINE_TASK, acks_late=True)
def sweep_quarantine() -> int:
    return pipeline.sweep_quarantine()


@celery_app.task(name=pipeline.REQUEUE_STALE_TASK, acks_late=True)
def requeue_stale_events() -> int:
    return pipeline.requeue_stale_events()
