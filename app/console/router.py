"""Serves the console's static files at /console. The files hold no data: the page asks for
an auditor or admin key and reads the API with it, so every record still passes the API's
authentication and tenant scoping."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC_DIR = Path(__file__).with_name("static")
PATH = "/console"

# Stored text is attacker-controlled: no inline script, no other origin, no framing.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


class ConsoleFiles(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(HEADERS)
        return response


def mount_console(app: FastAPI) -> None:
    app.mount(PATH, ConsoleFiles(directory=STATIC_DIR, html=True), name="console")
