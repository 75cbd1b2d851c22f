"""Relation inputs from what `relate()` receives: the two claims' structured fields and the
cosine of their claim embeddings.

    [same subject, same value, same direction, new avoids, old avoids, cosine,
     similarity of the two value phrases, both values known to the taxonomy,
     subject one-hot (16)]
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from app.extraction.taxonomy import DIMENSIONS
from app.ledger.relations import ClaimFields

SUBJECTS: tuple[str, ...] = tuple(d.name for d in DIMENSIONS)
_PHRASES: dict[tuple[str, str], str] = {
    (d.name, v.name): v.phrase for d in DIMENSIONS for v in d.values
}
RELATION_FEATURES = 8 + len(SUBJECTS)
LABELS = ("supports", "contradicts", "unrelated")


@lru_cache(maxsize=1)
def _phrase_vectors() -> dict[tuple[str, str], npt.NDArray[np.float32]]:
    from app.core.embeddings import get_embedder

    keys = sorted(_PHRASES)
    vectors = get_embedder().embed([_PHRASES[k] for k in keys])
    return {k: vectors[i] for i, k in enumerate(keys)}


def value_similarity(new: ClaimFields, old: ClaimFields) -> tuple[float, bool]:
    a = _PHRASES.get((new.subject, new.value or ""))
    b = _PHRASES.get((old.subject, old.value or ""))
    if a is None or b is None:
        return (1.0 if new.value == old.value else 0.0), False
    vectors = _phrase_vectors()
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
