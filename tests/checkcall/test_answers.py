"""A user's reply to check-call's question: a yes only when nothing in it hedges."""

from __future__ import annotations

import pytest

from app.checkcall.provenance import Answer, answer_of


@pytest.mark.parametrize(("reply", "answer"), [
    ("yes", Answer.confirmed),
    ("Yes, go ahead.", Answer.confirmed),
    ("Sure, no problem.", Answer.confirmed),
    ("yes, that's what I want", Answer.confirmed),
    ("no", Answer.declined),
    ("Don't send it.", Answer.declined),
    ("ok hmm, hold on", None),
    ("sure... who is that, though?", None),
    ("fine, but not to that address", None),
    ("yeah no", None),
    ("okay, whose address is that", None),
    ("Thanks for the summary.", None),
])
def test_answer_of(reply: str, answer: Answer | None) -> None:
    assert answer_of(reply) == answer
