"""A revision's contrast read against what the user holds (workers/extraction/contrast.py), and
the write path handing the extractor those values (app/extraction/service.py)."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy.orm import Session

from app.domain.claims import Extraction
from app.domain.extractor import EventInput
from app.domain.vocabulary import Origin
from app.extraction import service as extraction_service
from app.models import Event
from tests.ledger.conftest import LedgerDriver
from workers.extraction.contrast import (
    UNCLEAR_SIDE_MIN_PROBABILITY,
    contrast_claim,
    unclear_side_claim,
)
from workers.extraction.vocab import CLAIM_INDEX, CLAIMS

ISO = CLAIM_INDEX[("date_format", "iso")]
EUROPEAN = CLAIM_INDEX[("date_format", "european")]
SHORT = CLAIM_INDEX[("answer_length", "short")]
DIM = 384


def _unit(index: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[index] = 1.0
    return v


# Each claim class's phrase embedded as its own unit vector: similarity says which it names.
VECTORS = {claim: _unit(i) for i, claim in enumerate(CLAIMS)}


def _phrases() -> dict[tuple[str, str], np.ndarray]:
    return VECTORS


def _claim(**probabilities: float) -> np.ndarray:
    p = np.zeros(len(CLAIMS) + 1, dtype=np.float32)
    for name, value in probabilities.items():
        p[{"iso": ISO, "european": EUROPEAN, "short": SHORT}[name]] = value
    return p


HELD_EUROPEAN = frozenset({("date_format", "european")})


class TestContrastClaim:
    def test_a_rejected_stretch_naming_the_held_value_turns_the_read(self) -> None:
        """'ISO dates rather than day-first dates', held: day-first, read: day-first."""
        claim = _claim(european=0.55, iso=0.40)
        assert contrast_claim(claim, _unit(EUROPEAN), Origin.user, HELD_EUROPEAN,
                              _phrases) == ISO

    def test_still_x_not_y_is_left_alone(self) -> None:
        """'Still day-first dates, not ISO', held: day-first: the rejected stretch names ISO."""
        claim = _claim(european=0.55, iso=0.40)
        assert contrast_claim(claim, _unit(ISO), Origin.user, HELD_EUROPEAN, _phrases) is None

    @pytest.mark.parametrize(
        ("claim", "rejected", "origin", "held"),
        [
            # No rejected stretch: a plain restatement of what is held.
            (_claim(european=0.55, iso=0.40), np.zeros(DIM, np.float32), Origin.user,
             HELD_EUROPEAN),
            # The read is not what the user holds.
            (_claim(european=0.55, iso=0.40), _unit(EUROPEAN), Origin.user,
             frozenset({("date_format", "us")})),
            # The other value is too unlikely.
            (_claim(european=0.97, iso=0.02), _unit(EUROPEAN), Origin.user, HELD_EUROPEAN),
            # The user holds the other value too (in some domain).
            (_claim(european=0.55, iso=0.40), _unit(EUROPEAN), Origin.user,
             HELD_EUROPEAN | {("date_format", "iso")}),
            # Not the user channel: the gate judges what a document says.
            (_claim(european=0.55, iso=0.40), _unit(EUROPEAN), Origin.retrieved_document,
             HELD_EUROPEAN),
        ],
    )
    def test_keeps_the_read(self, claim: np.ndarray, rejected: np.ndarray, origin: Origin,
                            held: frozenset[tuple[str, str]]) -> None:
        assert contrast_claim(claim, rejected, origin, held, _phrases) is None

    def test_only_values_of_the_same_dimension(self) -> None:
        claim = _claim(european=0.55, short=0.40)
        assert contrast_claim(claim, _unit(EUROPEAN), Origin.user, HELD_EUROPEAN,
                              _phrases) is None


NO_REJECTED = np.zeros(DIM, np.float32)


class TestUnclearSideClaim:
    """'I've changed my mind about day-first dates. I want ISO.': no rejected stretch, the
    heads split between the held value and another; the other is asked about."""

    def test_the_other_value_is_asked_about(self) -> None:
        claim = _claim(european=0.6, iso=0.35)
        assert unclear_side_claim(claim, NO_REJECTED, Origin.user, HELD_EUROPEAN) == ISO

    @pytest.mark.parametrize(
        ("claim", "rejected", "origin", "held"),
        [
            # A plain restatement: the heads hardly consider another value.
            (_claim(european=0.95, iso=UNCLEAR_SIDE_MIN_PROBABILITY / 2), NO_REJECTED,
             Origin.user, HELD_EUROPEAN),
            # A rejected stretch: it says which side is left (`contrast_claim` reads it).
            (_claim(european=0.6, iso=0.35), _unit(ISO), Origin.user, HELD_EUROPEAN),
            # The read is not a held value: no revision of it in question.
            (_claim(european=0.6, iso=0.35), NO_REJECTED, Origin.user,
             frozenset({("date_format", "us")})),
            # The other value is held too.
            (_claim(european=0.6, iso=0.35), NO_REJECTED, Origin.user,
             HELD_EUROPEAN | {("date_format", "iso")}),
            # Not the user channel: nobody to ask about a document's sides.
            (_claim(european=0.6, iso=0.35), NO_REJECTED, Origin.tool_output, HELD_EUROPEAN),
            # Another dimension's value is no other side.
            (_claim(european=0.6, short=0.35), NO_REJECTED, Origin.user, HELD_EUROPEAN),
        ],
    )
    def test_keeps_the_read(self, claim: np.ndarray, rejected: np.ndarray, origin: Origin,
                            held: frozenset[tuple[str, str]]) -> None:
        assert unclear_side_claim(claim, rejected, origin, held) is None


class _Recorder:
    name = "recorder"
    version = "1"
    reads_held = True

    def __init__(self) -> None:
        self.seen: list[EventInput] = []

    def extract(self, event: EventInput) -> Extraction:
        self.seen.append(event)
        return Extraction(extractor=self.name, extractor_version=self.version,
                          abstain_reason="no_preference")


class TestWritePathHandsHeldValues:
    def test_user_events_come_with_the_users_active_claims(self, db: Session) -> None:
        driver = LedgerDriver(db, "recency")
        driver.say("date_format", "european")
        driver.say("answer_length", "short", origin=Origin.tool_output)  # held too, by recency
        event = db.query(Event).order_by(Event.seq.desc()).first()
        assert event is not None
        recorder = _Recorder()
        event.origin = Origin.user.value
        extraction_service.extract(db, recorder, event)
        assert ("date_format", "european") in recorder.seen[-1].held
        event.origin = Origin.tool_output.value
        extraction_service.extract(db, recorder, event)
        assert recorder.seen[-1].held == frozenset()

    def test_extractors_that_do_not_read_them_get_none(self, db: Session) -> None:
        driver = LedgerDriver(db, "recency")
        driver.say("date_format", "european")
        event = db.query(Event).order_by(Event.seq.desc()).first()
        assert event is not None
        recorder = _Recorder()
        recorder.reads_held = False
        extraction_service.extract(db, recorder, event)
        assert recorder.seen[-1].held == frozenset()
