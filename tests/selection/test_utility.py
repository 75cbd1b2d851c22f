"""r_p: the numpy inference model, its torch twin used for training, and the trainer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from app.core.embeddings import HashingEmbedder
from app.selection.memory import Memory
from app.selection.style import FEATURE_NAMES, style_features
from app.selection.utility import (
    WEIGHTS_PATH,
    PreferenceUtility,
    UtilityWeights,
    get_utility,
)
from workers.selection.data import PoolExample, oracle_memories
from workers.selection.train import TorchUtility, UtilityTrainConfig, batch_tensors, main

MEMORIES = (Memory("g:diet", subject="diet", value="vegan"),
            Memory("c:diet", subject="diet", value="omnivore", scope="cooking"),
            Memory("g:tone", subject="tone", value="casual", direction="avoid"),
            Memory("free", claim="Lives near the sea"))
CANDIDATES = ("Try a tofu stir-fry.", "Roast chicken tonight.", "Done. Anything else?")


def _random_weights(seed: int = 0) -> UtilityWeights:
    rng = np.random.default_rng(seed)
    init = UtilityWeights.initial(rank=4)
    params = {k: float(v + rng.normal(0, 0.5)) for k, v in init.params.items()}
    offsets = rng.normal(0, 0.05, init.value_offsets().shape).astype(np.float32)
    none_slot = rng.normal(0, 0.3, (init.style.shape[0], init.style.shape[2] + 1))
    return UtilityWeights(params, rng.normal(0, 0.05, init.proj_u.shape).astype(np.float32),
                          rng.normal(0, 0.05, init.proj_v.shape).astype(np.float32),
                          rng.normal(0, 0.3, init.style.shape).astype(np.float32), {},
                          offsets, none_slot.astype(np.float32))


class TestTwins:
    def test_numpy_and_torch_agree(self) -> None:
        weights = _random_weights()
        model = PreferenceUtility(weights, HashingEmbedder())
        example = PoolExample("e", "T1", "For cooking tonight: suggest a dinner.", "diet",
                              "cooking", "omnivore", MEMORIES, CANDIDATES,
                              ("vegan", "omnivore", None), (0, 1, 0))
        net = TorchUtility(weights)
        with torch.no_grad():
            net.proj_u.copy_(torch.from_numpy(weights.proj_u))
            net.proj_v.copy_(torch.from_numpy(weights.proj_v))
            logits = net(batch_tensors([example], model))[0].numpy()
        expected = np.log(model.score(example.prompt, MEMORIES, CANDIDATES))
        expected -= np.log1p(-model.score(example.prompt, MEMORIES, CANDIDATES))
        assert logits == pytest.approx(expected, abs=1e-3)


class TestPresence:
    def test_numpy_and_torch_agree_with_a_presence_read_off(self) -> None:
        base = _random_weights(1)
        rng = np.random.default_rng(1)
        presence = np.stack([rng.normal(8, 2, 16), rng.normal(-2, 1, 16)], 1)
        weights = UtilityWeights(base.params, base.proj_u, base.proj_v, base.style, {},
                                 base.offsets, None, presence.astype(np.float32))
        model = PreferenceUtility(weights, HashingEmbedder())
        example = PoolExample("e", "T1", "Suggest a dinner.", "diet", "global", "vegan",
                              MEMORIES, CANDIDATES, ("vegan", "omnivore", None), (1, 0, 0))
        net = TorchUtility(weights)
        with torch.no_grad():
            net.proj_u.copy_(torch.from_numpy(weights.proj_u))
            net.proj_v.copy_(torch.from_numpy(weights.proj_v))
            logits = net(batch_tensors([example], model))[0].numpy()
        scores = model.score(example.prompt, MEMORIES, CANDIDATES)
        assert logits == pytest.approx(np.log(scores) - np.log1p(-scores), abs=1e-3)

    def test_a_memory_no_candidate_speaks_to_moves_none_of_them(self) -> None:
        """Shipped weights: a date-format memory leaves four translations of one summary
        (and a generic reply) within a hair of each other; a language memory separates
        them. (Before the read-off, r_p v2, the date-format memory spread them by 0.06.)"""
        utility = get_utility()
        texts = ["Resumen de hoy: los mercados estuvieron tranquilos.",
                 "Heutige Zusammenfassung: Die Märkte waren ruhig.",
                 "Today's summary: markets were calm.",
                 "Here you go — let me know if you'd like it adjusted."]
        prompt = "Give me today's market summary."
        unrelated = utility.score(prompt, [Memory("d", subject="date_format", value="us")],
                                  texts)
        related = utility.score(prompt, [Memory("l", subject="language", value="german")],
                                texts)
        assert np.ptp(unrelated) < 0.01
        assert int(np.argmax(related)) == 1
        assert np.ptp(related) > 0.5


class TestInference:
    def test_no_memory_means_no_preference(self) -> None:
        scores = PreferenceUtility(_random_weights(), HashingEmbedder()).score(
            "q", [], CANDIDATES)
        assert len(set(np.round(scores, 6).tolist())) == 1

    def test_shipped_weights_load_and_prefer_the_held_value(self) -> None:
        assert WEIGHTS_PATH.exists()
        utility = get_utility()
        assert utility.weights.meta["trained"] is True
        memories = [Memory("m", subject="format", value="table")]
        scores = utility.score("Compare the two phone plans.", memories, [
            "| Plan | Price |\n|---|---|\n| A | $20 |\n| B | $35 |",
            "Plan A costs $20 and plan B costs $35, so A is cheaper.",
        ])
        assert scores[0] > scores[1]

    def test_avoid_flips_the_sign(self) -> None:
        utility = get_utility()
        texts = ["Hey! Quick heads up, we're out of coffee lol",
                 "Dear colleagues, please be advised that the coffee supply is exhausted."]
        prefer = utility.score("Write a note about the coffee.",
                               [Memory("m", subject="tone", value="casual")], texts)
        avoid = utility.score("Write a note about the coffee.",
                              [Memory("m", subject="tone", value="casual",
                                      direction="avoid")], texts)
        assert prefer[0] > prefer[1]
        assert avoid[0] < avoid[1]

    def test_style_features_are_bounded(self) -> None:
        vector = style_features("| a | b |\n|---|---|\n| 1 | 2 |\nSee [1]. 5 km, 3 miles 🎉")
        assert vector.shape == (len(FEATURE_NAMES),)
        assert np.all(vector >= 0)
        assert np.all(vector <= 5)


class TestOracleMemories:
    def test_global_and_scoped(self) -> None:
        memories = oracle_memories({"global": {"diet": "vegan"},
                                    "scoped": {"cooking": {"diet": "omnivore"}}})
        assert [(m.node_id, m.text) for m in memories] == [
            ("global:diet", "Prefers vegan food"),
            ("cooking:diet", "Prefers an omnivorous diet when cooking")]


class TestTrainer:
    def test_one_epoch_on_a_slice(self, tmp_path: Path) -> None:
        out = tmp_path / "utility.npz"
        meta = main(UtilityTrainConfig(out=out, epochs=1, limit=16, episodes_per_track=10,
                                       rank=2, report_splits=("dev",)))
        loaded = UtilityWeights.load(out)
        assert loaded.meta["trained"] is True
        assert 0.0 <= meta["held_out"]["dev"]["top1"] <= 1.0
        assert loaded.proj_u.shape == (384, 2)
        assert loaded.offsets is not None
        assert np.abs(loaded.offsets).sum() > 0
        # The presence read-off replaces the "none" slot.
        assert loaded.presence is not None
        assert loaded.presence.shape == (16, 2)
        assert loaded.none_slot is None
        assert meta["held_out"]["dev_presence"]["candidates"] > 0


class TestContrastive:
    def test_known_memory_is_read_only_through_its_value_evidence(self) -> None:
        """Without value evidence (w_value = 0) a known memory moves no candidate: its claim
        cosine, which is topical, is not read; a free-text claim's is."""
        weights = _random_weights()
        utility = PreferenceUtility(
            UtilityWeights({**weights.params, "w_value": 0.0}, weights.proj_u, weights.proj_v,
                           weights.style, {}, weights.offsets, weights.none_slot),
            HashingEmbedder())
        texts = ["Prefers vegan food", "Try a tofu stir-fry.", "Hi"]
        known = utility.score("Suggest a dinner.", [Memory("m", subject="diet", value="vegan")],
                              texts)
        free = utility.score("Suggest a dinner.", [Memory("f", claim="Prefers vegan food")],
                             texts)
        assert np.ptp(known) == pytest.approx(0.0, abs=1e-6)
        assert np.ptp(free) > 1e-3

    def test_weights_saved_before_the_new_parameters_still_load(self, tmp_path: Path) -> None:
        path = tmp_path / "old.npz"
        np.savez_compressed(path, params=np.array([0.5]), param_names=np.array(["bias"]),
                            proj_u=np.zeros((384, 0), np.float32),
                            proj_v=np.zeros((384, 0), np.float32),
                            style=UtilityWeights.initial().style, meta=np.array("{}"))
        loaded = UtilityWeights.load(path)
        assert loaded.params["bias"] == 0.5
        assert loaded.params["w_offset"] == 0.0
        assert loaded.offsets is None
        assert loaded.none_slot is None
