"""Relation between a hypothesis and an existing node: supports / contradicts / unrelated.

No NLI model ships offline (MODELS.md), so this first relation model reads the structured
fields extraction emits (subject, value, direction) and the embedding similarity. A trained
relation model (issue 4) replaces it behind the same function.
"""

from __future__ import annotations

from dataclasses import dataclass


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


def relate(new: ClaimFields, old: ClaimFields, cosine: float) -> Relation:
    if new.subject != old.subject:
        return Relation(supports=0.0, contradicts=0.0)
    same_value = new.value == old.value
    same_direction = new.direction == old.direction
    if same_value and same_direction:
        # Entailment grows with how close the wording is; identical fields are strong support.
        return Relation(supports=min(1.0, 0.8 + 0.2 * max(cosine, 0.0)), contradicts=0.0)
    if same_value and not same_direction:
        return Relation(supports=0.0, contradicts=0.95)
    if new.direction == "prefer" and old.direction == "prefer":
        # Two values of one dimension are mutually exclusive by construction of the taxonomy.
        return Relation(supports=0.0, contradicts=0.9)
    # "avoid X" beside "prefer Y" or "avoid Y": compatible, neither supports nor contradicts.
    return Relation(supports=0.0, contradicts=0.0)
