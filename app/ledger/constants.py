"""The Capture paper's ledger constants (DESIGN.md §4), quoted here once."""

from __future__ import annotations

from app.domain.vocabulary import Layer

# γ per layer, per day: stable 0.01, contextual 0.1, transient 0.5.
LAYER_DECAY_PER_DAY: dict[Layer, float] = {
    Layer.stable: 0.01,
    Layer.contextual: 0.1,
    Layer.transient: 0.5,
}
# γq: quarantine decay per day, whatever the scope; evict when exp(−γq Δt) < φ (≈14 days).
QUARANTINE_DECAY_PER_DAY = 0.135
QUARANTINE_RETENTION_FLOOR = 0.15  # φ

# Corroboration of a node by a new hypothesis.
CORROBORATION_MIN_COSINE = 0.82
CORROBORATION_MIN_ENTAILMENT = 0.75
CORROBORATION_MIN_AUTHENTICITY = 0.70

# Overwriting a stable node: two authenticated user events with gate confidence ≥ 0.80
# across a session boundary, or three within one session.
STABLE_OVERWRITE_MIN_CONFIDENCE = 0.80
STABLE_OVERWRITE_EVENTS_ACROSS_SESSIONS = 2
STABLE_OVERWRITE_EVENTS_ONE_SESSION = 3

# An edge is written when the relation probability reaches this.
EDGE_MIN_PROBABILITY = 0.70

SECONDS_PER_DAY = 86_400.0
