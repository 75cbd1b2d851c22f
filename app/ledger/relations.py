"""Relation between a hypothesis and an existing node: supports / contradicts / unrelated.

No NLI model ships offline (MODELS.md). Two readers of the structured fields extraction
emits (subject, value, direction) and the embedding similarity, behind one function:
`learned` (default), the relation model trained on the benchmark's train split
(workers/relation, docs/models/relation.md), and `heuristic`, the rules below. The setting
`CAPTURE_RELATION_MODEL` picks one; the learned gate was trained on the learned one's output.
"""

from __future__ import annotations

from app import registry
from app.domain.relation import ClaimFields, Relation


def relate(
    new: ClaimFields, old: ClaimFields, cosine: float, *, model: bool | None = None
) -> Relation:
    """The relation of a new claim to an existing one. `model`: True the learned model,
    False the heuristic, None the configured one (settings.relation_model)."""
    if model is None:
        from app.core.config import get_settings

        model = get_settings().relation_model == "learned"
    learned = registry.learned_relation_model() if model else None
    if learned is not None:
        return learned.relate(new, old, cosine)
    return heuristic_relate(new, old, cosine)


def heuristic_relate(new: ClaimFields, old: ClaimFields, cosine: float) -> Relation:
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
