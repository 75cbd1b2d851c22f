"""openapi/openapi.json is generated from the app; a stale copy fails CI."""

from __future__ import annotations

import json

from app.core.config import REPO_ROOT
from app.openapi import render_openapi


class TestOpenApiSpec:
    def test_committed_spec_is_current(self) -> None:
        committed = (REPO_ROOT / "openapi" / "openapi.json").read_text()
        assert committed == render_openapi(), "run `capture export-openapi` and commit the result"

    def test_errors_are_declared_with_the_shared_shape(self) -> None:
        spec = json.loads(render_openapi())
        post_event = spec["paths"]["/v1/events"]["post"]["responses"]
        for status in ("401", "403", "409"):
            schema = post_event[status]["content"]["application/json"]["schema"]
            assert schema["$ref"].endswith("/ErrorResponse")
        assert "unauthenticated" in post_event["401"]["description"]
