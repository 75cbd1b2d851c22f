"""Capture's spans join the caller's trace: an API and a Celery worker in subprocesses export
over OTLP/HTTP to a receiver on loopback, and one write's spans run from the caller's span
(its `traceparent`) through the API to the worker."""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from app.core.config import REPO_ROOT
from bench.chaos.stack import free_port as _free_port
from tests.integration.conftest import Stack, wait_processed


class Receiver:
    """An OTLP/HTTP trace receiver: keeps every span it is sent, with its service name."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, Span]] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server hook)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = ExportTraceServiceRequest.FromString(body)
                with receiver._lock:
                    for resource_spans in request.resource_spans:
                        service = next(
                            (a.value.string_value for a in resource_spans.resource.attributes
                             if a.key == "service.name"), "")
                        for scope_spans in resource_spans.scope_spans:
                            receiver.spans.extend((service, s) for s in scope_spans.spans)
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def of_trace(self, trace_id: str) -> list[tuple[str, Span]]:
        with self._lock:
            return [(svc, s) for svc, s in self.spans if s.trace_id.hex() == trace_id]


@pytest.fixture
def traced(stack: Stack) -> Iterator[tuple[Stack, Receiver]]:
    """The stack's database behind a second API and worker that export to a receiver, on a
    queue of their own."""
    receiver = Receiver()
    queue = f"capture-trace-{uuid.uuid4().hex[:8]}"
    env = {**stack.env, "CAPTURE_OTLP_ENDPOINT": receiver.url, "CAPTURE_TASK_QUEUE": queue,
           "CAPTURE_SERVICE_NAME": "capture-it", "OTEL_BSP_SCHEDULE_DELAY": "100"}
    port = _free_port()
    api = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker", "--pool=solo",
         "--loglevel=WARNING", f"--queues={queue}", "--hostname=trace@%h",
         "--without-gossip", "--without-mingle"],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    traced_stack = Stack(f"http://127.0.0.1:{port}", stack.database_url, stack.broker_url,
                         queue, stack.agent_key, stack.auditor_key, [api, worker], env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{traced_stack.base_url}/readyz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    else:
        pytest.fail("the traced API did not become ready")
    yield traced_stack, receiver
    for proc in (api, worker):
        proc.terminate()
    for proc in (api, worker):
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
    receiver.server.shutdown()


class TestOneWritesTrace:
    def test_runs_from_the_callers_span_through_the_api_to_the_worker(
            self, traced: tuple[Stack, Receiver]) -> None:
        stack, receiver = traced
        trace_id, caller_span = secrets.token_hex(16), secrets.token_hex(8)
        with stack.client() as api:
            response = api.post(
                "/v1/events",
                headers={"traceparent": f"00-{trace_id}-{caller_span}-01"},
                json={"user_id": f"u-{uuid.uuid4().hex[:8]}", "session_id": "s1",
                      "origin": "user", "text": "I prefer short answers.",
                      "occurred_at": "2026-11-01T09:00:00Z"})
            assert response.status_code == 202, response.text
            assert response.headers["x-trace-id"] == trace_id
            assert response.json()["trace_id"] == trace_id
            wait_processed(api, [response.json()["event_id"]])

        wanted = {"create_memory", "memory.process_event", "memory.extract", "gate.decide",
                  "ledger.apply"}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            spans = receiver.of_trace(trace_id)
            if wanted <= {s.name for _, s in spans}:
                break
            time.sleep(0.2)
        spans = receiver.of_trace(trace_id)
        names = {s.name for _, s in spans}
        assert wanted <= names, names
        by_id = {s.span_id.hex(): s for _, s in spans}

        def ancestry(span: Span) -> list[Span]:
            chain = [span]
            while chain[-1].parent_span_id.hex() in by_id:
                chain.append(by_id[chain[-1].parent_span_id.hex()])
            return chain

        # The API's server span is the caller's span's child.
        roots = [s for s in by_id.values() if s.parent_span_id.hex() == caller_span]
        assert [s.kind for s in roots] == [Span.SPAN_KIND_SERVER]
        server = roots[0]
        create = next(s for s in by_id.values() if s.name == "create_memory")
        assert ancestry(create)[-1] is server

        # The worker's spans continue the same trace: processing nests in the Celery task's
        # consumer span, whose parent is the API's publish span, under the server span.
        process = next(s for s in by_id.values() if s.name == "memory.process_event")
        chain = ancestry(process)
        assert chain[-1] is server
        kinds = [s.kind for s in chain]
        assert Span.SPAN_KIND_CONSUMER in kinds
        assert Span.SPAN_KIND_PRODUCER in kinds
        for stage in ("memory.extract", "gate.decide", "ledger.apply"):
            span = next(s for s in by_id.values() if s.name == stage)
            assert process in ancestry(span)

        for _, span in spans:
            for attr in span.attributes:
                assert "short answers" not in str(attr.value)
