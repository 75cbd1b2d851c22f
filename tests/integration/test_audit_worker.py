"""The audit over a real broker: POST /v1/audit on the API subprocess, the Celery task
`capture.audit` on a worker subprocess, the result read back through GET /v1/audit/{id}."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import httpx

from tests.integration.conftest import Stack

VEGAN = "Week plan: black bean tacos, tofu curry, lentil bolognese and falafel wraps."
MEATY = "Week plan: pork chops, chicken fajitas, beef chilli and lamb kofta."


def _write(client: httpx.Client, text: str, minutes: int) -> None:
    at = datetime.now(UTC) - timedelta(hours=1) + timedelta(minutes=minutes)
    response = client.post("/v1/events?wait=true", json={
        "user_id": "audit-user", "session_id": "s1", "origin": "user", "text": text,
        "occurred_at": at.isoformat()})
    assert response.status_code == 200, response.text


def _wait_done(client: httpx.Client, audit_id: str, timeout_s: float = 60.0) -> dict[str, object]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body: dict[str, object] = client.get(f"/v1/audit/{audit_id}").json()
        if body["status"] != "pending":
            return body
        time.sleep(0.2)
    raise AssertionError(f"audit {audit_id} still pending after {timeout_s}s")


class TestAuditThroughTheWorker:
    def test_audit_task_runs_on_a_worker(self, stack: Stack) -> None:
        with stack.client() as client:
            _write(client, "I'm vegan, so please only suggest vegan food.", 0)
            _write(client, "I prefer a casual tone.", 1)
            nodes = client.get("/v1/users/audit-user/nodes?state=active").json()["nodes"]
            by_subject = {n["subject"]: n["id"] for n in nodes}
            accepted = client.post("/v1/audit", json={
                "user_id": "audit-user", "session_id": "s1",
                "prompt": "Plan my meals for the week.", "response": VEGAN,
                "cited_node_ids": [by_subject["diet"], by_subject["tone"]],
                "candidates": [VEGAN, MEATY]})
            assert accepted.status_code == 202, accepted.text
            body = _wait_done(client, accepted.json()["audit_id"])
        assert body["status"] == "done", body
        assert body["kept_node_ids"] == [by_subject["diet"]]
        assert body["dropped_node_ids"] == [by_subject["tone"]]
