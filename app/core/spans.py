"""Spans: rows auditors query, written in the transaction of their effect, and optional OTLP export.

Attribute keys follow OpenTelemetry GenAI names where one exists (`gen_ai.memory.record.id`,
`gen_ai.conversation.id`, `gen_ai.tool.name`) and `capture.*` otherwise. Never put memory
text, queries or secrets in attributes: ids, hashes, counts, codes and scores only.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from opentelemetry import trace
from sqlalchemy.orm import Session

from app.models import SpanRow

_tracer = trace.get_tracer("capture")

# Span names (one per stage of the event path).
CREATE_MEMORY = "create_memory"
EXTRACT = "memory.extract"
GATE_DECIDE = "gate.decide"
LEDGER_APPLY = "ledger.apply"
SEARCH_MEMORY = "search_memory"
CHECK_TOOL_CALL = "check_tool_call"
PROCESS_EVENT = "memory.process_event"
NODE_CHANGE = "ledger.user_change"
EVENT_ERASURE = "event.erase"
USER_ERASURE = "user.erase"
CLARIFICATION_ANSWER = "clarification.answer"
SELECT_RESPONSE = "response.select"
AUDIT_REQUEST = "audit.request"
AUDIT_RUN = "audit.run"


def new_trace_id() -> str:
    return secrets.token_hex(16)


def new_span_id() -> str:
    return secrets.token_hex(8)


def current_trace_id() -> str | None:
    """The trace id of the current OpenTelemetry context: the caller's, when its request
    carried a W3C `traceparent` (the FastAPI instrumentation reads it), else None."""
    context = trace.get_current_span().get_span_context()
    return trace.format_trace_id(context.trace_id) if context.is_valid else None


class SpanRecorder:
    """Records nested spans of one trace for one tenant (and user/session when known)."""

    def __init__(
        self,
        db: Session,
        *,
        tenant_id: uuid.UUID,
        trace_id: str | None = None,
        user_id: uuid.UUID | None = None,
        session_id: uuid.UUID | None = None,
        parent_span_id: str | None = None,
        persist: bool = True,
        collect: bool = False,
    ) -> None:
        self.db = db
        # False: spans are exported (when configured) but no row is written.
        self.persist = persist
        # True: the rows wait in `collected` for the caller to write them in a statement of
        # its own (check-call writes its decision and its span in one).
        self.collect = collect
        self.collected: list[dict[str, Any]] = []
        self.tenant_id = tenant_id
        self.trace_id = trace_id or new_trace_id()
        self.user_id = user_id
        self.session_id = session_id
        self._stack: list[str] = [parent_span_id] if parent_span_id else []
        self._outer_depth = len(self._stack)
        # Rows of closed spans wait until the outermost span closes: added together they are
        # one INSERT, not one per span between the queries of the path they time.
        self._closed: list[dict[str, Any]] = []

    @contextmanager
    def span(
        self, name: str, *, kind: str = "internal", attributes: dict[str, Any] | None = None
    ) -> Iterator[dict[str, Any]]:
        """Yields the attribute dict; add to it inside the block. The rows of a span and the
        spans nested in it are added to the session when the outermost one closes."""
        span_id = new_span_id()
        parent = self._stack[-1] if self._stack else None
        attrs: dict[str, Any] = dict(attributes or {})
        started = datetime.now(UTC)
        t0 = time.perf_counter()
        status = "ok"
        self._stack.append(span_id)
        with _tracer.start_as_current_span(name) as otel_span:
            try:
                yield attrs
            except BaseException as exc:
                status = "error"
                attrs["error.type"] = type(exc).__name__
                raise
            finally:
                self._stack.pop()
                ended = started + timedelta(seconds=time.perf_counter() - t0)
                attrs = _jsonable(attrs)
                for key, value in attrs.items():
                    if _otel_value(value):
                        otel_span.set_attribute(key, value)
                otel_span.set_attribute("capture.trace_id", self.trace_id)
                otel_span.set_attribute("capture.span_id", span_id)
                self._closed.append(
                    {
                        "span_id": span_id,
                        "trace_id": self.trace_id,
                        "parent_span_id": parent,
                        "tenant_id": self.tenant_id,
                        "user_id": self.user_id,
                        "session_id": self.session_id,
                        "name": name,
                        "kind": kind,
                        "started_at": started,
                        "ended_at": ended,
                        "status": status,
                        "attributes": attrs,
                    }
                )
                if len(self._stack) == self._outer_depth:
                    closed, self._closed = self._closed, []
                    if self.persist and (status == "ok" or self.db.is_active):
                        # a rolled-back session keeps none
                        if self.collect:
                            self.collected.extend(closed)
                        else:
                            self.db.add_all(SpanRow(**row) for row in closed)

    @property
    def current_span_id(self) -> str | None:
        return self._stack[-1] if self._stack else None


def _otel_value(value: Any) -> bool:
    """OpenTelemetry attributes are scalars or lists of strings (ids here)."""
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value)
    return isinstance(value, str | int | float | bool)


def _jsonable(attrs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if isinstance(value, uuid.UUID):
            out[key] = str(value)
        elif isinstance(value, list | tuple):
            out[key] = [str(v) if isinstance(v, uuid.UUID) else v for v in value]
        elif isinstance(value, datetime):
            out[key] = value.isoformat()
        else:
            out[key] = value
    return out


def configure_otlp_export(endpoint: str | None, service_name: str) -> bool:
    """Export spans over OTLP/HTTP when an endpoint is configured; otherwise a no-op tracer.
    Once per process: False when nothing was configured now."""
    if not endpoint:
        return False
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    if isinstance(trace.get_tracer_provider(), TracerProvider):
        return False
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    trace.set_tracer_provider(provider)
    return True


# The probes and metrics scrapes are not worth a trace.
_UNTRACED_URLS = "healthz,readyz,metrics"


def instrument_api(app: Any) -> None:
    """Server spans for every request, parented by the request's W3C `traceparent`: Capture's
    own spans nest under them, in the caller's trace."""
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    FastAPIInstrumentor.instrument_app(
        app, excluded_urls=_UNTRACED_URLS, exclude_spans=["receive", "send"]
    )


def instrument_exported() -> None:
    """With export on: Celery spans (publishing carries the trace to the worker in the task's
    headers; the worker's task span continues it). SQL statements get no spans of their own:
    the SQLAlchemy instrumentation (0.66b2) does not support SQLAlchemy 2.1."""
    from opentelemetry.instrumentation.celery import CeleryInstrumentor

    celery = CeleryInstrumentor()  # type: ignore[no-untyped-call]
    if not celery.is_instrumented_by_opentelemetry:
        celery.instrument()
