"""A worker killed with SIGKILL mid-task loses nothing: the events it held are requeued
when a worker starts (Celery's worker_ready), not after the broker's visibility timeout."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from tests.integration.conftest import Stack, wait_processed

EVENTS = 40
RECOVERY_BOUND_S = 30.0


def _statuses(stack: Stack, ids: list[str]) -> list[str]:
    with stack.client() as client:
        return [client.get(f"/v1/events/{i}").json()["status"] for i in ids]


class TestWorkerKilledMidTask:
    def test_held_events_are_processed_soon_after_a_worker_starts(self, stack: Stack) -> None:
        at = datetime(2026, 10, 2, 9, tzinfo=UTC).isoformat()

        def post(i: int) -> str:
            with stack.client() as client:
                response = client.post("/v1/events", json={
                    "user_id": f"crash-{i}", "session_id": "s1", "origin": "user",
                    "text": "I prefer short answers.", "occurred_at": at})
                assert response.status_code == 202, response.text
                return str(response.json()["event_id"])

        # One event per user: no later event of the same user can carry a lost one along,
        # so only the requeue brings back what the killed workers held.
        first = [post(i) for i in range(2)]
        deadline = time.monotonic() + 60
        while "processed" not in _statuses(stack, first) and time.monotonic() < deadline:
            time.sleep(0.05)
        # The workers are busy: a burst, then the kill while they work through it.
        with ThreadPoolExecutor(max_workers=8) as pool:
            ids = first + list(pool.map(post, range(2, EVENTS)))
        workers = [p for p in stack.processes[1:] if p.poll() is None]
        assert workers
        for proc in workers:
            os.kill(proc.pid, signal.SIGKILL)
        for proc in workers:
            proc.wait(timeout=10)
        pending = [i for i, s in zip(ids, _statuses(stack, ids), strict=True) if s == "pending"]
        assert pending, "every event was processed before the kill; nothing was tested"
        started = time.monotonic()
        stack.start_worker("after-crash-0")
        stack.start_worker("after-crash-1")
        with stack.client() as client:
            wait_processed(client, pending, timeout_s=RECOVERY_BOUND_S)
        print(f"{len(pending)} pending events processed {time.monotonic() - started:.1f} s "
              "after the new workers were started")
        assert set(_statuses(stack, ids)) == {"processed"}
