"""Extractor training rows: one per event, its features (`model.py`) → field targets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.domain.extractor import EventInput
from app.extraction.deterministic import DeterministicExtractor
from workers.common.embedding_cache import EmbeddingCache
from workers.common.episodes import EventRecord
from workers.extraction.open_preferences import OPEN_DIMENSION
from workers.extraction.segments import MARKERS, Markers, split_sides
from workers.extraction.vocab import (
    CLAIM_INDEX,
    DIRECTIONS,
    OPEN_CLAIM,
    SCOPE_INDEX,
    TIMESCALES,
    cue_features,
    origin_one_hot,
)

_RULES = DeterministicExtractor()
EmbedFn = Callable[[list[str]], npt.NDArray[np.float32]]
# What the extractor reads of an event's text: the text itself, or its typo repair
# (`app/extraction/spelling.py`, `LearnedExtractor.reading`).
ReadFn = Callable[[str], str]


def as_written(text: str) -> str:
    return text
IGNORE = -100  # target of a field on an event that carries no preference
NO_ABSTENTION_TARGET = -1.0  # has-preference target of a row that trains the fields only


@dataclass(frozen=True, slots=True)
class ExtractorRows:
    x: npt.NDArray[np.float32]  # (N, 1213)
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

    def extended(self, more: ExtractorRows) -> ExtractorRows:
        """These rows followed by `more`."""
        return ExtractorRows(
            np.concatenate([self.x, more.x]),
            np.concatenate([self.has_preference, more.has_preference]),
            np.concatenate([self.claim, more.claim]),
            np.concatenate([self.direction, more.direction]),
            np.concatenate([self.scope, more.scope]),
            np.concatenate([self.timescale, more.timescale]),
        )


def features(
    embeddings: npt.NDArray[np.float32],
    origins: list[list[float]],
    cues: list[list[float]],
    kept: npt.NDArray[np.float32],
    rejected: npt.NDArray[np.float32],
) -> npt.NDArray[np.float32]:
    """(N, 384) embeddings, origin one-hots, rule-reader cues, and the (N, 384) embeddings of
    each text's kept and rejected sides (zeros: nothing rejected) → (N, 1213)."""
    has_rejected = np.any(rejected != 0.0, axis=1, keepdims=True).astype(np.float32)
    return np.concatenate(
        [embeddings, np.asarray(origins, dtype=np.float32), np.asarray(cues, dtype=np.float32),
         kept, rejected, has_rejected],
        axis=1,
    ).astype(np.float32)


def side_embeddings(
    texts: list[str],
    embeddings: npt.NDArray[np.float32],
    embed: EmbedFn,
    markers: Markers = MARKERS,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """(N, 384) kept-side and rejected-side embeddings of `texts` (whose own embeddings are
    `embeddings`), the sides split by `markers`: only texts with a rejected side cost two
    more embeddings."""
    kept = embeddings.copy()
    rejected = np.zeros_like(embeddings)
    sides = [split_sides(t, markers) for t in texts]
    split = [i for i, s in enumerate(sides) if s.has_rejected]
    if split:
        vectors = embed([sides[i].kept for i in split] + [sides[i].rejected for i in split])
        kept[split] = vectors[: len(split)]
        rejected[split] = vectors[len(split) :]
    return kept, rejected


def rule_cues(event: EventRecord, text: str) -> list[float]:
    """What the rule reader finds in `text` (the event's text as the extractor reads it)."""
    extraction = _RULES.extract(EventInput(text, event.origin, event.occurred_at))
    return cue_features(extraction.hypotheses)


def build_rows(
    events: list[EventRecord],
    cache: EmbeddingCache,
    read: ReadFn = as_written,
    markers: Markers = MARKERS,
) -> ExtractorRows:
    """One row per event, its features computed on `read(text)`, its sides split by
    `markers` (the service's by default)."""
    texts = [read(e.text) for e in events]
    embeddings = cache.embed(texts)
    x = features(
        embeddings,
        [origin_one_hot(e.origin) for e in events],
        [rule_cues(e, t) for e, t in zip(events, texts, strict=True)],
        *side_embeddings(texts, embeddings, cache.embed, markers),
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
        index = OPEN_CLAIM if event.dimension == OPEN_DIMENSION else CLAIM_INDEX.get(key)
        if index is None:
            continue
        has[i] = 1.0
        claim[i] = index
        direction[i] = [d.value for d in DIRECTIONS].index(event.direction)
        scope[i] = SCOPE_INDEX.get(event.scope, 0)
        timescale[i] = [t.value for t in TIMESCALES].index(event.timescale)
    return ExtractorRows(x, has, claim, direction, scope, timescale)
