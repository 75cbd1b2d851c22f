"""Benchmark episodes as the trainers read them (``bench/generator/README.md`` has the fields).

Training reads only the train split; dev is for tuning (temperature, thresholds); test is
read only to report held-out results in the model cards.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from app.domain.vocabulary import Origin

log = logging.getLogger(__name__)

Split = Literal["train", "dev", "test"]
DEFAULT_DATA_SEED = 0


@dataclass(frozen=True, slots=True)
class EventRecord:
    episode_id: str
    index: int
    occurred_at: datetime
    origin: Origin
    text: str
    label: str
    oracle: Mapping[str, Any]

    @property
    def action(self) -> str:
        return str(self.oracle["action"])

    @property
    def session_id(self) -> str:
        return str(self.oracle.get("session_id", ""))

    @property
    def dimension(self) -> str | None:
        value = self.oracle.get("dimension")
        return None if value is None else str(value)

    @property
    def value(self) -> str | None:
        value = self.oracle.get("value")
        return None if value is None else str(value)

    @property
    def direction(self) -> str:
        return str(self.oracle.get("direction") or "prefer")

    @property
    def scope(self) -> str:
        return str(self.oracle.get("scope") or "global")

    @property
    def timescale(self) -> str:
        return str(self.oracle.get("timescale") or "permanent")

    @property
    def template_family(self) -> str:
        return str(self.oracle.get("template_family", ""))

    @property
    def attack(self) -> bool:
        return bool(self.oracle.get("attack", False))


@dataclass(frozen=True, slots=True)
class Episode:
    episode_id: str
    user_id: str
    track: str
    events: tuple[EventRecord, ...]


def ensure_bench_data(data_dir: Path | None = None, seed: int = DEFAULT_DATA_SEED) -> Path:
    """`data_dir` as given, or the generated benchmark for `seed` — the benchmarks' own copy
    under CAPTURE_VAR_DIR, regenerated (seeded, ~5 s) when the generator's source changed."""
    from bench.generator.cache import ensure_dataset

    return ensure_dataset(data_dir, seed)


def _parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def iter_episodes(path: Path) -> Iterator[Episode]:
    with path.open() as handle:
        for line in handle:
            if not line.strip():
                continue
            raw = json.loads(line)
            events = tuple(
                EventRecord(
                    episode_id=raw["episode_id"],
                    index=i,
                    occurred_at=_parse_time(ev["t"]),
                    origin=Origin(ev["origin"]),
                    text=ev["text"],
                    label=ev.get("label", ""),
                    oracle=ev.get("oracle") or {"action": ev.get("expected_action", "retain")},
                )
                for i, ev in enumerate(raw["events"])
            )
            yield Episode(raw["episode_id"], raw["user_id"], raw.get("track", ""), events)


def load_split(data_dir: Path, split: Split, limit: int | None = None) -> list[Episode]:
    """Episodes of one split, in file order; `limit` keeps the first few of each track."""
    episodes = list(iter_episodes(data_dir / f"{split}.jsonl"))
    if limit is None:
        return episodes
    kept: list[Episode] = []
    per_track: dict[str, int] = {}
    for episode in episodes:
        if per_track.get(episode.track, 0) < limit:
            kept.append(episode)
            per_track[episode.track] = per_track.get(episode.track, 0) + 1
    return kept


def events_of(episodes: list[Episode]) -> list[EventRecord]:
    return [event for episode in episodes for event in episode.events]


def held_values(state: Mapping[str, Any]) -> frozenset[tuple[str, str]]:
    """(dimension, value) an oracle state (`state_after`) holds, globally or in some domain:
    what an accurate ledger would hold as the user's active claims."""
    held = {(str(d), str(v)) for d, v in (state.get("global") or {}).items()}
    for values in (state.get("scoped") or {}).values():
        held.update((str(d), str(v)) for d, v in values.items())
    return frozenset(held)


def held_before(events: list[EventRecord]) -> list[frozenset[tuple[str, str]]]:
    """Per event (episode order, `events_of`): what the user held just before it, for
    user-channel events (the extractor reads the ledger only for those); empty otherwise."""
    out: list[frozenset[tuple[str, str]]] = []
    state: dict[str, Mapping[str, Any]] = {}
    for event in events:
        before = state.get(event.episode_id, {})
        out.append(held_values(before) if event.origin == Origin.user else frozenset())
        state[event.episode_id] = event.oracle.get("state_after") or before
    return out
