"""Extractor training rows: one per event, [embedding ‖ origin] → field targets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.extraction.base import EventInput
from app.extraction.deterministic import DeterministicExtractor
from workers.common.embedding_cache import EmbeddingCache
from workers.common.episodes import EventRecord
from workers.extraction.vocab import (
    CLAIM_INDEX,
    DIRECTIONS,
    SCOPE_INDEX,
    TIMESCALES,
    cue_features,
    origin_one_hot,
)

_RULES = DeterministicExtractor()
IGNORE = -100  # target of a field on an event that carries no preference


@dataclass(frozen=True, slots=True)
class ExtractorRows:
    x: npt.NDArray[np.float32]  # (N, 444)
    has_preference: npt.NDArray[np.float32]  # (N,)
    claim: npt.NDArray[np.int64]  # (N,) or IGNORE
    direction: npt.NDArray[np.int64]
    scope: npt.NDArray[np.int64]
    timescale: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.x.shape[0])

    def subset(self, mask: npt.NDArray[np.bool_]) -> ExtractorRows:
        return ExtractorRows(
            self.x[mask], self.has_preference[mask], self.claim[mask], self.direction[mask],
            self.scope[mask], self.timescale[mask],
        )


def features(
    embeddings: npt.NDArray[np.float32], origins: list[list[float]], cues: list[list[float]]
) -> npt.NDArray[np.float32]:
    """(N, 384) embeddings, origin one-hots and rule-reader cues → (N, 444)."""
    return np.concatenate(
        [embeddings, np.asarray(origins, dtype=np.float32), np.asarray(cues, dtype=np.float32)],
        axis=1,
    ).astype(np.float32)


def rule_cues(event: EventRecord) -> list[float]:
    extraction = _RULES.extract(EventInput(event.text, event.origin, event.occurred_at))
    return cue_features(extraction.hypotheses)


def build_rows(events: list[EventRecord], cache: EmbeddingCache) -> ExtractorRows:
    x = features(
        cache.embed([e.text for e in events]),
        [origin_one_hot(e.origin) for e in events],
        [rule_cues(e) for e in events],
    )
    n = len(events)
    has = np.zeros(n, dtype=np.float32)
    claim = np.full(n, IGNORE, dtype=np.int64)
    direction = np.full(n, IGNORE, dtype=np.int64)
    scope = np.full(n, IGNORE, dtype=np.int64)
    timescale = np.full(n, IGNORE, dtype=np.int64)
    for i, event in enumerate(events):
        if event.dimension is None or event.value is None:
            continue
        key = (event.dimension, event.value)
        if key not in CLAIM_INDEX:
            continue
        has[i] = 1.0
        claim[i] = CLAIM_INDEX[key]
        direction[i] = [d.value for d in DIRECTIONS].index(event.direction)
        scope[i] = SCOPE_INDEX.get(event.scope, 0)
        timescale[i] = [t.value for t in TIMESCALES].index(event.timescale)
    return ExtractorRows(x, has, claim, direction, scope, timescale)
