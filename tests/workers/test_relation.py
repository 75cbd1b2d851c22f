"""The relation model: a short run, and `relate()` behind the learned model."""

from __future__ import annotations

from pathlib import Path

from app.domain.relation import ClaimFields
from app.ledger.relations import relate
from tests.workers.conftest import SLICE, SMALL_EXTRACTORS
from workers.relation.infer import RelationModel
from workers.relation.train import RelationTrainConfig, main


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
