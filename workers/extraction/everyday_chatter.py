"""Everyday events that state no preference, written for training the has-preference head.

The benchmark's train split holds its benign chatter in fifteen template families over 55
topics, and none of those topics touches a taxonomy value. An extractor trained on it alone
learned "an unfamiliar sentence about an unfamiliar topic is a preference" and "a taxonomy word
is a preference": on dev, "Where did we leave the piano lessons schedule?" was read as a
preference for classical music, and chatter in a register train never used as an open
preference — confidently enough that the abstention threshold had to sit at 0.995, where terse
genuine revisions ("Update: business class from here on.") fell below it.

This module composes chatter from frames and topics written for it (`data/chatter.yaml`;
nothing is read from the
benchmark's dev or test split or from the third-party data): thanks, follow-ups, questions,
scheduling, status lines, tool outputs, documents and file listings, on everyday topics and on
topics that *mention* a taxonomy value without the user stating a preference for it ("the jazz
festival tickets", "the Python migration script", "the business class upgrade receipt"). They
train the has-preference head only (no field targets).

Frames and topics belong to one of two disjoint sets, as in `open_preferences.py`: `train`
rows train the extractor; `dev` rows (other frames, other topics) measure how far the lesson
transfers (`score_chatter` in the training report).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Literal

from app.core.corpora import corpus_texts, load_records, strings
from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord

Family = Literal["train", "dev"]
# Topics and frames by set (`train`, `dev`).
CHATTER_DATA = Path(__file__).parent / "data" / "chatter.yaml"
_ORIGINS: tuple[Origin, ...] = (
    Origin.user, Origin.user, Origin.user, Origin.tool_output, Origin.retrieved_document,
    Origin.shared_file,
)
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@cache
def mention_topics() -> frozenset[str]:
    """Topics of either set that mention a taxonomy value in passing ("the jazz festival
    tickets"): the value is there, a preference is not."""
    return frozenset(strings(r for r in load_records(CHATTER_DATA)
                             if r.get("table") == "topics" and r.get("kind") == "mention"))


@cache
def topics(family: Family) -> tuple[str, ...]:
    """The everyday topics of a set, then those that mention a taxonomy value."""
    return (*corpus_texts(CHATTER_DATA, family, table="topics", kind="everyday"),
            *corpus_texts(CHATTER_DATA, family, table="topics", kind="mention"))


@cache
def frames(family: Family, origin: Origin) -> tuple[str, ...]:
    """{x} a topic, {y} another topic, {n} a number."""
    return corpus_texts(CHATTER_DATA, family, table="frames", origin=origin.value)


def chatter_events(count: int, family: Family, seed: int) -> list[EventRecord]:
    """`count` benign events (half of the users' own lines, the rest tool outputs,
    documents and files) about everyday topics, a third of them topics that mention a
    taxonomy value; none states a preference."""
    rng = random.Random(seed)
    pool = list(topics(family))
    mentions = [t for t in pool if t in mention_topics()]
    out: list[EventRecord] = []
    for i in range(count):
        origin = rng.choice(_ORIGINS)
        x = rng.choice(mentions) if i % 3 == 0 else rng.choice(pool)
        y = rng.choice([t for t in pool if t != x])
        text = rng.choice(frames(family, origin)).format(x=x, y=y, n=rng.randint(2, 999))
        oracle = {"action": "retain", "attack": False, "topic": x,
                  "template_family": f"chatter/{family}"}
        out.append(EventRecord(f"chatter-{family}-{i}", 0, _EPOCH, origin,
                               text[0].upper() + text[1:], "benign_noise", oracle))
    return out
