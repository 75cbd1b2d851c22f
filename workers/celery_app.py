"""The Celery app: broker and backend from settings; tasks are registered by name."""

from __future__ import annotations

from celery import Celery

from app.core.config import get_settings

settings = get_settings()

celery_app = Celery("capture", broker=settings.broker_url or "memory://", include=["workers.tasks"])
celery_app.conf.update(
    task_acks_late=True,  # a crash mid-task redelivers it; tasks are idempotent
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_default_queue=settings.task_queue,
    task_ignore_result=True,
    task_always_eager=settings.broker_url is None,
    broker_connection_retry_on_startup=True,
    beat_schedule={
        "sweep-quarantine": {
            "task": "capture.sweep_quarantine",
            "schedule": settings.quarantine_sweep_interval_s,
        },
    },
)
