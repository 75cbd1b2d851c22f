"""Request plumbing: trace ids, request metrics, the body-size limit on the bytes received,
and the last resort that answers any error in the JSON shape. Logs never carry bodies."""

from __future__ import annotations

import logging
import time
import traceback

from fastapi import HTTPException
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.errors import database_unavailable, internal_error_response, unavailable_response
from app.core.metrics import HTTP_REQUESTS, HTTP_SECONDS
from app.core.spans import current_trace_id, new_trace_id

log = logging.getLogger(__name__)

# Whole request bodies above this are refused (fields have their own limits).
MAX_BODY_BYTES = 256 * 1024


def _too_large() -> JSONResponse:
    return JSONResponse(
        {
            "error": {
                "code": "payload_too_large",
                "message": f"request body exceeds {MAX_BODY_BYTES} bytes",
            }
        },
        status_code=413,
    )


class BodyTooLarge(HTTPException):
    def __init__(self) -> None:
        super().__init__(413, f"request body exceeds {MAX_BODY_BYTES} bytes")


class BodyLimitMiddleware:
    """Counts the body bytes as they are received, chunked or not: a declared length over
    the limit is refused before reading, and a body that grows past it stops being read
    (the endpoint's read raises a 413, which the error handlers answer)."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length" and (
                not value.isdigit() or int(value) > self.max_bytes
            ):
                await _too_large()(scope, receive, send)
                return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge()
            return message

        try:
            await self.app(scope, counting_receive, send)
        except BodyTooLarge:  # raised where no handler turned it into a response
            await _too_large()(scope, receive, send)


class CatchAllMiddleware:
    """Any exception the handlers did not answer becomes a JSON error: 503 `unavailable`
    when the database is out, else 500 `internal_error`. The log names the exception type
    and its frames, never its message (a message may quote stored text)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if started:  # part of a response went out; the server closes the connection
                raise
            if database_unavailable(exc):
                response: Response = unavailable_response(exc)
            else:
                log.error(
                    "unhandled %s on %s %s\n%s",
                    type(exc).__name__,
                    scope.get("method", ""),
                    getattr(scope.get("route"), "path", "unmatched"),
                    "".join(traceback.format_tb(exc.__traceback__)),
                )
                response = internal_error_response()
            await response(scope, receive, send)


class RequestContextMiddleware(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        request.state.trace_id = current_trace_id() or new_trace_id()
        t0 = time.perf_counter()
        response = await call_next(request)
        route = request.scope.get("route")
        path = getattr(route, "path", "unmatched")
        HTTP_SECONDS.labels(route=path).observe(time.perf_counter() - t0)
        HTTP_REQUESTS.labels(
            method=request.method, route=path, status=str(response.status_code)
        ).inc()
        response.headers["X-Trace-Id"] = request.state.trace_id
        return response
