"""The label spaces the extractor's heads predict, fixed by the taxonomy."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain.claims import GLOBAL_SCOPE, Hypothesis
from app.domain.vocabulary import Direction, Origin, Timescale
from app.extraction.taxonomy import DIMENSIONS, SCOPE_DOMAINS_BY_NAME
from app.models.base import EMBEDDING_DIM

# One class per (dimension, value): the value names a dimension, so the two never disagree.
CLAIMS: tuple[tuple[str, str], ...] = tuple((d.name, v.name) for d in DIMENSIONS for v in d.values)
CLAIM_INDEX: dict[tuple[str, str], int] = {c: i for i, c in enumerate(CLAIMS)}
# One more claim class after the taxonomy's: a preference on something the taxonomy does not
# cover, kept in the user's own words (`open_preferences.py`, `infer.open_hypothesis`).
OPEN_CLAIM = len(CLAIMS)
SCOPES: tuple[str, ...] = (GLOBAL_SCOPE, *SCOPE_DOMAINS_BY_NAME)
SCOPE_INDEX: dict[str, int] = {s: i for i, s in enumerate(SCOPES)}
DIRECTIONS: tuple[Direction, ...] = (Direction.prefer, Direction.avoid)
TIMESCALES: tuple[Timescale, ...] = (Timescale.permanent, Timescale.situational)
ORIGINS: tuple[Origin, ...] = tuple(Origin)

HEADS: dict[str, int] = {
    "claim": len(CLAIMS) + 1,  # the taxonomy's (dimension, value) pairs, then OPEN_CLAIM
    "direction": len(DIRECTIONS),
    "scope": len(SCOPES),
    "timescale": len(TIMESCALES),
}


def origin_one_hot(origin: Origin) -> list[float]:
    return [1.0 if origin == o else 0.0 for o in ORIGINS]


def cue_features(hypotheses: Sequence[Hypothesis]) -> list[float]:
    """What the rule-based reader found, as input to the learned heads (55 + 1): per
    (dimension, value) its confidence, signed by direction (+ prefer, − avoid), then a flag
    for whether it read anything at all. The rules read word order ("X instead of Y") that a
    pooled sentence embedding blurs; the heads learn when to trust them."""
    out = [0.0] * (len(CLAIMS) + 1)
    for hypothesis in hypotheses:
        index = CLAIM_INDEX.get((hypothesis.subject, hypothesis.value))
        if index is None:
            continue
        sign = 1.0 if hypothesis.direction == Direction.prefer else -1.0
        if abs(sign * hypothesis.confidence) > abs(out[index]):
            out[index] = sign * hypothesis.confidence
        out[-1] = 1.0
    return out


CUE_FEATURES = len(CLAIMS) + 1

# The feature row's layout (`model.py`): base = [MiniLM ‖ origin ‖ cues], then the kept side's
# and the rejected side's embeddings and a rejected-side flag.
BASE_DIM = EMBEDDING_DIM + len(ORIGINS) + CUE_FEATURES  # 444
INPUT_DIM = BASE_DIM + 2 * EMBEDDING_DIM + 1  # 1213
INPUT_PARTS: tuple[slice, slice, slice, slice] = (
    slice(0, BASE_DIM),
    slice(BASE_DIM, BASE_DIM + EMBEDDING_DIM),
    slice(BASE_DIM + EMBEDDING_DIM, BASE_DIM + 2 * EMBEDDING_DIM),
    slice(INPUT_DIM - 1, INPUT_DIM),
)
