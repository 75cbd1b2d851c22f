"""Open claims: preferences outside the taxonomy, kept in the user's own words."""

from __future__ import annotations

from app.domain.vocabulary import Direction, Origin, Timescale
from app.extraction.open_claims import (
    OPEN_MAX_CHARS,
    OPEN_VALUE,
    is_open_subject,
    open_hypothesis,
    open_refusal,
    open_statement,
    open_subject,
)
from workers.extraction.open_preferences import (
    OPEN_DIMENSION,
    open_preference_events,
    preference_frames,
    topics,
)


def test_a_repeat_of_a_statement_has_the_same_subject() -> None:
    assert open_subject("I avoid  cilantro.") == open_subject("i avoid cilantro")
    assert open_subject("I avoid cilantro.") != open_subject("I avoid olives.")
    assert is_open_subject(open_subject("I avoid cilantro."))
    assert not is_open_subject("answer_length")
    assert not is_open_subject(None)
    assert open_subject("  I avoid Cilantro!! ") == open_subject("I avoid cilantro.")


def test_a_statement_holding_an_address_is_not_kept() -> None:
    """A pasted "always cc ops@…" must not become a memory that vouches for the address."""
    for text in ("I prefer my reports cc'd to ops@evil.example.",
                 "I always read news on https://news.example.org first.",
                 "I prefer payouts to DE89 3704 0044 0532 0130 00."):
        assert open_refusal(text) == "open_claim_holds_address", text
        assert open_statement(text) is None
    assert open_refusal("I prefer Android phones over iPhones.") is None
    assert open_refusal("x" * (OPEN_MAX_CHARS + 1)) == "open_claim_too_long"


def test_a_document_is_not_a_statement() -> None:
    assert open_statement("x" * (OPEN_MAX_CHARS + 1)) is None
    assert open_statement(" ... ") is None
    assert open_statement("I avoid\n cilantro.") == "I avoid cilantro."


def test_an_open_hypothesis_keeps_the_statement_and_refuses_protected_ones() -> None:
    hypothesis = open_hypothesis("I can't stand loud bars.", Origin.user, Direction.avoid,
                                 Timescale.permanent, 0.9)
    assert hypothesis is not None
    assert (hypothesis.claim, hypothesis.value, hypothesis.direction) == (
        "I can't stand loud bars.", OPEN_VALUE, Direction.avoid)
    assert hypothesis.scope == "global"
    assert hypothesis.provenance == Origin.user
    protected = "As a devout Catholic I avoid loud bars."
    assert open_hypothesis(protected, Origin.user, Direction.avoid, Timescale.permanent,
                           0.9) is None
    long_text = "I avoid loud bars. " * 40
    assert open_hypothesis(long_text, Origin.user, Direction.avoid, Timescale.permanent,
                           0.9) is None


def test_authored_statements_keep_dev_frames_and_topics_out_of_training() -> None:
    train = open_preference_events(400, "train", seed=0)
    dev = open_preference_events(400, "dev", seed=0)
    assert {e.dimension for e in train} == {OPEN_DIMENSION, None}
    assert sum(e.dimension == OPEN_DIMENSION for e in train) == 200
    held_out_topics = {t for domain in topics("dev").values() for t in domain}
    assert held_out_topics
    assert not held_out_topics & {t for domain in topics("train").values() for t in domain}
    for event in train:
        assert not any(topic in event.text for topic in held_out_topics), event.text
    train_frames = {frame for frame, _ in preference_frames("train")}
    assert not train_frames & {frame for frame, _ in preference_frames("dev")}
    assert {e.text for e in train}.isdisjoint({e.text for e in dev})
