"""The revision-side score: mention contexts, value spans, and its shipped weights.

The phrasings are written for this test, not taken from any benchmark split or frame list.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.core.embeddings import get_embedder
from workers.common.weights import save_npz
from workers.extraction.revision_side import (
    WEIGHTS,
    RevisionSide,
    distinct_span,
    fit_scale,
    fit_weight,
    frame_mentions,
    load_revision_side,
    marked_text,
    mention_context,
    outer_mentions,
    side_features,
    value_spans,
)


def _span(text: str, phrase: str) -> tuple[int, int]:
    start = text.index(phrase)
    return start, start + len(phrase)


class TestMentionContext:
    def test_the_words_around_a_mention_within_its_clause(self) -> None:
        text = "had bullet points for ages. time for tables."
        bullets, tables = _span(text, "bullet points"), _span(text, "tables")
        assert mention_context(text, bullets, tables, 2) == "had it for ages"
        assert mention_context(text, tables, bullets, 2) == "time for it"

    def test_the_other_mention_inside_the_window_is_that(self) -> None:
        text = "tables instead of bullet points"
        tables, bullets = _span(text, "tables"), _span(text, "bullet points")
        assert mention_context(text, tables, bullets, 3) == "it instead of that"
        assert mention_context(text, bullets, tables, 3) == "that instead of it"

    def test_a_contrast_word_ends_the_clause(self) -> None:
        text = "i liked tables but now bullet points"
        tables, bullets = _span(text, "tables"), _span(text, "bullet points")
        assert mention_context(text, tables, bullets, 4) == "i liked it"


class TestMarkedText:
    def test_the_whole_text_with_one_mention_as_it_and_the_other_as_that(self) -> None:
        text = "email or text messages? text messages, probably."
        email = _span(text, "email")
        texts = _span(text, "text messages")
        assert marked_text(text, texts, email) == "that or it? text messages, probably."
        assert marked_text(text, email, texts) == "it or that? text messages, probably."


class TestSideFeatures:
    TEXT = "had bullet points for ages. time for tables."

    def test_swapping_the_mentions_negates_the_features(self) -> None:
        bullets, tables = _span(self.TEXT, "bullet points"), _span(self.TEXT, "tables")
        embedder = get_embedder()
        for whole in (False, True):
            forward = side_features(embedder, [(self.TEXT, tables, bullets)], 3, whole)
            back = side_features(embedder, [(self.TEXT, bullets, tables)], 3, whole)
            assert forward.shape == (1, 768 if whole else 384)
            assert np.allclose(forward, -back, atol=1e-6)

    def test_frames_are_filled_with_one_character_placeholders(self) -> None:
        mentions = frame_mentions(("Time for {new}; {old} is done.",), 4, 0, 0.0)
        assert len(mentions) == 4
        for text, new, old in mentions:
            assert text[new[0]:new[1]] == "\x03"
            assert text[old[0]:old[1]] == "\x04"

    def test_weights_from_before_the_whole_text_load_as_window_only(
        self, tmp_path: Path
    ) -> None:
        path = tmp_path / "old.npz"
        save_npz(path, {"weight": np.ones(384, dtype=np.float32)}, {"window": 2})
        side = load_revision_side(path)
        assert side is not None
        assert not side.whole
        bullets, tables = _span(self.TEXT, "bullet points"), _span(self.TEXT, "tables")
        p = side.p_other_wanted(get_embedder(), self.TEXT, bullets, tables)
        assert 0.0 < p < 1.0


class TestValueSpans:
    def test_both_values_of_a_dimension_are_found(self) -> None:
        spans = value_spans("had bullet points for ages. time for tables.", "format")
        assert set(spans) >= {"bullets", "table"}

    def test_a_value_inside_another_values_phrase_is_no_second_value(self) -> None:
        own = [(0, 30)]  # "both metric and imperial units"
        assert distinct_span([(5, 11)], own) is None
        assert distinct_span([(5, 11), (40, 46)], own) == (40, 46)

    def test_a_cue_inside_a_longer_phrase_of_another_value_is_not_its_mention(self) -> None:
        text = "i asked for meatless meals. now fish but no meat, please."
        named = outer_mentions(value_spans(text, "diet"))
        assert named["vegetarian"] == [_span(text, "meatless")]  # "no meat" is pescatarian's
        assert named["pescatarian"] == [_span(text, "fish but no meat")]

    def test_a_value_only_inside_another_values_phrase_is_dropped(self) -> None:
        named = {"both": [(0, 30)], "metric": [(5, 11)], "imperial": [(16, 24), (40, 48)]}
        assert outer_mentions(named) == {"both": [(0, 30)], "imperial": [(40, 48)]}


class TestFit:
    def test_separable_differences_are_scored_the_right_way(self) -> None:
        rng = np.random.default_rng(0)
        direction = rng.normal(size=8)
        differences = rng.normal(size=(200, 8)) + 2.0 * direction
        weight = fit_weight(differences, 1e-3)
        assert np.mean(differences @ weight > 0) > 0.95

    def test_calibration_sharpens_timid_margins(self) -> None:
        margins = np.full(100, 0.1)
        margins[:10] = -0.1  # nine in ten right: calibrated p ≈ 0.9
        scale = fit_scale(margins)
        assert 1.0 / (1.0 + np.exp(-scale * 0.1)) == pytest.approx(0.9, abs=0.02)


class TestShippedScore:
    def test_the_score_is_antisymmetric(self) -> None:
        side = load_revision_side()
        assert side is not None
        text = "had bullet points for ages. time for tables."
        bullets, tables = _span(text, "bullet points"), _span(text, "tables")
        p = side.p_other_wanted(get_embedder(), text, bullets, tables)
        q = side.p_other_wanted(get_embedder(), text, tables, bullets)
        assert p + q == pytest.approx(1.0, abs=1e-5)
        assert p > 0.5

    def test_missing_weights_turn_the_rule_off(self, tmp_path: Path) -> None:
        assert load_revision_side(tmp_path / "absent.npz") is None

    def test_the_shipped_file_is_small_and_says_how_it_was_trained(self) -> None:
        assert WEIGHTS.stat().st_size < 8_000
        metrics = json.loads(WEIGHTS.with_suffix(".metrics.json").read_text())
        assert metrics["pairwise_accuracy"]["blind_frames"] > 0.5
        side = load_revision_side()
        assert isinstance(side, RevisionSide)
        assert side.weight.shape == ((768,) if side.whole else (384,))
        assert side.whole == metrics["whole"]
