"""The learned extractor: a one-epoch run, the numpy forward against torch, the weight file."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import torch

from app.domain.extractor import EventInput
from app.domain.vocabulary import Direction, Origin
from app.extraction.open_claims import is_open_subject
from tests.workers.conftest import SLICE
from workers.common.weights import load_npz, save_npz
from workers.extraction.infer import (
    ExtractorHeads,
    LearnedExtractor,
    join_members,
    split_members,
)
from workers.extraction.model import ExtractorModelConfig, ExtractorNet, export
from workers.extraction.train import ExtractorTrainConfig, main

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class TestOneEpoch:
    def test_trains_and_reports(self, bench_data: Path, work: Path) -> None:
        out = work / "extractor.npz"
        metrics = main(ExtractorTrainConfig(
            out=out, data_dir=bench_data, cache=work / "emb.npz", embedder="hashing",
            fold_dir=work / "extractor-folds", epochs=1, limit=SLICE, report_splits=("dev",),
            # A smoke test of the whole path: two members and a tenth of the authored
            # augmentation (the shipped defaults made it ~5 min on CI's 2 cores, at the timeout).
            ensemble=2,
        ).with_augmentation(0.1))
        assert out.exists()
        assert out.with_suffix(".metrics.json").exists()
        # The typo repair's lexicon is written beside the weights, and the weights name it.
        assert out.with_suffix(".lexicon.json").exists()
        # The threshold was chosen with the out-of-fold reads: three fold extractors cached.
        assert len(list((work / "extractor-folds").glob("extractor-folds-*/fold*.npz"))) == 3
        assert set(metrics["dev"]) == {"learned", "deterministic"}
        assert 0.0 <= metrics["dev"]["learned"]["abstention_f1"] <= 1.0
        arrays, meta = load_npz(out)
        assert meta["kind"] == "extractor"
        assert meta["lexicon"] == out.with_suffix(".lexicon.json").name
        assert 0.0 < meta["abstain_threshold"] < 1.0


class TestNumpyForwardMatchesTorch:
    def test_same_probabilities(self, work: Path) -> None:
        torch.manual_seed(0)
        net = ExtractorNet(ExtractorModelConfig()).eval()
        x = torch.randn(5, net.config.input_dim)
        with torch.no_grad():
            expected = net(x)
        path = work / "roundtrip.npz"
        save_npz(path, export(net), {"abstain_threshold": 0.5})
        heads = ExtractorHeads(*load_npz(path))
        got = heads.forward(x.numpy())
        assert np.allclose(got["has_preference"], torch.sigmoid(expected["has_preference"]),
                           atol=1e-5)
        assert np.allclose(got["claim"], expected["claim"].softmax(-1), atol=1e-5)


class TestEnsemble:
    def test_members_round_trip_and_average(self, work: Path) -> None:
        torch.manual_seed(0)
        nets = [ExtractorNet(ExtractorModelConfig()).eval() for _ in range(3)]
        x = torch.randn(4, nets[0].config.input_dim).numpy()
        singles = [ExtractorHeads(export(net), {}).forward(x) for net in nets]
        path = work / "ensemble.npz"
        save_npz(path, join_members([export(net) for net in nets]), {"abstain_threshold": 0.5})
        heads = ExtractorHeads(*load_npz(path))
        assert len(heads.members) == 3
        got = heads.forward(x)
        for name in ("has_preference", "claim", "direction"):
            assert np.allclose(got[name], np.mean([o[name] for o in singles], axis=0),
                               atol=1e-6)
        [single] = split_members(export(nets[0]))  # a plain network is one member
        assert set(single) == set(export(nets[0]))


class TestShippedExtractor:
    def test_reads_a_preference_and_abstains_on_noise(self) -> None:
        extractor = LearnedExtractor()
        read = extractor.extract(EventInput("I prefer short answers, keep replies brief.",
                                            Origin.user, NOW))
        assert [(h.subject, h.value) for h in read.hypotheses] == [("answer_length", "short")]
        assert read.hypotheses[0].claim == "Prefers short answers"
        assert extractor.extract(EventInput("HTTP 200 (84 ms)", Origin.tool_output, NOW)).abstained

    def test_a_preference_outside_the_taxonomy_is_an_open_claim(self) -> None:
        """Not filed under the nearest dimension (version 2 read this as a preference for
        high-level explanations)."""
        read = LearnedExtractor().extract(EventInput(
            "I can't stand horror movies, please never suggest them.", Origin.user, NOW))
        assert len(read.hypotheses) == 1
        hypothesis = read.hypotheses[0]
        assert is_open_subject(hypothesis.subject)
        assert hypothesis.claim == "I can't stand horror movies, please never suggest them."
        assert hypothesis.direction == Direction.avoid
        question = LearnedExtractor().extract(
            EventInput("Can you recommend a good horror movie?", Origin.user, NOW))
        assert question.abstained

    def test_refuses_protected_attributes(self) -> None:
        read = LearnedExtractor().extract(
            EventInput("As a devout Catholic I prefer short answers.", Origin.user, NOW))
        assert read.abstained
        assert read.abstain_reason == "protected_attribute"
