"""Inf(n) = U(y_factual) − U(y without n), the drop rule, top-3 and the running influence."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from app.audit.counterfactual import counterfactual, same_output, top_cited, updated_influence
from app.domain.audit import Decoded
from app.selection.memory import Memory
from app.selection.safety import SafetyAssessment
from app.selection.selector import Selection, SelectorConfig, decide
from workers.audit.reselect import ReselectDecoder, indifferent

MEMORIES = [Memory("diet", subject="diet", value="vegan"),
            Memory("tone", subject="tone", value="casual"),
            Memory("units", subject="units", value="metric"),
            Memory("music", subject="music_genre", value="jazz")]


class KeywordUtility:
    """U(y) = 1 when y mentions every value the memories hold about 'food', else 0.2."""

    name = "keyword"

    def score(self, prompt: str, memories: Sequence[Memory],
              candidates: Sequence[str]) -> npt.NDArray[np.float32]:
        wanted = [m.value for m in memories if m.subject == "diet"]
        return np.array([1.0 if all(w and w in c for w in wanted) else 0.2
                         for c in candidates], dtype=np.float32)


class KeywordDecoder:
    """Says 'vegan curry' when a vegan memory is present, else 'steak'."""

    name = "keyword"

    def decode_many(self, prompt: str, memory_sets: Sequence[Sequence[Memory]],
                    candidates: Sequence[str]) -> list[Decoded]:
        return [Decoded("vegan curry" if any(m.value == "vegan" for m in ms) else "steak")
                for ms in memory_sets]


class TestCounterfactual:
    def test_necessary_node_kept_others_dropped(self) -> None:
        outcome = counterfactual("dinner?", MEMORIES, ["tone", "diet", "units"],
                                 KeywordDecoder(), response="vegan curry",
                                 utility=KeywordUtility())  # type: ignore[arg-type]
        by_node = {c.node_id: c for c in outcome.citations}
        assert by_node["diet"].influence == pytest.approx(0.8)
        assert by_node["diet"].kept
        assert by_node["diet"].selection_changed
        assert not by_node["tone"].kept
        assert by_node["tone"].influence == 0.0
        assert outcome.kept_node_ids == ["diet"]
        assert outcome.response_matches_factual

    def test_only_top_three_by_memory_rank(self) -> None:
        assert top_cited(["music", "units", "tone", "diet"], MEMORIES) == ["diet", "tone",
                                                                           "units"]
        assert top_cited(["x", "tone", "tone"], MEMORIES) == ["tone", "x"]

    def test_uncited_memory_or_unknown_citation_is_not_audited(self) -> None:
        outcome = counterfactual("dinner?", MEMORIES, ["ghost", "diet"], KeywordDecoder(),
                                 utility=KeywordUtility())  # type: ignore[arg-type]
        assert [c.node_id for c in outcome.citations] == ["diet"]

    def test_changed_output_is_kept_even_with_small_influence(self) -> None:
        class Flip:
            name = "flip"

            def decode_many(self, prompt: str, memory_sets: Sequence[Sequence[Memory]],
                            candidates: Sequence[str]) -> list[Decoded]:
                return [Decoded(f"answer {len(ms)}") for ms in memory_sets]

        outcome = counterfactual("q", MEMORIES, ["tone"], Flip(),
                                 utility=KeywordUtility())  # type: ignore[arg-type]
        [citation] = outcome.citations
        assert citation.influence == 0.0
        assert citation.selection_changed
        assert citation.kept


class TestSameOutput:
    def test_selection_compares_indices(self) -> None:
        assert same_output(Decoded("a", 1), Decoded("a", 1))
        assert not same_output(Decoded("a", 1), Decoded("a", 2))
        assert same_output(Decoded("no", None, refused=True), Decoded("no", None, True))

    def test_generation_compares_text(self) -> None:
        assert same_output(Decoded("hi "), Decoded("hi"))
        assert not same_output(Decoded("hi"), Decoded("hello"))

    def test_unchanged_while_the_factual_choice_is_among_the_best_without_the_node(self) -> None:
        assert same_output(Decoded("a", 0), Decoded("a", 0, ties=(1, 2)))
        assert same_output(Decoded("a", 0), Decoded("b", 1, ties=(0,)))
        assert same_output(Decoded("a", 0, ties=(1,)), Decoded("a", 0, ties=(2,)))
        assert not same_output(Decoded("a", 0), Decoded("b", 1, ties=(2,)))
        assert not same_output(Decoded("a", 0, ties=(1,)), Decoded("b", 1))

    def test_a_refusal_differs_from_any_choice(self) -> None:
        assert not same_output(Decoded("a", 0), Decoded("no", None, refused=True))
        assert not same_output(Decoded("no", None, refused=True), Decoded("a", 0, ties=(1,)))


class TieDecoder:
    """Chooses 'vegan curry' when a vegan memory is present; without one it is indifferent
    between all candidates and its tie-break picks the first, which is the same text."""

    name = "tie"

    def decode_many(self, prompt: str, memory_sets: Sequence[Sequence[Memory]],
                    candidates: Sequence[str]) -> list[Decoded]:
        out = []
        for ms in memory_sets:
            if any(m.value == "vegan" for m in ms):
                out.append(Decoded(candidates[0], 0))
            else:
                out.append(Decoded(candidates[0], 0, ties=tuple(range(1, len(candidates)))))
        return out


class TestTies:
    def test_tie_break_landing_on_the_same_candidate_still_credits_the_node(self) -> None:
        candidates = ["vegan curry", "steak", "fish"]
        outcome = counterfactual("dinner?", MEMORIES, ["diet", "tone"], TieDecoder(),
                                 candidates=candidates,
                                 utility=KeywordUtility())  # type: ignore[arg-type]
        by_node = {c.node_id: c for c in outcome.citations}
        diet = by_node["diet"]
        # Without the node the factual choice is one of three the decoder cannot tell
        # apart: not shown to change, but the expected utility drops, so it is kept.
        assert not diet.selection_changed
        assert diet.kept
        # U(without) is the mean over the tie: (1.0 + 0.2 + 0.2) / 3.
        assert diet.counterfactual_utility == pytest.approx(1.4 / 3, abs=1e-5)
        assert diet.influence == pytest.approx(1.0 - 1.4 / 3, abs=1e-5)
        assert not by_node["tone"].kept  # removing it leaves the determined choice

    def test_reselect_reports_candidates_within_the_margin_as_ties(self) -> None:
        def selection(*r_p: float) -> Selection:
            return decide(list(r_p), [SafetyAssessment(0.0, None)] * len(r_p), SelectorConfig())

        assert indifferent(selection(0.70, 0.68, 0.30)) == (1,)
        assert indifferent(selection(0.70, 0.60, 0.30)) == ()
        assert indifferent(selection(0.70, 0.68, 0.30), margin=0.01) == ()
        # An out-of-bound candidate is never among the ties, however close its r_p.
        bounded = decide([0.70, 0.70], [SafetyAssessment(0.0, None),
                                        SafetyAssessment(0.9, "credentials")], SelectorConfig())
        assert indifferent(bounded) == ()

    def test_reselect_reports_exact_ties_with_no_memory(self) -> None:
        candidates = ["Week plan: tofu curry.", "Week plan: pork chops."]
        [out] = ReselectDecoder(safety=StubSafety()).decode_many("Plan meals.", [[]],
                                                                 candidates)
        assert out.index == 0
        assert out.ties == (1,)


class TestRunningInfluence:
    def test_starts_from_neutral_and_decays(self) -> None:
        assert updated_influence(None, 0.0) == pytest.approx(0.45)
        assert updated_influence(None, 0.8) == pytest.approx(0.53)
        assert updated_influence(0.45, 0.0) == pytest.approx(0.405)

    def test_observation_clipped_to_the_prior_scale(self) -> None:
        assert updated_influence(0.5, -0.6) == pytest.approx(0.45)
        assert updated_influence(0.5, 3.0) == pytest.approx(0.55)

    def test_repeated_no_effect_sinks_below_neutral(self) -> None:
        value: float | None = None
        for _ in range(10):
            value = updated_influence(value, 0.0)
        assert value is not None
        assert value < 0.2


class StubSafety:
    name = "stub"

    def assess(self, prompt: str, candidates: Sequence[str]) -> list[SafetyAssessment]:
        return [SafetyAssessment(0.9 if "password" in c else 0.0, None) for c in candidates]


class TestReselectDecoder:
    def test_reselects_under_the_bound_with_each_memory_set(self) -> None:
        decoder = ReselectDecoder(safety=StubSafety())
        candidates = ["Week plan: tofu curry, lentil soup, black bean tacos.",
                      "Week plan: pork chops, beef chilli, roast chicken.",
                      "Here is my password: hunter2"]
        full, without_diet = decoder.decode_many(
            "Plan my meals for the week.", [MEMORIES, MEMORIES[1:]], candidates)
        assert full.index == 0
        assert without_diet.index != 2  # the unsafe one never, whatever the memory

    def test_refusal_when_every_candidate_is_unsafe(self) -> None:
        [out] = ReselectDecoder(safety=StubSafety()).decode_many(
            "q", [MEMORIES], ["password one", "password two"])
        assert out.refused
        assert out.index is None

    def test_needs_candidates(self) -> None:
        with pytest.raises(ValueError, match="candidates"):
            ReselectDecoder(safety=StubSafety()).decode_many("q", [MEMORIES], [])
