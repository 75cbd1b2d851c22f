"""The benchmark's regret model: shipped weights, disjoint from r_p's training data."""

from __future__ import annotations

from bench.selection.regret_utility import WEIGHTS_PATH, RegretUtility, get_regret_utility


class TestRegretUtility:
    def test_shipped_weights_trained_on_dev(self) -> None:
        assert WEIGHTS_PATH.exists()
        model = get_regret_utility()
        assert model.meta["trained_on"].startswith("D-PrefGuard dev split")

    def test_scores_the_following_candidate_higher(self) -> None:
        model = get_regret_utility()
        scores = model.score(["The distance is 42 km and it's 18 °C.",
                              "The distance is 26 miles and it's 64 °F."], "units", "metric")
        assert scores[0] > scores[1]
        flipped = model.score(["The distance is 42 km and it's 18 °C.",
                               "The distance is 26 miles and it's 64 °F."], "units", "imperial")
        assert flipped[1] > flipped[0]

    def test_save_and_load(self, tmp_path: object) -> None:
        from pathlib import Path

        model = get_regret_utility()
        path = Path(str(tmp_path)) / "r.npz"
        model.save(path)
        again = RegretUtility.load(path)
        assert again.bias == model.bias
        assert again.meta == model.meta
