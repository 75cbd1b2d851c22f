"""A worker killed with SIGKILL mid-task loses nothing: the events it held are requeued
when a worker starts (Celery's worker_ready), not after the broker's visibility timeout,
and what it committed of a user's backlog before the kill stays processed."""

from __future__ import annotations

import os
import signal
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import redis
from sqlalchemy import create_engine, text

from bench.chaos.stack import kill9
from tests.integration.conftest import Stack, wait_processed

EVENTS = 40
RECOVERY_BOUND_S = 30.0
BACKLOG = 60
KILL_AFTER = 3


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


def _backlog_rows(stack: Stack, user: str) -> list[tuple[int, str, int]]:
    """(seq, status, process_event spans) of each of the user's events, by seq."""
    engine = create_engine(stack.database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT e.seq, e.status, (SELECT count(*) FROM spans s "
                "  WHERE s.name = 'memory.process_event' "
                "  AND s.attributes->>'capture.event.id' = e.id::text) "
                "FROM events e JOIN users u ON u.id = e.user_id "
                "WHERE u.external_id = :user ORDER BY e.seq"), {"user": user}).all()
    finally:
        engine.dispose()
    return [(int(r[0]), str(r[1]), int(r[2])) for r in rows]


class TestWorkerKilledMidBacklog:
    def test_the_committed_prefix_stays_and_a_new_worker_resumes(self, stack: Stack) -> None:
        """One task holds a user's whole backlog (the broker's queue is emptied, so only the
        requeue at worker start hands it over, as after a Redis restart); the worker is
        killed partway through. The events it committed stay processed, in order; a new
        worker processes the rest, each event exactly once."""
        for proc in [p for p in stack.workers.values() if p.poll() is None]:
            kill9(proc)
        user = f"backlog-{uuid.uuid4().hex[:8]}"
        at = datetime(2026, 10, 3, 9, tzinfo=UTC)
        with stack.client() as client:
            for i in range(BACKLOG):
                response = client.post("/v1/events", json={
                    "user_id": user, "session_id": "s1", "origin": "user",
                    "text": f"Note {i}: I prefer short answers.",
                    "occurred_at": (at + timedelta(seconds=i)).isoformat()})
                assert response.status_code == 202, response.text
        broker = redis.Redis.from_url(stack.broker_url)
        queued = broker.keys(f"{stack.queue}*")
        assert queued, "the events' tasks were not in the broker's queue"
        broker.delete(*queued)

        worker = stack.start_worker("backlog-0")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if sum(s == "processed" for _, s, _ in _backlog_rows(stack, user)) >= KILL_AFTER:
                break
            time.sleep(0.02)
        kill9(worker)

        rows = _backlog_rows(stack, user)
        statuses = [s for _, s, _ in rows]
        done = statuses.count("processed")
        assert KILL_AFTER <= done < BACKLOG, f"{done} of {BACKLOG} processed at the kill"
        # The committed prefix: the first `done` events by seq, and nothing after them.
        assert statuses == ["processed"] * done + ["pending"] * (BACKLOG - done)

        started = time.monotonic()
        stack.start_worker("backlog-1")
        stack.start_worker("backlog-2")
        while time.monotonic() - started < RECOVERY_BOUND_S:
            rows = _backlog_rows(stack, user)
            if all(s == "processed" for _, s, _ in rows):
                break
            time.sleep(0.2)
        print(f"{done} of {BACKLOG} events committed before the kill; the other "
              f"{BACKLOG - done} processed {time.monotonic() - started:.1f} s after new "
              "workers were started")
        assert [s for _, s, _ in rows] == ["processed"] * BACKLOG
        assert [n for _, _, n in rows] == [1] * BACKLOG  # each event processed once
