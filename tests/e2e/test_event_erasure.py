"""A user erases an event the agent read: the text is gone from every table, memories that
only it fed are erased with it, a memory another event also fed survives, and other users
and tenants cannot erase it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.e2e.test_event_path import (
    COPY_TABLES,
    _text_anywhere,
    _write,
    asking_policy,
    quoting_scenario,
    rows_of_tenant,
    searched_tables,
)

CONTACT = "Dana's direct line is +1 415 555 0199 and her home is 12 Quince Lane."
PREFERENCE = "I prefer short answers, please keep replies brief."


def _nodes(client: TestClient, headers: dict[str, str], state: str = "active") -> list[Any]:
    response = client.get(f"/v1/users/alice/nodes?state={state}", headers=headers)
    assert response.status_code == 200, response.text
    items: list[Any] = response.json()["nodes"]
    return items


class TestEventErasure:
    def test_contact_detail_is_erased_everywhere(
        self, client: TestClient, tenant_a: Any, db: Session
    ) -> None:
        agent = tenant_a.headers("agent")
        written = _write(client, agent, origin="user", text=CONTACT)
        assert _text_anywhere(db, "Quince Lane")
        erased = client.delete(f"/v1/users/alice/events/{written['event_id']}", headers=agent)
        assert erased.status_code == 200, erased.text
        assert erased.json()["event_id"] == written["event_id"]
        db.expire_all()
        assert _text_anywhere(db, "Quince Lane") == []
        assert _text_anywhere(db, "555 0199") == []
        auditor = tenant_a.headers("auditor")
        detail = client.get(f"/v1/events/{written['event_id']}", headers=auditor)
        assert detail.status_code == 200
        assert detail.json()["text"] is None
        again = client.delete(f"/v1/users/alice/events/{written['event_id']}", headers=agent)
        assert again.status_code == 404

    def test_memory_only_this_event_fed_is_erased(
        self, client: TestClient, tenant_a: Any, db: Session
    ) -> None:
        agent = tenant_a.headers("agent")
        written = _write(client, agent, origin="user", text=PREFERENCE)
        assert [n["subject"] for n in _nodes(client, agent)] == ["answer_length"]
        erased = client.delete(f"/v1/users/alice/events/{written['event_id']}", headers=agent)
        assert erased.status_code == 200, erased.text
        assert erased.json()["nodes_erased"] == 1
        assert _nodes(client, agent) == []
        db.expire_all()
        assert _text_anywhere(db, "short answers") == []

    def test_memory_also_fed_by_another_event_survives(
        self, client: TestClient, tenant_a: Any, db: Session
    ) -> None:
        agent = tenant_a.headers("agent")
        first = _write(client, agent, origin="user", text=PREFERENCE)
        _write(client, agent, origin="user", text=PREFERENCE, occurred_at="2026-11-03T09:00:00Z")
        erased = client.delete(f"/v1/users/alice/events/{first['event_id']}", headers=agent)
        assert erased.status_code == 200, erased.text
        assert erased.json()["nodes_erased"] == 0
        assert [n["subject"] for n in _nodes(client, agent)] == ["answer_length"]

    def test_other_users_and_tenants_cannot_erase(
        self, client: TestClient, tenant_a: Any, tenant_b: Any
    ) -> None:
        written = _write(client, tenant_a.headers("agent"), origin="user", text=CONTACT)
        path = f"/v1/users/alice/events/{written['event_id']}"
        assert client.delete(path, headers=tenant_b.headers("agent")).status_code == 404
        other_user = f"/v1/users/bob/events/{written['event_id']}"
        assert client.delete(other_user, headers=tenant_a.headers("agent")).status_code == 404
        assert client.delete(path, headers=tenant_a.headers("agent")).status_code == 200


@pytest.fixture
def asking(db: Session, tenant_a: Any) -> Iterator[None]:
    yield from asking_policy(db, "tenant-a")


class TestEventErasureLeavesNoCopy:
    def test_the_event_behind_a_quoted_memory(
        self, client: TestClient, tenant_a: Any, db: Session, asking: None
    ) -> None:
        """Erasing the event that alone fed a memory erases the memory, and no question,
        span, audit or tool check keeps its claim."""
        agent = tenant_a.headers("agent")
        held = quoting_scenario(client, agent)
        assert searched_tables(db) >= COPY_TABLES
        assert all(rows_of_tenant(db, "tenant-a").values())
        erased = client.delete(f"/v1/users/alice/events/{held['event_id']}", headers=agent)
        assert erased.status_code == 200, erased.text
        assert erased.json()["nodes_erased"] == 1
        db.expire_all()
        assert _text_anywhere(db, held["claim"]) == []
        assert _text_anywhere(db, "I prefer short answers") == []
        [pending] = client.get("/v1/clarifications?user_id=alice",
                               headers=agent).json()["items"]
        assert pending["id"] == held["question_id"]
        assert held["claim"] not in pending["question"]
