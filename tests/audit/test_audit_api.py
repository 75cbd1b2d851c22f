"""POST /v1/audit → 202, the audit runs in-process (no broker), GET /v1/audit/{id} and the
node lineage show it, and the audited nodes' running influence feeds the retrieval prior."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.models import Audit, Node
from tests.conftest import TenantKeys

PROMPT = "Plan my meals for the week."
VEGAN = "Week plan: black bean tacos, tofu curry, lentil bolognese and falafel wraps."
MEATY = "Week plan: pork chops, chicken fajitas, beef chilli and lamb kofta."
NEUTRAL = "Sure, here's a first pass."


def write(client: TestClient, keys: TenantKeys, text: str, minutes: int) -> None:
    at = datetime.now(UTC) - timedelta(hours=2) + timedelta(minutes=minutes)
    response = client.post("/v1/events?wait=true", headers=keys.headers(), json={
        "user_id": "u1", "session_id": "s1", "origin": "user", "text": text,
        "occurred_at": at.isoformat()})
    assert response.status_code == 200, response.text


def nodes(client: TestClient, keys: TenantKeys) -> dict[str, str]:
    listed = client.get("/v1/users/u1/nodes?state=active", headers=keys.headers()).json()
    return {n["subject"]: n["id"] for n in listed["nodes"]}


@pytest.fixture
def ledger(client: TestClient, tenant_a: TenantKeys) -> dict[str, str]:
    write(client, tenant_a, "I'm vegan, so please only suggest vegan food.", 0)
    write(client, tenant_a, "I prefer a casual tone.", 1)
    write(client, tenant_a, "Please use metric units.", 2)
    held = nodes(client, tenant_a)
    assert {"diet", "tone", "units"} <= set(held), held
    return held


def audit(client: TestClient, keys: TenantKeys, cited: list[str], **extra: Any) -> Any:
    body = {"user_id": "u1", "session_id": "s1", "prompt": PROMPT, "response": VEGAN,
            "cited_node_ids": cited, "candidates": [VEGAN, MEATY, NEUTRAL], **extra}
    return client.post("/v1/audit", headers=keys.headers(), json=body)


class TestAuditRuns:
    def test_necessary_citation_is_kept_and_irrelevant_ones_dropped(
        self, client: TestClient, tenant_a: TenantKeys, ledger: dict[str, str], db: Session
    ) -> None:
        cited = [ledger["tone"], ledger["diet"], ledger["units"]]
        accepted = audit(client, tenant_a, cited)
        assert accepted.status_code == 202, accepted.text
        audit_id = accepted.json()["audit_id"]
        assert accepted.json()["decoder"] == "reselect"
        body = client.get(f"/v1/audit/{audit_id}", headers=tenant_a.headers("auditor")).json()
        assert body["status"] == "done", body
        by_node = {c["node_id"]: c for c in body["citations"]}
        diet = by_node[ledger["diet"]]
        assert diet["status"] == "audited"
        assert diet["kept"] is True
        assert diet["selection_changed"] is True
        assert diet["influence"] >= 0.10
        for other in ("tone", "units"):
            citation = by_node[ledger[other]]
            assert citation["kept"] is False, other
            assert abs(citation["influence"]) < 0.10
            assert citation["selection_changed"] is False
        assert body["kept_node_ids"] == [ledger["diet"]]
        assert set(body["dropped_node_ids"]) == {ledger["tone"], ledger["units"]}
        assert body["response_matches_factual"] is True
        # The stored texts are gone once the audit has run.
        row = db.get(Audit, uuid.UUID(audit_id))
        assert row is not None
        assert row.inputs is None

    def test_running_influence_feeds_the_retrieval_prior(
        self, client: TestClient, tenant_a: TenantKeys, ledger: dict[str, str], db: Session
    ) -> None:
        audit(client, tenant_a, [ledger["diet"], ledger["tone"]])
        diet = db.get(Node, uuid.UUID(ledger["diet"]))
        tone = db.get(Node, uuid.UUID(ledger["tone"]))
        assert diet is not None
        assert tone is not None
        db.refresh(diet)
        db.refresh(tone)
        assert diet.influence is not None
        assert diet.influence > 0.5
        assert tone.influence == pytest.approx(0.45)  # 0.9 · 0.5 + 0.1 · 0
        retrieved = client.post("/v1/retrieve", headers=tenant_a.headers(), json={
            "user_id": "u1", "session_id": "s1", "query": PROMPT, "mode": "context"}).json()
        prior = {m["node_id"]: m["components"]["influence_prior"] for m in retrieved["memories"]}
        assert prior[ledger["tone"]] == pytest.approx(tone.influence)
        assert prior[ledger["diet"]] == pytest.approx(diet.influence)
        assert prior[ledger["units"]] == 0.5  # never audited: neutral

    def test_only_the_top_three_cited_are_audited(
        self, client: TestClient, tenant_a: TenantKeys, ledger: dict[str, str]
    ) -> None:
        write(client, tenant_a, "I prefer bullet points.", 3)
        held = nodes(client, tenant_a)
        accepted = audit(client, tenant_a, list(held.values()))
        body = client.get(f"/v1/audit/{accepted.json()['audit_id']}",
                          headers=tenant_a.headers()).json()
        statuses = [c["status"] for c in body["citations"]]
        assert statuses.count("audited") == 3
        assert statuses.count("beyond_top_k") == 1
        assert [c["rank"] for c in body["citations"]] == [0, 1, 2, 3]

    def test_node_lineage_shows_the_audit(
        self, client: TestClient, tenant_a: TenantKeys, ledger: dict[str, str]
    ) -> None:
        audit_id = audit(client, tenant_a, [ledger["diet"]]).json()["audit_id"]
        lineage = client.get(f"/v1/provenance/nodes/{ledger['diet']}",
                             headers=tenant_a.headers("auditor"))
        assert lineage.status_code == 200, lineage.text
        refs = lineage.json()["audits"]
        assert [r["audit_id"] for r in refs] == [audit_id]
        assert refs[0]["kept"] is True
        assert refs[0]["citation_status"] == "audited"

    def test_reuses_the_agents_retrieval_of_the_prompt(
        self, client: TestClient, tenant_a: TenantKeys, ledger: dict[str, str]
    ) -> None:
        selected = client.post("/v1/select", headers=tenant_a.headers(), json={
            "user_id": "u1", "session_id": "s1", "prompt": PROMPT,
            "candidates": [VEGAN, MEATY, NEUTRAL]}).json()
        audit_id = audit(client, tenant_a, [ledger["diet"]]).json()["audit_id"]
        body = client.get(f"/v1/audit/{audit_id}", headers=tenant_a.headers()).json()
        assert body["retrieval_id"] == selected["retrieval_id"]
        assert body["memory_node_ids"] == [m["node_id"] for m in selected["memories"]]


class TestAuditValidation:
    def test_reselect_needs_candidates(
        self, client: TestClient, tenant_a: TenantKeys, ledger: dict[str, str]
    ) -> None:
        response = audit(client, tenant_a, [ledger["diet"]], candidates=None)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_input"

    def test_cited_nodes_must_belong_to_the_user(
        self, client: TestClient, tenant_a: TenantKeys, ledger: dict[str, str]
    ) -> None:
        response = audit(client, tenant_a, [str(uuid.uuid4())])
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_input"

    def test_other_tenant_cannot_read_or_cite(
        self, client: TestClient, tenant_a: TenantKeys, tenant_b: TenantKeys,
        ledger: dict[str, str]
    ) -> None:
        audit_id = audit(client, tenant_a, [ledger["diet"]]).json()["audit_id"]
        assert client.get(f"/v1/audit/{audit_id}",
                          headers=tenant_b.headers()).status_code == 404
        assert audit(client, tenant_b, [ledger["diet"]]).status_code == 400

    def test_extra_fields_rejected(
        self, client: TestClient, tenant_a: TenantKeys, ledger: dict[str, str]
    ) -> None:
        assert audit(client, tenant_a, [ledger["diet"]], decoder="local_lm").status_code == 422

    def test_decoder_comes_from_settings(self) -> None:
        assert get_settings().audit_decoder == "reselect"
