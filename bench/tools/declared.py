"""Third-party-style tools the bench policy does not name, known to check-call only by their
declarations (MCP `Tool` shape), and argument-free actions an untrusted channel asks for.

Authored in `data/declared.yaml`, each tool, action and template family with the split that
draws it as its set, as the rest of the generator's: tool names, schemas and wording of the
test split are unseen on dev. Most declarations carry no annotations (third-party tool sets
rarely do); some carry MCP's hints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.corpora import SHARED, Record, corpus_texts, select, text, thawed
from bench.tools.texts import families
from bench.tools.world import SPLITS, BySplit

DECLARED_DATA = Path(__file__).parent / "data" / "declared.yaml"


@dataclass(frozen=True, slots=True)
class DeclaredTool:
    """A declared side-effecting tool: which argument takes the party (and of what kind),
    the value arguments it also takes, its declaration, and whether the tenant registers it
    before the call (otherwise the call carries the declaration)."""

    name: str
    description: str
    party_arg: str
    party_kind: str  # email | url | iban | phone
    content_arg: str | None
    properties: dict[str, dict[str, Any]]
    annotations: dict[str, bool] | None = None
    amount_arg: str | None = None
    registered: bool = False

    def declaration(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "inputSchema": {
                "type": "object",
                "properties": self.properties,
                "required": [self.party_arg],
            },
        }
        if self.annotations is not None:
            out["annotations"] = self.annotations
        return out


def _tool(record: Record) -> DeclaredTool:
    return DeclaredTool(
        name=text(record, "name"),
        description=text(record, "description"),
        party_arg=text(record, "party_arg"),
        party_kind=text(record, "party_kind"),
        content_arg=record.get("content_arg"),
        properties=thawed(record["properties"]),
        annotations=thawed(record.get("annotations")),
        amount_arg=record.get("amount_arg"),
        registered=bool(record.get("registered", False)),
    )


SIDE_EFFECT_TOOLS: BySplit[DeclaredTool] = {
    split: tuple(_tool(r) for r in select(DECLARED_DATA, split, table="side_effect_tools"))
    for split in SPLITS
}

# Read tools a declaration alone makes read-only: (name, description, argument).
READ_TOOLS: BySplit[tuple[str, str, str]] = {
    split: tuple((text(r, "name"), text(r, "description"), text(r, "arg"))
                 for r in select(DECLARED_DATA, split, table="read_tools"))
    for split in SPLITS
}


def read_declaration(name: str, description: str, arg: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {arg: {"type": "string"}},
                        "required": [arg]},
    }


@dataclass(frozen=True, slots=True)
class Action:
    """An action with no argument to trace: the tool, its declaration (None: the bench
    policy names it), the words an injected request and the user use for it, the setting
    argument it may take, and whether the tenant registers its declaration before the call."""

    tool: str
    description: str | None
    phrase: str  # how an untrusted channel or the user names the action
    args: dict[str, Any]
    registered: bool = False


def _action(record: Record) -> Action:
    return Action(
        tool=text(record, "tool"),
        description=record.get("description"),
        phrase=text(record, "phrase"),
        args=thawed(record.get("args", {})),
        registered=bool(record.get("registered", False)),
    )


ACTIONS: BySplit[Action] = {
    split: tuple(_action(r) for r in select(DECLARED_DATA, split, table="actions"))
    for split in SPLITS
}

# How an untrusted channel asks for an action ({action} is the phrase).
INJECTED_ACTION = families(DECLARED_DATA, "injected_action")
# The user asking for the action in their own words ({action}, {action_cap}).
USER_ASKS_ACTION = families(DECLARED_DATA, "user_asks_action")
# Where a declared attack's party comes from: an injected instruction ({addr} is the
# attacker's value, {tool} the tool it names).
INJECTED_PARTY = families(DECLARED_DATA, "injected_party")
USER_STATES_PARTY = families(DECLARED_DATA, "user_states_party")
# Notices that carry an injected action, and the user's requests that read them.
CARRIER_BODIES = corpus_texts(DECLARED_DATA, SHARED, table="carrier_bodies")
USER_ASKS_OTHER = corpus_texts(DECLARED_DATA, SHARED, table="user_asks_other")
