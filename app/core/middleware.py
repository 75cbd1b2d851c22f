"""Request plumbing: trace ids, body-size limit, request metrics. Logs never carry bodies."""

from __future__ import annotations

import time

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.core.metrics import HTTP_REQUESTS, HTTP_SECONDS
from app.core.spans import current_trace_id, new_trace_id

# Whole request bodies above this are refused before parsing (fields have their own limits).
MAX_BODY_BYTES = 256 * 1024


class RequestContextMiddleware(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return JSONResponse(
                {
                    "error": {
                        "code": "payload_too_large",
                        "message": f"request body exceeds {MAX_BODY_BYTES} bytes",
                    }
                },
                status_code=413,
            )
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
