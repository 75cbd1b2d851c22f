"""Safety-bounded best-of-N (paper §3.4, eq. 5):

    y* = argmax_y  w_p · r_p(y) − w_s · r_s(y)   subject to   r_s(y) ≤ τ_safe

and a calibrated refusal, naming the harm, when every candidate violates the bound. Pure:
memories and candidates in, a Selection out; the benchmark calls it directly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.core.config import Settings
from app.selection.memory import Memory
from app.selection.safety import SafetyAssessment, SafetyScorer, get_safety_scorer
from app.selection.safety_lexicon import CATEGORIES
from app.selection.utility import PreferenceUtility, get_utility

# Paper, Appendix B.
WEIGHT_UTILITY = 1.0  # w_p
WEIGHT_SAFETY = 2.0  # w_s
TAU_SAFE = 0.35  # τ_safe
# Objectives closer than this are equal: float round-off, not a preference.
TIE_TOLERANCE = 1e-9

_REASONS = {c.name: c.reason for c in CATEGORIES}
GENERIC_REASON = "exceed this deployment's safety bound"


@dataclass(frozen=True, slots=True)
class SelectorConfig:
    weight_utility: float = WEIGHT_UTILITY
    weight_safety: float = WEIGHT_SAFETY
    # None removes the bound: the benchmark's ablation only; the service always has one.
    tau_safe: float | None = TAU_SAFE

    @classmethod
    def from_settings(cls, settings: Settings) -> SelectorConfig:
        return cls(settings.selector_weight_utility, settings.selector_weight_safety,
                   settings.selector_tau_safe)


@dataclass(frozen=True, slots=True)
class CandidateScore:
    index: int
    r_p: float
    r_s: float
    objective: float  # w_p · r_p − w_s · r_s
    within_bound: bool
    safety_category: str | None


@dataclass(frozen=True, slots=True)
class Refusal:
    message: str
    category: str | None  # the harm most candidates carried


@dataclass(frozen=True, slots=True)
class Selection:
    chosen: int | None  # index into the candidates; None when refused
    scores: tuple[CandidateScore, ...]
    refusal: Refusal | None
    config: SelectorConfig
    # Other in-bound candidates whose objective equals the chosen one's: between them the
    # tie-break (lower risk, then earlier) chose, not the memories. Empty when refused.
    tied: tuple[int, ...] = ()

    @property
    def refused(self) -> bool:
        return self.chosen is None


def choose(r_p: Sequence[float], r_s: Sequence[float],
           config: SelectorConfig) -> tuple[int | None, list[float]]:
    """The argmax under the bound (ties: lower risk, then earlier) and every objective."""
    objectives = [config.weight_utility * p - config.weight_safety * s
                  for p, s in zip(r_p, r_s, strict=True)]
    allowed = [i for i, s in enumerate(r_s) if config.tau_safe is None or s <= config.tau_safe]
    if not allowed:
        return None, objectives
    best = min(allowed, key=lambda i: (-objectives[i], r_s[i], i))
    return best, objectives


def refusal_for(assessments: Sequence[SafetyAssessment]) -> Refusal:
    """A refusal that says which harm blocked the candidates, not a generic apology."""
    counts = Counter(a.category for a in assessments if a.category)
    category = counts.most_common(1)[0][0] if counts else None
    reason = _REASONS.get(category or "", GENERIC_REASON)
    message = (f"I can't send any of the drafted responses: each would {reason}. "
               "I can help with a version that avoids that.")
    return Refusal(message, category)


def select_candidates(memories: Sequence[Memory], candidates: Sequence[str], *,
                      prompt: str = "", config: SelectorConfig | None = None,
                      utility: PreferenceUtility | None = None,
                      safety: SafetyScorer | None = None) -> Selection:
    """Best-of-N over `candidates` given the retrieved `memories` (benchmark hook)."""
    config = config or SelectorConfig()
    utility = utility or get_utility()
    safety = safety or get_safety_scorer()
    r_p = [float(x) for x in utility.score(prompt, memories, candidates)]
    assessments = safety.assess(prompt, candidates)
    return decide(r_p, assessments, config)


def decide(r_p: Sequence[float], assessments: Sequence[SafetyAssessment],
           config: SelectorConfig) -> Selection:
    r_s = [a.risk for a in assessments]
    chosen, objectives = choose(r_p, r_s, config)
    scores = tuple(
        CandidateScore(
            index=i, r_p=round(p, 6), r_s=round(s, 6), objective=round(o, 6),
            within_bound=config.tau_safe is None or s <= config.tau_safe,
            safety_category=a.category,
        )
        for i, (p, s, o, a) in enumerate(zip(r_p, r_s, objectives, assessments, strict=True))
    )
    refusal = refusal_for(assessments) if chosen is None else None
    return Selection(chosen, scores, refusal, config, tied_with(chosen, objectives, scores))


def tied_with(chosen: int | None, objectives: Sequence[float],
              scores: Sequence[CandidateScore],
              tolerance: float = TIE_TOLERANCE) -> tuple[int, ...]:
    """The in-bound candidates other than `chosen` whose objective is within `tolerance` of
    its objective (by default: equal to it)."""
    if chosen is None:
        return ()
    best = objectives[chosen]
    return tuple(s.index for s in scores if s.index != chosen and s.within_bound
                 and abs(objectives[s.index] - best) <= tolerance)


def expected_utility(r_p: np.ndarray, chosen: int | None, refusal_utility: float) -> float:
    return refusal_utility if chosen is None else float(r_p[chosen])
