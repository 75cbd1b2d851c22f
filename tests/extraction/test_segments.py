"""Splitting a revision into the side it keeps and the side it rejects."""

from __future__ import annotations

import random

import pytest

from workers.extraction.augment import add_typos
from workers.extraction.segments import roles, split_sides


class TestRejectedSide:
    @pytest.mark.parametrize(
        ("text", "rejected"),
        [
            ("Let's do tea in the mornings instead of coffee.", "coffee"),
            ("Green rather than blue, please", "blue"),
            ("We are moving from Postgres to MySQL next week", "postgres"),
            ("I'm done with spreadsheets, dashboards from here on", "spreadsheets"),
            ("no more podcasts. audiobooks please", "podcasts"),
            ("Mondays didn't work for me so now Tuesdays", "mondays"),
            ("vim -> emacs", "vim"),
            ("scratch the red theme, dark mode now", "the red theme"),
            ("Trains, not planes.", "planes"),
        ],
    )
    def test_finds_the_replaced_stretch(self, text: str, rejected: str) -> None:
        sides = split_sides(text)
        assert sides.has_rejected
        assert sides.rejected == rejected
        assert rejected not in sides.kept

    def test_keeps_the_new_value_in_both_orders(self) -> None:
        first = split_sides("dark roast instead of light roast from now on")
        last = split_sides("instead of light roast, dark roast from now on")
        for sides in (first, last):
            assert sides.rejected == "light roast"
            assert "dark roast" in sides.kept

    def test_tolerates_one_typo_in_a_marker(self) -> None:
        assert split_sides("dark mode isntead of light mode").rejected == "light mode"
        assert split_sides("tea rahter than coffee").rejected == "coffee"

    def test_stops_a_from_stretch_at_to(self) -> None:
        assert split_sides("switching from tabs to spaces").rejected == "tabs"

    @pytest.mark.parametrize(
        ("text", "rejected"),
        [
            ("Replace tabs with spaces.", "tabs"),
            ("Swap the light theme for the dark one", "the light theme"),
            ("For future reference, tables are preferred over bullet points.", "bullet points"),
            ("honestly I'm so over podcasts, audiobooks from here", "podcasts"),
            ("yeah no, spreadsheets isn't doing it for me", "spreadsheets"),
            ("Use dashboards. Spreadsheets is not what I want.", "spreadsheets"),
            ("I thought I loved vim, then I tried emacs", "vim"),
        ],
    )
    def test_reads_exchanges_and_later_markers(self, text: str, rejected: str) -> None:
        assert split_sides(text).rejected == rejected

    @pytest.mark.parametrize(
        "text",
        ["We went over the budget.", "I'll send it over email.", "Game over, see you.",
         "Over the weekend I tried tea.", "Dark mode from here, thanks.",
         "We talked it over dinner.", "Don't forget: I still want tables.",
         "lol I forgot about the review entirely"],
    )
    def test_over_and_from_here_alone_reject_nothing(self, text: str) -> None:
        assert not split_sides(text).has_rejected


class TestNothingRejected:
    @pytest.mark.parametrize(
        "text",
        [
            "I prefer short answers.",
            "From now on, write in French.",
            "Keep it not too long, not too short.",
            "HTTP 200 (84 ms)",
            "",
        ],
    )
    def test_returns_the_text_untouched(self, text: str) -> None:
        sides = split_sides(text)
        assert not sides.has_rejected
        assert sides.kept == text
        assert sides.rejected == ""

    def test_marks_the_marker_words(self) -> None:
        tagged = roles("tea instead of coffee")
        assert tagged == [("tea", 0), ("instead", 2), ("of", 2), ("coffee", -1)]


class TestTypos:
    def test_are_seeded_and_keep_short_words(self) -> None:
        text = "prefer concise answers to long ones"
        once = add_typos(text, random.Random(3), 2)
        assert once == add_typos(text, random.Random(3), 2)
        assert once != text
        assert once.split(" ")[3] == "to"
