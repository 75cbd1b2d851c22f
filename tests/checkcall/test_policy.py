"""The operator's tool policy file."""

from __future__ import annotations

from pathlib import Path

import pydantic
import pytest

from app.checkcall.policy import (
    DEFAULT_POLICY_PATH,
    Risk,
    SideEffect,
    get_policy,
    load_policy,
    override_policy,
    parse_policy,
)
from app.text.normalize import ValueKind


class TestDefaultPolicy:
    def test_loads_and_is_versioned(self) -> None:
        policy = load_policy(DEFAULT_POLICY_PATH)
        assert policy.version
        assert policy.unknown_tool == "ask"

    def test_classes_of_the_tools_the_issue_names(self) -> None:
        policy = load_policy(DEFAULT_POLICY_PATH)
        assert policy.tool("send_email").side_effect == SideEffect.external_send
        assert policy.tool("share_document").side_effect == SideEffect.external_send
        assert policy.tool("transfer_money").sink_for("amount") is not None
        assert policy.tool("http_request").sink_for("url").risk == Risk.high  # type: ignore[union-attr]
        assert policy.tool("fetch_url").sink_for("url").risk == Risk.low  # type: ignore[union-attr]
        calendar = policy.tool("create_calendar_event")
        assert calendar.side_effect == SideEffect.write
        assert calendar.sink_for("participants").external  # type: ignore[union-attr]
        assert "title" in calendar.content

    def test_agentdojo_travel_tools(self) -> None:
        policy = load_policy(DEFAULT_POLICY_PATH)
        hotel = policy.tool("reserve_hotel")
        assert hotel.side_effect == SideEffect.external_send
        assert hotel.sink_for("hotel").risk == Risk.low  # type: ignore[union-attr]
        assert policy.tool("reserve_spa").known  # reserve_* pattern
        assert policy.tool("get_all_hotels_in_city").side_effect == SideEffect.read
        assert policy.tool("search_calendar_events").side_effect == SideEffect.read

    def test_an_unknown_tool_is_side_effecting_and_traced_whole(self) -> None:
        spec = load_policy(DEFAULT_POLICY_PATH).tool("launch_rocket")
        assert not spec.known
        assert spec.side_effect == SideEffect.external_send
        assert spec.sink_for("anything") is not None


class TestOperatorFile:
    def test_tenant_allowlist_adds_to_the_global_one(self, tmp_path: Path) -> None:
        path = tmp_path / "policy.yaml"
        path.write_text(
            "version: t1\n"
            "allowlist: {domains: [global.example]}\n"
            "tenants: {acme: {domains: [acme.example],\n"
            "                 recipients: ['DE89 3704 0044 0532 0130 00']}}\n"
            "tools: {send_email: {side_effect: external_send, sinks: {to: {kind: email}}}}\n"
        )
        policy = load_policy(path)
        acme = policy.allowlist_for("acme")
        assert acme.covers(ValueKind.email, "a@mail.acme.example", "mail.acme.example")
        assert acme.covers(ValueKind.email, "a@global.example", "global.example")
        assert acme.covers(ValueKind.iban, "DE89370400440532013000", None)
        assert not policy.allowlist_for("other").covers(
            ValueKind.email, "a@acme.example", "acme.example"
        )

    def test_a_malformed_file_is_refused(self) -> None:
        with pytest.raises(pydantic.ValidationError):
            parse_policy({"version": "x", "tools": {"t": {"side_effect": "teleport"}}})
        with pytest.raises(pydantic.ValidationError):
            parse_policy({"tools": {}})  # no version

    def test_override_is_scoped(self) -> None:
        custom = parse_policy({"version": "custom"})
        with override_policy(custom):
            assert get_policy().version == "custom"
        assert get_policy().version != "custom"
