"""Typed errors from the service's error shape `{"error": {"code", "message", "details"?}}`."""

from __future__ import annotations

from typing import Any

import httpx

from capture_client._retry import parse_retry_after

__all__ = [
    "APIConnectionError",
    "APIError",
    "AuthenticationError",
    "BadRequest",
    "CaptureError",
    "Conflict",
    "NotFound",
    "PayloadTooLarge",
    "PermissionDenied",
    "RateLimited",
    "ServerError",
    "ServiceUnavailable",
    "ValidationError",
    "error_from_response",
]


class CaptureError(Exception):
    """Every error this client raises."""


class APIConnectionError(CaptureError):
    """The service could not be reached (after the retries the policy allows)."""


class APIError(CaptureError):
    """The service answered with an error status."""

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        *,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(f"{status_code} {code}: {message}")
        self.status_code = status_code
        self.code = code
        self.message = message
        self.details = details
        self.response = response


class BadRequest(APIError):
    """400: the request was understood and refused (`invalid_input`)."""


class AuthenticationError(APIError):
    """401: missing or invalid API key."""


class PermissionDenied(APIError):
    """403: the key's role may not call this endpoint."""


class NotFound(APIError):
    """404: no such resource in the key's tenant."""


class Conflict(APIError):
    """409: the resource is not in a state that allows this (e.g. already answered)."""


class PayloadTooLarge(APIError):
    """413: a text is over the service's size limit."""


class ValidationError(APIError):
    """422: the body or parameters failed validation; `errors` lists each problem."""

    @property
    def errors(self) -> list[dict[str, Any]]:
        found = (self.details or {}).get("errors", [])
        return list(found) if isinstance(found, list) else []


class RateLimited(APIError):
    """429: too many requests; `retry_after` is the wait the service asked for, in seconds."""

    @property
    def retry_after(self) -> float | None:
        if self.response is None:
            return None
        return parse_retry_after(self.response.headers.get("retry-after"))


class ServerError(APIError):
    """5xx."""


class ServiceUnavailable(ServerError):
    """503: a dependency of the service (database, broker, safety scorer) cannot answer."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequest,
    401: AuthenticationError,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    422: ValidationError,
    429: RateLimited,
    503: ServiceUnavailable,
}


def error_from_response(response: httpx.Response) -> APIError:
    """The typed error for an error response, whatever its body (a proxy may answer HTML)."""
    status = response.status_code
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    code, message, details = "http_error", response.reason_phrase or f"HTTP {status}", None
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        code = str(error.get("code", code))
        message = str(error.get("message", message))
        found = error.get("details")
        details = found if isinstance(found, dict) else None
    return cls(status, code, message, details, response=response)
