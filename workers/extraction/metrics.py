"""Held-out extraction metrics: abstention F1, per-field accuracy on preference events, and
how revisions (genuine changepoints) are read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.domain.claims import Extraction, Hypothesis
from app.domain.extractor import EventInput, Extractor
from app.extraction.open_claims import is_open_subject
from workers.common.episodes import EventRecord, held_before
from workers.extraction.everyday_chatter import mention_topics


def _best(hypotheses: Sequence[Hypothesis], event: EventRecord) -> Hypothesis | None:
    """The hypothesis scored against the event: the one on its dimension, else the surest."""
    if not hypotheses:
        return None
    on_dimension = [h for h in hypotheses if h.subject == event.dimension]
    pool = on_dimension or list(hypotheses)
    return max(pool, key=lambda h: h.confidence)


def previous_value(state_before: Mapping[str, Any], event: EventRecord) -> str | None:
    """The value the event's (dimension, scope) held before it, from the oracle state."""
    if event.scope == "global":
        slot = state_before.get("global") or {}
    else:
        slot = (state_before.get("scoped") or {}).get(event.scope) or {}
    value = slot.get(event.dimension) if isinstance(slot, Mapping) else None
    return None if value is None else str(value)


def is_revision(event: EventRecord) -> bool:
    """A genuine changepoint: the user really changed a preference (not an attack)."""
    changepoint = bool(event.oracle.get("changepoint"))
    return changepoint and not event.attack and event.dimension is not None


def _f1(tp: int, fp: int, fn: int) -> float:
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def score_extractor(
    extractor: Extractor, events: Sequence[EventRecord], asks: bool = False
) -> dict[str, float]:
    """`score_extractions` of what the extractor reads of `events` (episode order,
    `events_of`); a user-channel event is read with what an accurate ledger holds before it,
    and with `asks` as for a policy that asks the user (`EventInput.asks`)."""
    extractions = [
        extractor.extract(EventInput(event.text, event.origin, event.occurred_at, held=held,
                                     asks=asks))
        for event, held in zip(events, held_before(list(events)), strict=True)
    ]
    return score_extractions(extractions, events)


def score_extractions(
    extractions: Sequence[Extraction], events: Sequence[EventRecord]
) -> dict[str, float]:
    """Abstention F1 (positive = abstain), preference F1, (dimension, value) found rate over
    preference events, per-field accuracy where the dimension was found, and over revisions
    (genuine changepoints) the share read with exactly the labelled (dimension, value) and the
    share read as the value being replaced. `events` are in episode order (`events_of`)."""
    tp = fp = fn = 0  # preference detection
    revisions = revision_right = revision_replaced = revision_asked = flagged = 0
    state: dict[str, Mapping[str, Any]] = {}  # episode → oracle state after its last event
    found = 0
    fields = {"dimension": 0, "value": 0, "direction": 0, "scope": 0, "timescale": 0}
    on_dimension = 0
    preference_events = 0
    for event, extraction in zip(events, extractions, strict=True):
        state_before = state.get(event.episode_id, {})
        state[event.episode_id] = event.oracle.get("state_after") or state_before
        if is_revision(event):
            revisions += 1
            emitted = {(h.subject, h.value) for h in extraction.hypotheses}
            revision_right += (event.dimension, event.value) in emitted
            previous = previous_value(state_before, event)
            revision_replaced += previous is not None and (event.dimension, previous) in emitted
            revision_asked += any(h.side_unclear for h in extraction.hypotheses)
        flagged += any(h.side_unclear for h in extraction.hypotheses)
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
        "revision_events": float(revisions),
        # Genuine changepoints read with exactly the labelled (dimension, value).
        "revision_value_accuracy": revision_right / max(1, revisions),
        # ... and read as the value being replaced (the error a pooled embedding invites).
        "revision_replaced_value_rate": revision_replaced / max(1, revisions),
        # Read for a policy that asks: revisions, and all events, whose side was unclear.
        "revision_side_unclear_rate": revision_asked / max(1, revisions),
        "side_unclear_events": float(flagged),
    }
    for name in ("value", "direction", "scope", "timescale"):
        out[f"{name}_accuracy_given_dimension"] = fields[name] / max(1, on_dimension)
    return {k: round(v, 4) for k, v in out.items()}


def score_open(extractor: Extractor, events: Sequence[EventRecord]) -> dict[str, float]:
    """On authored statements about topics outside the taxonomy (`open_preferences.py`): the
    share of preferences read as an open claim, read as some taxonomy claim instead (a wrong
    memory), and missed; the direction accuracy of open reads; and the share of the
    no-preference statements (sarcastic ones apart) read as any claim."""
    preferences = open_read = taxonomy_read = direction_right = neutral = neutral_fired = 0
    sarcastic = sarcastic_fired = 0
    for event in events:
        hypotheses = extractor.extract(
            EventInput(event.text, event.origin, event.occurred_at)
        ).hypotheses
        if event.label == "sarcasm":
            sarcastic += 1
            sarcastic_fired += bool(hypotheses)
            continue
        if event.dimension is None:
            neutral += 1
            neutral_fired += bool(hypotheses)
            continue
        preferences += 1
        opened = [h for h in hypotheses if is_open_subject(h.subject)]
        open_read += bool(opened)
        taxonomy_read += bool(hypotheses) and not opened
        direction_right += bool(opened) and opened[0].direction.value == event.direction
    out = {
        "preferences": float(preferences),
        "read_open": open_read / max(1, preferences),
        "read_as_taxonomy": taxonomy_read / max(1, preferences),
        "missed": (preferences - open_read - taxonomy_read) / max(1, preferences),
        "open_direction_accuracy": direction_right / max(1, open_read),
        "neutral": float(neutral),
        "neutral_read": neutral_fired / max(1, neutral),
        "sarcastic": float(sarcastic),
        "sarcastic_read": sarcastic_fired / max(1, sarcastic),
    }
    return {k: round(v, 4) for k, v in out.items()}


def score_chatter(extractor: Extractor, events: Sequence[EventRecord]) -> dict[str, float]:
    """On authored chatter that states no preference (`everyday_chatter.py`): the share read
    as any claim, overall, on the users' own lines, and on topics that mention a taxonomy
    value in passing."""
    counts = {"all": [0, 0], "user": [0, 0], "mentions": [0, 0]}
    for event in events:
        read = bool(extractor.extract(
            EventInput(event.text, event.origin, event.occurred_at)
        ).hypotheses)
        groups = ["all"]
        if event.origin == "user":
            groups.append("user")
        if event.oracle.get("topic") in mention_topics():
            groups.append("mentions")
        for group in groups:
            counts[group][0] += 1
            counts[group][1] += read
    out = {"events": float(counts["all"][0])}
    out.update({f"read_{group}": read / max(1, n) for group, (n, read) in counts.items()})
    return {k: round(v, 4) for k, v in out.items()}


def score_one_off(extractor: Extractor, events: Sequence[EventRecord]) -> dict[str, float]:
    """On authored one-off requests (`one_off_requests.py`), which state no preference: the
    share read as any claim, and as a claim on the dimension the request names."""
    read = on_dimension = 0
    for event in events:
        hypotheses = extractor.extract(
            EventInput(event.text, event.origin, event.occurred_at)
        ).hypotheses
        read += bool(hypotheses)
        on_dimension += any(h.subject == event.oracle.get("mentions") for h in hypotheses)
    n = max(1, len(events))
    return {"events": float(len(events)), "read_all": round(read / n, 4),
            "read_on_dimension": round(on_dimension / n, 4)}


def score_composed_revisions(
    extractor: Extractor, events: Sequence[EventRecord], asks: bool = False
) -> dict[str, float]:
    """On composed two-value revisions (`augment.compose_revisions`), each read on the user
    channel with the value it replaces held: the share read as the new value, as the replaced
    one, and neither (missed or another claim). With `asks` (a policy that asks the user),
    also the share of reads flagged `side_unclear` — asked about rather than written; those
    counted as read new are the flagged ones too when they name the new value."""
    right = replaced = unclear = 0
    for event in events:
        held = frozenset({(str(event.dimension), str(event.oracle["replaces"]))})
        hypotheses = extractor.extract(
            EventInput(event.text, event.origin, event.occurred_at, held=held, asks=asks)
        ).hypotheses
        emitted = {(h.subject, h.value) for h in hypotheses}
        right += (event.dimension, event.value) in emitted
        replaced += (event.dimension, event.oracle["replaces"]) in emitted
        unclear += any(h.side_unclear for h in hypotheses)
    n = max(1, len(events))
    scores = {"events": float(len(events)), "read_new": round(right / n, 4),
              "read_replaced": round(replaced / n, 4),
              "read_neither": round((len(events) - right - replaced) / n, 4)}
    if asks:
        scores["asked"] = round(unclear / n, 4)
    return scores


def revision_misreads(
    hypotheses: Sequence[Hypothesis | None], events: Sequence[EventRecord]
) -> dict[str, int]:
    """How each genuine changepoint is read, by the first field that differs from its label
    (`abstain`, `dimension`, `value`, `direction`, `scope`, else `exact`), split by channel
    (`user:` / `untrusted:`). `hypotheses` holds the read of each event, as the gate's replay
    takes it (`crossfit.first_hypotheses`)."""
    counts: dict[str, int] = {}
    for event, hypothesis in zip(events, hypotheses, strict=True):
        if not is_revision(event):
            continue
        if hypothesis is None:
            field = "abstain"
        elif hypothesis.subject != event.dimension:
            field = "dimension"
        elif hypothesis.value != event.value:
            field = "value"
        elif hypothesis.direction.value != event.direction:
            field = "direction"
        elif hypothesis.scope != event.scope:
            field = "scope"
        else:
            field = "exact"
        key = f"{'user' if event.origin.value == 'user' else 'untrusted'}:{field}"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))
