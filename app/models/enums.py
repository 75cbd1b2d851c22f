"""Closed vocabularies stored as text with CHECK constraints (portable, easy to migrate)."""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import CheckConstraint

__all__ = ["DeliveryStatus", "ErasureStatus", "EventStatus", "Role", "check_in"]


class Role(StrEnum):
    agent = "agent"
    auditor = "auditor"
    admin = "admin"


class EventStatus(StrEnum):
    pending = "pending"
    processed = "processed"
    failed = "failed"


class ErasureStatus(StrEnum):
    pending = "pending"
    done = "done"
    failed = "failed"


class DeliveryStatus(StrEnum):
    pending = "pending"
    delivered = "delivered"
    failed = "failed"


def check_in(column: str, enum: type[StrEnum], name: str) -> CheckConstraint:
    values = ", ".join(f"'{member.value}'" for member in enum)
    return CheckConstraint(f"{column} IN ({values})", name=name)
