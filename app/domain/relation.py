"""The relation between a new claim and an existing one, and the contract of a model that
reads it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Relation:
    supports: float
    contradicts: float

    @property
    def unrelated(self) -> float:
        return max(0.0, 1.0 - self.supports - self.contradicts)


@dataclass(frozen=True, slots=True)
class ClaimFields:
    subject: str
    value: str | None
    direction: str


class RelationModel(Protocol):
    def relate(self, new: ClaimFields, old: ClaimFields, cosine: float) -> Relation: ...
