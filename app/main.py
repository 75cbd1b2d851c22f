"""create_app(): the FastAPI service. Imports no torch."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.audit.router import router as audit_router
from app.checkcall.router import router as checkcall_router
from app.clarifications.router import router as clarifications_router
from app.console.router import mount_console
from app.core.config import get_settings
from app.core.errors import install_error_handlers
from app.core.health import router as health_router
from app.core.identity import router as identity_router
from app.core.middleware import (
    BodyLimitMiddleware,
    CatchAllMiddleware,
    RequestContextMiddleware,
)
from app.core.spans import configure_otlp_export, instrument_api, instrument_exported
from app.events.router import batch_router, users_router
from app.events.router import router as events_router
from app.gate.router import router as decisions_router
from app.ledger.router import events_router as user_events_router
from app.ledger.router import router as nodes_router
from app.notifications import service as notifications
from app.notifications.router import router as webhooks_router
from app.openapi import SWAGGER_UI_PARAMETERS, install_openapi, operation_id
from app.provenance.router import router as provenance_router
from app.retrieval.router import router as retrieval_router
from app.selection.router import router as selection_router
from app.users.router import erasures_router
from app.users.router import router as lifecycle_router

API_DESCRIPTION = """Capture governs an LLM agent's long-term memory of its user.

Agents write events and read admitted memories; auditors query provenance. Every request
needs an API key: `Authorization: Bearer cap_…` (in /docs, paste it under **Authorize**).
Errors share one shape:
`{"error": {"code": "...", "message": "...", "details": {...}}}`.
"""


@asynccontextmanager
async def lifespan(_: FastAPI) -> AsyncIterator[None]:
    settings = get_settings()
    if settings.otlp_endpoint:
        configure_otlp_export(settings.otlp_endpoint, settings.service_name)
        instrument_exported()
    sweeper = None
    if settings.eager_tasks and settings.webhook_sweep_interval_s > 0:
        # No broker: this process retries due webhook deliveries itself.
        sweeper = notifications.InProcessSweeper(settings.webhook_sweep_interval_s)
        sweeper.start()
    yield
    if sweeper is not None:
        sweeper.stop()


def create_app() -> FastAPI:
    app = FastAPI(
        title="Capture",
        version="0.1.0",
        description=API_DESCRIPTION,
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
        swagger_ui_parameters=SWAGGER_UI_PARAMETERS,
    )
    # Outermost last: trace id and metrics see every answer, the 413 and the catch-all's.
    app.add_middleware(CatchAllMiddleware)
    app.add_middleware(BodyLimitMiddleware)
    app.add_middleware(RequestContextMiddleware)
    instrument_api(app)
    install_error_handlers(app)
    for router in (
        health_router,
        identity_router,
        batch_router,
        events_router,
        retrieval_router,
        checkcall_router,
        selection_router,
        audit_router,
        nodes_router,
        user_events_router,
        clarifications_router,
        decisions_router,
        users_router,
        lifecycle_router,
        erasures_router,
        webhooks_router,
        provenance_router,
    ):
        app.include_router(router)
    mount_console(app)
    install_openapi(app)
    return app
