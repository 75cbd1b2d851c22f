"""The write path over a real broker and real workers: order, exactly-once effect, waits."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from celery import Celery
from sqlalchemy import create_engine, text

from app.pipeline import PROCESS_EVENT_TASK
from tests.integration.conftest import Stack, wait_processed

VALUES = ["short", "detailed"]


def _event(user: str, i: int, text_: str, **extra: str) -> dict[str, str]:
    at = datetime(2026, 10, 1, 9, tzinfo=UTC) + timedelta(minutes=i)
    return {"user_id": user, "session_id": "s1", "origin": "user", "text": text_,
            "occurred_at": at.isoformat(), **extra}


class TestPerUserOrderAcrossWorkers:
    def test_events_apply_in_arrival_order(self, stack: Stack) -> None:
        with stack.client() as client:
            ids = []
            for i in range(12):
                value = VALUES[i % 2]
                response = client.post("/v1/events", json=_event(
                    "order-user", i, f"I prefer {value} answers."))
                assert response.status_code == 202, response.text
                ids.append(response.json()["event_id"])
            wait_processed(client, ids)
            nodes = client.get("/v1/users/order-user/nodes?state=active").json()["nodes"]
            # The last statement wins only if every revise applied in arrival order.
            assert [n["value"] for n in nodes] == [VALUES[11 % 2]]
        engine = create_engine(stack.database_url)
        with engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT e.seq FROM decisions d JOIN events e ON e.id = d.event_id "
                "JOIN users u ON u.id = e.user_id WHERE u.external_id = 'order-user' "
                "ORDER BY d.created_at")).scalars().all()
        engine.dispose()
        assert list(rows) == sorted(rows)
        assert len(rows) == 12


class TestWaitThroughTheBroker:
    def test_wait_returns_the_decision(self, stack: Stack) -> None:
        with stack.client() as client:
            response = client.post("/v1/events?wait=true", json=_event(
                "wait-user", 0, "Please always use metric units."))
            assert response.status_code == 200, response.text
            body = response.json()
            assert body["status"] == "processed"
            assert [d["action"] for d in body["decisions"]] == ["add"]


class TestRedeliveryIsIdempotent:
    def test_second_delivery_changes_nothing(self, stack: Stack) -> None:
        with stack.client() as client:
            first = client.post("/v1/events?wait=true", json=_event(
                "redeliver-user", 0, "I prefer short answers."))
            event_id = first.json()["event_id"]
            celery = Celery(broker=stack.broker_url)
            celery.send_task(PROCESS_EVENT_TASK, args=[event_id], queue=stack.queue)
            marker = client.post("/v1/events?wait=true", json=_event(
                "redeliver-user", 1, "Can you check the weather?"))
            assert marker.json()["status"] == "processed"
            time.sleep(2.0)  # let the redelivered task run on whichever worker took it
            detail = client.get(f"/v1/events/{event_id}").json()
            assert len(detail["decisions"]) == 1
            assert len(detail["node_changes"]) == 1
