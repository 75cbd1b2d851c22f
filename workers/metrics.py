"""Prometheus metrics of a Celery worker, served over HTTP (CAPTURE_WORKER_METRICS_PORT).

Tasks run in the pool's child processes, so a prefork worker needs prometheus_client's
multiprocess mode: every process writes its samples under PROMETHEUS_MULTIPROC_DIR, and the
main process serves their sum. `capture worker` sets that directory up before anything
imports prometheus_client; a worker started another way must set PROMETHEUS_MULTIPROC_DIR
itself (an empty directory), or run with `--pool=solo`/`threads`, where the main process's
own registry already holds everything.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

log = logging.getLogger(__name__)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_multiprocess_dir(base: Path) -> Path:
    """An empty per-worker directory for multiprocess samples, exported in the environment.
    Must run before prometheus_client is imported (it reads the variable at import)."""
    path = base / f"worker-metrics-{os.getpid()}"
    shutil.rmtree(path, ignore_errors=True)  # samples of a dead worker must not be summed
    path.mkdir(parents=True)
    os.environ[MULTIPROC_ENV] = str(path)
    return path


def serve(port: int) -> None:
    """Serve /metrics on `port` from this (the main) process."""
    from prometheus_client import REGISTRY, CollectorRegistry, start_http_server

    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        start_http_server(port, registry=registry)
    else:
        start_http_server(port, registry=REGISTRY)
    log.info("worker metrics on port %d", port)


def process_exited(pid: int) -> None:
    """Forget a dead pool process's live gauges (its counters stay in the sum)."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
