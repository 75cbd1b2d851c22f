"""Retries, idempotency keys and typed errors, against a scripted transport."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import capture_client.async_client as async_module
import capture_client.client as sync_module
import httpx
import pytest
from capture_client import (
    APIConnectionError,
    AsyncCapture,
    AuthenticationError,
    Capture,
    CaptureError,
    Conflict,
    NotFound,
    PermissionDenied,
    RateLimited,
    RetryPolicy,
    ServerError,
    ServiceUnavailable,
    ValidationError,
)
from capture_client._retry import parse_retry_after

EVENT_ID = "6f1c2b7a-0d44-4d8e-9a3e-1f2b3c4d5e6f"
ACCEPTED = {"event_id": EVENT_ID, "status": "pending", "duplicate": False, "trace_id": "t" * 32}


def _error(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": {"code": code, "message": f"{code} happened", "details": {"errors": []}}}
    return httpx.Response(status, json=body, headers=headers)


class Script:
    """Answers each request with the next scripted response (or raises it)."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    waited: list[float] = []
    monkeypatch.setattr(sync_module.time, "sleep", waited.append)

    async def _asleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(async_module.asyncio, "sleep", _asleep)
    return waited


def _client(script: Callable[[httpx.Request], httpx.Response], **kw: Any) -> Capture:
    return Capture("cap_test_key", base_url="http://capture.test", user_id="alice",
                   session_id="s1", transport=httpx.MockTransport(script), **kw)


class TestRetries:
    def test_rate_limit_waits_what_retry_after_asks_and_keeps_the_idempotency_key(
            self, sleeps: list[float]) -> None:
        script = Script(_error(429, "rate_limited", {"Retry-After": "2"}),
                        _error(503, "unavailable"), httpx.Response(202, json=ACCEPTED))
        accepted = _client(script).observe("I prefer short answers.", "user")
        assert str(accepted.event_id) == EVENT_ID
        keys = [body["idempotency_key"] for body in script.bodies()]
        assert len(keys) == 3
        assert len(set(keys)) == 1
        assert keys[0]
        assert sleeps[0] == 2.0
        assert 0.5 <= sleeps[1] <= 1.0  # second retry: backoff 0.5 · 2, half of it jittered
        assert script.requests[0].headers["authorization"] == "Bearer cap_test_key"

    def test_every_write_gets_its_own_key(self, sleeps: list[float]) -> None:
        script = Script(httpx.Response(202, json=ACCEPTED), httpx.Response(202, json=ACCEPTED))
        client = _client(script)
        client.observe("one", "user")
        client.observe("two", "tool_output", tool_name="web_search")
        first, second = script.bodies()
        assert first["idempotency_key"] != second["idempotency_key"]
        assert second["origin"] == "tool_output"
        assert second["tool_name"] == "web_search"
        assert "domain" not in second  # unset optional fields are left out

    def test_gives_up_after_max_retries_with_a_typed_error(self, sleeps: list[float]) -> None:
        script = Script(*[_error(429, "rate_limited", {"Retry-After": "0"}) for _ in range(3)])
        with pytest.raises(RateLimited) as caught:
            _client(script, retry=RetryPolicy(max_retries=2)).recall("answers?")
        assert len(script.requests) == 3
        assert caught.value.retry_after == 0.0
        assert caught.value.code == "rate_limited"

    def test_a_retry_after_beyond_the_limit_raises_at_once(self, sleeps: list[float]) -> None:
        script = Script(_error(429, "rate_limited", {"Retry-After": "3600"}))
        with pytest.raises(RateLimited):
            _client(script).recall("answers?")
        assert sleeps == []

    def test_bad_gateway_is_not_retried_for_a_write_that_is_not_idempotent(
            self, sleeps: list[float]) -> None:
        script = Script(_error(502, "bad_gateway"))
        with pytest.raises(ServerError):
            _client(script).answer(EVENT_ID, "confirm")
        assert len(script.requests) == 1

    def test_connection_errors_are_retried(self, sleeps: list[float]) -> None:
        script = Script(httpx.ConnectError("refused"), httpx.Response(202, json=ACCEPTED))
        _client(script).observe("hello", "user")
        assert len(script.requests) == 2

    def test_a_connection_that_stays_down_raises_api_connection_error(
            self, sleeps: list[float]) -> None:
        script = Script(*[httpx.ConnectError("refused") for _ in range(4)])
        with pytest.raises(APIConnectionError):
            _client(script).observe("hello", "user")
        assert len(script.requests) == 4

    def test_async_client_retries_the_same_way(self, sleeps: list[float]) -> None:
        script = Script(_error(504, "timeout"), httpx.Response(202, json=ACCEPTED))

        async def run() -> str:
            async with AsyncCapture("cap_test_key", base_url="http://capture.test",
                                    user_id="alice", session_id="s1",
                                    transport=httpx.MockTransport(script)) as client:
                return str((await client.observe("hello", "user")).event_id)

        assert asyncio.run(run()) == EVENT_ID
        first, second = script.bodies()
        assert first["idempotency_key"] == second["idempotency_key"]


class TestRetryAfter:
    def test_seconds_and_http_dates(self) -> None:
        now = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
        assert parse_retry_after("3") == 3.0
        assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True),
                                 now=now) == 30.0
        assert parse_retry_after("soon") is None
        assert parse_retry_after(None) is None


class TestErrors:
    @pytest.mark.parametrize(("status", "code", "error"), [
        (401, "unauthenticated", AuthenticationError),
        (403, "forbidden", PermissionDenied),
        (404, "not_found", NotFound),
        (409, "conflict", Conflict),
        (422, "validation_error", ValidationError),
        (500, "internal", ServerError),
        (503, "unavailable", ServiceUnavailable),
    ])
    def test_status_and_code_give_the_type(self, sleeps: list[float], status: int, code: str,
                                           error: type[Exception]) -> None:
        script = Script(*[_error(status, code) for _ in range(4)])
        with pytest.raises(error) as caught:
            _client(script).get_event(EVENT_ID)
        assert getattr(caught.value, "code", None) == code
        assert getattr(caught.value, "status_code", None) == status

    def test_a_body_not_in_the_error_shape_still_gives_a_typed_error(self) -> None:
        script = Script(httpx.Response(404, text="<html>nope</html>"))
        with pytest.raises(NotFound) as caught:
            _client(script).get_event(EVENT_ID)
        assert caught.value.code == "http_error"

    def test_a_key_is_required(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("CAPTURE_API_KEY", raising=False)
        with pytest.raises(CaptureError):
            Capture()

    def test_helpers_need_a_user_and_session(self) -> None:
        client = Capture("cap_test_key", transport=httpx.MockTransport(Script()))
        with pytest.raises(CaptureError, match="user_id"):
            client.recall("answers?", session_id="s1")
        with pytest.raises(CaptureError, match="session_id"):
            client.with_session(user_id="alice").recall("answers?")
