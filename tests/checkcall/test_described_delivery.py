"""A read tool whose declaration says in words where it delivers: its description sends the
output on, or an argument's description says it receives it. The argument is a high-risk
sink whatever its name (owner, contact, account_email); a filter described as a filter
stays a filter."""

from __future__ import annotations

from typing import Any

import pytest

from app.checkcall.declaration import (
    ToolDeclaration,
    classify,
    over_pattern,
    over_read_entry,
    says_it_sends_on,
)
from app.checkcall.policy import DEFAULT_POLICY_PATH, Risk, SideEffect, ToolSpec, load_policy
from tests.checkcall.conftest import Agent
from tests.checkcall.test_declarations import check, declared

OUTSIDER = "desk@tallyroom-mirror.net"
# The address in a tool output as data: no cue addressed to the assistant.
LISTED = f"Cost centre CC-7 summary. Queries about this summary: {OUTSIDER}."
_STR: dict[str, Any] = {"type": "string"}

FORWARDS = declared(
    "view_cost_centre",
    "Shows a cost centre's spend; the summary is then forwarded to the centre's owner.",
    centre=_STR,
    owner=_STR,
)
RECEIVER = declared(
    "inspect_roster",
    "Inspects the on-call roster of a team.",
    team=_STR,
    account_email={"type": "string", "format": "email",
                   "description": "The colleague who receives the roster as a PDF."},
)
FILTER = declared(
    "browse_deliveries",
    "Browses deliveries of a supplier.",
    supplier_email={"type": "string", "format": "email",
                    "description": "The supplier's e-mail to look up."},
    owner={"type": "string", "description": "Search by owner."},
)


def _spec(decl: dict[str, Any]) -> ToolSpec:
    return classify(ToolDeclaration.model_validate(decl))


def _codes(result: dict[str, Any]) -> list[str]:
    return [r["code"] for r in result["reasons"]]


class TestClassification:
    @pytest.mark.parametrize(
        ("description", "sends"),
        [
            ("Returns the ledger as CSV and mails it on to the auditor.", True),
            ("Shows the dashboard and shares the snapshot with the approver.", True),
            ("Fetches the archived invoice; one copy is sent to the billing contact.", True),
            ("Lists tickets of a queue; the export is e-mailed to the assignee.", True),
            ("Lists the files shared with you.", False),
            ("Lists invoices that were sent to a customer.", False),
            ("Searches messages you sent to a contact.", False),
            ("Gets the people the document is shared with.", False),
            ("Returns a customer's orders.", False),
        ],
    )
    def test_a_description_that_sends_the_output_on(self, description: str,
                                                      sends: bool) -> None:
        assert says_it_sends_on(description) is sends

    def test_the_tools_description_makes_party_arguments_destinations(self) -> None:
        spec = _spec(FORWARDS)
        assert spec.side_effect == SideEffect.external_send
        assert set(spec.sinks) == {"owner"}
        assert spec.sinks["owner"].risk == Risk.high
        assert spec.notes == (("declared_delivery", "owner"),)

    def test_an_argument_described_as_receiving_is_a_destination(self) -> None:
        spec = _spec(RECEIVER)
        assert spec.side_effect == SideEffect.external_send
        assert spec.sinks["account_email"].risk == Risk.high
        assert spec.notes == (("declared_delivery", "account_email"),)
        # Under a read-only hint too: the hint is the server's word, the words contradict it.
        hinted = _spec({**RECEIVER, "annotations": {"readOnlyHint": True}})
        assert hinted.sinks["account_email"].risk == Risk.high

    @pytest.mark.parametrize(
        "description",
        ["Who gets the export.", "Recipient of the digest.", "Where the copy goes.",
         "The address the report is delivered to.", "The colleague to be notified."],
    )
    def test_receiving_words(self, description: str) -> None:
        decl = declared("view_digest", "Shows a digest.", reviewer={"type": "string",
                                                                    "description": description})
        assert _spec(decl).sinks["reviewer"].risk == Risk.high

    def test_filters_described_as_filters_stay_filters(self) -> None:
        spec = _spec(FILTER)
        assert {a: s.risk for a, s in spec.sinks.items()} == {
            "supplier_email": Risk.low, "owner": Risk.low}
        assert spec.notes == ()
        past = declared("view_invoice", "Shows an invoice.", billed={
            "type": "string", "format": "email",
            "description": "The address the invoice was sent to."})
        assert _spec(past).sinks["billed"].risk == Risk.low

    def test_ids_amounts_and_urls_of_a_sending_tool_are_no_parties(self) -> None:
        decl = declared("view_statement", "Shows a statement and e-mails it to the holder.",
                        account_id=_STR, total=_STR, source_url={"type": "string",
                                                                 "format": "uri"},
                        holder_contact=_STR)
        spec = _spec(decl)
        assert spec.notes == (("declared_delivery", "holder_contact"),)
        assert spec.sinks["holder_contact"].risk == Risk.high
        assert "account_id" not in spec.sinks
        assert spec.sinks["source_url"].risk == Risk.low  # a URL it fetches

    def test_read_with_a_pattern_and_with_an_operators_read_entry(self) -> None:
        policy = load_policy(DEFAULT_POLICY_PATH)
        decl = declared("list_open_jobs", "Lists open jobs; the export is e-mailed to the "
                        "planner.", team=_STR, planner_email={"type": "string",
                                                              "format": "email"})
        pattern = policy.named("list_open_jobs")
        assert pattern is not None
        assert pattern.pattern is not None
        spec = over_pattern(pattern, _spec(decl))
        assert spec.notes == (("declaration_over_pattern", "planner_email"),
                              ("declared_delivery", "planner_email"))
        entry = policy.named("get_user_information")
        assert entry is not None
        assert entry.side_effect == SideEffect.read
        info = declared("get_user_information", "Returns the profile.", contact={
            "type": "string", "description": "Who receives a copy of the profile."})
        read = over_read_entry(entry, _spec(info))
        assert read.side_effect == SideEffect.external_send
        assert read.notes == (("declared_destination", "contact"),
                              ("declared_delivery", "contact"))


class TestThroughTheService:
    def test_an_address_from_a_tool_output_is_not_allowed(self, agent: Agent) -> None:
        agent.user("How is cost centre CC-7 doing?")
        agent.read("tool_output", LISTED, tool_name="finance")
        result = check(agent, "view_cost_centre", {"centre": "CC-7", "owner": OUTSIDER},
                       FORWARDS)
        assert result["decision"] == "ask", _codes(result)
        assert result["side_effect"] == "external_send"
        assert "value_from_untrusted_channel" in _codes(result)
        noted = [r for r in result["reasons"] if r["code"] == "declared_delivery"]
        assert [(r["effect"], r["argument"]) for r in noted] == [("info", "owner")]

    def test_a_delivery_the_user_asked_for_is_allowed(self, agent: Agent) -> None:
        agent.user(f"Show the on-call roster of team ops and send it to {OUTSIDER}.")
        result = check(agent, "inspect_roster", {"team": "ops", "account_email": OUTSIDER},
                       RECEIVER)
        assert result["decision"] == "allow", _codes(result)

    def test_a_filter_from_the_records_the_user_asked_for_is_allowed(self, agent: Agent) -> None:
        agent.user("Find the supplier Tallyroom and browse their deliveries.")
        agent.read("tool_output", f'[{{"supplier": "Tallyroom", "email": "{OUTSIDER}"}}]',
                   tool_name="crm_search")
        result = check(agent, "browse_deliveries", {"supplier_email": OUTSIDER}, FILTER)
        assert result["decision"] == "allow", _codes(result)
        assert "value_from_requested_record" in _codes(result)
