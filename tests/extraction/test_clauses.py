"""A user's own clause after a clause about someone else is read on its own when the whole
sentence reads as nothing, and only then."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache

import pytest

from app.domain.vocabulary import Origin
from app.extraction.clauses import own_clauses
from app.extraction.service import read_text
from workers.extraction.infer import LearnedExtractor, load_extractor

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@cache
def _extractor() -> LearnedExtractor:
    return load_extractor()


@pytest.mark.parametrize(("text", "clauses"), [
    ("My cousin rolls her eyes at it, but I'd like evening meetings.",
     ["I'd like evening meetings."]),
    ("Unlike my old team, I'm all for Rust.", ["I'm all for Rust."]),
    ("Everyone here says otherwise; I want tables.", ["I want tables."]),
    ("I prefer jazz.", []),
    ("When I travel, I prefer aisle seats.", []),
    ("If it rains, I'd like indoor workouts.", []),
])
def test_own_clauses(text: str, clauses: list[str]) -> None:
    assert own_clauses(text) == clauses


def _read(text: str) -> set[tuple[str, str, str]]:
    extraction = read_text(_extractor(), text, Origin.user, NOW)
    return {(h.subject, h.value, h.direction.value) for h in extraction.hypotheses}


def test_a_first_person_clause_after_someone_elses_is_read() -> None:
    assert ("tone", "formal", "prefer") in _read(
        "My brother laughs at me for it, but I'd like a formal tone.")


@pytest.mark.parametrize("text", [
    "Thanks, I appreciate it.",
    "Sorry, I was away for a bit.",
    "Cheers, I'll look at it tonight.",
])
def test_a_clause_that_states_no_preference_adds_nothing(text: str) -> None:
    assert _read(text) == set()
