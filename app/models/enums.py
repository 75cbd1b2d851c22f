"""Closed vocabularies stored as text with CHECK constraints (portable, easy to migrate)."""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import CheckConstraint

from app.extraction.schemas import Direction, Origin, Timescale

__all__ = [
    "Action",
    "ClarificationStatus",
    "Direction",
    "EdgeRelation",
    "EventStatus",
    "Layer",
    "NodeState",
    "Origin",
    "Role",
    "Timescale",
    "check_in",
]


class Role(StrEnum):
    agent = "agent"
    auditor = "auditor"
    admin = "admin"


class EventStatus(StrEnum):
    pending = "pending"
    processed = "processed"
    failed = "failed"


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


def check_in(column: str, enum: type[StrEnum], name: str) -> CheckConstraint:
    values = ", ".join(f"'{member.value}'" for member in enum)
    return CheckConstraint(f"{column} IN ({values})", name=name)
