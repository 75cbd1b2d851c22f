"""The shipped learned extractor reads the new value of a two-value revision, in either order.

The phrasings are written for this test, not taken from any benchmark split.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.extraction.base import EventInput
from app.extraction.schemas import Origin
from workers.extraction.infer import load_extractor

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
