"""Prometheus metrics (served at /metrics). Labels never carry ids or text."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

HTTP_REQUESTS = Counter(
    "capture_http_requests_total", "HTTP requests", ["method", "route", "status"]
)
HTTP_SECONDS = Histogram("capture_http_request_seconds", "HTTP request latency", ["route"])
EVENTS_WRITTEN = Counter("capture_events_written_total", "Events accepted", ["origin"])
EVENTS_PROCESSED = Counter("capture_events_processed_total", "Events through the write path")
DECISIONS = Counter("capture_decisions_total", "Gate decisions applied", ["action", "policy"])
WRITE_PATH_SECONDS = Histogram(
    "capture_write_path_seconds",
    "Extraction + gate + ledger per event",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
RETRIEVAL_SECONDS = Histogram(
    "capture_retrieval_seconds",
    "Retrieval latency",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
