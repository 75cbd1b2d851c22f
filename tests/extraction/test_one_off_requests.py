"""Authored one-off requests (`workers/extraction/one_off_requests.py`): a task that names a
taxonomy value, done once or for someone else, states no preference."""

from __future__ import annotations

from app.core.corpora import corpus_texts
from workers.extraction.one_off_requests import (
    ONE_OFF_DATA,
    one_off_events,
    standing_events,
    tasks,
)


def test_dev_frames_objects_and_beneficiaries_stay_out_of_training() -> None:
    train = one_off_events(800, "train", seed=0)
    dev = one_off_events(200, "dev", seed=0)
    assert all(e.dimension is None and e.label == "benign_noise" for e in train + dev)
    held_out_objects = [o for task in tasks("dev") for o in task.objects]
    held_out_for = corpus_texts(ONE_OFF_DATA, "dev", table="beneficiaries")
    assert not set(held_out_objects) & {o for task in tasks("train") for o in task.objects}
    assert not set(held_out_for) & set(corpus_texts(ONE_OFF_DATA, "train", table="beneficiaries"))
    for event in train:
        text = event.text.lower()
        assert not any(o.lower() in text for o in held_out_objects), event.text
        assert not any(b in text for b in held_out_for), event.text
    # Every dimension of the taxonomy the tasks cover appears in both families.
    assert {e.oracle["mentions"] for e in train} == {e.oracle["mentions"] for e in dev}
    assert [e.text for e in one_off_events(40, "train", seed=0)] == [e.text for e in train[:40]]


def test_standing_requests_are_preferences_on_the_value_named() -> None:
    events = standing_events(300, "train", seed=0)
    values = {(task.dimension, value) for task in tasks("train") for _, value in task.values}
    assert all(e.label == "genuine_preference" for e in events)
    assert all((e.dimension, e.value) in values for e in events)
    assert all(e.direction == "prefer" and e.scope == "global" for e in events)
    # Standing objects, never the one-off ones or a beneficiary.
    one_off_objects = {o.lower() for family in ("train", "dev") for task in tasks(family)
                       for o in task.objects}
    assert not any(o in e.text.lower() for e in events for o in one_off_objects)
