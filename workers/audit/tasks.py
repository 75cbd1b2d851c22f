"""The Celery task `capture.audit`: a thin wrapper over app.audit.service, by name, id only."""

from __future__ import annotations

import logging
import uuid

from celery import Task

from app.audit import service
from app.core.db import session_scope
from workers.celery_app import celery_app

log = logging.getLogger(__name__)

MAX_RETRIES = 3


@celery_app.task(  # type: ignore[untyped-decorator,unused-ignore]
    name=service.AUDIT_TASK, bind=True, acks_late=True, max_retries=MAX_RETRIES
)
def audit(self: Task, audit_id: str) -> None:  # type: ignore[type-arg,unused-ignore]
    """Run one audit. Safe to run twice: a finished audit is left alone."""
    try:
        with session_scope() as db:
            service.run_audit(db, uuid.UUID(audit_id))
    except Exception as exc:
        if self.request.retries >= MAX_RETRIES:
            log.exception("giving up on audit %s", audit_id)
            with session_scope() as db:
                service.mark_failed(db, uuid.UUID(audit_id), "decoder_error")
            return
        raise self.retry(exc=exc, countdown=min(2**self.request.retries, 30)) from exc
