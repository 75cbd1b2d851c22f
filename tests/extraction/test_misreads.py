"""`metrics.revision_misreads`: each genuine changepoint counted once, by the first field its
read gets wrong, per channel; other events are not counted."""

from __future__ import annotations

from datetime import UTC, datetime

from app.domain.claims import Hypothesis
from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord
from workers.extraction.metrics import revision_misreads

_AT = datetime(2024, 1, 1, tzinfo=UTC)


def _event(i: int, origin: Origin = Origin.user, *, changepoint: bool = True,
           scope: str = "global") -> EventRecord:
    return EventRecord("e", i, _AT, origin, "text", "genuine_preference",
                       {"changepoint": changepoint, "attack": False, "dimension": "format",
                        "value": "table", "direction": "prefer", "scope": scope})


def _read(value: str = "table", subject: str = "format", scope: str = "global",
          direction: str = "prefer") -> Hypothesis:
    return Hypothesis(claim=f"Prefers {value}", subject=subject, value=value,
                      direction=direction, scope=scope, confidence=0.9, provenance=Origin.user)


def test_the_first_field_misread_per_channel() -> None:
    events = [_event(0), _event(1), _event(2), _event(3), _event(4, scope="travel"),
              _event(5, Origin.tool_output), _event(6, changepoint=False)]
    reads = [_read(), None, _read(subject="tone", value="casual"), _read(value="prose"),
             _read(), _read(value="prose", direction="avoid"), None]
    assert revision_misreads(reads, events) == {
        "untrusted:value": 1, "user:abstain": 1, "user:dimension": 1, "user:exact": 1,
        "user:scope": 1, "user:value": 1,
    }


def test_direction_before_scope() -> None:
    assert revision_misreads([_read(direction="avoid", scope="travel")], [_event(0)]) == {
        "user:direction": 1}
