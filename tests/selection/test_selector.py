"""The safety-bounded argmax (paper eq. 5), pure."""

from __future__ import annotations

import pytest

from app.core.config import Settings
from app.selection.memory import Memory
from app.selection.safety import SafetyAssessment
from app.selection.selector import (
    TAU_SAFE,
    SelectorConfig,
    choose,
    decide,
    refusal_for,
    select_candidates,
)


class StubSafety:
    name = "stub"

    def __init__(self, risks: list[float], category: str | None = None) -> None:
        self.risks = risks
        self.category = category

    def assess(self, prompt: str, candidates: list[str]) -> list[SafetyAssessment]:
        return [SafetyAssessment(r, self.category if r > 0.35 else None) for r in self.risks]


class TestChoose:
    def test_argmax_of_the_weighted_objective(self) -> None:
        chosen, objectives = choose([0.2, 0.9, 0.6], [0.0, 0.3, 0.0], SelectorConfig())
        assert objectives == pytest.approx([0.2, 0.3, 0.6])
        assert chosen == 2

    def test_the_bound_excludes_even_the_best_utility(self) -> None:
        chosen, _ = choose([1.0, 0.1], [0.36, 0.0], SelectorConfig())
        assert chosen == 1

    def test_the_bound_is_inclusive(self) -> None:
        assert choose([0.5], [TAU_SAFE], SelectorConfig())[0] == 0

    def test_refusal_when_all_violate(self) -> None:
        assert choose([0.9, 0.8], [0.5, 0.9], SelectorConfig())[0] is None

    def test_ties_prefer_lower_risk_then_earlier(self) -> None:
        config = SelectorConfig(weight_utility=1.0, weight_safety=0.0)
        assert choose([0.5, 0.5, 0.5], [0.2, 0.1, 0.1], config)[0] == 1

    def test_ablation_without_the_bound(self) -> None:
        config = SelectorConfig(tau_safe=None, weight_safety=0.0)
        assert choose([1.0, 0.1], [0.9, 0.0], config)[0] == 0

    def test_config_from_settings_only(self) -> None:
        settings = Settings(selector_tau_safe=0.2, selector_weight_safety=3.0)
        assert SelectorConfig.from_settings(settings) == SelectorConfig(1.0, 3.0, 0.2)
        assert SelectorConfig.from_settings(Settings()) == SelectorConfig(1.0, 2.0, 0.35)


class TestRefusal:
    def test_names_the_most_common_harm(self) -> None:
        refusal = refusal_for([SafetyAssessment(0.9, "personal_data"),
                               SafetyAssessment(0.8, "personal_data"),
                               SafetyAssessment(0.7, "harassment")])
        assert refusal.category == "personal_data"
        assert "personal, identity or payment data" in refusal.message

    def test_generic_when_no_category(self) -> None:
        refusal = refusal_for([SafetyAssessment(0.9, None)])
        assert refusal.category is None
        assert "safety bound" in refusal.message

    def test_decide_reports_every_candidate(self) -> None:
        selection = decide([0.9, 0.2], [SafetyAssessment(0.8, "harassment"),
                                        SafetyAssessment(0.9, "harassment")], SelectorConfig())
        assert selection.refused
        assert selection.refusal is not None
        assert selection.refusal.category == "harassment"
        assert [s.within_bound for s in selection.scores] == [False, False]


class TestSelectCandidates:
    def test_hook_with_stub_safety_and_shipped_utility(self) -> None:
        memories = [Memory("m1", subject="units", value="metric")]
        candidates = ["A half marathon is 13.1 miles; carry 16 oz of water.",
                      "A half marathon is 21.1 km; carry half a litre of water."]
        selection = select_candidates(memories, candidates, prompt="How far is a half marathon?",
                                      safety=StubSafety([0.0, 0.0]))
        assert selection.chosen == 1
        blocked = select_candidates(memories, candidates, prompt="How far is a half marathon?",
                                    safety=StubSafety([0.0, 0.9], "self_harm"))
        assert blocked.chosen == 0
