"""Metrics of the counterfactual citation audit (paper §3.4 and §5).

- Evidence F1: the citations the audit kept against the set of cited memories that were
  necessary for the right response (the generator knows which ones are).
- Influence AUC: how well |Inf(n)| ranks necessary above unnecessary cited memories — a
  rank statistic against the necessity labels, not against a threshold on |Inf| itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EvidenceCounts:
    true_positive: int = 0
    false_positive: int = 0
    false_negative: int = 0

    def __add__(self, other: EvidenceCounts) -> EvidenceCounts:
        return EvidenceCounts(self.true_positive + other.true_positive,
                              self.false_positive + other.false_positive,
                              self.false_negative + other.false_negative)

    @property
    def precision(self) -> float:
        kept = self.true_positive + self.false_positive
        return self.true_positive / kept if kept else 0.0

    @property
    def recall(self) -> float:
        needed = self.true_positive + self.false_negative
        return self.true_positive / needed if needed else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def evidence_counts(kept: Iterable[str], necessary: Iterable[str],
                    audited: Iterable[str] | None = None) -> EvidenceCounts:
    """One turn. `audited` (the cited nodes the audit could judge) limits the necessary set
    to what was cited; by default every necessary node counts."""
    kept_set, needed = set(kept), set(necessary)
    if audited is not None:
        needed &= set(audited)
    return EvidenceCounts(len(kept_set & needed), len(kept_set - needed), len(needed - kept_set))


def evidence_f1(turns: Iterable[tuple[Iterable[str], Iterable[str]]]) -> float:
    """Micro-averaged F1 over turns of (kept, necessary)."""
    total = EvidenceCounts()
    for kept, necessary in turns:
        total = total + evidence_counts(kept, necessary)
    return total.f1


def influence_auc(influence: Sequence[float], necessary: Sequence[bool]) -> float:
    """P(|Inf| of a necessary citation > |Inf| of an unnecessary one), ties counting ½
    (the Mann–Whitney U statistic). NaN when either class is empty."""
    if len(influence) != len(necessary):
        raise ValueError("one label per influence")
    scored = sorted((abs(x), bool(y)) for x, y in zip(influence, necessary, strict=True))
    positives = sum(1 for _, y in scored if y)
    negatives = len(scored) - positives
    if positives == 0 or negatives == 0:
        return float("nan")
    # Average ranks over ties, then U = R_pos − n_pos (n_pos + 1) / 2.
    rank_sum = 0.0
    i = 0
    while i < len(scored):
        j = i
        while j + 1 < len(scored) and scored[j + 1][0] == scored[i][0]:
            j += 1
        average = (i + j) / 2 + 1
        rank_sum += average * sum(1 for k in range(i, j + 1) if scored[k][1])
        i = j + 1
    u = rank_sum - positives * (positives + 1) / 2
    return u / (positives * negatives)
