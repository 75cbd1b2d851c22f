"""Preferences the taxonomy does not cover, written for training the extractor's open class.

The benchmark's events only ever state preferences on the sixteen taxonomy dimensions, so an
extractor trained on them alone files every other preference under the nearest dimension ("I
can't stand horror movies" became a preference for high-level explanations). Users state such
preferences all the time; the right reading is an *open* claim in the user's own words, not a
wrong taxonomy value. This module composes them from topics and sentence frames written for it
(`data/open_preferences.yaml`; nothing is read from the benchmark's dev or test split or from
the third-party data), plus sentences about the same topics that state no preference of the
user's (requests, questions, other people's tastes) and sarcastic praise ("Oh great, my flight
got delayed again. Just what I wanted."), so that neither a topic nor praise alone reads as a
preference.

The same frames are also filled with the taxonomy's own values (`taxonomy_statements`, surface
forms seen in train events), labelled with their taxonomy claim: the wording of a frame then
says that a preference is stated, and only the topic says whether the taxonomy covers it.

Frames and topics belong to one of two disjoint sets: `train` rows train the extractor,
`dev` rows (other frames, other topics) are held out to measure how the open class transfers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Literal

from app.core.corpora import SHARED, corpus_texts, load_records, select, strings
from app.core.corpora import text as field
from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord

# The subject an open claim is filed under in training labels (`dataset.build_rows`).
OPEN_DIMENSION = "open"
Family = Literal["train", "dev"]
# Topics, frames, reasons and nuisances by set (`train`, `dev`, `shared`).
OPEN_PREFERENCES_DATA = Path(__file__).parent / "data" / "open_preferences.yaml"
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


@cache
def topics(family: Family) -> Mapping[str, tuple[str, ...]]:
    """Each domain's topics outside the taxonomy, of one set."""
    domains = dict.fromkeys(field(r, "domain") for r in load_records(OPEN_PREFERENCES_DATA)
                            if r.get("table") == "topics")
    return {domain: corpus_texts(OPEN_PREFERENCES_DATA, family, table="topics", domain=domain)
            for domain in domains}


@cache
def _texts(family: str, table: str) -> tuple[str, ...]:
    return strings(select(OPEN_PREFERENCES_DATA, family, table=table),
                   allow_empty=family == SHARED)


@cache
def preference_frames(family: Family) -> tuple[tuple[str, str], ...]:
    """(frame, direction) of a stated preference: {x} the topic, {y} another topic of its
    domain, {r} a reason."""
    return tuple((field(r), field(r, "direction"))
                 for r in select(OPEN_PREFERENCES_DATA, family, table="preference_frames"))


def _fill(frame: str, rng: random.Random, topics: list[str]) -> str:
    x, y = rng.sample(topics, 2)
    text = frame.format(x=x, y=y, r=rng.choice(_texts(SHARED, "reasons")))
    return text[0].upper() + text[1:]


def taxonomy_statements(
    forms: dict[tuple[str, str], list[str]], count: int, seed: int
) -> list[EventRecord]:
    """`count` preferences on taxonomy values written with the `train` frames: {x} a surface
    form of the value stated, {y} one of another value of its dimension."""
    rng = random.Random(seed)
    by_dimension: dict[str, list[str]] = {}
    for dimension, value in forms:
        by_dimension.setdefault(dimension, []).append(value)
    dimensions = sorted(d for d, values in by_dimension.items() if len(values) >= 2)
    out: list[EventRecord] = []
    for i in range(count):
        dimension = rng.choice(dimensions)
        value, other = rng.sample(sorted(by_dimension[dimension]), 2)
        frame, direction = rng.choice(preference_frames("train"))
        text = frame.format(x=rng.choice(forms[(dimension, value)]),
                            y=rng.choice(forms[(dimension, other)]),
                            r=rng.choice(_texts(SHARED, "reasons")))
        oracle = {"action": "add", "attack": False, "dimension": dimension, "value": value,
                  "direction": direction, "scope": "global", "timescale": "permanent",
                  "template_family": "open_frame_taxonomy/train"}
        out.append(EventRecord(f"open-frame-{i}", 0, _EPOCH, Origin.user,
                               text[0].upper() + text[1:], "genuine_preference", oracle))
    return out


def open_preference_events(count: int, family: Family, seed: int) -> list[EventRecord]:
    """`count` user events, half stating an open preference (prefer or avoid, global,
    permanent), half stating none: the same topics in requests, questions and other people's
    tastes, and (one in six events) sarcastic praise of a nuisance."""
    rng = random.Random(seed)
    by_domain = topics(family)
    domains = sorted(by_domain)
    out: list[EventRecord] = []
    for i in range(count):
        domain_topics = list(by_domain[rng.choice(domains)])
        if i % 2 == 0:
            frame, direction = rng.choice(preference_frames(family))
            lead = rng.choice(_texts(SHARED, "leads"))
            body = _fill(frame, rng, domain_topics)
            pronoun_i = body[0] == "I" and not body[1].isalpha()  # "I ...", "I'm ...": kept
            text = lead + (body[0].lower() + body[1:] if lead and not pronoun_i else body)
            oracle = {"action": "add", "attack": False, "dimension": OPEN_DIMENSION,
                      "value": OPEN_DIMENSION, "direction": direction, "scope": "global",
                      "timescale": "permanent", "template_family": f"open_preference/{family}"}
            label = "genuine_preference"
        elif i % 6 == 5:
            nuisance = rng.choice(_texts(family, "nuisances"))
            text = rng.choice(_texts(family, "sarcasm_frames")).format(z=nuisance)
            text = text[0].upper() + text[1:]
            oracle = {"action": "retain", "attack": False,
                      "template_family": f"open_sarcasm/{family}"}
            label = "sarcasm"
        else:
            text = _fill(rng.choice(_texts(family, "neutral_frames")), rng, domain_topics)
            oracle = {"action": "retain", "attack": False,
                      "template_family": f"open_neutral/{family}"}
            label = "benign_noise"
        out.append(EventRecord(f"open-{family}-{i}", 0, _EPOCH, Origin.user, text, label,
                               oracle))
    return out
