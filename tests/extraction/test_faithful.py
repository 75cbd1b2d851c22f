"""Value support: a taxonomy claim survives only where the statement says its value; one
that does not becomes an open claim in the user's words."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from app.domain.claims import Extraction, Hypothesis
from app.domain.extractor import EventInput
from app.domain.vocabulary import Direction, Origin, Timescale
from app.extraction.faithful import (
    ABSTAIN_UNSUPPORTED,
    VALUE_SUPPORT,
    ValueSupport,
    load_value_support,
    said,
    stems,
    value_support,
)
from app.extraction.open_claims import OPEN_MAX_CHARS, OPEN_VALUE, is_open_subject, open_subject
from app.extraction.service import read_text
from app.extraction.taxonomy import DIMENSIONS
from workers.common.episodes import EventRecord, ensure_bench_data, events_of, load_split
from workers.extraction.value_support import HEADER, build

NO_LEXICON = ValueSupport({})
AT = datetime(2025, 3, 3, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "dimension", "value"), [
    ("Keep it concise.", "answer_length", "short"),  # a cue phrase
    ("Please reply in German.", "language", "german"),  # weak cue beside the context
    ("German, please.", "language", "german"),  # a weak cue standing on its own
    ("Stick to month-first dates.", "date_format", "us"),  # a hyphenated cue
    ("I like citations.", "citations", "always"),  # the dimension's polar word
    ("I like citations.", "citations", "never"),
])
def test_the_taxonomy_cues_support_their_value(text: str, dimension: str, value: str) -> None:
    assert NO_LEXICON.supports(text, dimension, value)


@pytest.mark.parametrize(("text", "dimension", "value"), [
    ("I adore German cinema.", "language", "german"),  # the weak cue modifies another noun
    ("Schedule my dentist visits in the morning hours.", "answer_length", "short"),
    ("I want extra legroom when I travel.", "travel_class", "economy"),
    ("Keep it concise.", "answer_length", "detailed"),
    ("Keep it concise.", "no_such_dimension", "short"),
])
def test_a_text_without_the_values_words_does_not_support_it(
        text: str, dimension: str, value: str) -> None:
    assert not value_support().supports(text, dimension, value)


def test_the_learned_lexicon_supports_a_value_by_its_words() -> None:
    support = ValueSupport({("music_genre", "classical"): stems("string quartets")})
    assert support.supports("Put on some string quartets.", "music_genre", "classical")
    assert not support.supports("Put on some string quartets.", "music_genre", "jazz")
    assert not NO_LEXICON.supports("Put on some string quartets.", "music_genre", "classical")


def test_a_typo_the_repair_leaves_still_supports_its_value() -> None:
    support = ValueSupport({("music_genre", "classical"): frozenset({"orchestral", "harp"})},
                           {"music_genre": frozenset({"piece"})})
    assert support.supports("orchestrl pieces, please", "music_genre", "classical")
    assert not support.supports("a carp pond", "music_genre", "classical")  # short: exact
    # A weak cue followed by a word the encoder does not know is not describing it.
    assert NO_LEXICON.supports("loud rock muusicc from now on", "music_genre", "rock")
    assert not NO_LEXICON.supports("rock gardens, please", "music_genre", "rock")


@pytest.mark.parametrize(("text", "dimension", "value"), [
    # The value's word describes another noun.
    ("I prefer economy cars when I rent.", "travel_class", "economy"),
    ("I like casual Fridays at the office.", "tone", "casual"),
    ("I prefer concise commit messages in our repo.", "answer_length", "short"),
    ("I love jazz-era fashion.", "music_genre", "jazz"),  # joined by a hyphen
    ("I like ISO-certified suppliers.", "date_format", "iso"),
    ("I prefer meat thermometers with a digital display.", "diet", "omnivore"),
    # A bare scope noun is the thing described, not a scope.
    ("I'd rather have a thorough code review than a quick one.", "answer_length", "detailed"),
    # An ambiguous word attached by a preposition to another noun.
    ("I skip the comments under YouTube videos.", "code_comments", "none"),
    ("I prefer APA style for the references in my papers.", "citations", "always"),
    ("I like commenting on friends' photos.", "code_comments", "thorough"),
    # A weak cue in an adjunct of another activity.
    ("I like to read in the evening.", "meeting_time", "evening"),
    ("I prefer to do deep work before noon.", "meeting_time", "morning"),
    ("My level of Spanish is intermediate.", "language", "spanish"),
])
def test_a_values_word_about_another_thing_does_not_support_it(
        text: str, dimension: str, value: str) -> None:
    assert not value_support().supports(text, dimension, value)


@pytest.mark.parametrize(("text", "dimension", "value"), [
    ("Economy seats, please.", "travel_class", "economy"),
    ("honestly economy works best for me", "travel_class", "economy"),  # a predicate
    ("Rust yesterday, Rust today.", "code_language", "rust"),
    ("I'd like a casual tone from now on.", "tone", "casual"),
    ("just so you know — tabular summaries is my thing", "format", "table"),  # learned
    ("Going forward, give me overview-level explanations.", "explanation_depth",
     "high_level"),
    ("Citations on everything in your answers.", "citations", "always"),
    ("Keep comments in the code thorough, please.", "code_comments", "thorough"),
    ("Meetings in the evening, please.", "meeting_time", "evening"),
    ("Evenings, please.", "meeting_time", "evening"),
    ("I like Spanish in recipes.", "language", "spanish"),  # a scope, not another noun
    ("first class frpm now one", "travel_class", "first"),  # a typo of a function word
    ("Business-clas seats for me.", "travel_class", "business"),  # of the subject
])
def test_a_values_word_about_the_dimension_supports_it(
        text: str, dimension: str, value: str) -> None:
    assert value_support().supports(text, dimension, value)


def test_stems_hold_words_compounds_and_pairs() -> None:
    words = stems("Late-day slots, please.")
    assert {"late", "day", "slot", "late-day", "late day", "day slot"} <= words
    assert "slots" not in words


def _hypothesis(subject: str, value: str, **fields: object) -> Hypothesis:
    base: dict[str, object] = {
        "claim": f"Prefers {value}", "subject": subject, "value": value,
        "direction": Direction.avoid, "timescale": Timescale.situational, "confidence": 0.77,
        "provenance": Origin.user,
    }
    base.update(fields)
    return Hypothesis.model_validate(base)


def _extraction(*hypotheses: Hypothesis) -> Extraction:
    return Extraction(hypotheses=hypotheses, extractor="test", extractor_version="1")


def test_a_supported_claim_is_kept_as_read() -> None:
    extraction = _extraction(_hypothesis("answer_length", "short"))
    assert said(extraction, "Keep answers brief.", support=NO_LEXICON) is extraction


def test_an_unsupported_claim_becomes_an_open_claim_in_the_users_words() -> None:
    text = "I want extra legroom when I travel."
    out = said(_extraction(_hypothesis("travel_class", "economy")), text, support=NO_LEXICON)
    (opened,) = out.hypotheses
    assert is_open_subject(opened.subject)
    assert opened.subject == open_subject(text)
    assert (opened.claim, opened.value) == (text, OPEN_VALUE)
    assert (opened.direction, opened.timescale, opened.confidence, opened.provenance) == (
        Direction.avoid, Timescale.situational, 0.77, Origin.user)
    assert out.abstain_reason is None


def test_an_unsupported_claim_on_a_text_no_open_claim_keeps_is_dropped() -> None:
    for text in ("I want extra legroom; mail the details to desk@example.org.",
                 "extra legroom " * (OPEN_MAX_CHARS // 10)):
        out = said(_extraction(_hypothesis("travel_class", "economy")), text,
                   support=NO_LEXICON)
        assert out.hypotheses == ()
        assert out.abstain_reason == ABSTAIN_UNSUPPORTED


def test_an_unsupported_claim_on_a_text_stating_no_preference_is_dropped() -> None:
    for text in ("Thanks, that fixed the build.", "Which seats are left on the plane?"):
        out = said(_extraction(_hypothesis("travel_class", "economy")), text,
                   support=NO_LEXICON)
        assert out.hypotheses == (), text
        assert out.abstain_reason == ABSTAIN_UNSUPPORTED


def test_a_settings_export_names_its_value() -> None:
    assert NO_LEXICON.supports('{"key": "date_format", "value": "iso"}', "date_format", "iso")
    assert NO_LEXICON.supports("PUT /prefs explanation-depth=step_by_step",
                               "explanation_depth", "step_by_step")
    assert not NO_LEXICON.supports('{"key": "date_format", "value": "iso"}',
                                   "date_format", "us")


def test_open_claims_and_supported_claims_pass_beside_an_unsupported_one() -> None:
    text = "Short answers, and I want extra legroom."
    supported = _hypothesis("answer_length", "short")
    unsaid = _hypothesis("travel_class", "economy")
    out = said(_extraction(supported, unsaid), text, support=NO_LEXICON)
    assert out.hypotheses[0] is supported
    assert is_open_subject(out.hypotheses[1].subject)
    opened = out.hypotheses[1]
    assert said(_extraction(opened), text, support=NO_LEXICON).hypotheses == (opened,)


def test_the_extractors_reading_counts_as_the_text() -> None:
    """A typo the extractor repairs ("shrot") is read as the word it repairs to."""
    extraction = _extraction(_hypothesis("answer_length", "short"))
    assert said(extraction, "shrot anwsers", support=NO_LEXICON).hypotheses != (
        extraction.hypotheses)
    kept = said(extraction, "shrot anwsers", lambda _: "short answers", support=NO_LEXICON)
    assert kept is extraction


class _Reads:
    """An extractor that reads one fixed taxonomy claim from any text."""

    name = "fixed"
    version = "1"

    def __init__(self, subject: str, value: str) -> None:
        self.hypothesis = _hypothesis(subject, value, direction=Direction.prefer)

    def extract(self, event: EventInput) -> Extraction:
        return _extraction(self.hypothesis.model_copy(update={"provenance": event.origin}))


def test_the_service_reading_applies_value_support() -> None:
    reader = _Reads("language", "french")
    kept = read_text(reader, "Answer me in French from now on.", Origin.user, AT)
    assert [(h.subject, h.value) for h in kept.hypotheses] == [("language", "french")]
    opened = read_text(reader, "I adore French cinema.", Origin.user, AT)
    assert [h.value for h in opened.hypotheses] == [OPEN_VALUE]
    assert opened.hypotheses[0].claim == "I adore French cinema."


def test_the_deterministic_readers_claims_are_supported() -> None:
    """Every claim the rule reader reads from a cue of the taxonomy keeps its value."""
    from app.extraction.deterministic import DeterministicExtractor

    rules = DeterministicExtractor()
    texts = [f"I prefer {v.phrase}." for d in DIMENSIONS for v in d.values]
    for text in texts:
        event = EventInput(text=text, origin=Origin.user, occurred_at=AT)
        extraction = rules.extract(event)
        assert said(extraction, text) is extraction, text


def _event(text: str, dimension: str, value: str, label: str = "genuine_preference",
           origin: Origin = Origin.user) -> EventRecord:
    return EventRecord("e", 0, AT, origin, text, label,
                       {"action": "add", "dimension": dimension, "value": value})


def test_the_lexicon_learns_the_words_that_stand_for_one_value() -> None:
    events = [
        *(_event(f"Orchestral pieces for the commute {i}.", "music_genre", "classical")
          for i in range(5)),
        *(_event(f"Pieces with a swing for the commute {i}.", "music_genre", "jazz")
          for i in range(5)),
        # A weak cue is never learned, nor a word seen with other dimensions as often.
        *(_event(f"Rock around the commute {i}.", "music_genre", "rock") for i in range(5)),
        # Neither a document's words nor a scoped statement's rider count.
        *(_event(f"Symphonic vibes {i}.", "music_genre", "classical", origin=Origin.tool_output)
          for i in range(5)),
        *(_event(f"Symphonic vibes {i}.", "music_genre", "classical", label="context_specific")
          for i in range(5)),
    ]
    words = build(events)["values"]["music_genre"]
    assert "orchestral" in words["classical"]
    assert "orchestral piece" in words["classical"]
    assert "swing" in words["jazz"]
    assert "piece" not in words["classical"]
    assert "commute" not in words["jazz"]
    assert "rock" not in words["rock"]
    assert "symphonic" not in words["classical"]
    assert build(events) == build(list(reversed(events)))


def test_the_words_a_dimensions_statements_put_after_a_value_are_learned(
        tmp_path: Path) -> None:
    events = [
        *(_event(f"Orchestral pieces for the commute {i}.", "music_genre", "classical")
          for i in range(5)),
        *(_event(f"Jazz playlists work best {i}.", "music_genre", "jazz") for i in range(5)),
        *(_event(f"Jazz cars {i}.", "music_genre", "jazz") for i in range(4)),
    ]
    followers = build(events)["followers"]["music_genre"]
    assert "piece" in followers
    assert "work" not in followers  # a predicate passes anyway
    assert "car" not in followers  # under MIN_EVENTS statements
    path = tmp_path / "value_support.yaml"
    path.write_text(yaml.safe_dump(build(events)), encoding="utf-8")
    support = load_value_support(path)
    assert support.followers["music_genre"] == frozenset(followers)
    assert support.supports("Orchestral pieces, please.", "music_genre", "classical")
    assert not support.supports("Jazz cars, please.", "music_genre", "jazz")



def test_the_shipped_lexicon_is_what_the_command_writes() -> None:
    """`capture train value-support` on the seed-0 train split writes the shipped file."""
    lexicon = build(events_of(load_split(ensure_bench_data(), "train")))
    written = HEADER + yaml.safe_dump(lexicon, sort_keys=True, allow_unicode=True)
    assert VALUE_SUPPORT.read_text(encoding="utf-8") == written
    shipped = load_value_support()
    assert {d.name for d in DIMENSIONS} == {d for d, _ in shipped.words}
