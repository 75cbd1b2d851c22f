"""Bearer keys for the MCP server's HTTP transport, verified against the Capture service."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field

import httpx
from starlette.types import ASGIApp, Receive, Scope, Send

from capture_client.async_client import AsyncCapture
from capture_client.errors import AuthenticationError, CaptureError
from capture_client.models import Role

# The ASGI scope key under which a verified key reaches the tool handlers.
API_KEY_SCOPE = "capture.api_key"
# Roles that may write events and check calls.
_ACTING_ROLES = {Role.agent, Role.admin}


class KeyUnavailable(Exception):
    """The service could not be asked whether a key is valid."""


@dataclass
class KeyVerifier:
    """Asks the service (`GET /v1/keys/me`) whether a key is valid and may act for an agent;
    remembers the answer for `ttl_s` seconds by the key's digest, never the key itself."""

    base_url: str
    ttl_s: float = 60.0
    transport: httpx.AsyncBaseTransport | None = None
    _known: dict[str, tuple[bool, float]] = field(default_factory=dict)

    async def verify(self, key: str) -> bool:
        digest = hashlib.sha256(key.encode()).hexdigest()
        now = time.monotonic()
        cached = self._known.get(digest)
        if cached is not None and cached[1] > now:
            return cached[0]
        try:
            async with AsyncCapture(key, base_url=self.base_url, transport=self.transport) as c:
                identity = await c.get_current_key()
            valid = identity.role in _ACTING_ROLES
        except AuthenticationError:
            valid = False
        except CaptureError as exc:
            raise KeyUnavailable(str(exc)) from exc
        if len(self._known) > 10_000:
            self._known.clear()
        self._known[digest] = (valid, now + self.ttl_s)
        return valid


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            header: str = bytes(value).decode("latin-1")
            scheme, _, token = header.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


class BearerKeyMiddleware:
    """Refuses HTTP requests without a valid Capture API key (401), and hands the key to the
    tool handlers in the request's scope: they call Capture as the caller."""

    def __init__(self, app: ASGIApp, verifier: KeyVerifier) -> None:
        self.app = app
        self.verifier = verifier

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = bearer_token(scope)
        if token is None:
            await _refuse(send, 401, "missing API key (Authorization: Bearer <key>)")
            return
        try:
            valid = await self.verifier.verify(token)
        except KeyUnavailable:
            await _refuse(send, 503, "Capture could not be reached to verify the API key")
            return
        if not valid:
            await _refuse(send, 401, "invalid API key, or one that may not act for an agent")
            return
        scope[API_KEY_SCOPE] = token
        await self.app(scope, receive, send)


async def _refuse(send: Send, status: int, message: str) -> None:
    code = "unauthenticated" if status == 401 else "unavailable"
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="capture"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
