"""Evidence F1 and influence AUC of the citation audit."""

from __future__ import annotations

import math

import pytest

from bench.common.audit_metrics import EvidenceCounts, evidence_counts, evidence_f1, influence_auc


class TestEvidenceF1:
    def test_counts(self) -> None:
        counts = evidence_counts(kept=["a", "b"], necessary=["a", "c"])
        assert counts == EvidenceCounts(true_positive=1, false_positive=1, false_negative=1)
        assert counts.f1 == pytest.approx(0.5)

    def test_audited_limits_the_necessary_set(self) -> None:
        counts = evidence_counts(kept=["a"], necessary=["a", "z"], audited=["a", "b"])
        assert counts.f1 == 1.0

    def test_micro_average_over_turns(self) -> None:
        turns = [(["a"], ["a"]), ([], ["b"]), (["c"], [])]
        assert evidence_f1(turns) == pytest.approx(0.5)  # tp 1, fp 1, fn 1

    def test_nothing_kept_nothing_needed(self) -> None:
        assert evidence_f1([([], [])]) == 0.0


class TestInfluenceAUC:
    def test_perfect_and_reversed(self) -> None:
        assert influence_auc([0.9, 0.8, 0.0, 0.01], [True, True, False, False]) == 1.0
        assert influence_auc([0.0, 0.01, 0.9, 0.8], [True, True, False, False]) == 0.0

    def test_magnitude_counts_not_sign(self) -> None:
        assert influence_auc([-0.7, 0.0], [True, False]) == 1.0

    def test_ties_count_half(self) -> None:
        assert influence_auc([0.0, 0.0, 0.0], [True, False, False]) == pytest.approx(0.5)
        assert influence_auc([0.5, 0.0, 0.5], [True, False, False]) == pytest.approx(0.75)

    def test_matches_pairwise_definition(self) -> None:
        scores = [0.3, 0.1, 0.3, 0.7, 0.0, 0.2]
        labels = [True, False, False, True, False, True]
        pos = [s for s, y in zip(scores, labels, strict=True) if y]
        neg = [s for s, y in zip(scores, labels, strict=True) if not y]
        pairs = [1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg]
        assert influence_auc(scores, labels) == pytest.approx(sum(pairs) / len(pairs))

    def test_one_class_is_nan(self) -> None:
        assert math.isnan(influence_auc([0.1, 0.2], [True, True]))
