"""Held-out extraction metrics: abstention F1 and per-field accuracy on preference events."""

from __future__ import annotations

from collections.abc import Sequence

from app.extraction.base import EventInput, Extractor
from app.extraction.schemas import Hypothesis
from workers.common.episodes import EventRecord


def _best(hypotheses: Sequence[Hypothesis], event: EventRecord) -> Hypothesis | None:
    """The hypothesis scored against the event: the one on its dimension, else the surest."""
    if not hypotheses:
        return None
    on_dimension = [h for h in hypotheses if h.subject == event.dimension]
    pool = on_dimension or list(hypotheses)
    return max(pool, key=lambda h: h.confidence)


def _f1(tp: int, fp: int, fn: int) -> float:
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def score_extractor(extractor: Extractor, events: Sequence[EventRecord]) -> dict[str, float]:
    """Abstention F1 (positive = abstain), preference F1, (dimension, value) found rate over
    preference events, and per-field accuracy where the dimension was found."""
    tp = fp = fn = 0  # preference detection
    found = 0
    fields = {"dimension": 0, "value": 0, "direction": 0, "scope": 0, "timescale": 0}
    on_dimension = 0
    preference_events = 0
    for event in events:
        extraction = extractor.extract(EventInput(event.text, event.origin, event.occurred_at))
        has = event.dimension is not None
        fired = bool(extraction.hypotheses)
        tp += has and fired
        fp += (not has) and fired
        fn += has and not fired
        if not has:
            continue
        preference_events += 1
        if any(h.subject == event.dimension and h.value == event.value
               for h in extraction.hypotheses):
            found += 1
        best = _best(extraction.hypotheses, event)
        if best is None:
            continue
        fields["dimension"] += best.subject == event.dimension
        if best.subject != event.dimension:
            continue
        on_dimension += 1
        fields["value"] += best.value == event.value
        fields["direction"] += best.direction.value == event.direction
        fields["scope"] += best.scope == event.scope
        fields["timescale"] += best.timescale.value == event.timescale
    n = len(events)
    tn = n - tp - fp - fn
    out = {
        "events": float(n),
        "preference_events": float(preference_events),
        "preference_f1": _f1(tp, fp, fn),
        # Abstention is the positive class here: abstained on an event with no preference.
        "abstention_f1": _f1(tn, fn, fp),
        "dimension_value_found": found / max(1, preference_events),
        "dimension_accuracy": fields["dimension"] / max(1, preference_events),
    }
    for name in ("value", "direction", "scope", "timescale"):
        out[f"{name}_accuracy_given_dimension"] = fields[name] / max(1, on_dimension)
    return {k: round(v, 4) for k, v in out.items()}
