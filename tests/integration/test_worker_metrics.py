"""`capture worker` with CAPTURE_WORKER_METRICS_PORT serves the Prometheus metrics of its
prefork pool: the samples a pool process records while processing an event are summed by the
main process's /metrics (prometheus_client multiprocess mode)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from app.core.config import REPO_ROOT
from bench.chaos.stack import free_port as _free_port
from tests.integration.conftest import Stack


def _processed_total(text: str) -> float:
    for line in text.splitlines():
        if line.startswith("capture_events_processed_total "):
            return float(line.split()[1])
    return 0.0


def test_prefork_worker_serves_pool_metrics(stack: Stack, tmp_path: Path) -> None:
    queue = f"{stack.queue}-metrics"
    metrics_port, api_port = _free_port(), _free_port()
    env = {**stack.env, "CAPTURE_TASK_QUEUE": queue, "CAPTURE_VAR_DIR": str(tmp_path)}
    worker = subprocess.Popen(
        [sys.executable, "-c", "from app.cli import app; app()", "worker", "--concurrency", "1"],
        cwd=REPO_ROOT, env={**env, "CAPTURE_WORKER_METRICS_PORT": str(metrics_port)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    api = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
         "--host", "127.0.0.1", "--port", str(api_port), "--log-level", "warning"],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
        deadline = time.monotonic() + 90
        before = None
        while before is None and time.monotonic() < deadline:
            try:
                before = _processed_total(httpx.get(metrics_url, timeout=2).text)
            except httpx.HTTPError:
                time.sleep(0.25)
        assert before is not None, "the worker never served /metrics"
        headers = {"Authorization": f"Bearer {stack.agent_key}"}
        body = {"user_id": "metrics-user", "session_id": "s1", "origin": "user",
                "text": "I prefer short answers.", "occurred_at": "2026-10-01T09:00:00Z"}
        while time.monotonic() < deadline:
            try:
                response = httpx.post(f"http://127.0.0.1:{api_port}/v1/events?wait=true",
                                      json=body, headers=headers, timeout=30)
                break
            except httpx.HTTPError:
                time.sleep(0.25)
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "processed"
        after = before
        while after <= before and time.monotonic() < deadline:
            after = _processed_total(httpx.get(metrics_url, timeout=2).text)
            time.sleep(0.1)
        assert after == before + 1
        assert list(tmp_path.glob("worker-metrics-*/*.db"))  # the pool wrote its samples
    finally:
        for proc in (api, worker):
            proc.terminate()
        for proc in (api, worker):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
