from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.core import repository
from app.core.config import get_settings
from app.core.db import get_engine

router = APIRouter(tags=["operations"])


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "a dependency is not ready"}})
def readyz() -> JSONResponse:
    """Readiness: the database answers and, when one is configured, the broker does."""
    checks: dict[str, Any] = {}
    try:
        with get_engine().connect() as conn:
            repository.ping(conn)
        checks["database"] = "ok"
    except Exception as exc:  # report, don't crash the probe
        checks["database"] = f"error: {type(exc).__name__}"
    settings = get_settings()
    if settings.broker_url:
        try:
            from app import registry

            with registry.celery_app().connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, timeout=2)
            checks["broker"] = "ok"
        except Exception as exc:
            checks["broker"] = f"error: {type(exc).__name__}"
    else:
        checks["broker"] = "in-process"
    ready = all(v in ("ok", "in-process") for v in checks.values())
    return JSONResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks},
        status_code=200 if ready else 503,
    )


@router.get("/metrics")
def metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
