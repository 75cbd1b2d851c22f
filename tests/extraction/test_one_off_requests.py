"""Authored one-off requests (`workers/extraction/one_off_requests.py`): a task that names a
taxonomy value, done once or for someone else, states no preference."""

from __future__ import annotations

from workers.extraction.one_off_requests import (
    BENEFICIARIES,
    TASKS,
    one_off_events,
    standing_events,
)


def test_dev_frames_objects_and_beneficiaries_stay_out_of_training() -> None:
    train = one_off_events(800, "train", seed=0)
    dev = one_off_events(200, "dev", seed=0)
    assert all(e.dimension is None and e.label == "benign_noise" for e in train + dev)
    held_out_objects = [o for _, _, _, objects, _ in TASKS for o in objects[3::4]]
    held_out_for = BENEFICIARIES[3::4]
    for event in train:
        text = event.text.lower()
        assert not any(o.lower() in text for o in held_out_objects), event.text
        assert not any(b in text for b in held_out_for), event.text
    # Every dimension of the taxonomy the tasks cover appears in both families.
    assert {e.oracle["mentions"] for e in train} == {e.oracle["mentions"] for e in dev}
    assert [e.text for e in one_off_events(40, "train", seed=0)] == [e.text for e in train[:40]]


def test_standing_requests_are_preferences_on_the_value_named() -> None:
    events = standing_events(300, "train", seed=0)
    values = {(d, value) for d, pairs, _, _, _ in TASKS for _, value in pairs}
    assert all(e.label == "genuine_preference" for e in events)
    assert all((e.dimension, e.value) in values for e in events)
    assert all(e.direction == "prefer" and e.scope == "global" for e in events)
    # Standing objects, never the one-off ones or a beneficiary.
    one_off_objects = {o.lower() for _, _, _, objects, _ in TASKS for o in objects}
    assert not any(o in e.text.lower() for e in events for o in one_off_objects)
