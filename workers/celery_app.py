"""The Celery app: broker and backend from settings; tasks are registered by name."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_init, worker_process_init, worker_process_shutdown

from app.core.config import get_settings

settings = get_settings()

celery_app = Celery(
    "capture",
    broker=settings.broker_url or "memory://",
    include=["workers.tasks", "workers.audit.tasks"],
)
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
        "requeue-stale-events": {"task": "capture.requeue_stale_events", "schedule": 60.0},
        "retry-webhooks": {"task": "capture.retry_webhooks", "schedule": 30.0},
    },
)


@worker_process_init.connect
def _init_worker_process(**_: object) -> None:
    """Each worker process exports its spans over OTLP too, when configured."""
    from app.core.spans import configure_otlp_export

    configure_otlp_export(settings.otlp_endpoint, settings.service_name)


@worker_init.connect
def _serve_worker_metrics(**_: object) -> None:
    """The main worker process serves the pool's Prometheus metrics, when configured."""
    if settings.worker_metrics_port is not None:
        from workers.metrics import serve

        serve(settings.worker_metrics_port)


@worker_process_shutdown.connect
def _pool_process_exited(**_: object) -> None:
    from workers.metrics import process_exited

    process_exited(os.getpid())
