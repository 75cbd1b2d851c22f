"""When to retry a request and how long to wait: exponential backoff with jitter, or the
service's `Retry-After` when it gives one."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

RETRY_STATUSES = frozenset({429, 502, 503, 504})
# The service refused before doing any work: safe to retry any request.
REFUSED_STATUSES = frozenset({429, 503})
# Failures where the request never reached the service.
NOT_SENT_ERRORS: tuple[type[httpx.TransportError], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds from a `Retry-After` header: delay-seconds or an HTTP date."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """`max_retries` retries after the first try. The n-th retry waits a random time in
    [d/2, d] with d = min(max_backoff, backoff · 2ⁿ⁻¹), or what `Retry-After` asks for
    (at most `max_retry_after`; a longer wait raises instead).

    429 and 503 are retried for every request (the service did nothing); 502, 504 and
    transport errors after the request was sent are retried only for requests that are safe
    to repeat (reads, event writes carrying an idempotency key, retrieve, check-call,
    select); a connection that never opened is always retried."""

    max_retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return retry_after
        ceiling: float = min(self.max_backoff, self.backoff * 2.0 ** (retry - 1))
        return ceiling / 2 + random.uniform(0.0, ceiling / 2)

    def should_retry_status(self, status: int, retry: int, *, idempotent: bool) -> bool:
        if retry > self.max_retries or status not in RETRY_STATUSES:
            return False
        return idempotent or status in REFUSED_STATUSES

    def should_retry_error(self, error: httpx.TransportError, retry: int, *,
                           idempotent: bool) -> bool:
        if retry > self.max_retries:
            return False
        return idempotent or isinstance(error, NOT_SENT_ERRORS)

    def wait_for(self, response: httpx.Response, retry: int) -> float | None:
        """The wait before retry number `retry`, or None when the service asks for more
        than `max_retry_after`."""
        asked = parse_retry_after(response.headers.get("retry-after"))
        if asked is not None and asked > self.max_retry_after:
            return None
        return self.delay(retry, asked)


NO_RETRIES = RetryPolicy(max_retries=0)
