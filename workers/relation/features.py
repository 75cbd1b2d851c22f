"""Relation inputs from what `relate()` receives: the two claims' structured fields and the
cosine of their claim embeddings.

    [same subject, same value, same direction, new avoids, old avoids, cosine,
     similarity of the two value phrases, both values known to the taxonomy,
     subject one-hot (16)]
"""

from __future__ import annotations

import numpy as np

from app.domain.relation import ClaimFields
from app.extraction.taxonomy import DIMENSIONS
from workers.common.value_phrases import PHRASES, value_phrase_vectors

SUBJECTS: tuple[str, ...] = tuple(d.name for d in DIMENSIONS)
RELATION_FEATURES = 8 + len(SUBJECTS)
LABELS = ("supports", "contradicts", "unrelated")


def value_similarity(new: ClaimFields, old: ClaimFields) -> tuple[float, bool]:
    a = PHRASES.get((new.subject, new.value or ""))
    b = PHRASES.get((old.subject, old.value or ""))
    if a is None or b is None:
        return (1.0 if new.value == old.value else 0.0), False
    vectors = value_phrase_vectors()
    return float(np.dot(vectors[(new.subject, new.value or "")],
                        vectors[(old.subject, old.value or "")])), True


def relation_features(new: ClaimFields, old: ClaimFields, cosine: float) -> list[float]:
    similarity, known = value_similarity(new, old)
    out = [
        1.0 if new.subject == old.subject else 0.0,
        1.0 if new.value == old.value else 0.0,
        1.0 if new.direction == old.direction else 0.0,
        1.0 if new.direction == "avoid" else 0.0,
        1.0 if old.direction == "avoid" else 0.0,
        float(cosine),
        similarity,
        1.0 if known else 0.0,
    ]
    out += [1.0 if new.subject == s else 0.0 for s in SUBJECTS]
    return out
