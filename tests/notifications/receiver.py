"""A webhook receiver on loopback: records each delivery, answers with scripted statuses."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict[str, Any]:
        out: dict[str, Any] = json.loads(self.body)
        return out


@dataclass
class Receiver:
    url: str
    received: list[Received] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)  # answered in turn, then 204


@contextmanager
def receiver() -> Iterator[Receiver]:
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.received.append(Received(dict(self.headers.items()), body))
            self.send_response(state.statuses.pop(0) if state.statuses else 204)
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def verify(secret: str, header: str, body: bytes) -> bool:
    """What a receiver does: recompute the HMAC over `{t}.{body}` and compare."""
    parts = dict(item.split("=", 1) for item in header.split(","))
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body,
                        hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"])
