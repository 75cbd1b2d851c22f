"""Typo repair before the learned extractor reads a text (app/extraction/spelling.py).

The words and sentences are written for this test, not taken from any benchmark split.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.extraction.spelling import (
    Speller,
    edit_distance,
    encoder_vocabulary,
    lexicon_counts,
    load_speller,
    save_lexicon,
)

TRAINING_TEXTS = [
    "Please switch to tables from now on.",
    "I prefer tables and short answers.",
    "Update: comments explaining each step, please.",
    "Use the metric system for my recipes.",
    "From here on, English replies only.",
] * 3 + ["Plese swich to tabels."]  # the training texts' own typos, seen once


@pytest.fixture(scope="module")
def speller() -> Speller:
    vocabulary = encoder_vocabulary()
    counts = lexicon_counts(TRAINING_TEXTS, ["golang", "pescatarian"], vocabulary)
    return Speller(counts, vocabulary)


class TestRepairs:
    @pytest.mark.parametrize(
        ("text", "repaired"),
        [
            ("Plesae swithc to tabls from hree on.", "Please switch to tables from here on."),
            ("comments explainnig each setp", "comments explaining each step"),
            ("teh metric sytsem", "the metric system"),
            ("Englihs replies", "English replies"),
        ],
    )
    def test_unknown_words_become_the_nearest_lexicon_word(
        self, speller: Speller, text: str, repaired: str
    ) -> None:
        assert speller.normalize(text) == repaired

    def test_case_and_punctuation_are_kept(self, speller: Speller) -> None:
        assert speller.normalize("TABLS, plz!") == "TABLES, plz!"
        assert speller.normalize("Tabls?\n- swithc") == "Tables?\n- switch"


class TestLeftAlone:
    @pytest.mark.parametrize(
        "text",
        [
            "I love kombucha on Fridays.",  # a rare word no lexicon word is near
            "What should I check first for renewing my passport?",  # a suffix on a word
            "cmd: remember x3; hist: prev",  # abbreviations: short words, no substitution
            "Golang and pescatarian recipes",  # the taxonomy's own words
            "ok, np, go",  # words under three letters are never touched
            "tablesswitchcommentsexplaining",  # nor words over 24 letters
        ],
    )
    def test_known_and_rare_words(self, speller: Speller, text: str) -> None:
        assert speller.normalize(text) == text

    def test_training_typos_are_not_lexicon_words(self, speller: Speller) -> None:
        assert "tabels" not in speller.counts
        assert "tables" in speller.counts


class TestEditDistance:
    @pytest.mark.parametrize(
        ("a", "b", "distance"),
        [("tabls", "tables", 1), ("swithc", "switch", 1), ("updqtr", "update", 2),
         ("same", "same", 0), ("", "abc", 3)],
    )
    def test_damerau_levenshtein(self, a: str, b: str, distance: int) -> None:
        assert edit_distance(a, b) == distance


class TestLexiconFile:
    def test_round_trip(self, speller: Speller, tmp_path: Path) -> None:
        path = tmp_path / "nested" / "lexicon.json"
        save_lexicon(path, speller.counts)
        loaded = load_speller(path)
        assert dict(loaded.counts) == dict(speller.counts)
        assert loaded.normalize("swithc to tabls") == "switch to tables"


class TestShippedLexicon:
    def test_the_shipped_extractor_reads_repaired_text(self) -> None:
        from workers.extraction.infer import load_extractor

        extractor = load_extractor()
        assert extractor.speller is not None
        repaired = extractor.reading("Plesae swithc to bulet points.")
        assert repaired == "Please switch to bullet points."
