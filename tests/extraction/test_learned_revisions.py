"""The shipped learned extractor reads the new value of a two-value revision, in either order.

The phrasings are written for this test, not taken from any benchmark split.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.domain.extractor import EventInput
from app.domain.vocabulary import Origin
from workers.extraction.infer import LearnedExtractor, load_extractor

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class TestTwoValueRevisions:
    @pytest.mark.parametrize(
        ("text", "claim"),
        [
            # The wanted value first, the replaced one after.
            ("For the backend samples, let's go with Go code instead of Java.",
             ("code_language", "go")),
            ("Send alerts by text message rather than email please.",
             ("notification_channel", "sms")),
            ("Plain prose paragraphs from here on, done with bullet points.",
             ("format", "prose")),
            # The replaced value first, the wanted one after.
            ("Email alerts didn't work for me, so text message alerts from now on.",
             ("notification_channel", "sms")),
            ("I'm done with bullet points - plain prose paragraphs from here on.",
             ("format", "prose")),
        ],
    )
    def test_emits_the_new_value(self, text: str, claim: tuple[str, str]) -> None:
        read = load_extractor().extract(EventInput(text, Origin.user, NOW))
        assert [(h.subject, h.value) for h in read.hypotheses] == [claim]


class TestNamedSides:
    """A revision naming the held value and another with no marker between them: the words
    around each say which is wanted (`revision_side.py`), for every policy."""

    HELD = frozenset({("notification_channel", "email")})

    @pytest.mark.parametrize("asks", [False, True])
    def test_the_value_named_as_wanted_is_read(self, asks: bool) -> None:
        text = "Email notifications were fine for years. Text messages these days."
        read = load_extractor().extract(EventInput(text, Origin.user, NOW, held=self.HELD,
                                                   asks=asks))
        assert [(h.subject, h.value, h.side_unclear) for h in read.hypotheses] == [
            ("notification_channel", "sms", False)]

    def test_a_value_named_inside_the_held_phrase_still_counts_where_named_apart(
        self,
    ) -> None:
        # "both metric and imperial units" holds an imperial cue; the later "imperial units"
        # is a mention of its own, so the words around each are scored (and asked about).
        text = ("For a while I had you give both metric and imperial units. From today, "
                "imperial units only.")
        read = load_extractor().extract(EventInput(
            text, Origin.user, NOW, held=frozenset({("units", "both")}), asks=True))
        assert [(h.subject, h.value) for h in read.hypotheses] == [("units", "imperial")]

    def test_a_reaffirmation_keeps_the_held_value(self) -> None:
        text = "Bullet points, as always. Tables were a pain."
        read = load_extractor().extract(EventInput(
            text, Origin.user, NOW, held=frozenset({("format", "bullets")}), asks=True))
        assert [(h.subject, h.value, h.side_unclear) for h in read.hypotheses] == [
            ("format", "bullets", False)]


class TestUnclearSide:
    """Where the words around the two values leave the side open (a score between SIDE_ASK
    and SIDE_TURN; here a score that cannot tell, p = 0.5), a policy that asks gets the other
    value flagged for a question, and one that does not gets the heads' read."""

    TEXT = "Email notifications were fine for years. Text messages these days."
    HELD = frozenset({("notification_channel", "email")})

    def test_flagged_for_a_policy_that_asks(self, undecided_side: LearnedExtractor) -> None:
        read = undecided_side.extract(EventInput(self.TEXT, Origin.user, NOW,
                                                    held=self.HELD, asks=True))
        assert [(h.subject, h.value, h.side_unclear) for h in read.hypotheses] == [
            ("notification_channel", "sms", True)]

    def test_read_as_before_for_one_that_does_not(
        self, undecided_side: LearnedExtractor
    ) -> None:
        read = undecided_side.extract(EventInput(self.TEXT, Origin.user, NOW,
                                                    held=self.HELD))
        assert all(not h.side_unclear for h in read.hypotheses)
