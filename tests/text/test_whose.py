"""The whose-words model reads the form around a sentence: the same first-person preference is
the user's in a chat turn and someone else's inside a pasted form."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.text.voice import split_voices
from app.text.whose import WEIGHTS, load, model, units


def test_sentences_keep_addresses_and_decimals_whole() -> None:
    text = "Mail kim@firm.example. It costs 3.50 now!  Really?? ok\nNext line… fine"
    assert [text[u.start:u.end] for u in units(text)] == [
        "Mail kim@firm.example.", "It costs 3.50 now!", "Really??", "ok", "Next line…", "fine"]


def test_lines_and_paragraphs_are_numbered() -> None:
    found = units("one.\ntwo.\n\nthree.")
    assert [(u.line, u.block) for u in found] == [(0, 0), (1, 0), (2, 1)]


def test_the_shipped_weights_carry_the_threshold_their_metrics_report() -> None:
    reader = load(WEIGHTS)
    assert reader is not None
    metrics = json.loads(WEIGHTS.with_suffix(".metrics.json").read_text())
    assert reader.threshold == pytest.approx(metrics["threshold"], abs=1e-6)
    assert reader.weights.dtype == np.float32
    assert reader.dim == metrics["dim"]


def test_a_turn_of_one_sentence_is_never_read_as_someone_elses() -> None:
    reader = model()
    assert reader is not None
    assert reader.other_spans("Per the vendor: I only ever fly business class.") == []


@pytest.mark.parametrize(
    "turn",
    [
        "Can you tidy this up?\n\nDear Mr Okafor,\nMany thanks for the samples. I only drink "
        "green tea these days. We will confirm the order by Friday.\n\nYours sincerely,\n"
        "Helen Brandt\nBrandt & Sons",
        "Rating: 2/5\nPros: quick delivery\nCons: I prefer my coffee black and it came with "
        "sugar.\n— Joe, verified buyer",
    ],
)
def test_a_preference_inside_a_pasted_form_is_not_the_users(turn: str) -> None:
    own, theirs = split_voices(turn)
    assert "prefer" in theirs or "only drink" in theirs
    assert "prefer" not in own
    assert "only drink" not in own


@pytest.mark.parametrize(
    "turn",
    [
        "ugh, long week. Could you keep answers short from now on? I skim everything on my phone.",
        "Morning! My brother visited and we cooked all weekend. I've gone vegetarian, by the way.",
    ],
)
def test_a_preference_in_the_users_own_message_stays_theirs(turn: str) -> None:
    own, theirs = split_voices(turn)
    assert theirs == ""
    assert own == turn
