"""One error base and one JSON shape: {"error": {"code", "message", "details"?}}."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.core import db as core_db

log = logging.getLogger(__name__)

# What a client is told to wait before retrying while the database cannot be reached.
RETRY_AFTER_S = 5


class AppError(Exception):
    status_code = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        self.headers = headers


class Unauthenticated(AppError):
    status_code = 401
    code = "unauthenticated"


class Forbidden(AppError):
    status_code = 403
    code = "forbidden"


class NotFound(AppError):
    status_code = 404
    code = "not_found"


class Conflict(AppError):
    status_code = 409
    code = "conflict"


class PayloadTooLarge(AppError):
    status_code = 413
    code = "payload_too_large"


class InvalidInput(AppError):
    status_code = 400
    code = "invalid_input"


class RateLimited(AppError):
    status_code = 429
    code = "rate_limited"


class Unavailable(AppError):
    status_code = 503
    code = "unavailable"


class ErrorBody(BaseModel):
    code: str
    message: str
    details: dict[str, Any] | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


def responses(*errors: type[AppError]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` for a route: each declared error with the shared shape."""
    out: dict[int | str, dict[str, Any]] = {}
    # Every authenticated route reads its key from the database, so each may be unavailable.
    declared: tuple[type[AppError], ...] = (
        Unauthenticated, Forbidden, *errors, RateLimited, Unavailable
    )
    for err in declared:
        entry = out.setdefault(err.status_code, {"model": ErrorResponse, "description": ""})
        codes = [c for c in entry["description"].split(", ") if c]
        if err.code not in codes:
            codes.append(err.code)
        entry["description"] = ", ".join(codes)
    return out


def _body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return ErrorResponse(error=ErrorBody(code=code, message=message, details=details)).model_dump(
        exclude_none=True
    )


def database_unavailable(exc: BaseException) -> bool:
    """The database could not be reached or dropped the connection: an outage, not a bug."""
    if isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError):
        return True
    return isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated


def unavailable_response(exc: BaseException) -> JSONResponse:
    """503 `unavailable` with Retry-After; the outage is logged once, when it starts."""
    if core_db.note_database_unavailable():
        log.warning(
            "database unavailable (%s); answering 503 until a transaction commits again",
            type(exc).__name__,
        )
    return JSONResponse(
        _body("unavailable", "the database is unavailable; retry later"),
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


def internal_error_response() -> JSONResponse:
    return JSONResponse(_body("internal_error", "internal server error"), status_code=500)


HTTP_ERROR_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    429: "rate_limited",
}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def _app_error(_: Request, exc: AppError) -> JSONResponse:
        return JSONResponse(
            _body(exc.code, exc.message, exc.details),
            status_code=exc.status_code,
            headers=exc.headers,
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        # Never echo the input back: it may carry memory text.
        problems = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        return JSONResponse(
            _body("validation_error", "request validation failed", {"errors": problems}),
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = HTTP_ERROR_CODES.get(exc.status_code, "http_error")
        # The headers carry what the status promises: Allow on a 405, Retry-After on a 429.
        return JSONResponse(
            _body(code, str(exc.detail)), status_code=exc.status_code, headers=exc.headers
        )

    for outage in (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError):

        @app.exception_handler(outage)
        async def _outage(_: Request, exc: Exception) -> JSONResponse:
            return unavailable_response(exc)
