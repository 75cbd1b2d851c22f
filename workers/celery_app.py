"""The Celery app: broker and backend from settings; tasks are registered by name."""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import (
    worker_init,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
)

from app.core.config import get_settings

settings = get_settings()
log = logging.getLogger(__name__)

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
        "requeue-stale-events": {
            "task": "capture.requeue_stale_events",
            "schedule": settings.requeue_interval_s,
        },
        "retry-webhooks": {"task": "capture.retry_webhooks", "schedule": 30.0},
    },
)


def _trace(**_: object) -> None:
    """Export the worker's spans over OTLP when configured, each task's continuing the trace
    of the request that enqueued it. On worker start (solo and thread pools run tasks in the
    main process) and in each pool process (prefork)."""
    if not settings.otlp_endpoint:
        return
    from app.core.spans import configure_otlp_export, instrument_exported

    configure_otlp_export(settings.otlp_endpoint, settings.service_name)
    instrument_exported()


worker_init.connect(_trace, weak=False)
worker_process_init.connect(_trace, weak=False)


@worker_init.connect
def _serve_worker_metrics(**_: object) -> None:
    """The main worker process serves the pool's Prometheus metrics, when configured."""
    if settings.worker_metrics_port is not None:
        from workers.metrics import serve

        serve(settings.worker_metrics_port)


@worker_ready.connect
def _requeue_pending_events(**_: object) -> None:
    """A worker that starts hands every pending event to the workers again: those a crashed
    worker held come back in seconds, not after the broker's visibility timeout."""
    from app import pipeline

    try:
        count = pipeline.requeue_stale_events(stale_after_s=0.0)
    except Exception as exc:  # the database may still be starting; beat's check follows
        log.warning("requeue at worker start failed (%s)", type(exc).__name__)
        return
    log.info("requeued the pending events of %d users at worker start", count)


@worker_process_shutdown.connect
def _pool_process_exited(**_: object) -> None:
    from workers.metrics import process_exited

    process_exited(os.getpid())
