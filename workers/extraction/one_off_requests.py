"""One-off requests that name a taxonomy value, and the same requests made standing, written
for training the extractor.

"Translate this letter into Spanish for my aunt." names a language and states no preference:
it is a task, done once, often for someone else. The benchmark's train split has such requests
in three template families; at the lower abstention threshold of version 6 the extractor read
dev's unseen family of them ("port to Go (for Sam).") as preferences, and the gate spent a
quarter of its dev questions on them (69 of 300) — questions a user's genuine revision later
in the session then lacked.

This module composes one-off requests from task frames and beneficiaries written for it
(`data/one_off_requests.yaml`; nothing read from the benchmark's dev or test split or from
third-party data): a task that names a value of one of the taxonomy's dimensions (translate,
port, convert, lay out, book, cook, play, schedule, send, write a date, word a message), for one
object ("this paragraph", "the quote for the roofer") and, mostly, for someone or some occasion
("for my cousin", "for Tuesday's workshop", "just this once"). They train the has-preference
head only (no field targets), as the authored chatter does. The same task frames made *standing*
("translate your replies into Spanish from now on", `standing_events`) are preferences and train
every head, so that what the extractor learns is once-for-someone against from-now-on, not that
a task verb means no preference (without them, genuine revisions read right out of fold fell
from 94.6 to 92.0 %; docs/models/extractor.md).

Frames, objects and beneficiaries belong to one of two disjoint sets, as in
`everyday_chatter.py`: `train` rows train the extractor; `dev` rows (other frames, other
objects, other beneficiaries) measure how far the lesson transfers (`score_one_off`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Literal

from app.core.corpora import SHARED, corpus_texts, load_records, select, strings
from app.core.corpora import text as field
from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord

Family = Literal["train", "dev"]
# Tasks, beneficiaries and markers by set (`train`, `dev`, `shared`).
ONE_OFF_DATA = Path(__file__).parent / "data" / "one_off_requests.yaml"
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Task:
    """A task that names a value of one dimension, in the frames and objects of one set."""

    dimension: str
    values: tuple[tuple[str, str], ...]  # (words that name a value, the value)
    frames: tuple[str, ...]  # {v} the value, {o} the object
    objects: tuple[str, ...]  # what the task is done to, once
    standing_objects: tuple[str, ...]  # everything of its kind, in a standing request


@cache
def tasks(family: Family) -> tuple[Task, ...]:
    """The tasks of a set, one per dimension, in file order."""
    dimensions = dict.fromkeys(field(r, "dimension") for r in load_records(ONE_OFF_DATA)
                               if r.get("table") == "values")
    return tuple(
        Task(dimension,
             tuple((field(r), field(r, "value"))
                   for r in select(ONE_OFF_DATA, SHARED, table="values", dimension=dimension)),
             corpus_texts(ONE_OFF_DATA, family, table="task_frames", dimension=dimension),
             corpus_texts(ONE_OFF_DATA, family, table="objects", dimension=dimension),
             corpus_texts(ONE_OFF_DATA, family, table="standing_objects", dimension=dimension))
        for dimension in dimensions
    )


@cache
def _texts(family: str, table: str) -> tuple[str, ...]:
    return strings(select(ONE_OFF_DATA, family, table=table), allow_empty=family == SHARED)


def _request(rng: random.Random, family: Family, standing: bool) -> tuple[str, str, str]:
    """(text, dimension, value) of one request, one-off or standing."""
    task = rng.choice(tasks(family))
    word, value = rng.choice(task.values)
    body = rng.choice(task.frames).format(
        v=word, o=rng.choice(task.standing_objects if standing else task.objects))
    leads = _texts(SHARED, "leads")
    if standing:
        marker = rng.randrange(2)
        text = (rng.choice(_texts(family, "standing_before")) + body if marker
                else rng.choice(leads) + body + rng.choice(_texts(family, "standing_after")))
    else:
        text = rng.choice(leads) + body
        if rng.random() < 0.8:
            text += " " + rng.choice(_texts(family, "beneficiaries"))
    text += rng.choice(_texts(SHARED, "endings"))
    return text[0].upper() + text[1:], task.dimension, value


def one_off_events(count: int, family: Family, seed: int) -> list[EventRecord]:
    """`count` user requests for a one-time task that names a taxonomy value; none states a
    preference. Most name someone or some occasion the task is for."""
    rng = random.Random(seed)
    out: list[EventRecord] = []
    for i in range(count):
        text, dimension, _ = _request(rng, family, standing=False)
        oracle = {"action": "retain", "attack": False, "mentions": dimension,
                  "template_family": f"one_off/{family}"}
        out.append(EventRecord(f"one-off-{family}-{i}", 0, _EPOCH, Origin.user, text,
                               "benign_noise", oracle))
    return out


def standing_events(count: int, family: Family, seed: int) -> list[EventRecord]:
    """`count` standing requests with the same task frames ("translate your replies into
    Spanish from now on"): a preference for the value named (prefer, global, permanent). They
    keep the one-off lesson from teaching that a task verb means no preference."""
    rng = random.Random(seed + 1)
    out: list[EventRecord] = []
    for i in range(count):
        text, dimension, value = _request(rng, family, standing=True)
        oracle = {"action": "add", "attack": False, "dimension": dimension, "value": value,
                  "direction": "prefer", "scope": "global", "timescale": "permanent",
                  "template_family": f"standing_request/{family}"}
        out.append(EventRecord(f"standing-{family}-{i}", 0, _EPOCH, Origin.user, text,
                               "genuine_preference", oracle))
    return out
