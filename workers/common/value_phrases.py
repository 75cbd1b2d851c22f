"""The taxonomy's value phrases, embedded once per process with the service's embedder.

Read by the relation model (how alike two claims' values are) and by the extractor's contrast
rule (which of two values a rejected stretch names).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

from app.extraction.taxonomy import DIMENSIONS

PHRASES: dict[tuple[str, str], str] = {
    (d.name, v.name): v.phrase for d in DIMENSIONS for v in d.values
}


@lru_cache(maxsize=1)
def value_phrase_vectors() -> dict[tuple[str, str], npt.NDArray[np.float32]]:
    """(dimension, value) → the unit embedding of its phrase."""
    from app.core.embeddings import get_embedder

    keys = sorted(PHRASES)
    vectors = get_embedder().embed([PHRASES[k] for k in keys])
    return {k: vectors[i] for i, k in enumerate(keys)}
