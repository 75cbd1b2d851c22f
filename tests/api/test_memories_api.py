"""The user sees, corrects, confirms and erases their memories; clarifications resolve claims."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.domain.gate import GateDecision, GateInput
from app.domain.vocabulary import ACTIONS, Action
from app.gate import policies
from app.gate.service import QUESTION_BURST, QUESTION_EVERY_EVENTS, may_ask
from app.models import Event, Tenant
from tests.e2e.test_event_path import _text_anywhere


def _write(client: TestClient, headers: dict[str, str], text: str, origin: str = "user",
           at: str = "2026-11-01T09:00:00Z") -> dict[str, Any]:
    response = client.post("/v1/events?wait=true", headers=headers, json={
        "user_id": "alice", "session_id": "s1", "origin": origin, "text": text,
        "occurred_at": at})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _nodes(client: TestClient, headers: dict[str, str], **params: str) -> list[dict[str, Any]]:
    response = client.get("/v1/users/alice/nodes", headers=headers, params=params)
    assert response.status_code == 200, response.text
    nodes: list[dict[str, Any]] = response.json()["nodes"]
    return nodes


class TestListAndFilter:
    def test_filters(self, client: TestClient, tenant_a: Any) -> None:
        h = tenant_a.headers()
        _write(client, h, "I prefer short answers.")
        _write(client, h, "In standups, keep the tone casual.", at="2026-11-01T09:01:00Z")
        _write(client, h, "The user prefers tables.", origin="retrieved_document",
               at="2026-11-01T09:02:00Z")
        assert len(_nodes(client, h)) == 3
        assert [n["value"] for n in _nodes(client, h, state="quarantined")] == ["table"]
        assert [n["scope"] for n in _nodes(client, h, layer="contextual")] == ["standups"]
        assert [n["subject"] for n in _nodes(client, h, scope="standups")] == ["tone"]
        assert client.get("/v1/users/alice/nodes?state=bogus", headers=h).status_code == 422
        nobody = client.get("/v1/users/nobody/nodes", headers=h)
        assert nobody.status_code == 200
        assert nobody.json()["nodes"] == []
        assert nobody.json()["total"] == 0


class TestCorrections:
    def test_user_corrects_text_scope_and_layer(self, client: TestClient,
                                                tenant_a: Any) -> None:
        h = tenant_a.headers()
        _write(client, h, "I prefer short answers.")
        node = _nodes(client, h)[0]
        patched = client.patch(f"/v1/users/alice/nodes/{node['id']}", headers=h, json={
            "claim": "Prefers medium-length answers", "scope": "design_reviews",
            "layer": "contextual"})
        assert patched.status_code == 200, patched.text
        body = patched.json()
        assert (body["claim"], body["value"], body["scope"], body["layer"]) == (
            "Prefers medium-length answers", "medium", "design_reviews", "contextual")
        assert body["version"] == node["version"] + 1
        found = client.post("/v1/retrieve", headers=h, json={
            "user_id": "alice", "session_id": "s1", "query": "medium length answers",
            "domain": "design_reviews"}).json()["memories"]
        assert found[0]["node_id"] == node["id"]
        assert found[0]["components"]["scope_match"] == 1.0

    def test_confirming_a_quarantined_claim_makes_it_retrievable(
            self, client: TestClient, tenant_a: Any) -> None:
        h = tenant_a.headers()
        _write(client, h, "Settings export: the user prefers metric units.", origin="shared_file")
        node = _nodes(client, h, state="quarantined")[0]
        confirmed = client.patch(f"/v1/users/alice/nodes/{node['id']}", headers=h,
                                 json={"state": "active"})
        assert confirmed.json()["state"] == "active"
        lineage = client.get(f"/v1/provenance/nodes/{node['id']}",
                             headers=tenant_a.headers("auditor")).json()
        assert [v["change"] for v in lineage["versions"]] == ["quarantined", "user_confirmed"]

    def test_empty_patch_is_400_and_unknown_fields_422(self, client: TestClient,
                                                       tenant_a: Any) -> None:
        h = tenant_a.headers()
        _write(client, h, "I prefer short answers.")
        node = _nodes(client, h)[0]
        url = f"/v1/users/alice/nodes/{node['id']}"
        assert client.patch(url, headers=h, json={}).json()["error"]["code"] == "invalid_input"
        assert client.patch(url, headers=h, json={"tau_safe": 1}).status_code == 422
        assert client.patch(f"/v1/users/alice/nodes/{uuid.uuid4()}", headers=h,
                            json={"state": "active"}).status_code == 404

    def test_erased_node_is_gone(self, client: TestClient, tenant_a: Any) -> None:
        h = tenant_a.headers()
        _write(client, h, "I prefer short answers.")
        node = _nodes(client, h)[0]
        assert client.delete(f"/v1/users/alice/nodes/{node['id']}", headers=h).status_code == 200
        assert client.get(f"/v1/users/alice/nodes/{node['id']}", headers=h).status_code == 404
        assert client.delete(f"/v1/users/alice/nodes/{node['id']}",
                             headers=h).status_code == 404


class _AlwaysAsk:
    name, version, layered, guard_stable = "always_ask_test", "1", True, False

    def decide(self, gate_input: GateInput) -> GateDecision:
        return GateDecision(Action.clarify, dict.fromkeys(ACTIONS, 1 / 6), 0.5, [])


@pytest.fixture
def asking_tenant(db: Session, tenant_a: Any) -> Iterator[Any]:
    policies.POLICIES[_AlwaysAsk.name] = _AlwaysAsk  # type: ignore[assignment]
    db.query(Tenant).filter_by(name="tenant-a").update({"admission_policy": _AlwaysAsk.name})
    db.commit()
    yield tenant_a
    del policies.POLICIES[_AlwaysAsk.name]


class TestClarifications:
    @pytest.mark.parametrize(("answer", "state", "scope"), [
        ({"answer": "confirm"}, "active", "global"),
        ({"answer": "reject"}, "evicted", "global"),
        ({"answer": "scope", "scope": "standups"}, "active", "standups"),
    ])
    def test_answer_resolves_the_claim(self, client: TestClient, asking_tenant: Any,
                                       answer: dict[str, str], state: str, scope: str) -> None:
        h = asking_tenant.headers()
        written = _write(client, h, "I prefer short answers.")
        assert [d["action"] for d in written["decisions"]] == ["clarify"]
        pending = client.get("/v1/clarifications?user_id=alice", headers=h).json()["items"]
        assert len(pending) == 1
        assert "short answers" in pending[0]["question"]
        assert _nodes(client, h, state="quarantined")
        answered = client.post(f"/v1/clarifications/{pending[0]['id']}/answer", headers=h,
                               json=answer)
        assert answered.status_code == 200, answered.text
        node = client.get(f"/v1/users/alice/nodes/{pending[0]['node_id']}", headers=h).json()
        assert (node["state"], node["scope"]) == (state, scope)
        again = client.post(f"/v1/clarifications/{pending[0]['id']}/answer", headers=h,
                            json=answer)
        assert again.status_code == 409
        assert client.get("/v1/clarifications?user_id=alice", headers=h).json()["items"] == []

    def test_a_confirmed_revision_supersedes_what_it_replaces(
            self, client: TestClient, asking_tenant: Any) -> None:
        h = asking_tenant.headers()
        for text in ("I prefer short answers.", "Actually, I prefer long, detailed answers."):
            _write(client, h, text)
            [pending] = client.get("/v1/clarifications?user_id=alice", headers=h).json()["items"]
            assert client.post(f"/v1/clarifications/{pending['id']}/answer", headers=h,
                               json={"answer": "confirm"}).status_code == 200
        active = _nodes(client, h, state="active")
        assert [n["value"] for n in active] == ["detailed"]
        [old] = _nodes(client, h, state="superseded")
        assert old["value"] == "short"

    def test_questions_are_rationed_per_user(self, client: TestClient, db: Session,
                                             asking_tenant: Any) -> None:
        h = asking_tenant.headers()
        asked = [_write(client, h, "I prefer short answers.") for _ in range(QUESTION_BURST)]
        # The next events are decided by a policy that never asks.
        db.query(Tenant).filter_by(name="tenant-a").update(
            {"admission_policy": "provenance_only"})
        db.commit()
        window = QUESTION_BURST * QUESTION_EVERY_EVENTS
        later = [_write(client, h, "Thanks, that helps.")
                 for _ in range(window - QUESTION_BURST + 1)]
        db.expire_all()

        def event(body: dict[str, Any]) -> Event:
            row = db.get(Event, uuid.UUID(body["event_id"]))
            assert row is not None
            return row

        # A burst of QUESTION_BURST questions may be asked ...
        assert all(may_ask(db, event(a)) for a in asked)
        # ... and then none until the first of them leaves the window: any `window`
        # consecutive events hold at most QUESTION_BURST questions (one in twelve).
        assert not any(may_ask(db, event(b)) for b in later[:-1])
        assert may_ask(db, event(later[-1]))

    def test_scope_answer_needs_a_scope(self, client: TestClient, asking_tenant: Any) -> None:
        h = asking_tenant.headers()
        _write(client, h, "I prefer short answers.")
        pending = client.get("/v1/clarifications?user_id=alice", headers=h).json()["items"]
        response = client.post(f"/v1/clarifications/{pending[0]['id']}/answer", headers=h,
                               json={"answer": "scope"})
        assert response.status_code == 422


class TestSessionGraph:
    def test_write_processing_retrieval_vertices_and_edges(self, client: TestClient,
                                                           tenant_a: Any) -> None:
        h = tenant_a.headers()
        written = _write(client, h, "I prefer short answers.")
        client.post("/v1/retrieve", headers=h, json={
            "user_id": "alice", "session_id": "s1", "query": "answer length", "mode": "tool"})
        graph = client.get("/v1/provenance/sessions/s1?user_id=alice",
                           headers=tenant_a.headers("auditor")).json()
        kinds = sorted(v["kind"] for v in graph["vertices"])
        assert kinds == ["memory", "processing", "retrieval", "write"]
        relations = {(e["src"].split(":")[0], e["relation"], e["dst"].split(":")[0])
                     for e in graph["edges"]}
        assert relations == {("event", "decided_on", "decision"),
                             ("decision", "ledger.created", "node"),
                             ("node", "returned", "retrieval")}
        assert all(e["verified"] for e in graph["edges"])
        assert f"event:{written['event_id']}" in {v["id"] for v in graph["vertices"]}


class TestOpenClaims:
    """A preference the taxonomy does not cover is kept in the user's words, not filed under
    the nearest dimension; open claims never replace each other by subject."""

    def test_open_preferences_are_kept_as_stated(self, client: TestClient,
                                                 tenant_a: Any) -> None:
        h = tenant_a.headers()
        _write(client, h, "I can't stand horror movies, please never suggest them.")
        _write(client, h, "I prefer manual cars over automatic ones.",
               at="2026-11-01T09:01:00Z")
        _write(client, h, "I prefer manual cars over automatic ones.",
               at="2026-11-02T09:00:00Z")  # a repeat corroborates, it adds nothing
        nodes = _nodes(client, h, state="active")
        assert sorted(n["claim"] for n in nodes) == [
            "I can't stand horror movies, please never suggest them.",
            "I prefer manual cars over automatic ones."]
        assert all(n["subject"].startswith("open:") for n in nodes)
        assert {n["claim"]: n["direction"] for n in nodes}[
            "I can't stand horror movies, please never suggest them."] == "avoid"
        found = client.post("/v1/retrieve", headers=h, json={
            "user_id": "alice", "session_id": "s1", "query": "what films should I suggest?"})
        assert found.status_code == 200, found.text
        assert found.json()["memories"][0]["claim"].startswith("I can't stand horror movies")

    def test_a_claim_read_backwards_is_turned(self, client: TestClient,
                                              tenant_a: Any) -> None:
        h = tenant_a.headers()
        _write(client, h, "I prefer short answers.")
        _write(client, h, "I can't stand horror movies, please never suggest them.",
               at="2026-11-01T09:01:00Z")
        nodes = {n["subject"]: n for n in _nodes(client, h)}
        short = nodes["answer_length"]
        turned = client.patch(f"/v1/users/alice/nodes/{short['id']}", headers=h,
                              json={"direction": "avoid"}).json()
        assert (turned["direction"], turned["claim"], turned["version"]) == (
            "avoid", "Avoids short answers", short["version"] + 1)
        opened = next(n for s, n in nodes.items() if s.startswith("open:"))
        back = client.patch(f"/v1/users/alice/nodes/{opened['id']}", headers=h,
                            json={"direction": "prefer"}).json()
        assert back["direction"] == "prefer"
        assert back["claim"] == opened["claim"]  # the user's words are kept
        assert client.patch(f"/v1/users/alice/nodes/{opened['id']}", headers=h,
                            json={"direction": "sideways"}).status_code == 422

    def test_a_turned_claim_replaces_what_it_contradicts(self, client: TestClient,
                                                         tenant_a: Any) -> None:
        h = tenant_a.headers()
        _write(client, h, "I prefer short answers.")
        _write(client, h, "I don't want detailed answers.", at="2026-11-01T09:01:00Z")
        detailed = next(n for n in _nodes(client, h) if n["value"] == "detailed")
        assert detailed["direction"] == "avoid"
        client.patch(f"/v1/users/alice/nodes/{detailed['id']}", headers=h,
                     json={"direction": "prefer"})
        states = {n["value"]: n["state"] for n in _nodes(client, h)}
        assert states == {"detailed": "active", "short": "superseded"}

    def test_erasing_an_open_claim_leaves_its_words_nowhere(
            self, client: TestClient, tenant_a: Any, db: Session) -> None:
        h = tenant_a.headers()
        _write(client, h, "I can't stand horror movies, please never suggest them.")
        node = _nodes(client, h)[0]
        assert node["subject"].startswith("open:")
        assert client.delete(f"/v1/users/alice/nodes/{node['id']}", headers=h).status_code == 200
        assert _text_anywhere(db, "horror movies") == []
