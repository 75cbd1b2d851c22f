"""The trained relation model behind `app.ledger.relations.relate` (numpy, no torch)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from app.domain.relation import ClaimFields, Relation
from workers.common import npmlp
from workers.common.weights import digest, load_npz
from workers.relation.features import relation_features

WEIGHTS = Path(__file__).parent / "weights" / "relation.npz"


class RelationModel:
    def __init__(self, weights: Path = WEIGHTS) -> None:
        self.arrays, self.meta = load_npz(weights)
        self.version = f"{self.meta.get('model_version', '1')}+{digest(weights)}"

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """x (N, RELATION_FEATURES) → (N, 3): supports, contradicts, unrelated."""
        z = npmlp.relu(npmlp.linear(self.arrays, "layer1", x.astype(np.float32)))
        z = npmlp.relu(npmlp.linear(self.arrays, "layer2", z))
        return npmlp.softmax(npmlp.linear(self.arrays, "out", z))

    def relate(self, new: ClaimFields, old: ClaimFields, cosine: float) -> Relation:
        x = np.asarray([relation_features(new, old, cosine)], dtype=np.float32)
        p = self.probabilities(x)[0]
        return Relation(supports=float(p[0]), contradicts=float(p[1]))


@lru_cache(maxsize=2)
def load_relation_model(weights: Path = WEIGHTS) -> RelationModel:
    return RelationModel(weights)
