"""Authored chatter (`workers/extraction/everyday_chatter.py`) and what the shipped extractor
learned from it: chatter, even about a topic that names a taxonomy value, is not a preference.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.domain.extractor import EventInput
from app.domain.vocabulary import Origin
from workers.extraction.everyday_chatter import chatter_events, frames, mention_topics, topics
from workers.extraction.infer import load_extractor

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def test_chatter_keeps_dev_frames_and_topics_out_of_training() -> None:
    train = chatter_events(600, "train", seed=0)
    dev = chatter_events(600, "dev", seed=0)
    assert all(e.dimension is None and e.label == "benign_noise" for e in train + dev)
    held_out = topics("dev")
    assert held_out
    assert not set(held_out) & set(topics("train"))
    for event in train:
        assert not any(topic.lower() in event.text.lower() for topic in held_out), event.text
    for origin in Origin:
        assert not set(frames("train", origin)) & set(frames("dev", origin))
    assert {e.origin for e in train} == set(Origin)
    # One event in three names a topic that mentions a taxonomy value.
    mentions = sum(e.oracle["topic"] in mention_topics() for e in train)
    assert mentions >= 200
    assert [e.text for e in chatter_events(50, "train", seed=0)] == [e.text for e in train[:50]]


@pytest.mark.parametrize(
    "text",
    [
        # Written for this test: registers and topics of neither the benchmark nor the frames.
        "Cheers, the piano tuner's invoice is paid now.",
        "Where's the receipt for the business class upgrade my manager booked?",
        "Any news on the jazz night fundraiser tickets?",
        "The Spanish tutor cancelled again, can you move her to Friday?",
    ],
)
def test_chatter_that_names_a_taxonomy_value_is_not_a_preference(text: str) -> None:
    read = load_extractor().extract(EventInput(text, Origin.user, NOW))
    assert read.hypotheses == (), [(h.subject, h.value) for h in read.hypotheses]


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Going forward, book me business class.", ("travel_class", "business")),
        ("From now on, send my alerts by text message.", ("notification_channel", "sms")),
    ],
)
def test_terse_revisions_are_still_read(text: str, claim: tuple[str, str]) -> None:
    read = load_extractor().extract(EventInput(text, Origin.user, NOW))
    assert [(h.subject, h.value) for h in read.hypotheses] == [claim]
