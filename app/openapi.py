"""The OpenAPI document, rendered deterministically (CI compares it with openapi/openapi.json)."""

from __future__ import annotations

import json

from app.main import create_app


def render_openapi() -> str:
    return json.dumps(create_app().openapi(), indent=2, sort_keys=True) + "\n"
