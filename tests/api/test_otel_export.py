"""Spans go to OpenTelemetry too (what an OTLP exporter would ship), without memory text."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

TEXT = "I prefer short answers."


class TestOpenTelemetrySpans:
    def test_each_stage_is_exported_without_text(self, client: TestClient,
                                                 tenant_a: Any) -> None:
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        response = client.post("/v1/events?wait=true", headers=tenant_a.headers(), json={
            "user_id": "alice", "session_id": "s1", "origin": "user", "text": TEXT,
            "occurred_at": "2026-11-01T09:00:00Z"})
        assert response.status_code == 200
        # FastAPI adds spans of its own; ours carry capture.span_id.
        spans = [s for s in exporter.get_finished_spans()
                 if s.attributes and "capture.span_id" in s.attributes]
        names = {s.name for s in spans}
        assert {"create_memory", "memory.extract", "gate.decide", "ledger.apply"} <= names
        for span in spans:
            for value in (span.attributes or {}).values():
                assert "short answers" not in str(value)
        trace_ids = {(s.attributes or {})["capture.trace_id"] for s in spans}
        assert trace_ids == {response.json()["trace_id"]}
