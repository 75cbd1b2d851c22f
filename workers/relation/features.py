"""Relation inputs from what `relate()` receives: the two claims' structured fields and the
cosine of their claim embeddings.

    [same subject, same value, same direction, new avoids, old avoids, cosine,
     similarity of the two value phrases, both values known to the taxonomy,
     subject one-hot (16)]
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from app.domain.relation import ClaimFields
from app.extraction.taxonomy import DIMENSIONS
from workers.common.value_phrases import PHRASES, value_phrase_vectors
from workers.relation.fixed_dot import fixed_order_dots

SUBJECTS: tuple[str, ...] = tuple(d.name for d in DIMENSIONS)
RELATION_FEATURES = 8 + len(SUBJECTS)
LABELS = ("supports", "contradicts", "unrelated")

Value = tuple[str, str]  # (dimension, value) of the taxonomy
PhraseDot = Callable[[Value, Value], float]  # the cosine of two values' phrases


def blas_phrase_dot(a: Value, b: Value) -> float:
    """np.dot of the two phrase embeddings, as `relate()` reads them in the service (the
    gates learned on those outputs, so their last bit stays the CPU's)."""
    vectors = value_phrase_vectors()
    return float(np.dot(vectors[a], vectors[b]))


@lru_cache(maxsize=1)
def _fixed_order_similarities() -> dict[tuple[Value, Value], float]:
    vectors = value_phrase_vectors()
    keys = sorted(vectors)
    pairs = [(a, b) for a in keys for b in keys]
    dots = fixed_order_dots(np.stack([vectors[a] for a, _ in pairs]),
                            np.stack([vectors[b] for _, b in pairs]))
    return {pair: float(d) for pair, d in zip(pairs, dots.tolist(), strict=True)}


def fixed_order_phrase_dot(a: Value, b: Value) -> float:
    """The same cosine summed in a fixed order (`fixed_dot`): the same bits on any CPU, as
    training needs them."""
    return _fixed_order_similarities()[(a, b)]


def value_similarity(
    new: ClaimFields, old: ClaimFields, phrase_dot: PhraseDot = blas_phrase_dot
) -> tuple[float, bool]:
    a = (new.subject, new.value or "")
    b = (old.subject, old.value or "")
    if a not in PHRASES or b not in PHRASES:
        return (1.0 if new.value == old.value else 0.0), False
    return phrase_dot(a, b), True


def relation_features(
    new: ClaimFields, old: ClaimFields, cosine: float, phrase_dot: PhraseDot = blas_phrase_dot
) -> list[float]:
    similarity, known = value_similarity(new, old, phrase_dot)
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
