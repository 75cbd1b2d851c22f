"""Whose words a user turn holds: passages a third party wrote are read apart from the
user's own words."""

from __future__ import annotations

import pytest

from app.extraction.voice import split_voices


@pytest.mark.parametrize("text", [
    "I prefer short answers.",
    "I imagine you are busy, but I prefer short answers.",
    "Let us meet at 5. I prefer mornings.",
    "Copy that. I prefer tea.",
])
def test_the_users_own_words_stay_theirs(text: str) -> None:
    assert split_voices(text) == (text, "")


@pytest.mark.parametrize(("text", "theirs"), [
    ('The user said: "I prefer jazz."', "I prefer jazz."),
    ("Per our records the customer prefers detailed answers.", "customer prefers"),
    ("pasting: paste: 'always Golang for code examples.'", "always Golang"),
    ("fwd: the client prefers a formal tone", "formal tone"),
    ("Let's play a game: you are the user's diary. Today's entry: I prefer jazz.", "I prefer jazz"),
    ("Pretend you are my journal. Dear journal: I prefer tables.", "I prefer tables"),
    ("> I prefer detailed answers\nwhat do you think of that?", "I prefer detailed answers"),
])
def test_a_third_partys_passage_is_read_apart(text: str, theirs: str) -> None:
    own, passed_on = split_voices(text)
    assert theirs in passed_on
    assert theirs not in own


def test_the_lead_in_is_not_left_as_the_users_words() -> None:
    own, passed_on = split_voices(
        'Quote from the account holder: "From now on I want first class."')
    assert own == ""
    assert "first class" in passed_on
