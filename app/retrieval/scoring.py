"""The paper's retrieval score: 0.55 similarity + 0.20 decayed confidence + 0.15 scope match
+ 0.10 influence prior; ties by confidence, then recency, then node id."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.claims import GLOBAL_SCOPE

WEIGHT_SIMILARITY = 0.55
WEIGHT_CONFIDENCE = 0.20
WEIGHT_SCOPE = 0.15
WEIGHT_INFLUENCE = 0.10
# Influence prior of a node never audited: neutral.
NEUTRAL_INFLUENCE = 0.5


def scope_match(node_scope: str, domain: str | None) -> float:
    """1 for the asked domain (or a global node when none is asked), ½ for a global node
    under a domain, 0 for a node scoped to another domain."""
    if domain is None:
        return 1.0 if node_scope == GLOBAL_SCOPE else 0.0
    if node_scope == domain:
        return 1.0
    return 0.5 if node_scope == GLOBAL_SCOPE else 0.0


def influence_prior(influence: float | None) -> float:
    """Running mean influence mapped to [0, 1]; unaudited nodes are neutral."""
    if influence is None:
        return NEUTRAL_INFLUENCE
    return min(1.0, max(0.0, influence))


@dataclass(frozen=True, slots=True)
class Scored:
    similarity: float
    decayed_confidence: float
    scope_match: float
    influence_prior: float

    @property
    def score(self) -> float:
        return (
            WEIGHT_SIMILARITY * self.similarity
            + WEIGHT_CONFIDENCE * self.decayed_confidence
            + WEIGHT_SCOPE * self.scope_match
            + WEIGHT_INFLUENCE * self.influence_prior
        )
