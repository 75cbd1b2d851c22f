"""The closed vocabularies every stage speaks: channels, claim fields, gate actions, node
layers and states."""

from __future__ import annotations

from enum import StrEnum


class Origin(StrEnum):
    user = "user"
    retrieved_document = "retrieved_document"
    tool_output = "tool_output"
    shared_file = "shared_file"


class Direction(StrEnum):
    prefer = "prefer"
    avoid = "avoid"


class Timescale(StrEnum):
    permanent = "permanent"
    situational = "situational"


class Action(StrEnum):
    retain = "retain"
    add = "add"
    scope = "scope"
    revise = "revise"
    quarantine = "quarantine"
    clarify = "clarify"


ACTIONS: tuple[Action, ...] = tuple(Action)


class Layer(StrEnum):
    stable = "stable"
    contextual = "contextual"
    transient = "transient"


class NodeState(StrEnum):
    active = "active"
    quarantined = "quarantined"
    superseded = "superseded"
    evicted = "evicted"


class ClarificationStatus(StrEnum):
    pending = "pending"  # asked, waiting for the user's answer
    answered = "answered"
    erased = "erased"  # its claim was erased
    deferred = "deferred"  # not asked yet: the user's question budget was spent
    withdrawn = "withdrawn"  # never asked: its claim left quarantine first


class EdgeRelation(StrEnum):
    supports = "supports"
    contradicts = "contradicts"
    supersedes = "supersedes"
    narrows = "narrows"
