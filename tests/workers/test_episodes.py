"""What the trainers read as the user's held values before each event (workers/common/episodes)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord, held_before, held_values

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _event(episode: str, index: int, origin: Origin, state_after: dict[str, Any]) -> EventRecord:
    return EventRecord(episode, index, NOW, origin, "text", "label",
                       {"action": "retain", "state_after": state_after})


class TestHeldValues:
    def test_global_and_scoped_values(self) -> None:
        state = {"global": {"format": "bullets"}, "scoped": {"standups": {"format": "table"}}}
        assert held_values(state) == {("format", "bullets"), ("format", "table")}

    def test_empty_state(self) -> None:
        assert held_values({}) == frozenset()


class TestHeldBefore:
    def test_the_state_before_each_user_event_per_episode(self) -> None:
        bullets = {"global": {"format": "bullets"}, "scoped": {}}
        prose = {"global": {"format": "prose"}, "scoped": {}}
        events = [
            _event("e1", 0, Origin.user, bullets),
            _event("e1", 1, Origin.tool_output, bullets),  # not the user channel: nothing
            _event("e1", 2, Origin.user, prose),
            _event("e2", 0, Origin.user, {}),  # another episode starts empty
        ]
        assert held_before(events) == [
            frozenset(),
            frozenset(),
            frozenset({("format", "bullets")}),
            frozenset(),
        ]
