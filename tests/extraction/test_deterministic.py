"""The deterministic extractor: what it reads, what it refuses to read, and that it never fails.

Pure unit tests: no database, no fixtures from conftest.
"""

from __future__ import annotations

import random
import string
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from app.domain.claims import Extraction, Hypothesis, ProtectedAttributeError, protected_category
from app.domain.extractor import EventInput, Extractor
from app.domain.vocabulary import Direction, Origin, Timescale
from app.extraction.deterministic import DeterministicExtractor, claim_text, split_sentences
from app.extraction.taxonomy import (
    DIMENSIONS,
    DIMENSIONS_BY_NAME,
    SCOPE_DOMAINS,
    compile_cues,
    find_scopes,
)

EXTRACTOR = DeterministicExtractor()
AT = datetime(2025, 1, 1, tzinfo=UTC)


def extract(text: str, origin: Origin = Origin.user) -> Extraction:
    return EXTRACTOR.extract(EventInput(text=text, origin=origin, occurred_at=AT))


def only(text: str) -> Hypothesis:
    extraction = extract(text)
    assert len(extraction.hypotheses) == 1, (text, extraction)
    return extraction.hypotheses[0]


def readings(text: str) -> set[tuple[str, str, Direction]]:
    return {(h.subject, h.value, h.direction) for h in extract(text).hypotheses}


NON_PREFERENCES = [
    "The deploy finished at 3pm and everything looks green.",
    "We had pasta for dinner last night.",
    "The quarterly report is due on Friday.",
    "Python 3.12 was released in October.",
    "Our standup ran long today.",
    "The client emailed about the invoice.",
    "I'm flying to Berlin next week.",
    "The table in the kitchen is broken.",
    "Rust has a steep learning curve.",
    "My flight was delayed by two hours.",
    "It rained all weekend.",
    "The meeting got moved to the afternoon.",
    "I read an article about jazz history.",
    "The build failed because of a missing dependency.",
    "Let me know when the PR is merged.",
    "I just finished a ten mile bike ride.",
    "The restaurant serves vegan and vegetarian dishes.",
    "The tests are running in CI now.",
    "I need to fix the bug before the demo.",
    "I'm working on a Python script for the data pipeline.",
    "Give me an example of a table join in SQL.",
    "Send the report to Alice.",
    "I'm running the tests now.",
    "Python is a great language.",
    "I'm writing a Python script.",
    "The user is writing a Python script.",
    "I'd like to go.",
    "Turn on the fan.",
]


class TestProtocol:
    def test_names_and_version(self) -> None:
        extractor: Extractor = DeterministicExtractor()
        assert (extractor.name, extractor.version) == ("deterministic", "1")

    def test_records_itself_on_the_extraction(self) -> None:
        extraction = extract("I prefer short answers.")
        assert extraction.extractor == "deterministic"
        assert extraction.extractor_version == "1"
        assert extraction.abstain_reason is None

    def test_provenance_is_the_event_origin(self) -> None:
        for origin in Origin:
            extraction = extract("The user prefers short answers.", origin=origin)
            assert [h.provenance for h in extraction.hypotheses] == [origin]


class TestTaxonomy:
    def test_at_least_fourteen_dimensions_of_three_values(self) -> None:
        assert len(DIMENSIONS) >= 14
        for dimension in DIMENSIONS:
            names = [v.name for v in dimension.values]
            assert len(names) >= 3, dimension.name
            assert len(set(names)) == len(names), dimension.name
            assert all(v.cues for v in dimension.values), dimension.name

    @pytest.mark.parametrize(
        ("dimension", "values"),
        [
            ("answer_length", {"short", "medium", "detailed"}),
            ("code_language", {"python", "typescript", "rust", "go", "java"}),
            ("format", {"bullets", "prose", "table"}),
            ("citations", {"always", "never", "on_request"}),
            ("tone", {"formal", "casual", "playful"}),
            ("units", {"metric", "imperial", "both"}),
            ("diet", {"vegetarian", "vegan", "omnivore", "pescatarian"}),
            ("explanation_depth", {"high_level", "step_by_step", "expert"}),
            ("meeting_time", {"morning", "afternoon", "evening"}),
            ("notification_channel", {"email", "slack", "sms"}),
            ("travel_class", {"economy", "business", "first"}),
            ("date_format", {"iso", "us", "european"}),
            ("language", {"english", "spanish", "french", "german"}),
            ("code_comments", {"minimal", "thorough", "none"}),
            ("music_genre", {"jazz", "rock", "classical", "pop"}),
            ("exercise", {"running", "cycling", "yoga", "swimming"}),
        ],
    )
    def test_dimension_has_its_canonical_values(self, dimension: str, values: set[str]) -> None:
        assert {v.name for v in DIMENSIONS_BY_NAME[dimension].values} == values

    def test_scope_domains(self) -> None:
        assert {s.name for s in SCOPE_DOMAINS} == {
            "standups",
            "design_reviews",
            "weekend_project",
            "code_review",
            "client_emails",
            "travel",
            "cooking",
            "workouts",
            "blog_posts",
            "incident_response",
        }

    def test_every_cue_compiles(self) -> None:
        for dimension in DIMENSIONS:
            for value in dimension.values:
                assert compile_cues(value.cues) is not None
                compile_cues(value.weak_cues)

    def test_nothing_in_the_taxonomy_is_protected(self) -> None:
        for dimension in DIMENSIONS:
            for value in dimension.values:
                for text in (dimension.name, value.name, value.phrase):
                    assert protected_category(text) is None, text

    def test_scope_phrases_are_found(self) -> None:
        assert [name for _, _, name in find_scopes("in standups and for the weekend project")] == [
            "standups",
            "weekend_project",
        ]


class TestPreferenceStatements:
    @pytest.mark.parametrize(
        ("text", "subject", "value"),
        [
            ("I prefer short answers.", "answer_length", "short"),
            ("Please keep it brief.", "answer_length", "short"),
            ("I'd like detailed answers from now on.", "answer_length", "detailed"),
            ("I'd rather you write the examples in Rust.", "code_language", "rust"),
            ("Switch to TypeScript for the frontend.", "code_language", "typescript"),
            ("Let's use Go for the backend service.", "code_language", "go"),
            ("Please always use bullet points.", "format", "bullets"),
            ("Tables work best for me.", "format", "table"),
            ("Always cite your sources.", "citations", "always"),
            ("Only cite sources when I ask.", "citations", "on_request"),
            ("When I'm writing to clients, use a formal tone.", "tone", "formal"),
            ("I like a playful tone with a few jokes.", "tone", "playful"),
            ("Please use metric units.", "units", "metric"),
            ("Please use both metric and imperial units.", "units", "both"),
            ("I'm vegetarian.", "diet", "vegetarian"),
            ("I don't eat meat.", "diet", "vegetarian"),
            ("Walk me through it step by step.", "explanation_depth", "step_by_step"),
            ("I'm an expert, skip the basics.", "explanation_depth", "expert"),
            ("I prefer afternoon meetings.", "meeting_time", "afternoon"),
            ("Schedule my meetings in the morning please.", "meeting_time", "morning"),
            ("Send notifications by email.", "notification_channel", "email"),
            ("I'd rather get updates on Slack.", "notification_channel", "slack"),
            ("I usually fly business class.", "travel_class", "business"),
            ("Use ISO dates.", "date_format", "iso"),
            ("Use DD/MM/YYYY dates.", "date_format", "european"),
            ("From now on, respond in Spanish.", "language", "spanish"),
            ("Keep code comments minimal.", "code_comments", "minimal"),
            ("I love classical music.", "music_genre", "classical"),
            ("Swimming is my favorite workout.", "exercise", "swimming"),
            ("The user prefers concise answers.", "answer_length", "short"),
            ("The user is vegan.", "diet", "vegan"),
            ("Preferred format: bullet points.", "format", "bullets"),
            ("No fluff, just the facts.", "answer_length", "short"),
            ("I'm a big jazz fan.", "music_genre", "jazz"),
            ("I go cycling every weekend.", "exercise", "cycling"),
            ("I program mostly in Rust these days.", "code_language", "rust"),
        ],
    )
    def test_reads_subject_and_value(self, text: str, subject: str, value: str) -> None:
        assert (subject, value, Direction.prefer) in readings(text)

    def test_several_dimensions_in_one_sentence(self) -> None:
        assert readings("The user prefers concise answers and metric units.") == {
            ("answer_length", "short", Direction.prefer),
            ("units", "metric", Direction.prefer),
        }

    def test_several_sentences_keep_their_index(self) -> None:
        extraction = extract("Thanks for the help! I prefer tables. Also, respond in French.")
        by_subject = {h.subject: h.sentence_index for h in extraction.hypotheses}
        assert by_subject == {"format": 1, "language": 2}

    def test_claim_is_canonical_not_the_sentence(self) -> None:
        hypothesis = only("honestly i'd MUCH rather get super concise replies in standups")
        assert hypothesis.claim == "Prefers short answers in standups"

    def test_claim_text_names_scope_and_timescale(self) -> None:
        claim = claim_text(
            DIMENSIONS_BY_NAME["format"],
            "table",
            Direction.avoid,
            "code_review",
            Timescale.situational,
        )
        assert claim == "Avoids tables in code reviews for now"


class TestNegation:
    @pytest.mark.parametrize(
        ("text", "subject", "value"),
        [
            ("Don't use tables.", "format", "table"),
            ("Stop using bullet points.", "format", "bullets"),
            ("No more jokes, please.", "tone", "playful"),
            ("I don't like long answers.", "answer_length", "detailed"),
            ("I hate Java.", "code_language", "java"),
            ("I'm not a fan of jazz.", "music_genre", "jazz"),
            ("Never use Java.", "code_language", "java"),
            ("Please don't be so formal.", "tone", "formal"),
            ("Long answers are annoying.", "answer_length", "detailed"),
            ("Your answers are too long.", "answer_length", "detailed"),
            ("The user does not want emails.", "notification_channel", "email"),
        ],
    )
    def test_negation_is_avoid(self, text: str, subject: str, value: str) -> None:
        assert (subject, value, Direction.avoid) in readings(text)

    def test_contrast_splits_prefer_and_avoid(self) -> None:
        assert readings("I prefer Python over Java.") == {
            ("code_language", "python", Direction.prefer),
            ("code_language", "java", Direction.avoid),
        }
        assert readings("Stop using bullet points and write in prose.") == {
            ("format", "bullets", Direction.avoid),
            ("format", "prose", Direction.prefer),
        }
        assert readings("Switch from Java to Go for the backend.") == {
            ("code_language", "java", Direction.avoid),
            ("code_language", "go", Direction.prefer),
        }

    def test_but_not(self) -> None:
        assert readings("I like jazz but not rock.") == {
            ("music_genre", "jazz", Direction.prefer),
            ("music_genre", "rock", Direction.avoid),
        }

    @pytest.mark.parametrize(
        ("text", "subject", "value"),
        [
            ("Don't include citations.", "citations", "never"),
            ("No citations please.", "citations", "never"),
            ("Don't add comments to the code.", "code_comments", "none"),
        ],
    )
    def test_refusing_a_dimension_picks_its_negative_value(
        self, text: str, subject: str, value: str
    ) -> None:
        assert readings(text) == {(subject, value, Direction.prefer)}

    def test_hedge_words_containing_not_do_not_negate(self) -> None:
        assert ("answer_length", "short", Direction.prefer) in readings(
            "I'm not sure, but I think I prefer short answers."
        )


class TestScope:
    @pytest.mark.parametrize(
        ("text", "scope"),
        [
            ("I prefer short answers in standups.", "standups"),
            ("For the weekend project, I want Python.", "weekend_project"),
            ("When I'm writing to clients, use a formal tone.", "client_emails"),
            ("In code reviews, be casual.", "code_review"),
            ("Use bullet points in design reviews.", "design_reviews"),
            ("Please use metric units in recipes.", "cooking"),
            ("In blog posts I prefer a casual tone.", "blog_posts"),
            ("During incidents, keep it short.", "incident_response"),
            ("I prefer short answers.", "global"),
        ],
    )
    def test_scope_phrase_sets_scope(self, text: str, scope: str) -> None:
        assert only(text).scope == scope

    def test_scope_phrase_is_not_read_as_a_value(self) -> None:
        # "client emails" is a scope here, not the email notification channel.
        assert readings("When writing client emails, use a formal tone.") == {
            ("tone", "formal", Direction.prefer)
        }

    def test_each_clause_keeps_its_own_scope(self) -> None:
        extraction = extract(
            "In standups keep it short, but in design reviews give me detailed answers."
        )
        assert {(h.value, h.scope) for h in extraction.hypotheses} == {
            ("short", "standups"),
            ("detailed", "design_reviews"),
        }

    def test_a_dimensions_home_scope_does_not_narrow_it(self) -> None:
        assert only("When traveling I prefer business class.").scope == "global"


class TestTimescale:
    @pytest.mark.parametrize(
        "text",
        [
            "For now, use imperial units.",
            "Just for this task, give me detailed answers.",
            "Use tables today.",
            "This week, please keep answers short.",
            "Temporarily switch to Python.",
        ],
    )
    def test_situational(self, text: str) -> None:
        hypothesis = only(text)
        assert hypothesis.timescale is Timescale.situational
        assert hypothesis.claim.endswith("for now")

    @pytest.mark.parametrize(
        "text",
        [
            "Always use bullet points.",
            "From now on, respond in German.",
            "In general, I prefer prose.",
            "I prefer tables.",
        ],
    )
    def test_permanent(self, text: str) -> None:
        assert only(text).timescale is Timescale.permanent


class TestConfidence:
    def test_within_bounds(self) -> None:
        for hypothesis in extract("I prefer Python. Maybe tables? Keep it short.").hypotheses:
            assert 0.0 < hypothesis.confidence < 1.0

    def test_hedges_lower_it(self) -> None:
        plain = only("I prefer short answers.").confidence
        assert only("Maybe I prefer short answers.").confidence < plain
        assert only("I guess I kind of prefer short answers.").confidence < plain
        assert only("I think I prefer short answers.").confidence < plain

    def test_a_stated_preference_beats_a_habit(self) -> None:
        assert only("I prefer Python.").confidence > only("I usually write Python.").confidence

    def test_polite_request_question_is_read_lower(self) -> None:
        request = only("Could you always use tables?")
        assert request.value == "table"
        assert request.confidence < only("Always use tables.").confidence

    def test_weak_cue_is_read_lower_than_explicit(self) -> None:
        assert only("I prefer short.").confidence < only("I prefer short answers.").confidence


class TestAbstention:
    @pytest.mark.parametrize(
        "text",
        ["Thanks, that was helpful!", "OK thanks.", "lol", "Hello there.", "Good morning!"],
    )
    def test_chit_chat(self, text: str) -> None:
        extraction = extract(text)
        assert extraction.abstained
        assert extraction.abstain_reason == "no_preference_cue"

    @pytest.mark.parametrize(
        "text",
        [
            "Do you prefer Python or Rust?",
            "What's the best format for a report?",
            "Should I use tables here?",
            "Is metric better than imperial?",
            "Maybe use tables?",
        ],
    )
    def test_questions(self, text: str) -> None:
        extraction = extract(text)
        assert extraction.abstained
        assert extraction.abstain_reason == "question"

    @pytest.mark.parametrize("text", NON_PREFERENCES)
    def test_non_preference_sentences(self, text: str) -> None:
        extraction = extract(text)
        assert extraction.abstained, extraction.hypotheses
        assert extraction.abstain_reason in {"no_preference_cue", "no_dimension"}

    def test_all_non_preferences_together(self) -> None:
        assert extract(" ".join(NON_PREFERENCES)).abstained

    def test_preference_cue_without_a_known_dimension(self) -> None:
        assert extract("I prefer the blue one.").abstain_reason == "no_dimension"

    @pytest.mark.parametrize(
        "text",
        [
            "My colleague prefers tables.",
            "He likes jazz.",
            "Maria prefers short answers.",
            "My boss wants bullet points in every report.",
        ],
    )
    def test_statements_about_other_people(self, text: str) -> None:
        assert extract(text).abstain_reason == "third_party"

    def test_someone_else_in_one_clause_the_user_in_another(self) -> None:
        assert readings("My wife loves jazz, but I prefer classical music.") == {
            ("music_genre", "classical", Direction.prefer)
        }

    @pytest.mark.parametrize(
        "text",
        [
            "If I were a Java developer I'd prefer Java.",
            "Imagine you preferred tables.",
            "Suppose I wanted short answers.",
        ],
    )
    def test_hypotheticals(self, text: str) -> None:
        assert extract(text).abstain_reason == "hypothetical"

    def test_quoted_preferences(self) -> None:
        assert extract('The post was titled "I prefer tables".').abstain_reason == "quoted"

    @pytest.mark.parametrize("text", ["", "   ", "\n\n\t"])
    def test_empty(self, text: str) -> None:
        assert extract(text).abstain_reason == "empty"

    def test_code_blocks_are_not_read(self) -> None:
        assert extract("```python\n# always use tables\nx = 1\n```").abstained


class TestProtectedAttributes:
    @pytest.mark.parametrize(
        "text",
        [
            "I have diabetes so I prefer vegetarian meals.",
            "I'm vegetarian for religious reasons.",
            "As a Muslim I prefer short answers.",
            "I'm a conservative, please use a formal tone.",
            "I'm gay and I love pop music.",
            "My therapist says I should prefer short answers.",
            "Because of my anxiety, keep it short.",
            "I'm Hispanic, so respond in Spanish.",
            "I only eat kosher, so vegetarian recipes please.",
            "Halal meat only; otherwise I am an omnivore.",
        ],
    )
    def test_never_emitted(self, text: str) -> None:
        extraction = extract(text)
        assert extraction.abstained
        assert extraction.abstain_reason == "protected_attribute"

    def test_other_sentences_of_the_event_still_read(self) -> None:
        extraction = extract("I have chronic back pain. Anyway, please use tables.")
        assert [(h.subject, h.value) for h in extraction.hypotheses] == [("format", "table")]
        assert extraction.hypotheses[0].sentence_index == 1

    @pytest.mark.parametrize(
        ("claim", "subject", "value"),
        [
            ("Prefers church services on Sunday", "schedule", "sunday"),
            ("Prefers short answers", "religion", "short"),
            ("Prefers short answers", "format", "republican"),
            ("Has a diagnosis of depression", "health", "depression"),
        ],
    )
    def test_schema_refuses_them_directly(self, claim: str, subject: str, value: str) -> None:
        with pytest.raises(ValidationError, match="protected attribute") as raised:
            Hypothesis(
                claim=claim,
                subject=subject,
                value=value,
                confidence=0.9,
                provenance=Origin.user,
            )
        # Pydantic wraps the refusal (a ValueError); its cause is the protected-attribute error.
        assert isinstance(raised.value, ValueError)
        errors = raised.value.errors()
        assert any(isinstance(e["ctx"]["error"], ProtectedAttributeError) for e in errors)

    def test_nothing_emitted_touches_a_protected_category(self) -> None:
        corpus = NON_PREFERENCES + [
            "I prefer short answers in standups.",
            "Don't use tables.",
            "The user prefers concise answers and metric units.",
            "I pray every morning, so schedule meetings in the afternoon.",
            "I'm a liberal; please use a casual tone.",
        ]
        for text in corpus:
            for hypothesis in extract(text).hypotheses:
                for field in (hypothesis.claim, hypothesis.subject, hypothesis.value):
                    assert protected_category(field) is None


class TestTypos:
    def test_lower_case_and_missing_apostrophes(self) -> None:
        assert ("format", "table", Direction.avoid) in readings("dont use tables")
        assert ("answer_length", "short", Direction.prefer) in readings("i prefer short answers")

    @pytest.mark.parametrize("text", ["i prefre short answers", "I perfer short answers."])
    def test_common_misspelling_reads_right_or_abstains(self, text: str) -> None:
        extraction = extract(text)
        assert extraction.abstained or readings(text) == {
            ("answer_length", "short", Direction.prefer)
        }

    def test_curly_apostrophes(self) -> None:
        assert ("format", "table", Direction.avoid) in readings("Don\u2019t use tables.")


class TestDeterminism:
    TEXT = (
        "Thanks! In standups keep it short, but in design reviews give me detailed answers. "
        "Never use Java; I prefer Python over Go. For now, use tables."
    )

    def test_same_input_same_output(self) -> None:
        first = extract(self.TEXT)
        for _ in range(5):
            assert extract(self.TEXT) == first
        assert (
            DeterministicExtractor().extract(
                EventInput(text=self.TEXT, origin=Origin.user, occurred_at=AT)
            )
            == first
        )

    def test_later_sentence_corrects_earlier(self) -> None:
        extraction = extract("I like jazz. Actually, I don't like jazz anymore.")
        assert [(h.value, h.direction, h.sentence_index) for h in extraction.hypotheses] == [
            ("jazz", Direction.avoid, 1)
        ]


class TestRobustness:
    @pytest.mark.parametrize(
        "text",
        [
            "?",
            "((((((((((",
            "\x00\x01\x02",
            "a" * 100_000,
            "I prefer " + "x" * 5_000 + " tables.",
            "not not not no no never " * 300,
            "İ prefer short answers. ﬁne. 中文 😀 ñandú “quoted” — dash",
            "def f(x):\n    return x  # use tables\n",
            "SELECT * FROM users WHERE name = 'I prefer tables';",
            '{"user": {"prefers": ["short answers", "tables"]}}',
            "\u200b\u200b I\u200bprefer\u200b tables",
            "Don't. No. Never! Always? Please... ,,,;;;:::",
        ],
    )
    def test_odd_inputs_do_not_fail(self, text: str) -> None:
        extraction = extract(text)
        assert extraction.abstain_reason != "internal_error"

    def test_random_text_never_fails(self) -> None:
        rng = random.Random(7)
        alphabet = string.printable + "ñçüßİıﬁ“”‘’—–…😀中文\u200b"
        words = [
            "I", "prefer", "don't", "no", "not", "short", "tables", "python", "go", ",", ".",
            "?", "!", '"', "'", "(", ")", ":", ";", "please", "always", "never", "in",
            "standups", "for now", "maybe", "the user prefers", "```", "`", "my wife", "if",
        ]  # fmt: skip
        for i in range(300):
            if i % 2:
                text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
            else:
                text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 60)))
            assert extract(text).abstain_reason != "internal_error", text

    def test_huge_text_is_bounded(self) -> None:
        extraction = extract("I prefer short answers. " * 10_000)
        assert [(h.subject, h.value) for h in extraction.hypotheses] == [("answer_length", "short")]

    def test_sentence_splitting_keeps_abbreviations(self) -> None:
        assert split_sentences("Use a format, e.g. tables. Thanks!") == [
            "Use a format, e.g. tables.",
            "Thanks!",
        ]
