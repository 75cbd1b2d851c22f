"""The gate's inputs, computed by one set of functions for training replay and online use.

Per event (hypothesis-independent; the GRU reads them at the event's arrival):
    embedding (384) ‖ scalars (EVENT_SCALARS): origin one-hot (4), log(1+Δt) normalized,
    first-event flag, new-session flag, injection-likeness, laundering signal (4)
Per hypothesis (the action head reads them beside h):
    claim embedding (384) ‖ context (CONTEXT_FEATURES): the hypothesis' own fields, agreement
    of event text and claim, and the ledger around it (GateInput.related: the live nodes of
    its subject): counts by state and in scope,
    support / contradiction in and out of scope, the layer, decayed confidence and age of the
    node it contradicts most, a pending quarantined twin.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt

from app.domain.claims import GLOBAL_SCOPE, Hypothesis
from app.domain.gate import RelatedNode
from app.domain.vocabulary import Direction, Layer, NodeState, Origin, Timescale
from app.ledger.constants import SECONDS_PER_DAY
from workers.gate.laundering import SIGNAL_FEATURES

ORIGINS: tuple[Origin, ...] = tuple(Origin)
LAYERS: tuple[Layer, ...] = (Layer.stable, Layer.contextual, Layer.transient)
MAX_GAP_SECONDS = 30 * SECONDS_PER_DAY
_LOG_MAX_GAP = math.log1p(MAX_GAP_SECONDS)

# Index ranges in the event scalars; the no-provenance ablation zeroes PROVENANCE_SLICE.
ORIGIN_SLICE = slice(0, len(ORIGINS))
PROVENANCE_SLICE = slice(0, len(ORIGINS))
INJECTION_INDEX = len(ORIGINS) + 3
LAUNDERING_SLICE = slice(INJECTION_INDEX + 1, INJECTION_INDEX + 1 + SIGNAL_FEATURES)
EVENT_SCALARS = INJECTION_INDEX + 1 + SIGNAL_FEATURES


def drop_provenance(scalars: np.ndarray) -> np.ndarray:
    """The no-provenance ablation: no origin channel, no laundering signal."""
    out = scalars.copy()
    out[..., ORIGIN_SLICE] = 0.0
    out[..., LAUNDERING_SLICE] = 0.0
    return out


def gap_days(seconds_since_last_event: float | None) -> float:
    if seconds_since_last_event is None:
        return 0.0
    return min(seconds_since_last_event, MAX_GAP_SECONDS) / SECONDS_PER_DAY


def event_scalars(
    origin: Origin,
    seconds_since_last_event: float | None,
    new_session: bool,
    injection: float,
    laundering: Sequence[float],
) -> list[float]:
    gap = 0.0 if seconds_since_last_event is None else max(0.0, seconds_since_last_event)
    out = [1.0 if origin == o else 0.0 for o in ORIGINS]
    out += [
        math.log1p(min(gap, MAX_GAP_SECONDS)) / _LOG_MAX_GAP,  # log(1+Δt), in [0, 1]
        1.0 if seconds_since_last_event is None else 0.0,
        1.0 if new_session else 0.0,
        float(injection),
        *[float(x) for x in laundering],
    ]
    assert len(out) == EVENT_SCALARS
    return out


def _age_days(recorded_at: datetime, at: datetime) -> float:
    return max(0.0, (at - recorded_at).total_seconds() / SECONDS_PER_DAY)


def context_features(
    hypothesis: Hypothesis,
    related: Sequence[RelatedNode],
    at: datetime,
    claim_embedding: npt.NDArray[np.float32],
    event_embedding: npt.NDArray[np.float32],
) -> list[float]:
    scope = hypothesis.scope
    active = [r for r in related if r.state == NodeState.active.value]
    quarantined = [r for r in related if r.state == NodeState.quarantined.value]
    in_scope = [r for r in active if r.scope == scope]
    out_scope = [r for r in active if r.scope != scope]
    contradicted = max(in_scope, key=lambda r: r.relation.contradicts, default=None)
    supported = max(in_scope, key=lambda r: r.relation.supports, default=None)
    global_active = [r for r in active if r.scope == GLOBAL_SCOPE]
    twin = max(
        (r for r in quarantined if r.scope == scope),
        key=lambda r: r.relation.supports,
        default=None,
    )
    out = [
        hypothesis.confidence,
        1.0 if scope != GLOBAL_SCOPE else 0.0,
        1.0 if hypothesis.timescale == Timescale.situational else 0.0,
        1.0 if hypothesis.direction == Direction.avoid else 0.0,
        float(np.dot(claim_embedding, event_embedding)),
        math.log1p(len(active)),
        math.log1p(len(quarantined)),
        math.log1p(len(in_scope)),
        max((r.relation.supports for r in in_scope), default=0.0),
        max((r.relation.contradicts for r in in_scope), default=0.0),
        max((r.relation.supports for r in out_scope), default=0.0),
        max((r.relation.contradicts for r in out_scope), default=0.0),
    ]
    if contradicted is not None and contradicted.relation.contradicts > 0.0:
        out += [1.0 if contradicted.layer == layer.value else 0.0 for layer in LAYERS]
        out += [
            contradicted.confidence,
            math.log1p(_age_days(contradicted.recorded_at, at)) / 4.0,
        ]
    else:
        out += [0.0] * (len(LAYERS) + 2)
    out += [
        supported.confidence if supported is not None and supported.relation.supports > 0 else 0.0,
        1.0 if global_active else 0.0,
        max((r.relation.contradicts for r in global_active), default=0.0),
        twin.relation.supports if twin is not None else 0.0,
        math.log1p(sum(1 for r in quarantined if r.relation.supports >= 0.5)),
        max((r.cosine for r in related), default=0.0),
    ]
    assert len(out) == CONTEXT_FEATURES
    return out


CONTEXT_FEATURES = 12 + len(LAYERS) + 2 + 6
