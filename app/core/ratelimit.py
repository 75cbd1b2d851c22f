"""Per-key request limits, counted in Redis so every API replica shares one count.

A fixed one-minute window per key: INCR `capture:rl:<key id>:<minute>`, expiring with the
window. Over the limit is a 429 with `Retry-After` (seconds to the next window). When Redis
cannot answer, requests pass (a limiter outage must not become an API outage) and the
outage is logged once.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from functools import lru_cache

import redis

from app.core.config import get_settings
from app.core.errors import RateLimited

log = logging.getLogger(__name__)

WINDOW_S = 60
_state = threading.Lock()
_redis_down = False


@lru_cache(maxsize=4)
def _client(url: str) -> redis.Redis[bytes]:
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)


def redis_url() -> str | None:
    settings = get_settings()
    return settings.rate_limit_redis_url or settings.broker_url


def check(key_id: uuid.UUID, tenant_limit: int | None) -> None:
    """Count one request of `key_id`; raise RateLimited past the limit (the tenant's, else
    the deployment's). No limit, or no Redis: nothing is counted."""
    global _redis_down
    limit = tenant_limit if tenant_limit is not None else get_settings().rate_limit_per_minute
    url = redis_url()
    if limit is None or url is None:
        return
    now = time.time()
    window = int(now // WINDOW_S)
    name = f"capture:rl:{key_id.hex}:{window}"
    try:
        pipe = _client(url).pipeline()
        pipe.incr(name)
        pipe.expire(name, WINDOW_S + 1)
        count = int(pipe.execute()[0])
    except redis.RedisError as exc:
        with _state:
            first, _redis_down = not _redis_down, True
        if first:
            log.warning("rate-limit store unavailable (%s); requests pass unlimited",
                        type(exc).__name__)
        return
    if _redis_down:
        with _state:
            _redis_down = False
        log.warning("rate-limit store available again")
    if count > limit:
        retry_after = max(1, int((window + 1) * WINDOW_S - now + 0.999))
        raise RateLimited(
            f"more than {limit} requests a minute for this API key",
            headers={"Retry-After": str(retry_after)},
        )
