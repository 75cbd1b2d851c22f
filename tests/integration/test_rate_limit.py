"""Per-key rate limits counted in a real Redis: 429 with Retry-After past the limit, the
tenant's own limit over the deployment's, and no limit without one."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.core.config import get_settings
from app.models import Tenant


@pytest.fixture
def limited(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    settings = get_settings()
    monkeypatch.setattr(settings, "rate_limit_redis_url", redis_url)
    monkeypatch.setattr(settings, "rate_limit_per_minute", 3)
    store = redis.Redis.from_url(redis_url)
    for name in store.scan_iter("capture:rl:*"):
        store.delete(name)
    return redis_url


def _get(client: TestClient, keys: Any, role: str = "agent") -> Any:
    return client.get("/v1/users/alice/nodes", headers=keys.headers(role))


class TestPerKeyLimit:
    def test_past_the_limit_is_429_with_retry_after(self, limited: str, client: TestClient,
                                                     tenant_a: Any) -> None:
        assert [_get(client, tenant_a).status_code for _ in range(3)] == [200, 200, 200]
        refused = _get(client, tenant_a)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        # Each key has its own count.
        assert _get(client, tenant_a, "admin").status_code == 200

    def test_the_tenant_limit_takes_precedence(self, limited: str, client: TestClient,
                                               tenant_a: Any, tenant_b: Any,
                                               db: Session) -> None:
        db.execute(update(Tenant).where(Tenant.name == "tenant-b")
                   .values(rate_limit_per_minute=1))
        db.commit()
        assert _get(client, tenant_b).status_code == 200
        assert _get(client, tenant_b).status_code == 429
        assert [_get(client, tenant_a).status_code for _ in range(3)] == [200, 200, 200]

    def test_no_limit_configured_counts_nothing(self, redis_url: str, client: TestClient,
                                                tenant_a: Any,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(get_settings(), "rate_limit_redis_url", redis_url)
        assert {_get(client, tenant_a).status_code for _ in range(5)} == {200}

    def test_an_unreachable_store_lets_requests_pass(self, client: TestClient, tenant_a: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
        settings = get_settings()
        monkeypatch.setattr(settings, "rate_limit_redis_url", "redis://127.0.0.1:1/0")
        monkeypatch.setattr(settings, "rate_limit_per_minute", 1)
        assert {_get(client, tenant_a).status_code for _ in range(3)} == {200}
