"""The relation model: a short run, and `relate()` behind the learned model."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from app.core.embeddings import HashingEmbedder
from app.domain.claims import Hypothesis
from app.domain.relation import ClaimFields
from app.domain.vocabulary import Direction, Origin
from app.ledger.relations import relate
from tests.workers.conftest import SLICE, SMALL_EXTRACTORS
from workers.common.embedding_cache import EmbeddingCache
from workers.common.episodes import Episode, EventRecord
from workers.relation.fixed_dot import fixed_order_dots
from workers.relation.infer import RelationModel
from workers.relation.train import (
    CONTRADICTS,
    UNRELATED,
    RelationTrainConfig,
    main,
    pairs,
)

# (dimension, value) each event states; None: no preference.
STATED = [("answer_length", "short"), ("code_language", "python"), None,
          ("answer_length", "detailed")]


def _episode() -> Episode:
    events = tuple(
        EventRecord(
            episode_id="e", index=i, occurred_at=datetime(2024, 1, 1, i, tzinfo=UTC),
            origin=Origin.user, text=f"event {i}", label="",
            oracle={"action": "retain"} if stated is None else {
                "action": "add", "dimension": stated[0], "value": stated[1],
                "direction": "prefer"},
        )
        for i, stated in enumerate(STATED)
    )
    return Episode("e", "u", "T0", events)


def _reads() -> list[Hypothesis | None]:
    return [None if stated is None else Hypothesis(
        claim=f"Prefers {stated[1]}", subject=stated[0], value=stated[1],
        direction=Direction.prefer, confidence=0.9, provenance=Origin.user)
        for stated in STATED]


class TestShortRun:
    def test_trains_and_scores_both_readers(self, bench_data: Path, work: Path) -> None:
        out = work / "relation.npz"
        metrics = main(RelationTrainConfig(
            out=out, data_dir=bench_data, cache=work / "emb.npz", embedder="hashing",
            work_dir=work / "gate-work", epochs=2, extractor_epochs=1, limit=SLICE,
            report_splits=("dev",), **SMALL_EXTRACTORS,
        ))
        assert set(metrics["dev"]) == {"learned", "heuristic"}
        relation = RelationModel(out).relate(
            ClaimFields("answer_length", "short", "prefer"),
            ClaimFields("answer_length", "short", "prefer"), 0.99)
        assert 0.0 <= relation.supports <= 1.0
        assert 0.0 <= relation.contradicts <= 1.0


class TestPairs:
    def test_each_read_meets_the_earlier_reads_of_its_subject_and_one_other(
        self, tmp_path: Path
    ) -> None:
        cache = EmbeddingCache(tmp_path / "emb.npz", HashingEmbedder())
        x, y, raw = pairs([_episode()], _reads(), cache, 1, np.random.default_rng(0))
        # python meets short (across subjects); detailed meets short, then python.
        assert [(a.value, b.value) for a, b, _ in raw] == [
            ("python", "short"), ("detailed", "short"), ("detailed", "python")]
        assert y.tolist() == [UNRELATED, CONTRADICTS, UNRELATED]
        assert x[:, 0].tolist() == [0.0, 1.0, 0.0]  # same subject

    def test_cosines_are_summed_in_the_fixed_order(self, tmp_path: Path) -> None:
        cache = EmbeddingCache(tmp_path / "emb.npz", HashingEmbedder())
        x, _, raw = pairs([_episode()], _reads(), cache, 1, np.random.default_rng(0))
        claims = {f"Prefers {value}": value for value in ("short", "python", "detailed")}
        vectors = dict(zip(claims.values(), cache.embed(list(claims)), strict=True))
        expected = fixed_order_dots([vectors[str(a.value)] for a, _, _ in raw],
                                    [vectors[str(b.value)] for _, b, _ in raw])
        assert x[:, 5].tolist() == expected.tolist()

    def test_no_cross_subject_pairs_when_asked_for_none(self, tmp_path: Path) -> None:
        cache = EmbeddingCache(tmp_path / "emb.npz", HashingEmbedder())
        _, y, raw = pairs([_episode()], _reads(), cache, 0, np.random.default_rng(0))
        assert [(a.value, b.value) for a, b, _ in raw] == [("detailed", "short")]
        assert y.tolist() == [CONTRADICTS]


class TestShippedRecipe:
    def test_is_the_default(self) -> None:
        # The shipped weights learned on train read by the shipped extractor's out-of-fold
        # recipe, without the revision-side turns (docs/models/relation.md).
        cfg = RelationTrainConfig()
        assert (cfg.authored_frames, cfg.revision_side) == (False, False)


class TestShippedRelationModel:
    def test_same_claim_supports_other_value_contradicts(self) -> None:
        short = ClaimFields("answer_length", "short", "prefer")
        same = relate(short, short, 1.0, model=True)
        other = relate(ClaimFields("answer_length", "detailed", "prefer"), short, 0.6, model=True)
        assert same.supports >= 0.75
        assert same.contradicts < 0.2
        assert other.contradicts >= 0.7
        assert other.supports < 0.2

    def test_heuristic_stays_available(self) -> None:
        short = ClaimFields("answer_length", "short", "prefer")
        assert relate(short, short, 1.0, model=False).supports == 1.0
