"""The Celery task `capture.audit`: a thin wrapper over app.audit.service, by name, id only."""

from __future__ import annotations

import uuid

from celery import Task

from app.audit import service
from workers.celery_app import celery_app
from workers.retrying import run_or_retry

MAX_RETRIES = 3


@celery_app.task(  # type: ignore[untyped-decorator,unused-ignore]
    name=service.AUDIT_TASK, bind=True, acks_late=True, max_retries=MAX_RETRIES
)
def audit(self: Task, audit_id: str) -> None:  # type: ignore[type-arg,unused-ignore]
    """Run one audit. Safe to run twice: a finished audit is left alone."""
    audit_uuid = uuid.UUID(audit_id)
    run_or_retry(
        self,
        lambda db: service.run_audit(db, audit_uuid),
        lambda db: service.mark_failed(db, audit_uuid, "decoder_error"),
        what=f"audit {audit_id}",
        max_retries=MAX_RETRIES,
    )
