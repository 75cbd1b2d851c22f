"""The declaration-only replay's pieces (bench/tools/external.py): a declaration derived
from a call alone, which declaration a call carries, and the policy less the replayed
tools."""

from __future__ import annotations

from dataclasses import replace

from app.checkcall.declaration import ToolDeclaration, classify
from app.checkcall.policy import DEFAULT_POLICY_PATH, Allowlist, SideEffect, load_policy
from bench.tools import external


def test_json_types_of_call_values() -> None:
    assert [external.json_type(v) for v in ("x", 3, 2.5, True, None, [1], {"a": 1})] == [
        "string", "integer", "number", "boolean", "null", "array", "object",
    ]


def test_a_declaration_derived_from_a_call_carries_its_name_and_argument_types_only() -> None:
    derived = external.derived_declaration(
        "reserve_table", {"venue": "Casa Azul", "guests": 4, "notify": ["a@b.example"]}
    )
    assert derived == {
        "name": "reserve_table",
        "inputSchema": {
            "type": "object",
            "properties": {
                "venue": {"type": "string"},
                "guests": {"type": "integer"},
                "notify": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["venue", "guests", "notify"],
        },
    }
    # It is a valid MCP Tool, classified from its name alone: no description, no hints.
    spec = classify(ToolDeclaration.model_validate(derived))
    assert spec.source == "declaration"
    assert spec.side_effect == SideEffect.external_send
    assert "annotations" not in derived
    assert "description" not in derived


def test_an_argument_free_call_derives_an_empty_schema() -> None:
    derived = external.derived_declaration("logout", {})
    assert derived["inputSchema"] == {"type": "object", "properties": {}, "required": []}
    assert classify(ToolDeclaration.model_validate(derived)).side_effect == SideEffect.write


def test_a_call_carries_the_files_declaration_where_there_is_one() -> None:
    own = {"name": "notify_host", "description": "Sends a note to the host."}
    assert external.declaration_for({"name": "notify_host", "args": {}, "declaration": own}) == (
        own,
        "file",
    )
    declaration, origin = external.declaration_for({"name": "notify_host", "args": {"n": 1}})
    assert origin == "derived"
    assert declaration["inputSchema"]["properties"] == {"n": {"type": "integer"}}


def test_the_policy_less_the_replayed_tools_names_none_of_them_and_keeps_the_rest() -> None:
    base = load_policy(DEFAULT_POLICY_PATH)
    base = replace(base, tenants={"t": Allowlist(domains=frozenset({"org.example"}))})
    names = ["send_email", "reserve_car_rental", "create_calendar_event"]
    assert all(base.named(name) is not None for name in names)
    stripped, dropped = external.without_tools(base, names)
    assert all(stripped.named(name) is None for name in names)
    # Exact entries, then the pattern that matches one of them.
    assert dropped == ["create_calendar_event", "reserve_car_rental", "send_email", "reserve_*"]
    # Everything else stays: other tools, other patterns, allowlists, the default.
    assert set(stripped.tools) == set(base.tools) - set(names)
    assert stripped.named("reserve_hotel") == base.named("reserve_hotel")
    assert base.named("reserve_spa") is not None
    assert stripped.named("reserve_spa") is None
    assert stripped.named("get_hotels_prices") == base.named("get_hotels_prices")
    assert stripped.allowlist == base.allowlist
    assert stripped.tenants == base.tenants
    assert stripped.unknown_tool == base.unknown_tool
    assert stripped.version == base.version


def test_replays_are_compared_call_by_call_in_file_order() -> None:
    first = {"calls": [{"episode_id": "a", "decision": "deny"},
                       {"episode_id": "a", "decision": "allow"}]}
    second = {"calls": [{"episode_id": "a", "decision": "deny"},
                        {"episode_id": "a", "decision": "ask"}]}
    assert external.differing(first, second) == ["a"]
    assert external.differing(first, first) == []
