"""Composed two-value revisions: the frame families and what each composed event says."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.vocabulary import Origin
from workers.common.episodes import EventRecord
from workers.extraction.augment import (
    BLIND_FAMILIES,
    compose_revisions,
    frames,
    revision_templates,
)
from workers.extraction.train_side import side_frames

_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
SIDE_FRAMES = side_frames("train")
RESERVE_SIDE_FRAMES = side_frames("reserve")
REVISION_TEMPLATES = revision_templates()
# Two train-like events, so that surface forms include a phrase read from events.
TRAIN = [
    EventRecord("e-0", 0, _EPOCH, Origin.user, "Tables please, from now on.", "genuine_preference",
                {"dimension": "format", "value": "table", "direction": "prefer"}),
    EventRecord("e-1", 1, _EPOCH, Origin.user, "Thanks!", "benign_noise", {}),
]


class TestFamilies:
    def test_dev_frames_are_held_out_of_training(self) -> None:
        dev, train = set(frames("dev")), set(frames("train"))
        assert dev
        assert not dev & train
        assert not dev & set(REVISION_TEMPLATES)  # nor in the typo repair's lexicon

    def test_every_frame_names_both_values_once(self) -> None:
        for frame in (*frames("train"), *frames("dev"), *SIDE_FRAMES, *RESERVE_SIDE_FRAMES,
                      *frames("blind"), *frames("blind2")):
            assert (frame.count("{new}"), frame.count("{old}")) == (1, 1), frame
            assert frame.count("{") == 2, frame  # no other placeholder to fill

    def test_the_blind3_sets_name_the_values_they_say(self) -> None:
        for frame in frames("blind3"):
            assert (frame.count("{new}"), frame.count("{old}")) == (1, 1), frame
            assert frame.count("{") == 2, frame
        for frame in frames("blind3_new_only"):
            assert (frame.count("{new}"), frame.count("{old}")) == (1, 0), frame
            assert frame.count("{") == 1, frame

    def test_the_blind3_sets_are_new(self) -> None:
        other = {*frames("train"), *frames("dev"), *frames("blind"), *frames("blind2"),
                   *SIDE_FRAMES, *RESERVE_SIDE_FRAMES, *REVISION_TEMPLATES}
        for family in ("blind3", "blind3_new_only"):
            assert len(set(frames(family))) == len(frames(family))
            assert not set(frames(family)) & other
        assert set(BLIND_FAMILIES) >= {"blind", "blind2", "blind3", "blind3_new_only"}

    def test_a_new_only_frame_composes_a_revision_that_names_one_value(self) -> None:
        for event in compose_revisions(TRAIN, 30, seed=4, family="blind3_new_only"):
            assert event.oracle["replaces"] != event.value
            assert "{" not in event.text

    def test_blind_frames_are_never_trained_on(self) -> None:
        trained = {*frames("train"), *SIDE_FRAMES, *RESERVE_SIDE_FRAMES}
        for family in BLIND_FAMILIES:
            held = set(frames(family))
            assert held
            assert not held & set(frames("train"))
            assert not held & set(REVISION_TEMPLATES)
        assert not set(frames("blind2")) & trained
        # The two frames of set train of data/side_frames.yaml that are also blind frames.
        assert set(frames("blind")) & trained == {
            "Out with {old}, in with {new}.",
            "My preference for {old} has been replaced by one for {new}.",
        }
        assert not set(frames("blind")) & set(frames("blind2"))


class TestComposed:
    def test_labels_the_new_value_and_the_one_it_replaces(self) -> None:
        events = compose_revisions(TRAIN, 50, seed=3, family="dev")
        assert len(events) == 50
        for event in events:
            assert event.origin == Origin.user
            assert event.dimension is not None
            assert event.oracle["replaces"] != event.value
            assert event.template_family == "augmented_revision/dev"

    def test_is_seeded(self) -> None:
        once = [e.text for e in compose_revisions(TRAIN, 20, seed=5)]
        assert once == [e.text for e in compose_revisions(TRAIN, 20, seed=5)]
        assert once != [e.text for e in compose_revisions(TRAIN, 20, seed=6)]


class TestScoredAsking:
    """`score_composed_revisions` counts an unclear side as asked only for a policy that asks,
    and a flagged read of the new value as read new (the shipped extractor with a side score
    that cannot tell, `undecided_side`; this test's own phrasing)."""

    def test_asked_reads_count_as_asked(self, undecided_side: Any) -> None:
        from workers.extraction.metrics import score_composed_revisions

        event = EventRecord(
            "r-0", 0, _EPOCH, Origin.user,
            "Email notifications or text messages? Text messages, probably.",
            "genuine_preference",
            {"dimension": "notification_channel", "value": "sms", "direction": "prefer",
             "replaces": "email"})
        silent = score_composed_revisions(undecided_side, [event])
        asking = score_composed_revisions(undecided_side, [event], asks=True)
        assert "asked" not in silent
        assert silent["read_replaced"] == 1.0
        assert asking == {"events": 1.0, "read_new": 1.0, "read_replaced": 0.0,
                          "read_neither": 0.0, "asked": 1.0}
